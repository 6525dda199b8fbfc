// CUDA kernels of the activation ops and of PaddlePaddle's `<type>_grad` ops, from the
// functors of activation_op.h shared with the CPU kernels.
#include "operators/activation/activation_op.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DenseTensor;
using framework::ExecutionContext;

template <typename T, typename F>
__global__ void UnaryKernel(const T* x, T* out, int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = f(x[i]);
  }
}

template <typename T, typename F>
__global__ void UnaryGradKernel(const T* v, const T* dout, T* dx, int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    dx[i] = f(v[i], dout[i]);
  }
}

template <typename Tag>
struct ActivationCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor x = *ctx.Input("X");
      DenseTensor* out = ctx.Output("Out");
      out->Resize(x.dims());
      out->set_lod(x.lod());
      T* o = out->mutable_data<T>(ctx.GetPlace());
      const int64_t n = x.numel();
      if (n == 0) return;
      UnaryKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          x.data<T>(), o, n, typename Tag::template Functor<T>{});
      cuda::CheckLaunch(ctx);
    }
  };
};

template <typename Tag>
struct ActivationGradCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor v = *ctx.Input(Tag::kGradDep);
      const DenseTensor dout = *ctx.Input("Out@GRAD");
      PL_ENFORCE(v.dims() == dout.dims(),
                 errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of `%s` "
                                         "%s, received %s",
                                         ctx.Type(), Tag::kGradDep, v.dims().ToString(),
                                         dout.dims().ToString()));
      DenseTensor* dx = ctx.Output("X@GRAD");
      dx->Resize(v.dims());
      dx->set_lod(v.lod());
      T* o = dx->mutable_data<T>(ctx.GetPlace());
      const int64_t n = v.numel();
      if (n == 0) return;
      UnaryGradKernel<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          v.data<T>(), dout.data<T>(), o, n, typename Tag::template GradFunctor<T>{});
      cuda::CheckLaunch(ctx);
    }
  };
};

}  // namespace

CudaKernelTable ActivationCudaKernels() {
  CudaKernelTable table;
  ForEachActivation([&](auto tag) {
    using Tag = decltype(tag);
    AddCudaKernels<ActivationCudaKernel<Tag>::template Kernel, float, double>(&table,
                                                                              Tag::kType);
  });
  ForEachActivationWithGradOp([&](auto tag) {
    using Tag = decltype(tag);
    AddCudaKernels<ActivationGradCudaKernel<Tag>::template Kernel, float, double>(
        &table, std::string(Tag::kType) + "_grad");
  });
  return table;
}

}  // namespace operators
}  // namespace paddle_like
