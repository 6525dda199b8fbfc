// CUDA kernels of cast, scale and expand_as_v2. The fill ops stay on the CPU: their outputs
// are small, and a consumer on the GPU gets them by a planned transfer.
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/math/broadcast.h"
#include "operators/math/broadcast_cuda.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

template <typename To, typename From>
__global__ void CastElements(const From* in, To* out, int64_t n) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    if constexpr (std::is_same_v<To, bool>) {
      out[i] = in[i] != From(0);
    } else {
      out[i] = static_cast<To>(in[i]);
    }
  }
}

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
      if (n == 0) return;
      CastElements<To, From><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          input.data<From>(), o, n);
      cuda::CheckLaunch(ctx);
    };
    switch (to) {
      case DataType::FLOAT32: launch(float{}); break;
      case DataType::FLOAT64: launch(double{}); break;
      case DataType::INT32: launch(int32_t{}); break;
      case DataType::INT64: launch(int64_t{}); break;
      case DataType::BOOL: launch(bool{}); break;
      default:
        throw errors::Unimplemented("op `%s` attribute `out_dtype`: the CUDA kernel converts to "
                                    "float32, float64, int32, int64 or bool, received %s",
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
__global__ void ScaleElements(const T* in, T* out, int64_t n, ScaleOp<T> f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = f(in[i]);
  }
}

template <typename T>
struct ScaleCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const double scale = ctx.HasInput("ScaleTensor") ? cuda::ReadScalar(ctx, "ScaleTensor")
                                                     : ctx.Attr<float>("scale");
    const ScaleOp<T> f{static_cast<T>(scale), static_cast<T>(ctx.Attr<float>("bias")),
                       ctx.Attr<bool>("bias_after_scale")};
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const int64_t n = x.numel();
    if (n == 0) return;
    ScaleElements<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(x.data<T>(), o,
                                                                              n, f);
    cuda::CheckLaunch(ctx);
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

}  // namespace

CudaKernelTable TensorCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<CastCudaKernel, float, double, int32_t, int64_t, bool>(&table, "cast");
  AddCudaKernels<ScaleCudaKernel, float, double, int32_t, int64_t>(&table, "scale");
  AddCudaKernels<ExpandAsV2CudaKernel, float, double, int32_t, int64_t>(&table, "expand_as_v2");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
