// CUDA kernels of quadratic, instantiating the functor shared with the CPU kernel.
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/map_kernels.cuh"
#include "operators/quadratic/quadratic_op.h"

namespace paddle_like {
namespace operators {

namespace {

// Out = a * X^2 + b * X + c on the op's CUDA stream.
template <typename T>
struct QuadraticCudaKernel {
  static void Compute(const framework::ExecutionContext& ctx) {
    const framework::DenseTensor x = *ctx.Input("X");
    const QuadraticFunctor<T> f{static_cast<T>(ctx.Attr<float>("a")),
                                static_cast<T>(ctx.Attr<float>("b")),
                                static_cast<T>(ctx.Attr<float>("c"))};
    T* o = ctx.Output("Out")->mutable_data<T>(ctx.GetPlace());
    if (x.numel() > 0) cuda::Map(ctx, x.data<T>(), o, x.numel(), f);
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
