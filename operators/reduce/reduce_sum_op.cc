// reduce_sum: the sum of X over some (or all) dims. Also PaddlePaddle's fused grad op type
// reduce_sum_grad, for programs it built.
#include <algorithm>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/reduce.h"
#include "operators/op_family.h"
#include "operators/reduce/reduce_op_util.h"

namespace paddle_like {
namespace operators {
namespace {

class ReduceSumOpMaker : public ReduceOpMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "The sums; dtype out_dtype (default: the dtype X is summed in).");
    AddReduceAttrs("sum");
    // PaddlePaddle 2's paddle.sum(x, dtype=...) writes X's own dtype here, of any type.
    AddAttr<int>("in_dtype",
                 "VarType the input is converted to before summing: -1 (X's own), 0 (bool), "
                 "1 (int16), 2 (int32), 3 (int64), 5 (float32), 6 (float64), 20 (uint8), "
                 "21 (int8), 23 (complex64) or 24 (complex128).")
        .SetDefault(-1)
        .InEnum({-1, 0, 1, 2, 3, 5, 6, 20, 21, 23, 24});
    AddAttr<int>("out_dtype",
                 "VarType of Out: -1 (the dtype X is summed in), 0 (bool), 1 (int16), "
                 "2 (int32), 3 (int64), 5 (float32), 6 (float64), 20 (uint8), 21 (int8), "
                 "23 (complex64) or 24 (complex128).")
        .SetDefault(-1)
        .InEnum({-1, 0, 1, 2, 3, 5, 6, 20, 21, 23, 24});
    AddComment(R"DOC(
Reduce-sum operator.

$$Out = \sum_{i \in dim} X$$

Sums X over the dims listed in `dim` (all dims when `reduce_all` is true or `dim` is
empty). Summed dims are removed from the output shape, or kept as size 1 when `keep_dim`
is true; summing over every dim without keep_dim gives a 0-D output. Sums over an empty
dim are 0. Floating sums (each part of a complex one) are accumulated in double in a fixed
order, so results are reproducible; integer and bool sums are exact (accumulated in int64;
PaddlePaddle's `sum` asks for an int64 Out for int32 and bool X). Complex sums keep X's
dtype.

With X = [[1, 2, 3], [4, 5, 6]]: dim = [0] gives [5, 7, 9]; dim = [-1] gives [6, 15];
dim = [1] with keep_dim gives [[6], [15]]; reduce_all gives 21 (0-D).

Gradient, written with differentiable ops (the summed dims are put back as size 1 unless
keep_dim kept them, then dOut is broadcast to X; a cast follows when out_dtype differs
from X's dtype):
$$dX = \mathrm{expand\_as\_v2}(\mathrm{unsqueeze2}(dOut, dim), X)$$
)DOC");
  }
};

class ReduceSumOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  // in_dtype, when set, is the dtype the kernel sums in (the framework converts X to it).
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const int in_dtype = Attr<int>("in_dtype");
    if (in_dtype >= 0) return static_cast<DataType>(in_dtype);
    return OperatorWithKernel::IndicateDataType(ctx);
  }
};

void ReduceSumInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const math::ReduceShape shape = math::ComputeReduceShape(
      ctx->OpType(), x, ctx->Attr<std::vector<int>>("dim"),
      ctx->Attr<bool>("keep_dim"), ctx->Attr<bool>("reduce_all"));
  ctx->SetOutputDim("Out", shape.out);
  const int out_dtype = ctx->Attr<int>("out_dtype");
  const int in_dtype = ctx->Attr<int>("in_dtype");
  if (out_dtype >= 0) {
    ctx->SetOutputDataType("Out", static_cast<DataType>(out_dtype));
  } else if (in_dtype >= 0) {
    ctx->SetOutputDataType("Out", static_cast<DataType>(in_dtype));
  }
}

