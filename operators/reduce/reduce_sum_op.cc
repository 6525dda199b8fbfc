// reduce_sum: the sum of X over some (or all) dims. Also PaddlePaddle's fused grad op type
// reduce_sum_grad, for programs it built.
#include <algorithm>
#include <string>
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
    AddAttr<int>("in_dtype",
                 "VarType the input is converted to before summing: -1 (X's own), 5 (float32) "
                 "or 6 (float64).")
        .SetDefault(-1)
        .InEnum({-1, 5, 6});
    AddAttr<int>("out_dtype",
                 "VarType of Out: -1 (the dtype X is summed in), 5 (float32) or 6 (float64).")
        .SetDefault(-1)
        .InEnum({-1, 5, 6});
    AddComment(R"DOC(
Reduce-sum operator.

$$Out = \sum_{i \in dim} X$$

Sums X over the dims listed in `dim` (all dims when `reduce_all` is true or `dim` is
empty). Summed dims are removed from the output shape, or kept as size 1 when `keep_dim`
is true; summing over every dim without keep_dim gives a 0-D output. Sums over an empty
dim are 0. The sum is accumulated in double in a fixed order, so results are reproducible.

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

template <typename T>
struct ReduceSumCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const math::ReduceShape shape = math::ComputeReduceShape(
        ctx.Type(), x->dims(), ctx.Attr<std::vector<int>>("dim"), ctx.Attr<bool>("keep_dim"),
        ctx.Attr<bool>("reduce_all"));
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const int out_dtype = ctx.Attr<int>("out_dtype");
    const DataType out_type =
        out_dtype >= 0 ? static_cast<DataType>(out_dtype) : platform::ToDataType<T>();
    if (out_type == DataType::FLOAT64) {
      math::SumOverDims(dev, x->data<T>(), x->dims(), shape.reduced,
                        out->mutable_data<double>(ctx.GetPlace()));
      return;
    }
    // float32 output: sum into doubles, then round once.
    std::vector<double> sums(static_cast<size_t>(shape.out.numel()));
    math::SumOverDims(dev, x->data<T>(), x->dims(), shape.reduced, sums.data());
    float* o = out->mutable_data<float>(ctx.GetPlace());
    for (size_t i = 0; i < sums.size(); ++i) o[i] = static_cast<float>(sums[i]);
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
  framework::RegisterOp<ReduceGradOp, ReduceSumGradOpMaker>(kGradOp).InferShape(
      ReduceGradInferShape);
  RegisterPlainCpuFloatKernels<ReduceSumGradCpuKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
