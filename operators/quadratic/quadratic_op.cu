// CUDA kernels of quadratic, instantiating the functor shared with the CPU kernel.
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/quadratic/quadratic_op.h"

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

// Out = a * X^2 + b * X + c on the op's CUDA stream.
template <typename T>
struct QuadraticCudaKernel {
  static void Compute(const framework::ExecutionContext& ctx) {
    const framework::DenseTensor x = *ctx.Input("X");
    const QuadraticFunctor<T> f{static_cast<T>(ctx.Attr<float>("a")),
                                static_cast<T>(ctx.Attr<float>("b")),
                                static_cast<T>(ctx.Attr<float>("c"))};
    T* o = ctx.Output("Out")->mutable_data<T>(ctx.GetPlace());
    const int64_t n = x.numel();
    if (n == 0) return;  // A launch of zero blocks is an error.
    QuadraticElementwise<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
        x.data<T>(), o, n, f);
    cuda::CheckLaunch(ctx);
  }
};

}  // namespace

CudaKernelTable QuadraticCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<QuadraticCudaKernel, float, double>(&table, "quadratic");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
