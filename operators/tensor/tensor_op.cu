// CUDA kernels of cast, scale, fill_constant, fill_any_like, where, expand_v2, expand_as_v2,
// tile and expand (+ grads) and transpose2.
// concat, split, slice, stack, assign, shape and size run their CPU kernels on every device
// (copies through platform::Copy); the other fill ops stay on the CPU: their outputs are
// small, and a consumer on the GPU gets them by a planned transfer.
#include "framework/data_transform.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/half_cuda.cuh"
#include "operators/cuda/map_kernels.cuh"
#include "operators/math/broadcast.h"
#include "operators/math/broadcast_cuda.h"
#include "operators/tensor/expand_tile_shapes.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

// Anything to bool is `v != 0`, the rest static_cast, as on the CPU; float16 goes through
// float both ways.
template <typename To>
struct ConvertTo {
  template <typename From>
  __device__ To operator()(From v) const {
    if constexpr (std::is_same_v<From, platform::float16>) {
      return (*this)(cuda::HalfToFloat(v));
    } else if constexpr (std::is_same_v<To, platform::float16>) {
      return cuda::FloatToHalf(static_cast<float>(v));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v != From(0);
    } else {
      return static_cast<To>(v);
    }
  }
};

template <typename From>
struct CastCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor input = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const auto to = static_cast<DataType>(ctx.Attr<int>("out_dtype"));
    const int64_t n = input.numel();
    const auto launch = [&](auto tag) {
      using To = decltype(tag);
      To* o = out->mutable_data<To>(ctx.GetPlace());
      if (n > 0) cuda::Map(ctx, input.data<From>(), o, n, ConvertTo<To>{});
    };
    switch (to) {
      case DataType::FLOAT32: launch(float{}); break;
      case DataType::FLOAT64: launch(double{}); break;
      case DataType::INT32: launch(int32_t{}); break;
      case DataType::INT64: launch(int64_t{}); break;
      case DataType::BOOL: launch(bool{}); break;
      case DataType::FLOAT16: launch(platform::float16{}); break;
      default:
        throw errors::Unimplemented("op `%s` attribute `out_dtype`: the CUDA kernel converts to "
                                    "float32, float64, float16, int32, int64 or bool, received %s",
                                    ctx.Type(), platform::DataTypeName(to));
    }
  }
};

template <typename T>
struct ScaleOp {
  T scale, bias;
  bool bias_after_scale;
  __device__ T operator()(T x) const {
    return bias_after_scale ? scale * x + bias : scale * (x + bias);
  }
};

template <typename T>
struct ScaleCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    double scale = ctx.Attr<float>("scale");
    if (const DenseTensor* s = ctx.Input("ScaleTensor")) {  // As the CPU kernel reads it.
      DenseTensor as_double;
      framework::CastTensor(framework::OnCpu(*s), DataType::FLOAT64, &as_double);
      scale = as_double.data<double>()[0];
    }
    const ScaleOp<T> f{static_cast<T>(scale), static_cast<T>(ctx.Attr<float>("bias")),
                       ctx.Attr<bool>("bias_after_scale")};
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (x.numel() > 0) cuda::Map(ctx, x.data<T>(), o, x.numel(), f);
  }
};

// The value and shape are read on the host as the CPU kernel reads them; only the fill runs
// on the device.
template <typename T>
struct FillConstantCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T value = PrepareFillConstant<T>(ctx);
    DenseTensor* out = ctx.Output("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    cuda::Fill(ctx, o, out->numel(), value);
  }
};

// The value is checked on the host as the CPU kernel checks it; Out has X's dims (shape
// inference) and X's values are never read.
template <typename T>
struct FillAnyLikeCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    static_cast<void>(ctx.Input("X"));  // X must hold a tensor, as on the CPU.
    const T value = FillAnyLikeValue<T>(ctx);
    DenseTensor* out = ctx.Output("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    cuda::Fill(ctx, o, out->numel(), value);
  }
};

template <typename T>
struct ExpandAsV2CudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor input = *ctx.Input("X");
    const bool has_y = ctx.HasInput("Y");
    DDim target;
    if (has_y) {
      target = ctx.Input("Y")->dims();
    } else {
      const auto& shape = ctx.Attr<std::vector<int>>("target_shape");
      target = DDim(std::vector<int64_t>(shape.begin(), shape.end()));
    }
    const DDim aligned = math::AlignInside(ctx.Type(), has_y ? "Y" : "target_shape", target,
                                           "X", input.dims(), ctx.Attr<int>("axis"));
    DenseTensor* out = ctx.Output("Out");
    out->Resize(target);
    T* o = out->mutable_data<T>(ctx.GetPlace());
    math::BroadcastToCuda<T>(cuda::Stream(ctx), input.data<T>(), aligned, target, 1.0, o);
  }
};

