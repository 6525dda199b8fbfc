// CUDA kernels of quadratic, instantiating the functor shared with the CPU kernel.
#include <algorithm>

#include "operators/quadratic/quadratic_op.h"
#include "operators/quadratic/quadratic_op_cuda.h"
#include "platform/cuda/cuda_device_context.h"

namespace paddle_like {
namespace operators {

namespace {

template <typename T>
__global__ void QuadraticElementwise(const T* in, T* out, int64_t n, QuadraticFunctor<T> f) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = f(in[i]);
  }
}

}  // namespace

template <typename T>
void QuadraticCudaKernel(const framework::ExecutionContext& ctx) {
  const framework::DenseTensor* x = ctx.Input("X");
  framework::DenseTensor* out = ctx.Output("Out");
  const QuadraticFunctor<T> f{static_cast<T>(ctx.Attr<float>("a")),
                              static_cast<T>(ctx.Attr<float>("b")),
                              static_cast<T>(ctx.Attr<float>("c"))};
  const T* in = x->data<T>();
  T* o = out->mutable_data<T>(ctx.GetPlace());
  const int64_t n = x->numel();
  if (n == 0) return;  // A launch of zero blocks is an error.
  constexpr int kThreads = 256;
  // Enough blocks to fill the device; the grid-stride loop covers the rest.
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, 65535);
  const auto& dev = ctx.device_context<platform::CUDADeviceContext>();
  QuadraticElementwise<T><<<static_cast<int>(blocks), kThreads, 0, dev.stream()>>>(in, o, n, f);
  platform::CheckCuda(cudaGetLastError(), "quadratic CUDA kernel launch");
}

template void QuadraticCudaKernel<float>(const framework::ExecutionContext&);
template void QuadraticCudaKernel<double>(const framework::ExecutionContext&);

}  // namespace operators
}  // namespace paddle_like
