// CUDA kernels of cast, scale, fill_constant, expand_as_v2 and transpose2. concat, split,
// slice and stack run their CPU kernels on every device (box copies, copy_box.h); the other
// fill ops stay on the CPU: their outputs are small, and a consumer on the GPU gets them by a
// planned transfer.
#include "framework/data_transform.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/half_cuda.cuh"
#include "operators/cuda/map_kernels.cuh"
#include "operators/math/broadcast.h"
#include "operators/math/broadcast_cuda.h"
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
  AddCudaKernels<ExpandAsV2CudaKernel, float, double, int32_t, int64_t>(&table, "expand_as_v2");
  AddCudaKernels<Transpose2CudaKernel, float, double, int32_t, int64_t>(&table, "transpose2");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
