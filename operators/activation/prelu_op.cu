// CUDA kernels of prelu and prelu_grad (float, double), from the formulas and the Alpha map
// of prelu_op.h shared with the CPU kernels. Alpha's gradient is deterministic without
// atomics: one thread per element of Alpha adds its elements' terms in increasing order of
// X's index, the CPU's order (the device may fuse a term's product into the addition, so the
// two agree up to that rounding). In mode all that is one thread.
#include "operators/activation/prelu_op.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DenseTensor;
using framework::ExecutionContext;

template <typename T>
__global__ void PreluElements(const T* x, const T* alpha, const T* dout, int64_t n, AlphaIndex at,
                              T* out) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    out[i] = dout ? PreluInputGrad(x[i], alpha[at(i)], dout[i]) : PreluValue(x[i], alpha[at(i)]);
  }
}

// da[a] = the sum of the terms of the elements i with at(i) == a, by increasing i.
template <typename T>
__global__ void PreluAlphaGrad(const T* x, const T* dout, int64_t n, int64_t alpha_n, AlphaIndex at,
                               T* da) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t a = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; a < alpha_n;
       a += step) {
    T sum = T(0);
    // The first element of Alpha element a and the strides between its elements, in order:
    // mode all reads every element; channels first read `inner` consecutive elements every
    // channels * inner; channels last and mode element read one every channels / per_sample.
    int64_t first = 0, run = n, period = n;
    if (at.mode == AlphaIndex::kElement) {
      first = a, run = 1, period = at.per_sample;
    } else if (at.mode == AlphaIndex::kChannel) {
      if (at.channel_last) {
        first = a, run = 1, period = at.channels;
      } else {
        first = a * at.inner, run = at.inner, period = at.channels * at.inner;
      }
    }
    for (int64_t start = first; start < n; start += period) {
      for (int64_t i = start; i < start + run && i < n; ++i) {
        T term;
        if (PreluAlphaGradTerm(x[i], dout[i], &term)) sum += term;
      }
    }
    da[a] = sum;
  }
}

AlphaIndex AlphaIndexOf(const ExecutionContext& ctx, const DenseTensor& x,
                        const DenseTensor& alpha) {
  return MakeAlphaIndex(ctx.Type(), ctx.Attr<std::string>("mode"),
                        ctx.Attr<std::string>("data_format"), x.dims(), alpha.dims());
}

template <typename T>
struct PreluCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor alpha = *ctx.Input("Alpha");
    const AlphaIndex at = AlphaIndexOf(ctx, x, alpha);
    T* out = ctx.Output("Out")->mutable_data<T>(ctx.GetPlace());
    const int64_t n = x.numel();
    if (n == 0) return;
    PreluElements<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
        x.data<T>(), alpha.data<T>(), nullptr, n, at, out);
    cuda::CheckLaunch(ctx);
  }
};

template <typename T>
struct PreluGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor alpha = *ctx.Input("Alpha");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    PL_ENFORCE(dout.dims() == x.dims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected X's shape %s, "
                                       "received %s",
                                       ctx.Type(), x.dims().ToString(), dout.dims().ToString()));
    const AlphaIndex at = AlphaIndexOf(ctx, x, alpha);
    const int64_t n = x.numel();
    const T* xd = n > 0 ? x.data<T>() : nullptr;
    const T* g = n > 0 ? dout.data<T>() : nullptr;
    const cudaStream_t stream = cuda::Stream(ctx);
    if (DenseTensor* dx_t = ctx.Output("X@GRAD")) {
      DenseTensor fresh(x.dims(), x.dtype());
      T* dx = fresh.mutable_data<T>(ctx.GetPlace());
      if (n > 0) {
        PreluElements<T>
            <<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(xd, alpha.data<T>(), g, n, at, dx);
        cuda::CheckLaunch(ctx);
      }
      *dx_t = std::move(fresh);
    }
    if (DenseTensor* da_t = ctx.Output("Alpha@GRAD")) {
      DenseTensor fresh(alpha.dims(), alpha.dtype());
      T* da = fresh.mutable_data<T>(ctx.GetPlace());
      const int64_t alpha_n = alpha.numel();
      if (alpha_n > 0) {
        PreluAlphaGrad<T>
            <<<cuda::Blocks(alpha_n), cuda::kThreads, 0, stream>>>(xd, g, n, alpha_n, at, da);
        cuda::CheckLaunch(ctx);
      }
      *da_t = std::move(fresh);
    }
  }
};

}  // namespace

CudaKernelTable PreluCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<PreluCudaKernel, float, double>(&table, "prelu");
  AddCudaKernels<PreluGradCudaKernel, float, double>(&table, "prelu_grad");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
