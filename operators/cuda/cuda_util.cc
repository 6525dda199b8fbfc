#include "operators/cuda/cuda_util.h"

#include "framework/data_transform.h"
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

framework::DenseTensor ToHost(const framework::DenseTensor& t) {
  if (t.place().is_cpu()) return t;
  framework::DenseTensor host;
  framework::CopyTensor(t, platform::CPUPlace(), &host);
  return host;
}

double ReadScalar(const framework::ExecutionContext& ctx, const char* slot) {
  const framework::DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(t != nullptr && t->numel() == 1,
             errors::InvalidArgument("op `%s` input `%s`: expected a 1-element tensor, "
                                     "received %s",
                                     ctx.Type(), slot,
                                     t == nullptr ? "none" : t->dims().ToString()));
  framework::DenseTensor as_double;
  framework::CastTensor(ToHost(*t), framework::DataType::FLOAT64, &as_double);
  return as_double.data<double>()[0];
}

}  // namespace cuda
}  // namespace operators
}  // namespace paddle_like
