// frobenius_norm: the square root of the sum of squares over some (or all) dims, with
// PaddlePaddle's reduce attributes (paddle.linalg.norm with p = 'fro'). Its gradient is
// written with differentiable ops.
#include <cmath>
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

constexpr char kOp[] = "frobenius_norm";

class FrobeniusNormOpMaker : public ReduceOpMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "The norms, with X's dtype.");
    AddReduceAttrs("take the norm");
    AddOwnDtypeAttrs();
    AddComment(R"DOC(
Frobenius norm over the dims in `dim` (all of them with `reduce_all` or an empty `dim`):

$$Out = \sqrt{\sum_{i \in dim} X_i^2}$$

reduced dims removed, or kept as size 1 with `keep_dim`. Example: [[3, 4], [0, 0]] over dim 1
-> [5, 0]. Sums run in double.

Gradient (written with differentiable ops; NaN where the norm is 0, as in PaddlePaddle):
$$dX = dOut \cdot \frac{X}{Out}$$
)DOC");
  }
};

class FrobeniusNormOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

math::ReduceShape ShapeOf(const std::string& op, const DDim& x,
                          const framework::AttributeMap& attrs) {
  return math::ComputeReduceShape(op, x, ReduceDimsOf(attrs), std::get<bool>(attrs.at("keep_dim")),
                                  std::get<bool>(attrs.at("reduce_all")));
}

void FrobeniusNormInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", ShapeOf(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attrs()).out);
}

template <typename T>
struct FrobeniusNormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const math::ReduceShape shape = ShapeOf(ctx.Type(), x->dims(), ctx.op().Attrs());
    std::vector<T> squares(static_cast<size_t>(x->numel()));
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) squares[i] = in[i] * in[i];
    std::vector<double> sums(static_cast<size_t>(shape.out.numel()));
    math::SumOverDims(ctx.device_context<platform::CPUDeviceContext>(), squares.data(), x->dims(),
                      shape.reduced, sums.data());
    DenseTensor out(shape.out, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (size_t i = 0; i < sums.size(); ++i) o[i] = static_cast<T>(std::sqrt(sums[i]));
    *ctx.Output("Out") = std::move(out);
  }
};

// dX = expand(dOut) * X / expand(Out).
void FrobeniusNormGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string out = AppendBroadcastToX(g, g->Output("Out")[0], "norm_expanded");
  const std::string dout = AppendBroadcastToX(g, g->OutputGrad("Out")[0], "dout_expanded");
  const std::string unit = g->NewTemp("x_over_norm");
  g->AddOp("elementwise_div", {{"X", g->Input("X")}, {"Y", {out}}}, {{"Out", {unit}}},
           {{"axis", -1}});
  g->AddOp("elementwise_mul", {{"X", {dout}}, {"Y", {unit}}}, {{"Out", g->InputGrad("X")}},
           {{"axis", -1}});
}

}  // namespace

PL_REGISTER_OPS(RegisterFrobeniusNormOp) {
  framework::RegisterOp<FrobeniusNormOp, FrobeniusNormOpMaker>(kOp)
      .InferShape(FrobeniusNormInferShape)
      .GradOpMaker(FrobeniusNormGradMaker);
  RegisterPlainCpuFloatKernels<FrobeniusNormKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
