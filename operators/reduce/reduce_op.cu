// CUDA kernels of reduce_sum, reduce_mean, mean, reduce_as and their fused grad ops, on the
// sums of math/broadcast_cuda.h (double accumulators, fixed order), and of cumsum (the CPU's
// scan of cumsum_op.h, one thread per line).
#include <limits>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/math/broadcast.h"
#include "operators/math/broadcast_cuda.h"
#include "operators/math/reduce.h"
#include "operators/reduce/cumsum_op.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

// X's dims with the reduced ones set to 1.
DDim KeptDims(const DDim& x, const std::vector<bool>& reduced) {
  std::vector<int64_t> kept(static_cast<size_t>(x.size()));
  for (int i = 0; i < x.size(); ++i) kept[i] = reduced[i] ? 1 : x[i];
  return DDim(kept);
}

template <typename T>
__global__ void FillValue(T* out, int64_t n, T value) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = value;
  }
}

// Out = sum (or mean) of X over `reduced`; a mean over nothing is NaN, as on the CPU.
template <typename T>
void Reduce(const ExecutionContext& ctx, const DenseTensor& x, const std::vector<bool>& reduced,
            const DDim& out_dims, bool mean, DenseTensor* out) {
  out->Resize(out_dims);
  T* o = out->mutable_data<T>(ctx.GetPlace());
  const int64_t n = out_dims.numel();
  if (n == 0) return;
  const cudaStream_t stream = cuda::Stream(ctx);
  if (mean && x.numel() == 0) {
    FillValue<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(
        o, n, std::numeric_limits<T>::quiet_NaN());
    cuda::CheckLaunch(ctx);
    return;
  }
  const double scale = mean ? 1.0 / static_cast<double>(x.numel() / n) : 1.0;
  math::SumToShapeCuda<T>(stream, x.numel() > 0 ? x.data<T>() : nullptr, x.dims(),
                          KeptDims(x.dims(), reduced), scale, o);
}

// X@GRAD = Out@GRAD broadcast back over `reduced`, divided by the count for means.
template <typename T>
void ReduceGrad(const ExecutionContext& ctx, const std::vector<bool>& reduced, bool mean) {
  const DenseTensor x = *ctx.Input("X");
  const DenseTensor dout = *ctx.Input("Out@GRAD");
  const DDim dims = x.dims();
  const DDim kept = KeptDims(dims, reduced);
  PL_ENFORCE(dout.numel() == kept.numel(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld elements (the "
                                     "reduced shape of X %s), received shape %s",
                                     ctx.Type(), static_cast<long long>(kept.numel()),
                                     dims.ToString(), dout.dims().ToString()));
  DenseTensor* dx = ctx.Output("X@GRAD");
  dx->Resize(dims);
  dx->set_lod(x.lod());
  T* o = dx->mutable_data<T>(ctx.GetPlace());
  if (dims.numel() == 0) return;
  const double scale = mean ? 1.0 / static_cast<double>(dims.numel() / kept.numel()) : 1.0;
  math::BroadcastToCuda<T>(cuda::Stream(ctx), dout.data<T>(), kept, dims, scale, o);
}

math::ReduceShape ReduceShapeOf(const ExecutionContext& ctx, const DDim& x) {
  return math::ComputeReduceShape(ctx.Type(), x, ctx.Attr<std::vector<int>>("dim"),
                                  ctx.Attr<bool>("keep_dim"), ctx.Attr<bool>("reduce_all"));
}

template <bool kMean>
struct ReduceCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor x = *ctx.Input("X");
      // reduce_mean ignores out_dtype, as PaddlePaddle does.
      if (!kMean && ctx.HasAttr("out_dtype")) {
        const int out_dtype = ctx.Attr<int>("out_dtype");
        PL_ENFORCE(out_dtype < 0 || static_cast<DataType>(out_dtype) == x.dtype(),
                   errors::Unimplemented("op `%s` attribute `out_dtype`: the CUDA kernel sums "
                                         "in X's dtype %s, received %s",
                                         ctx.Type(), platform::DataTypeName(x.dtype()),
                                         platform::DataTypeName(
                                             static_cast<DataType>(out_dtype))));
      }
      const math::ReduceShape shape = ReduceShapeOf(ctx, x.dims());
      Reduce<T>(ctx, x, shape.reduced, shape.out, kMean, ctx.Output("Out"));
    }
  };
};

template <bool kMean>
struct ReduceGradCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      ReduceGrad<T>(ctx, ReduceShapeOf(ctx, ctx.Input("X")->dims()).reduced, kMean);
    }
  };
};

template <typename T>
struct MeanCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const std::vector<bool> all(static_cast<size_t>(x.dims().size()), true);
    Reduce<T>(ctx, x, all, out->dims(), true, out);
  }
};

template <typename T>
struct MeanGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<bool> all(static_cast<size_t>(ctx.Input("X")->dims().size()), true);
    ReduceGrad<T>(ctx, all, true);
  }
};

template <typename T>
struct ReduceAsCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DDim target = ctx.Input("Target")->dims();
    const DDim aligned =
        math::AlignInside(ctx.Type(), "X", x.dims(), "Target", target, ctx.Attr<int>("axis"));
    DenseTensor* out = ctx.Output("Out");
    out->Resize(target);
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (target.numel() == 0) return;
    math::SumToShapeCuda<T>(cuda::Stream(ctx), x.numel() > 0 ? x.data<T>() : nullptr, x.dims(),
                            aligned, 1.0, o);
  }
};

// cumsum: one thread per scanned line, the CPU's scan (CumsumLine) in the same order.
template <typename T>
__global__ void CumsumLines(const T* in, T* out, AxisSplit s, bool exclusive, bool reverse) {
  const int64_t lines = s.outer * s.inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t l = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; l < lines;
       l += step) {
    const int64_t o = l / s.inner, i = l % s.inner;
    CumsumLine(in, out, o * s.axis * s.inner + i, s.axis, s.inner, exclusive, reverse);
  }
}

template <typename T>
struct CumsumCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const CumsumPlan p = PlanCumsum(ctx);
    DenseTensor fresh(p.out_dims, x.dtype());
    fresh.set_lod(p.out_lod);
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const int64_t lines = p.split.outer * p.split.inner;
    if (x.numel() > 0 && lines > 0) {
      CumsumLines<T><<<cuda::Blocks(lines), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          x.data<T>(), out, p.split, p.exclusive, p.reverse);
      cuda::CheckLaunch(ctx);
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

}  // namespace

CudaKernelTable ReduceCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<ReduceCudaKernel<false>::Kernel, float, double>(&table, "reduce_sum");
  AddCudaKernels<ReduceCudaKernel<true>::Kernel, float, double>(&table, "reduce_mean");
  AddCudaKernels<ReduceGradCudaKernel<false>::Kernel, float, double>(&table, "reduce_sum_grad");
  AddCudaKernels<ReduceGradCudaKernel<true>::Kernel, float, double>(&table, "reduce_mean_grad");
  AddCudaKernels<MeanCudaKernel, float, double>(&table, "mean");
  AddCudaKernels<MeanGradCudaKernel, float, double>(&table, "mean_grad");
  AddCudaKernels<ReduceAsCudaKernel, float, double>(&table, "reduce_as");
  AddCudaKernels<CumsumCudaKernel, float, double, int32_t, int64_t>(&table, "cumsum");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