math::ReduceShape ShapeOfSum(const ExecutionContext& ctx, const DenseTensor& x) {
  return math::ComputeReduceShape(ctx.Type(), x.dims(), ctx.Attr<std::vector<int>>("dim"),
                                  ctx.Attr<bool>("keep_dim"), ctx.Attr<bool>("reduce_all"));
}

// Out's dtype: out_dtype when set, else the dtype X is summed in.
template <typename T>
DataType SumOutputType(const ExecutionContext& ctx) {
  const int out_dtype = ctx.Attr<int>("out_dtype");
  return out_dtype >= 0 ? static_cast<DataType>(out_dtype) : platform::ToDataType<T>();
}

// Writes `sums` to Out as `type`, each rounded (or converted) once.
template <typename Acc>
void WriteSums(const ExecutionContext& ctx, const std::vector<Acc>& sums, DataType type) {
  DenseTensor* out = ctx.Output("Out");
  auto write = [&](auto* o) {
    using O = std::remove_pointer_t<decltype(o)>;
    for (size_t i = 0; i < sums.size(); ++i) {
      if constexpr (std::is_same_v<O, bool>) {
        o[i] = sums[i] != 0;
      } else {
        o[i] = static_cast<O>(sums[i]);
      }
    }
  };
  switch (type) {
    case DataType::FLOAT32:
      return write(out->mutable_data<float>(ctx.GetPlace()));
    case DataType::FLOAT64:
      return write(out->mutable_data<double>(ctx.GetPlace()));
    case DataType::INT32:
      return write(out->mutable_data<int32_t>(ctx.GetPlace()));
    case DataType::INT64:
      return write(out->mutable_data<int64_t>(ctx.GetPlace()));
    case DataType::BOOL:
      return write(out->mutable_data<bool>(ctx.GetPlace()));
    case DataType::INT16:
      return write(out->mutable_data<int16_t>(ctx.GetPlace()));
    case DataType::UINT8:
      return write(out->mutable_data<uint8_t>(ctx.GetPlace()));
    case DataType::INT8:
      return write(out->mutable_data<int8_t>(ctx.GetPlace()));
    default:
      throw errors::InvalidArgument("op `%s` attribute `out_dtype`: %s is not a dtype it writes",
                                    ctx.Type(), platform::DataTypeName(type));
  }
}

template <typename T>
struct ReduceSumCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const math::ReduceShape shape = ShapeOfSum(ctx, *x);
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const DataType out_type = SumOutputType<T>(ctx);
    if (out_type == DataType::FLOAT64) {
      math::SumOverDims(dev, x->data<T>(), x->dims(), shape.reduced,
                        ctx.Output("Out")->mutable_data<double>(ctx.GetPlace()));
      return;
    }
    // Sum into doubles, then round once.
    std::vector<double> sums(static_cast<size_t>(shape.out.numel()));
    math::SumOverDims(dev, x->data<T>(), x->dims(), shape.reduced, sums.data());
    WriteSums(ctx, sums, out_type);
  }
};

// Complex sums: each part accumulated in double; Out keeps X's dtype.
template <typename T>
struct ReduceSumComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const int out_dtype = ctx.Attr<int>("out_dtype");
    PL_ENFORCE(out_dtype < 0 || out_dtype == static_cast<int>(x->dtype()),
               errors::Unimplemented("op `%s` attribute `out_dtype`: a sum of %s values is "
                                     "written as %s, received %s",
                                     ctx.Type(), platform::DataTypeName(x->dtype()),
                                     platform::DataTypeName(x->dtype()),
                                     platform::DataTypeName(static_cast<DataType>(out_dtype))));
    ComplexSumsInto<T>(ctx, *x, ShapeOfSum(ctx, *x), false, ctx.Output("Out"));
  }
};

