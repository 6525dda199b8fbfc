// identity_loss: marks a loss, reduced by sum, by mean or not at all (PaddlePaddle's IPU
// programs hold it). The gradients are written with differentiable ops.
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/reduce.h"
#include "operators/op_family.h"
#include "operators/reduce/reduce_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "identity_loss";
enum Reduction { kSum = 0, kMean = 1, kNone = 2 };

class IdentityLossOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The loss values, any shape.");
    AddOutput("Out", "0-D (dims []) for sum and mean; X's shape for none.");
    AddAttr<int>("reduction", "0: sum, 1: mean, 2: none.")
        .SetDefault(kMean)
        .InEnum({kSum, kMean, kNone});
    AddComment(R"DOC(
Identity loss over the N elements of X, summed in double in a fixed order:
$$Out = \sum_i X_i \;(reduction = 0), \qquad Out = \frac{1}{N} \sum_i X_i \;(1), \qquad Out = X \;(2)$$
Gradient, written with differentiable ops (expand_as_v2, and for the mean the division by
cast(size(X))):
$$dX = \mathrm{expand}(dOut) \;(0), \qquad dX = \mathrm{expand}\left(\frac{dOut}{N}\right) \;(1), \qquad dX = dOut \;(2)$$
)DOC");
  }
};

class IdentityLossOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void IdentityLossInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  ctx->SetOutputDim("Out", ctx->Attr<int>("reduction") == kNone ? x : DDim());
}

template <typename T>
struct IdentityLossKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const int reduction = ctx.Attr<int>("reduction");
    if (reduction == kNone) {
      DenseTensor out(x->dims(), x->dtype());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      if (x->numel() > 0) std::copy(x->data<T>(), x->data<T>() + x->numel(), o);
      *ctx.Output("Out") = std::move(out);
      return;
    }
    const int64_t n = x->numel();
    double sum =
        n > 0 ? math::SumAll(ctx.device_context<platform::CPUDeviceContext>(), x->data<T>(), n)
              : 0.0;
    // The mean of an empty X is NaN (0 / 0), as for `mean`.
    if (reduction == kMean) sum /= static_cast<double>(n);
    DenseTensor out(DDim(), x->dtype());
    out.mutable_data<T>(ctx.GetPlace())[0] = static_cast<T>(sum);
    *ctx.Output("Out") = std::move(out);
  }
};

void IdentityLossGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  switch (g->Attr<int>("reduction")) {
    case kSum:
      g->AddOp("expand_as_v2", {{"X", g->OutputGrad("Out")}, {"Y", g->Input("X")}},
               {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
      return;
    case kMean:
      AppendMeanOfAllGrad(g, g->Input("X")[0], g->OutputGrad("Out"), g->InputGrad("X"));
      return;
    default:
      g->AddOp("scale", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
               {{"scale", 1.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterIdentityLossOp) {
  framework::RegisterOp<IdentityLossOp, IdentityLossOpMaker>(kOp)
      .InferShape(IdentityLossInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(IdentityLossGradMaker);
  RegisterPlainCpuFloatKernels<IdentityLossKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
