// huber_loss (quadratic near 0, linear beyond delta, of the residual Y - X) and log_loss (the
// binary log loss of probabilities with an epsilon inside the logs), elementwise, with fused
// backwards.
#include <cmath>
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class HuberLossOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The predictions.");
    AddInput("Y", "The targets, X's shape.");
    AddOutput("Out", "X's shape: the loss of each element.");
    AddOutput("Residual", "Y - X, kept for the backward.").AsIntermediate();
    AddAttr<float>("delta", "Where the loss turns from quadratic to linear (> 0).");
    AddComment(R"DOC(
Huber loss of the residual r = Y - X, elementwise:

$$Out = \begin{cases} \frac{1}{2} r^2 & |r| \le \delta \\ \delta (|r| - \frac{1}{2} \delta) & |r| > \delta \end{cases}$$

Gradient, by the fused op huber_loss_grad (from Residual):
$$dY = -dX = dOut \cdot \mathrm{clip}(r, -\delta, \delta)$$
)DOC");
  }
};

class LogLossOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Predicted", "Probabilities.");
    AddInput("Labels", "Predicted's shape: the targets.");
    AddOutput("Loss", "Predicted's shape.");
    AddAttr<float>("epsilon", "Added inside the logs (keeps them finite at 0 and 1).");
    AddComment(R"DOC(
Log loss, elementwise, with p = Predicted, y = Labels:

$$Loss = -y \log(p + \epsilon) - (1 - y) \log(1 - p + \epsilon)$$

Gradient, by the fused op log_loss_grad:
$$dPredicted = dLoss \cdot \left(-\frac{y}{p + \epsilon} + \frac{1 - y}{1 - p + \epsilon}\right)$$
)DOC");
  }
};

class ElementwiseLossOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    if (ctx.inputs.count("X")) return InputDataType(ctx, "X");
    if (ctx.inputs.count("Predicted")) return InputDataType(ctx, "Predicted");
    return InputDataType(ctx, "Residual");
  }
};

// ---------------------------------------------------------------- huber_loss

float HuberDelta(const std::string& op, float delta) {
  PL_ENFORCE(delta > 0.0f, errors::InvalidArgument("op `%s` attribute `delta`: expected a "
                                                   "positive value, received %g",
                                                   op, delta));
  return delta;
}

void HuberLossInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckSameShape(ctx->OpType(), "Y", ctx->GetInputDim("Y"), "X", x);
  HuberDelta(ctx->OpType(), ctx->Attr<float>("delta"));
  ctx->SetOutputDim("Out", x);
  if (ctx->HasOutput("Residual")) ctx->SetOutputDim("Residual", x);
}

template <typename T>
struct HuberLossKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    CheckSameShape(ctx.Type(), "Y", y->dims(), "X", x->dims());
    const T delta = static_cast<T>(HuberDelta(ctx.Type(), ctx.Attr<float>("delta")));
    DenseTensor out(x->dims(), x->dtype()), residual(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    T* r = residual.mutable_data<T>(ctx.GetPlace());
    const T* a = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* b = x->numel() > 0 ? y->data<T>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) {
      r[i] = b[i] - a[i];
      const T m = std::abs(r[i]);
      o[i] = m <= delta ? T(0.5) * r[i] * r[i] : delta * (m - T(0.5) * delta);
    }
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* res = ctx.Output("Residual")) *res = std::move(residual);
  }
};

void HuberLossGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Residual");
  ctx->RequireInput("Out@GRAD");
  for (const char* slot : {"X@GRAD", "Y@GRAD"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDim(slot, ctx->GetInputDim("Residual"));
  }
}

template <typename T>
struct HuberLossGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* residual = ctx.Input("Residual");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Residual", residual->dims());
    const T delta = static_cast<T>(HuberDelta(ctx.Type(), ctx.Attr<float>("delta")));
    DenseTensor dy(residual->dims(), residual->dtype());
    T* d = dy.mutable_data<T>(ctx.GetPlace());
    const T* r = residual->numel() > 0 ? residual->data<T>() : nullptr;
    const T* g = residual->numel() > 0 ? dout->data<T>() : nullptr;
    for (int64_t i = 0; i < dy.numel(); ++i) {
      d[i] = g[i] * (r[i] > delta ? delta : (r[i] < -delta ? -delta : r[i]));
    }
    if (DenseTensor* dx = ctx.Output("X@GRAD")) {
      DenseTensor neg(dy.dims(), dy.dtype());
      T* n = neg.mutable_data<T>(ctx.GetPlace());
      for (int64_t i = 0; i < dy.numel(); ++i) n[i] = -d[i];
      *dx = std::move(neg);
    }
    if (DenseTensor* o = ctx.Output("Y@GRAD")) *o = std::move(dy);
  }
};

