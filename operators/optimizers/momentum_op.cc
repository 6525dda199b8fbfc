// Placeholder: the op arrives in a following change.
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {
void RegisterMomentumOp() {}
}  // namespace operators
}  // namespace paddle_like
