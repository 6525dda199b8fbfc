// reduce_mean: the mean of X over some (or all) dims, as PaddlePaddle's static programs write
// `paddle.mean`. Also PaddlePaddle's fused grad op type reduce_mean_grad, for programs it
// built.
#include <complex>
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

constexpr char kOp[] = "reduce_mean";
constexpr char kGradOp[] = "reduce_mean_grad";

class ReduceMeanOpMaker : public ReduceOpMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "The means, with X's dtype.");
    AddReduceAttrs("average");
    AddAttr<int>("in_dtype", "Accepted for compatibility and ignored, as in PaddlePaddle.")
        .SetDefault(-1);
    AddAttr<int>("out_dtype", "Accepted for compatibility and ignored, as in PaddlePaddle.")
        .SetDefault(-1);
    AddComment(R"DOC(
Reduce-mean operator.

$$Out = \frac{1}{n} \sum_{i \in dim} X$$

with n the number of elements averaged into each output: X averaged over the dims listed in
`dim` (all dims when `reduce_all` is true or `dim` is empty). Reduced dims are removed from
the output shape, or kept as size 1 when `keep_dim` is true; reducing every dim without
keep_dim gives a 0-D output. Averages over an empty dim are NaN. Sums (each part of a complex
one) accumulate in double in a fixed order, so results are reproducible.

With X = [[1, 2, 3], [4, 5, 6]]: dim = [1] gives [2, 5]; reduce_all gives 3.5 (0-D).

Gradient, written with differentiable ops (n = size(X) / size(Out), cast to X's dtype; the
averaged dims are put back as size 1 unless keep_dim kept them, then the result is broadcast
to X):
$$dX = \mathrm{expand\_as\_v2}\left(\mathrm{unsqueeze2}\left(\frac{dOut}{n}, dim\right), X\right)$$
)DOC");
  }
};

class ReduceMeanOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// The reduced shape of `x` for the attributes of a kernel's op.
math::ReduceShape ShapeOf(const ExecutionContext& ctx, const DDim& x) {
  return math::ComputeReduceShape(ctx.Type(), x, ctx.Attr<std::vector<int>>("dim"),
                                  ctx.Attr<bool>("keep_dim"), ctx.Attr<bool>("reduce_all"));
}

void ReduceMeanInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const math::ReduceShape shape = math::ComputeReduceShape(
      ctx->OpType(), ctx->GetInputDim("X"), ctx->Attr<std::vector<int>>("dim"),
      ctx->Attr<bool>("keep_dim"), ctx->Attr<bool>("reduce_all"));
  ctx->SetOutputDim("Out", shape.out);
}

template <typename T>
struct ReduceMeanCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const math::ReduceShape shape = ShapeOf(ctx, x.dims());
    DenseTensor* out = ctx.Output("Out");
    out->Resize(shape.out);
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const int64_t n = shape.out.numel();
    if (n == 0) return;
    std::vector<double> sums(static_cast<size_t>(n));
    math::SumOverDims(ctx.device_context<platform::CPUDeviceContext>(),
                      x.numel() > 0 ? x.data<T>() : nullptr, x.dims(), shape.reduced,
                      sums.data());
    // 0 / 0 is NaN for an empty reduction.
    const double count = static_cast<double>(x.numel() / n);
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(sums[i] / count);
  }
};

template <typename T>
struct ReduceMeanComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    ComplexSumsInto<T>(ctx, *x, ShapeOf(ctx, x->dims()), true, ctx.Output("Out"));
  }
};

// dX = expand_as_v2(unsqueeze2(dOut / n), X) with n = cast(size(X)) / cast(size(Out)).
void ReduceMeanGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string& x = g->Input("X")[0];
  const DataType dtype = GradValueType(*g, x);
  const std::string x_size = AppendCountAs(g, x, "x", dtype);
  const std::string out_size = AppendCountAs(g, g->Output("Out")[0], "out", dtype);
  const std::string n = g->NewTemp("mean_count");
  g->AddOp("elementwise_div", {{"X", {x_size}}, {"Y", {out_size}}}, {{"Out", {n}}},
           {{"axis", -1}});
  const std::string scaled = g->NewTemp("dout_over_n");
  g->AddOp("elementwise_div", {{"X", g->OutputGrad("Out")}, {"Y", {n}}}, {{"Out", {scaled}}},
           {{"axis", -1}});
  AppendReduceGradBroadcast(g, scaled, -1);
}

// ---------------------------------------------------------------- PaddlePaddle grad op types

class ReduceMeanGradOpMaker : public ReduceOpMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X (only its dims are read).").AsNoNeedBuffer();
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape and dtype.");
    AddReduceAttrs("average");
    AddAttr<int>("in_dtype", "As in `reduce_mean` (ignored).").SetDefault(-1);
    AddAttr<int>("out_dtype", "As in `reduce_mean` (ignored).").SetDefault(-1);
    AddComment(R"DOC(
Gradient of `reduce_mean` as PaddlePaddle's programs hold it (fused kernel, first order
only): Out@GRAD divided by the number n of elements averaged into each output, broadcast
back over the averaged dims,

$$dX_i = \frac{dOut_{\mathrm{reduce}(i)}}{n}$$

where reduce(i) drops (or, with keep_dim, zeroes) the averaged dims of the index i.
)DOC");
  }
};

template <typename T>
struct ReduceMeanGradCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const math::ReduceShape shape = ShapeOf(ctx, ctx.Input("X")->dims());
    ComputeReduceGrad<T>(ctx, shape.reduced, true);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterReduceMeanOp) {
  framework::RegisterOp<ReduceMeanOp, ReduceMeanOpMaker>(kOp)
      .InferShape(ReduceMeanInferShape)
      .GradOpMaker(ReduceMeanGradMaker);
  RegisterPlainCpuFloatKernels<ReduceMeanCpuKernel>(kOp);
  RegisterPlainCpuKernels<ReduceMeanComplexKernel, std::complex<float>, std::complex<double>>(kOp);
  framework::RegisterOp<ReduceGradOp, ReduceMeanGradOpMaker>(kGradOp).InferShape(
      ReduceGradInferShape);
  RegisterPlainCpuKernels<ReduceMeanGradCpuKernel, float, double, std::complex<float>,
                          std::complex<double>>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
