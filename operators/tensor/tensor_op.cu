// CUDA kernels of cast, scale, expand_as_v2, concat (and its grad), split and transpose2.
// The fill ops stay on the CPU: their outputs are small, and a consumer on the GPU gets them
// by a planned transfer.
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/map_kernels.cuh"
#include "operators/math/broadcast.h"
#include "operators/math/broadcast_cuda.h"
#include "operators/tensor/concat_split_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

// Anything to bool is `v != 0`, the rest static_cast, as on the CPU.
template <typename To>
struct ConvertTo {
  template <typename From>
  __device__ To operator()(From v) const {
    if constexpr (std::is_same_v<To, bool>) {
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
struct ScaleCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const double scale = ctx.HasInput("ScaleTensor") ? cuda::ReadScalar(ctx, "ScaleTensor")
                                                     : ctx.Attr<float>("scale");
    const ScaleOp<T> f{static_cast<T>(scale), static_cast<T>(ctx.Attr<float>("bias")),
                       ctx.Attr<bool>("bias_after_scale")};
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (x.numel() > 0) cuda::Map(ctx, x.data<T>(), o, x.numel(), f);
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

// ---- concat, concat_grad, split: pieces along one axis, copied as 2-D blocks ----

// The axis of concat/split: input AxisTensor (read back to the host) or attribute `axis`.
int PieceAxis(const ExecutionContext& ctx, int rank) {
  const bool from_tensor = ctx.HasInput("AxisTensor");
  const int64_t axis = from_tensor ? static_cast<int64_t>(cuda::ReadScalar(ctx, "AxisTensor"))
                                   : ctx.Attr<int>("axis");
  return NormalizeAxis(ctx.Type(), from_tensor ? "input `AxisTensor`" : "attribute `axis`", axis,
                       rank);
}

// Copies a piece (dims `piece`, at `offset` along `axis`) out of or into the whole tensor
// (dims `whole`): outer rows of piece[axis] * inner contiguous elements each.
template <typename T>
void CopyPieceCuda(const ExecutionContext& ctx, const DDim& whole, const DDim& piece, int axis,
                   int64_t offset, const T* src, T* dst, bool to_whole) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= whole[d];
  for (int d = axis + 1; d < whole.size(); ++d) inner *= whole[d];
  const size_t row = sizeof(T) * piece[axis] * inner;
  const size_t whole_row = sizeof(T) * whole[axis] * inner;
  if (row == 0 || outer == 0) return;
  T* d = to_whole ? dst + offset * inner : dst;
  const T* s = to_whole ? src : src + offset * inner;
  platform::CheckCuda(cudaMemcpy2DAsync(d, to_whole ? whole_row : row, s,
                                        to_whole ? row : whole_row, row,
                                        static_cast<size_t>(outer), cudaMemcpyDeviceToDevice,
                                        cuda::Stream(ctx)),
                      "cudaMemcpy2DAsync");
}

template <typename T>
struct ConcatCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    std::vector<DenseTensor> xs;
    std::vector<DDim> dims;
    for (const DenseTensor* x : ctx.MultiInput("X")) {
      PL_ENFORCE(x->dtype() == platform::ToDataType<T>(),
                 errors::InvalidArgument("op `%s` input `X`: tensor #%zu is %s, expected %s "
                                         "like the others",
                                         ctx.Type(), xs.size(),
                                         platform::DataTypeName(x->dtype()),
                                         platform::DataTypeName(platform::ToDataType<T>())));
      xs.push_back(*x);
      dims.push_back(x->dims());
    }
    const int axis = PieceAxis(ctx, dims[0].size());
    const DDim out_dims = ConcatDims(ctx.Type(), dims, axis);
    DenseTensor result(out_dims, platform::ToDataType<T>());
    T* o = result.mutable_data<T>(ctx.GetPlace());
    int64_t offset = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (xs[i].numel() > 0) {
        CopyPieceCuda<T>(ctx, out_dims, dims[i], axis, offset, xs[i].data<T>(), o, true);
      }
      offset += dims[i][axis];
    }
    if (axis != 0) result.set_lod(xs[0].lod());
    *ctx.Output("Out") = std::move(result);
  }
};

