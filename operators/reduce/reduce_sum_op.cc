// reduce_sum: the sum of X over some (or all) dims.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/block_desc.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/reduce.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {
namespace {

class ReduceSumOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "The sums; dtype out_dtype (default: the dtype X is summed in).");
    AddAttr<std::vector<int>>("dim",
                              "Dims to sum over; negative values count from the end. An empty "
                              "list sums over all dims.")
        .SetDefault({0});
    AddAttr<bool>("keep_dim", "Keep the summed dims as size 1.").SetDefault(false);
    AddAttr<bool>("reduce_all", "Sum over all dims, whatever `dim` says.").SetDefault(false);
    AddAttr<int>("in_dtype",
                 "VarType the input is converted to before summing: -1 (X's own), 5 (float32) "
                 "or 6 (float64).")
        .SetDefault(-1)
        .InEnum({-1, 5, 6});
    AddAttr<int>("out_dtype",
                 "VarType of Out: -1 (the dtype X is summed in), 5 (float32) or 6 (float64).")
        .SetDefault(-1)
        .InEnum({-1, 5, 6});
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
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

// dX = expand_as_v2(unsqueeze2(dOut, summed dims), X), the unsqueeze2 only when the summed
// dims were removed and some dims remain (a 0-D dOut broadcasts as it is).
void ReduceSumGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string& x = g->Input("X")[0];
  const framework::BlockDesc* block = g->Forward().Block();
  const framework::VarDesc* xv = block == nullptr ? nullptr : block->FindVarRecursive(x);
  PL_ENFORCE(xv != nullptr,
             errors::PreconditionNotMet("op `reduce_sum` gradient: input `X` variable `%s` is "
                                        "not declared in the block, so its rank is unknown",
                                        x));
  const DDim x_dims(xv->GetShape());
  const auto attr_or = [g](const char* name, auto fallback) {
    using T = decltype(fallback);
    return g->Forward().HasAttr(name) ? g->Attr<T>(name) : fallback;
  };
  const std::vector<int> dim = attr_or("dim", std::vector<int>{0});
  const bool keep_dim = attr_or("keep_dim", false);
  const bool reduce_all = attr_or("reduce_all", false);
  const math::ReduceShape shape =
      math::ComputeReduceShape("reduce_sum", x_dims, dim, keep_dim, reduce_all);

  std::vector<int> axes;
  bool all = true;
  for (int i = 0; i < x_dims.size(); ++i) {
    if (shape.reduced[i]) {
      axes.push_back(i);
    } else {
      all = false;
    }
  }
  std::string dout = g->OutputGrad("Out")[0];
  if (!keep_dim && !all && !axes.empty()) {
    const std::string unsqueezed = g->NewTemp("dout_keep_dim");
    g->AddOp("unsqueeze2", {{"X", {dout}}}, {{"Out", {unsqueezed}}}, {{"axes", axes}});
    dout = unsqueezed;
  }
  // The summed dtype: out_dtype, else in_dtype, else X's own.
  const int out_dtype = attr_or("out_dtype", -1);
  const int in_dtype = attr_or("in_dtype", -1);
  const int sum_dtype = out_dtype >= 0 ? out_dtype : in_dtype;
  const int x_dtype = static_cast<int>(xv->GetDataType());
  if (sum_dtype < 0 || sum_dtype == x_dtype) {
    g->AddOp("expand_as_v2", {{"X", {dout}}, {"Y", {x}}}, {{"Out", g->InputGrad("X")}},
             {{"axis", -1}});
    return;
  }
  const std::string expanded = g->NewTemp("dx_sum_dtype");
  g->AddOp("expand_as_v2", {{"X", {dout}}, {"Y", {x}}}, {{"Out", {expanded}}}, {{"axis", -1}});
  g->AddOp("cast", {{"X", {expanded}}}, {{"Out", g->InputGrad("X")}},
           {{"in_dtype", sum_dtype}, {"out_dtype", x_dtype}});
}

}  // namespace

void RegisterReduceSumOp() {
  framework::RegisterOp<ReduceSumOp, ReduceSumOpMaker>("reduce_sum")
      .InferShape(ReduceSumInferShape)
      .GradOpMaker(ReduceSumGradMaker);
  RegisterPlainCpuFloatKernels<ReduceSumCpuKernel>("reduce_sum");
}

}  // namespace operators
}  // namespace paddle_like
