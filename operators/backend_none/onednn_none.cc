// Stand-in for builds without oneDNN.
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {
void RegisterOneDNNKernels() {}
}  // namespace operators
}  // namespace paddle_like
