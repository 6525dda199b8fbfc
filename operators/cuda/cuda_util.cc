#include "operators/cuda/cuda_util.h"

#include "platform/errors.h"

namespace paddle_like {
namespace operators {
namespace cuda {

void CheckLaunch(const framework::ExecutionContext& ctx) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    throw errors::Fatal("op `%s`: CUDA kernel launch failed: %s", ctx.Type(),
                        cudaGetErrorString(status));
  }
}

}  // namespace cuda
}  // namespace operators
}  // namespace paddle_like