// ---- where, expand_v2, tile ----

template <typename T>
__global__ void WhereElements(const bool* c, const T* x, const T* y, T* out, int64_t n) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    out[i] = c[i] ? x[i] : y[i];
  }
}

template <typename T>
struct WhereCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor cond = *ctx.Input("Condition");
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor y = *ctx.Input("Y");
    PL_ENFORCE(cond.dtype() == DataType::BOOL,
               errors::InvalidArgument("op `where` input `Condition`: expected dtype bool, "
                                       "received %s",
                                       platform::DataTypeName(cond.dtype())));
    PL_ENFORCE(y.dtype() == x.dtype(),
               errors::InvalidArgument("op `where` input `Y`: expected X's dtype %s, received %s",
                                       platform::DataTypeName(x.dtype()),
                                       platform::DataTypeName(y.dtype())));
    // Shape inference checked the shapes; the device must not read past a buffer either way.
    const int64_t n = x.numel();
    PL_ENFORCE(
        cond.numel() == n && y.numel() == n,
        errors::InvalidArgument("op `where`: expected Condition, X and Y of one shape, "
                                "received %s, %s and %s",
                                cond.dims().ToString(), x.dims().ToString(), y.dims().ToString()));
    DenseTensor* out = ctx.Output("Out");
    DenseTensor result(x.dims(), x.dtype());  // Out may be X or Y.
    T* o = result.mutable_data<T>(ctx.GetPlace());
    if (n > 0) {
      WhereElements<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          cond.data<bool>(), x.data<T>(), y.data<T>(), o, n);
      cuda::CheckLaunch(ctx);
    }
    result.set_lod(out->lod());
    *out = std::move(result);
  }
};

template <typename T>
struct ExpandV2CudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    std::string origin;
    const std::vector<int64_t> shape =
        ReadIntList(ctx, "Shape", "expand_shapes_tensor", "shape", &origin);
    DDim x_aligned;
    const DDim target = ExpandV2TargetDims(ctx.Type(), origin, x.dims(), shape, &x_aligned);
    DenseTensor fresh(target, x.dtype());
    T* o = fresh.mutable_data<T>(ctx.GetPlace());
    if (fresh.numel() > 0) {
      math::BroadcastToCuda<T>(cuda::Stream(ctx), x.data<T>(), x_aligned, target, 1.0, o);
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

// X's and Out's dims of a tile at one rank (TileShapes), for the device.
struct TilePlan {
  int rank = 0;
  int64_t x[DDim::kMaxRank] = {};
  int64_t out[DDim::kMaxRank] = {};
};

TilePlan MakeTilePlan(const TileShapes& s) {
  TilePlan p;
  p.rank = s.out.size();
  for (int d = 0; d < p.rank; ++d) {
    p.x[d] = s.x[d];
    p.out[d] = s.out[d];
  }
  return p;
}

// out[i] = in[the X element that Out element i repeats].
template <typename T>
__global__ void TileElements(const T* in, T* out, int64_t n, TilePlan p) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t rest = i, xi = 0, x_stride = 1;
    for (int d = p.rank - 1; d >= 0; --d) {
      xi += (rest % p.out[d]) % p.x[d] * x_stride;
      rest /= p.out[d];
      x_stride *= p.x[d];
    }
    out[i] = in[xi];
  }
}

// dx[j] = the sum of the dOut elements that repeat X element j, one thread per j, added in
// increasing Out index as the CPU kernel adds them (the same roundings, no atomics).
template <typename T>
__global__ void TileGradElements(const T* g, T* dx, int64_t x_numel, int64_t repeats, TilePlan p) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < x_numel;
       j += step) {
    T acc = T(0);
    // Repeat multi-indices in lexicographic order give increasing Out indices.
    for (int64_t k = 0; k < repeats; ++k) {
      int64_t rest_k = k, rest_j = j, o = 0, o_stride = 1;
      for (int d = p.rank - 1; d >= 0; --d) {
        const int64_t r = p.out[d] / p.x[d];
        const int64_t coord = (rest_k % r) * p.x[d] + rest_j % p.x[d];
        rest_k /= r;
        rest_j /= p.x[d];
        o += coord * o_stride;
        o_stride *= p.out[d];
      }
      acc += g[o];
    }
    dx[j] = acc;
  }
}

