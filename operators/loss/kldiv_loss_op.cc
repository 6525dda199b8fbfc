// kldiv_loss: the Kullback-Leibler divergence of Target from the log-probabilities X,
// elementwise, with none / mean / batchmean / sum reduction and Target given as probabilities
// or (log_target) as log-probabilities; and its fused backward.
#include <cmath>
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "kldiv_loss";

class KldivLossOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Log-probabilities, [N, ...].");
    AddInput("Target", "X's shape: probabilities (or log-probabilities with log_target).");
    AddOutput("Loss", "reduction none: X's shape; otherwise 0-D.");
    AddAttr<std::string>("reduction", "none, batchmean (sum / N), mean or sum.")
        .SetDefault("mean")
        .InEnum({"none", "batchmean", "mean", "sum"});
    AddAttr<bool>("log_target", "Target holds log-probabilities.").SetDefault(false);
    AddComment(R"DOC(
KL divergence, elementwise:

$$l = \begin{cases} Target \cdot (\log Target - X) & \text{(0 where } Target \le 0) \\ e^{Target} (Target - X) & log\_target \end{cases}$$

then Loss is l (none), $$\sum l$$ (sum), $$\sum l / numel$$ (mean) or $$\sum l / N$$
(batchmean, N = X's first dim).

Gradient, by the fused op kldiv_loss_grad: $$dX = -Target \cdot dOut$$ (0 where Target <= 0;
$$-e^{Target} dOut$$ with log_target), divided as the reduction divides.
)DOC");
  }
};

class KldivLossOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

void KldivLossInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Target");
  ctx->RequireOutput("Loss");
  CheckSameShape(ctx->OpType(), "Target", ctx->GetInputDim("Target"), "X", ctx->GetInputDim("X"));
  ctx->SetOutputDim("Loss",
                    ctx->Attr<std::string>("reduction") == "none" ? ctx->GetInputDim("X") : DDim());
}

// What the reduction divides the summed loss by (1 for none and sum).
template <typename T>
T Divisor(const std::string& reduction, const DDim& x) {
  if (reduction == "mean") return static_cast<T>(x.numel());
  if (reduction == "batchmean") return static_cast<T>(x.size() == 0 ? 1 : x[0]);
  return T(1);
}

template <typename T>
struct KldivLossKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* target = ctx.Input("Target");
    CheckSameShape(ctx.Type(), "Target", target->dims(), "X", x->dims());
    const std::string& reduction = ctx.Attr<std::string>("reduction");
    const bool log_target = ctx.Attr<bool>("log_target");
    const T* a = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* t = x->numel() > 0 ? target->data<T>() : nullptr;
    DenseTensor loss(reduction == "none" ? x->dims() : DDim(), x->dtype());
    T* o = loss.mutable_data<T>(ctx.GetPlace());
    T sum = T(0);
    for (int64_t i = 0; i < x->numel(); ++i) {
      T l;
      if (log_target) {
        l = std::exp(t[i]) * (t[i] - a[i]);
      } else {
        l = t[i] > T(0) ? t[i] * (std::log(t[i]) - a[i]) : T(0);
      }
      if (reduction == "none") {
        o[i] = l;
      } else {
        sum += l;
      }
    }
    if (reduction != "none") o[0] = sum / Divisor<T>(reduction, x->dims());
    *ctx.Output("Loss") = std::move(loss);
  }
};

// X@GRAD has X's dims (Out@GRAD has the loss's).
void KldivLossGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Loss@GRAD");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct KldivLossGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* target = ctx.Input("Target");
    const DenseTensor* dout = ctx.Input("Loss@GRAD");
    CheckSameShape(ctx.Type(), "Target", target->dims(), "X", x->dims());
    const std::string& reduction = ctx.Attr<std::string>("reduction");
    const bool per_element = reduction == "none";
    PL_ENFORCE(dout->numel() == (per_element ? x->numel() : 1),
               errors::InvalidArgument("op `%s` input `Loss@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), (per_element ? x->dims() : DDim()).ToString(),
                                       dout->dims().ToString()));
    const bool log_target = ctx.Attr<bool>("log_target");
    const T divisor = Divisor<T>(reduction, x->dims());
    DenseTensor dx(x->dims(), x->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    const T* t = x->numel() > 0 ? target->data<T>() : nullptr;
    const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) {
      const T weight = log_target ? std::exp(t[i]) : (t[i] > T(0) ? t[i] : T(0));
      d[i] = -weight * (per_element ? g[i] : g[0]) / divisor;
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterKldivLossOp) {
  const framework::FusedGradDecl grad{
      {"X", "Target"},
      {"Loss"},
      {"X"},
      R"DOC($$dX = -Target \cdot dLoss$$ (0 where Target <= 0; $$-e^{Target} dLoss$$ with log_target), over the reduction's divisor)DOC"};
  framework::RegisterOp<KldivLossOp, KldivLossOpMaker>(kOp)
      .InferShape(KldivLossInferShape)
      .InferVarType(OutputDataTypeOf("X", "Loss"))
      .GradOpMaker(framework::FusedGradMaker(grad))
      .Checkpoint("kldiv_loss with log_target",
                  framework::OpVersionDesc().NewAttr("log_target", "Target holds log-probabilities",
                                                     false));
  RegisterPlainCpuFloatKernels<KldivLossKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(KldivLossGradInferShape);
  RegisterPlainCpuFloatKernels<KldivLossGradKernel>("kldiv_loss_grad");
}

}  // namespace operators
}  // namespace paddle_like
