// Placeholder: the op arrives in a following change.
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {
void RegisterAdamOp() {}
}  // namespace operators
}  // namespace paddle_like