template <typename T>
struct TileCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const TileShapes s = KernelTileShapes(ctx, x.dims());
    DenseTensor fresh(s.out, x.dtype());
    T* o = fresh.mutable_data<T>(ctx.GetPlace());
    const int64_t n = fresh.numel();
    if (n > 0) {
      TileElements<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(x.data<T>(), o, n,
                                                                                 MakeTilePlan(s));
      cuda::CheckLaunch(ctx);
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct TileGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    const TileShapes s = KernelTileShapes(ctx, x.dims());
    PL_ENFORCE(dout.dims() == s.out,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), s.out.ToString(), dout.dims().ToString()));
    DenseTensor fresh(x.dims(), dout.dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    const int64_t n = fresh.numel();
    if (n > 0 && dout.numel() == 0) {
      cuda::Fill(ctx, dx, n, T(0));
    } else if (n > 0) {
      const int64_t repeats = dout.numel() / n;
      TileGradElements<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          dout.data<T>(), dx, n, repeats, MakeTilePlan(s));
      cuda::CheckLaunch(ctx);
    }
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

// ---- transpose2 ----

struct TransposePlan {
  int rank = 0;
  int64_t out_dims[DDim::kMaxRank] = {};
  int64_t src_stride[DDim::kMaxRank] = {};  // X's stride along each Out dim.
};

template <typename T>
__global__ void TransposeElements(const T* in, T* out, int64_t n, TransposePlan p) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    int64_t rest = i, src = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      src += (rest % p.out_dims[d]) * p.src_stride[d];
      rest /= p.out_dims[d];
    }
    out[i] = in[src];
  }
}

template <typename T>
struct Transpose2CudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DDim in_dims = x.dims();
    const std::vector<int> axis =
        CheckedTransposeAxis(ctx.Attr<std::vector<int>>("axis"), in_dims.size());
    TransposePlan plan;
    plan.rank = in_dims.size();
    int64_t in_stride[DDim::kMaxRank];
    int64_t stride = 1;
    for (int i = plan.rank - 1; i >= 0; --i) {
      in_stride[i] = stride;
      stride *= in_dims[i];
    }
    std::vector<int64_t> out_dims(static_cast<size_t>(plan.rank));
    for (int i = 0; i < plan.rank; ++i) {
      plan.out_dims[i] = out_dims[i] = in_dims[axis[i]];
      plan.src_stride[i] = in_stride[axis[i]];
    }
    DenseTensor result(DDim(out_dims), x.dtype());
    T* o = result.mutable_data<T>(ctx.GetPlace());
    if (DenseTensor* xshape = ctx.Output("XShape")) xshape->mutable_data<T>(ctx.GetPlace());
    const int64_t n = x.numel();
    if (n > 0) {
      TransposeElements<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          x.data<T>(), o, n, plan);
      cuda::CheckLaunch(ctx);
    }
    *ctx.Output("Out") = std::move(result);
  }
};

}  // namespace

CudaKernelTable TensorCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<CastCudaKernel, float, double, int32_t, int64_t, bool, platform::float16>(
      &table, "cast");
  AddCudaKernels<ScaleCudaKernel, float, double, int32_t, int64_t>(&table, "scale");
  // Every dtype of the CPU kernel: the kernel is chosen by the attribute `dtype`.
  AddCudaKernels<FillConstantCudaKernel, float, double, int32_t, int64_t, bool>(&table,
                                                                                "fill_constant");
  AddCudaKernels<FillAnyLikeCudaKernel, float, double, int32_t, int64_t, bool>(&table,
                                                                               "fill_any_like");
  AddCudaKernels<ExpandAsV2CudaKernel, float, double, int32_t, int64_t>(&table, "expand_as_v2");
  AddCudaKernels<WhereCudaKernel, float, double, int32_t, int64_t>(&table, "where");
  AddCudaKernels<ExpandV2CudaKernel, float, double, int32_t, int64_t, bool>(&table, "expand_v2");
  AddCudaKernels<TileCudaKernel, float, double, int32_t, int64_t, bool>(&table, "tile");
  AddCudaKernels<TileCudaKernel, float, double, int32_t, int64_t, bool>(&table, "expand");
  AddCudaKernels<TileGradCudaKernel, float, double>(&table, "tile_grad");
  AddCudaKernels<TileGradCudaKernel, float, double>(&table, "expand_grad");
  AddCudaKernels<Transpose2CudaKernel, float, double, int32_t, int64_t>(&table, "transpose2");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
