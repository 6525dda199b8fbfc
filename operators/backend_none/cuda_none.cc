// Stand-in for builds without CUDA.
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {
void RegisterCudaKernels() {}
}  // namespace operators
}  // namespace paddle_like
