// hinge_loss: the SVM hinge loss of raw scores against 0/1 labels, elementwise, with a fused
// backward.
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "hinge_loss";

class HingeLossOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Logits", "The scores (any real numbers), [N, 1] in PaddlePaddle's programs.");
    AddInput("Labels", "Logits' shape: 0 or 1 for each score.");
    AddOutput("Loss", "Logits' shape: the loss of each score.");
    AddComment(R"DOC(
Hinge loss, elementwise, with x = Logits and the label y in {0, 1} taken as the sign
s = 2y - 1:
$$Loss = \max(0, 1 - s x)$$
Gradient, by the fused op hinge_loss_grad (Labels get none):
$$dLogits = \begin{cases} -s \cdot dLoss & s x < 1 \\ 0 & \text{otherwise} \end{cases}$$
)DOC");
  }
};

class HingeLossOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Logits");
  }
};

void HingeLossInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Logits");
  ctx->RequireInput("Labels");
  ctx->RequireOutput("Loss");
  const DDim x = ctx->GetInputDim("Logits");
  CheckSameShape(ctx->OpType(), "Labels", ctx->GetInputDim("Labels"), "Logits", x);
  ctx->SetOutputDim("Loss", x);
}

template <typename T>
struct HingeLossKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("Logits");
    const DenseTensor* y_t = ctx.Input("Labels");
    CheckSameShape(ctx.Type(), "Labels", y_t->dims(), "Logits", x_t->dims());
    DenseTensor loss(x_t->dims(), x_t->dtype());
    T* o = loss.mutable_data<T>(ctx.GetPlace());
    const T* x = x_t->numel() > 0 ? x_t->data<T>() : nullptr;
    const T* y = x_t->numel() > 0 ? y_t->data<T>() : nullptr;
    for (int64_t i = 0; i < x_t->numel(); ++i) {
      const T margin = T(1) - (T(2) * y[i] - T(1)) * x[i];
      o[i] = margin > T(0) ? margin : T(0);
    }
    *ctx.Output("Loss") = std::move(loss);
  }
};

void HingeLossGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Logits");
  ctx->RequireInput("Loss@GRAD");
  if (ctx->HasOutput("Logits@GRAD")) {
    ctx->SetOutputDim("Logits@GRAD", ctx->GetInputDim("Logits"));
  }
}

template <typename T>
struct HingeLossGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("Logits");
    const DenseTensor* y_t = ctx.Input("Labels");
    const DenseTensor* g_t = ctx.Input("Loss@GRAD");
    CheckSameShape(ctx.Type(), "Labels", y_t->dims(), "Logits", x_t->dims());
    CheckSameShape(ctx.Type(), "Loss@GRAD", g_t->dims(), "Logits", x_t->dims());
    DenseTensor dx(x_t->dims(), x_t->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    const T* x = x_t->numel() > 0 ? x_t->data<T>() : nullptr;
    const T* y = x_t->numel() > 0 ? y_t->data<T>() : nullptr;
    const T* g = x_t->numel() > 0 ? g_t->data<T>() : nullptr;
    for (int64_t i = 0; i < dx.numel(); ++i) {
      const T s = T(2) * y[i] - T(1);
      d[i] = s * x[i] < T(1) ? -s * g[i] : T(0);
    }
    if (DenseTensor* out = ctx.Output("Logits@GRAD")) *out = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterHingeLossOp) {
  const framework::FusedGradDecl grad{
      {"Logits", "Labels"},
      {"Loss"},
      {"Logits"},
      R"DOC($$dLogits = -s \cdot dLoss \cdot [s x < 1], \quad s = 2 \cdot Labels - 1$$)DOC"};
  framework::RegisterOp<HingeLossOp, HingeLossOpMaker>(kOp)
      .InferShape(HingeLossInferShape)
      .InferVarType(OutputDataTypeOf("Logits", "Loss"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<HingeLossKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(HingeLossGradInferShape);
  RegisterPlainCpuFloatKernels<HingeLossGradKernel>("hinge_loss_grad");
}

}  // namespace operators
}  // namespace paddle_like