template <typename T>
struct ConcatGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    std::vector<DDim> dims;
    for (size_t i = 0; i < ctx.InputSize("X"); ++i) dims.push_back(ctx.Input("X", i)->dims());
    const int axis = PieceAxis(ctx, dims[0].size());
    const DDim out_dims = ConcatDims(ctx.Type(), dims, axis);
    PL_ENFORCE(dout.dims() == out_dims,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), out_dims.ToString(), dout.dims().ToString()));
    int64_t offset = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (DenseTensor* dx = ctx.Output("X@GRAD", i)) {
        DenseTensor piece(dims[i], dout.dtype());
        T* p = piece.mutable_data<T>(ctx.GetPlace());
        if (dims[i].numel() > 0) {
          CopyPieceCuda<T>(ctx, out_dims, dims[i], axis, offset, dout.data<T>(), p, false);
        }
        *dx = std::move(piece);
      }
      offset += dims[i][axis];
    }
  }
};

template <typename T>
struct SplitCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DDim x_dims = x.dims();
    const int axis = PieceAxis(ctx, x_dims.size());
    const int num = ctx.Attr<int>("num");
    const auto& attr = ctx.Attr<std::vector<int>>("sections");
    std::vector<int64_t> sections(attr.begin(), attr.end());
    std::string origin = "attribute `sections`";
    if (num == 0 && ctx.HasInput("SectionsTensorList")) {
      sections.clear();
      for (const DenseTensor* t : ctx.MultiInput("SectionsTensorList")) {
        PL_ENFORCE(t->numel() == 1,
                   errors::InvalidArgument("op `%s` input `SectionsTensorList`: expected "
                                           "1-element tensors, received shape %s",
                                           ctx.Type(), t->dims().ToString()));
        sections.push_back(ReadIntValues(cuda::ToHost(*t), ctx.Type(), "SectionsTensorList")[0]);
      }
      origin = "input `SectionsTensorList`";
    }
    const size_t n = ctx.OutputSize("Out");
    const std::vector<int64_t> sizes =
        SplitSizes(ctx.Type(), x_dims[axis], num, sections, n, origin);
    int64_t offset = 0;
    for (size_t i = 0; i < n; ++i) {
      DDim piece_dims = x_dims;
      piece_dims[axis] = sizes[i];
      DenseTensor piece(piece_dims, x.dtype());
      T* p = piece.mutable_data<T>(ctx.GetPlace());
      if (piece_dims.numel() > 0) {
        CopyPieceCuda<T>(ctx, x_dims, piece_dims, axis, offset, x.data<T>(), p, false);
      }
      if (axis != 0) piece.set_lod(x.lod());
      offset += sizes[i];
      if (DenseTensor* out = ctx.Output("Out", i)) *out = std::move(piece);
    }
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
  AddCudaKernels<CastCudaKernel, float, double, int32_t, int64_t, bool>(&table, "cast");
  AddCudaKernels<ScaleCudaKernel, float, double, int32_t, int64_t>(&table, "scale");
  AddCudaKernels<ExpandAsV2CudaKernel, float, double, int32_t, int64_t>(&table, "expand_as_v2");
  AddCudaKernels<ConcatCudaKernel, float, double, int32_t, int64_t>(&table, "concat");
  AddCudaKernels<ConcatGradCudaKernel, float, double>(&table, "concat_grad");
  AddCudaKernels<SplitCudaKernel, float, double, int32_t, int64_t>(&table, "split");
  AddCudaKernels<Transpose2CudaKernel, float, double, int32_t, int64_t>(&table, "transpose2");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