// Integer and bool sums, exact in int64 (counts, shapes, lengths: small tensors).
template <typename T>
struct ReduceSumIntegerKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const math::ReduceShape shape = ShapeOfSum(ctx, *x);
    const DDim& dims = x->dims();
    const int rank = dims.size();
    // Walks X in order, moving the output position by the kept dims' strides.
    std::vector<int64_t> out_stride(static_cast<size_t>(rank), 0);
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      if (shape.reduced[static_cast<size_t>(i)]) continue;
      out_stride[static_cast<size_t>(i)] = stride;
      stride *= dims[i];
    }
    std::vector<int64_t> sums(static_cast<size_t>(shape.out.numel()), 0);
    std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
    const T* xv = x->data<T>();
    int64_t o = 0;
    for (int64_t n = 0; n < x->numel(); ++n) {
      sums[static_cast<size_t>(o)] += static_cast<int64_t>(xv[n]);
      for (int i = rank - 1; i >= 0; --i) {
        const auto d = static_cast<size_t>(i);
        o += out_stride[d];
        if (++coord[d] < dims[i]) break;
        o -= out_stride[d] * dims[i];
        coord[d] = 0;
      }
    }
    WriteSums(ctx, sums, SumOutputType<T>(ctx));
  }
};

// dX = expand_as_v2(unsqueeze2(dOut, summed dims), X), cast back to X's dtype when the sum
// had another one.
void ReduceSumGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const auto attr_or = [g](const char* name, int fallback) {
    return g->Forward().HasAttr(name) ? g->Attr<int>(name) : fallback;
  };
  // The summed dtype: out_dtype, else in_dtype, else X's own.
  const int out_dtype = attr_or("out_dtype", -1);
  AppendReduceGradBroadcast(g, g->OutputGrad("Out")[0],
                            out_dtype >= 0 ? out_dtype : attr_or("in_dtype", -1));
}

// ---------------------------------------------------------------- PaddlePaddle grad op types

constexpr char kGradOp[] = "reduce_sum_grad";

class ReduceSumGradOpMaker : public ReduceOpMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X (only its dims are read).").AsNoNeedBuffer();
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape and dtype.");
    AddReduceAttrs("sum");
    AddAttr<int>("in_dtype", "As in `reduce_sum` (Out@GRAD is converted to X's dtype).")
        .SetDefault(-1);
    AddAttr<int>("out_dtype", "As in `reduce_sum` (Out@GRAD is converted to X's dtype).")
        .SetDefault(-1);
    AddComment(R"DOC(
Gradient of `reduce_sum` as PaddlePaddle's programs hold it (fused kernel, first order
only): Out@GRAD broadcast back over the summed dims,

$$dX_i = dOut_{\mathrm{reduce}(i)}$$

where reduce(i) drops (or, with keep_dim, zeroes) the summed dims of the index i.
)DOC");
  }
};

template <typename T>
struct ReduceSumGradCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const math::ReduceShape shape = math::ComputeReduceShape(
        ctx.Type(), ctx.Input("X")->dims(), ctx.Attr<std::vector<int>>("dim"),
        ctx.Attr<bool>("keep_dim"), ctx.Attr<bool>("reduce_all"));
    ComputeReduceGrad<T>(ctx, shape.reduced, false);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterReduceSumOp) {
  framework::RegisterOp<ReduceSumOp, ReduceSumOpMaker>("reduce_sum")
      .InferShape(ReduceSumInferShape)
      .GradOpMaker(ReduceSumGradMaker);
  RegisterPlainCpuFloatKernels<ReduceSumCpuKernel>("reduce_sum");
  RegisterPlainCpuKernels<ReduceSumIntegerKernel, int32_t, int64_t, bool, uint8_t, int8_t, int16_t>(
      "reduce_sum");
  RegisterPlainCpuKernels<ReduceSumComplexKernel, std::complex<float>, std::complex<double>>(
      "reduce_sum");
  framework::RegisterOp<ReduceGradOp, ReduceSumGradOpMaker>(kGradOp).InferShape(
      ReduceGradInferShape);
  RegisterPlainCpuKernels<ReduceSumGradCpuKernel, float, double, std::complex<float>,
                          std::complex<double>>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