// ---------------------------------------------------------------- log_loss

void LogLossInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Predicted");
  ctx->RequireInput("Labels");
  ctx->RequireOutput("Loss");
  const DDim p = ctx->GetInputDim("Predicted");
  CheckSameShape(ctx->OpType(), "Labels", ctx->GetInputDim("Labels"), "Predicted", p);
  ctx->SetOutputDim("Loss", p);
}

template <typename T>
struct LogLossKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* p_t = ctx.Input("Predicted");
    const DenseTensor* y_t = ctx.Input("Labels");
    CheckSameShape(ctx.Type(), "Labels", y_t->dims(), "Predicted", p_t->dims());
    const T eps = static_cast<T>(ctx.Attr<float>("epsilon"));
    DenseTensor loss(p_t->dims(), p_t->dtype());
    T* o = loss.mutable_data<T>(ctx.GetPlace());
    const T* p = p_t->numel() > 0 ? p_t->data<T>() : nullptr;
    const T* y = p_t->numel() > 0 ? y_t->data<T>() : nullptr;
    for (int64_t i = 0; i < p_t->numel(); ++i) {
      o[i] = -y[i] * std::log(p[i] + eps) - (T(1) - y[i]) * std::log(T(1) - p[i] + eps);
    }
    *ctx.Output("Loss") = std::move(loss);
  }
};

void LogLossGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Predicted");
  ctx->RequireInput("Loss@GRAD");
  if (ctx->HasOutput("Predicted@GRAD")) {
    ctx->SetOutputDim("Predicted@GRAD", ctx->GetInputDim("Predicted"));
  }
}

template <typename T>
struct LogLossGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* p_t = ctx.Input("Predicted");
    const DenseTensor* y_t = ctx.Input("Labels");
    const DenseTensor* g_t = ctx.Input("Loss@GRAD");
    CheckSameShape(ctx.Type(), "Loss@GRAD", g_t->dims(), "Predicted", p_t->dims());
    const T eps = static_cast<T>(ctx.Attr<float>("epsilon"));
    DenseTensor dp(p_t->dims(), p_t->dtype());
    T* d = dp.mutable_data<T>(ctx.GetPlace());
    const T* p = p_t->numel() > 0 ? p_t->data<T>() : nullptr;
    const T* y = p_t->numel() > 0 ? y_t->data<T>() : nullptr;
    const T* g = p_t->numel() > 0 ? g_t->data<T>() : nullptr;
    for (int64_t i = 0; i < dp.numel(); ++i) {
      d[i] = g[i] * (-y[i] / (p[i] + eps) + (T(1) - y[i]) / (T(1) - p[i] + eps));
    }
    *ctx.Output("Predicted@GRAD") = std::move(dp);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterHuberLogLossOps) {
  const framework::FusedGradDecl huber_grad{
      {"Residual"},
      {"Out"},
      {"X", "Y"},
      R"DOC($$dY = -dX = dOut \cdot \mathrm{clip}(r, -\delta, \delta)$$)DOC"};
  framework::RegisterOp<ElementwiseLossOp, HuberLossOpMaker>("huber_loss")
      .InferShape(HuberLossInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(huber_grad));
  RegisterPlainCpuFloatKernels<HuberLossKernel>("huber_loss");
  framework::RegisterFusedGradOp("huber_loss", huber_grad).InferShape(HuberLossGradInferShape);
  RegisterPlainCpuFloatKernels<HuberLossGradKernel>("huber_loss_grad");

  const framework::FusedGradDecl log_grad{
      {"Predicted", "Labels"},
      {"Loss"},
      {"Predicted"},
      R"DOC($$dPredicted = dLoss \cdot \left(-\frac{y}{p + \epsilon} + \frac{1 - y}{1 - p + \epsilon}\right)$$)DOC"};
  framework::RegisterOp<ElementwiseLossOp, LogLossOpMaker>("log_loss")
      .InferShape(LogLossInferShape)
      .InferVarType(OutputDataTypeOf("Predicted", "Loss"))
      .GradOpMaker(framework::FusedGradMaker(log_grad));
  RegisterPlainCpuFloatKernels<LogLossKernel>("log_loss");
  framework::RegisterFusedGradOp("log_loss", log_grad).InferShape(LogLossGradInferShape);
  RegisterPlainCpuFloatKernels<LogLossGradKernel>("log_loss_grad");
}

}  // namespace operators
}  // namespace paddle_like
