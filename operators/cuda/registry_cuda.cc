// The CUDA kernel table: every CUDA kernel of this build is registered here.
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {

void RegisterCudaKernels() {}

}  // namespace operators
}  // namespace paddle_like
