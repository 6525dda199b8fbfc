// bce_loss: the binary cross entropy of probabilities X against labels, elementwise, each log
// floored at -100 as in PaddlePaddle; and its fused backward.
#include <algorithm>
#include <cmath>
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "bce_loss";

class BceLossOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Probabilities in [0, 1].");
    AddInput("Label", "X's shape: the targets in [0, 1].");
    AddOutput("Out", "X's shape: the loss of each element.");
    AddComment(R"DOC(
Binary cross entropy, elementwise:

$$Out = -\left(Label \cdot \max(\log X, -100) + (1 - Label) \cdot \max(\log(1 - X), -100)\right)$$

Example: X = 0.5, Label = 1 -> log 2.

Gradient, by the fused op bce_loss_grad:
$$dX = dOut \cdot \frac{X - Label}{\max(X (1 - X), 10^{-12})}$$
)DOC");
  }
};

class BceLossOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

void BceLossInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Label");
  ctx->RequireOutput("Out");
  CheckSameShape(ctx->OpType(), "Label", ctx->GetInputDim("Label"), "X", ctx->GetInputDim("X"));
  ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct BceLossKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* label = ctx.Input("Label");
    CheckSameShape(ctx.Type(), "Label", label->dims(), "X", x->dims());
    DenseTensor out(x->dims(), x->dtype());
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* p = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* y = x->numel() > 0 ? label->data<T>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) {
      PL_ENFORCE(p[i] >= T(0) && p[i] <= T(1),
                 errors::InvalidArgument("op `%s` input `X`: expected probabilities in [0, 1], "
                                         "received %g at index %lld",
                                         ctx.Type(), static_cast<double>(p[i]),
                                         static_cast<long long>(i)));
      const T log_p = std::max(std::log(p[i]), T(-100));
      const T log_q = std::max(std::log(T(1) - p[i]), T(-100));
      o[i] = -(y[i] * log_p + (T(1) - y[i]) * log_q);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void BceLossGradInferShape(InferShapeContext* ctx) { UnaryGradInferShape(ctx, "X"); }

template <typename T>
struct BceLossGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* label = ctx.Input("Label");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Label", label->dims(), "X", x->dims());
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "X", x->dims());
    DenseTensor dx(x->dims(), x->dtype());
    dx.set_lod(x->lod());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    const T* p = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* y = x->numel() > 0 ? label->data<T>() : nullptr;
    const T* g = x->numel() > 0 ? dout->data<T>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) {
      d[i] = g[i] * (p[i] - y[i]) / std::max((T(1) - p[i]) * p[i], static_cast<T>(1e-12));
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterBceLossOp) {
  const framework::FusedGradDecl grad{
      {"X", "Label"},
      {"Out"},
      {"X"},
      R"DOC($$dX = dOut \cdot \frac{X - Label}{\max(X (1 - X), 10^{-12})}$$)DOC"};
  framework::RegisterOp<BceLossOp, BceLossOpMaker>(kOp)
      .InferShape(BceLossInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<BceLossKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(BceLossGradInferShape);
  RegisterPlainCpuFloatKernels<BceLossGradKernel>("bce_loss_grad");
}

}  // namespace operators
}  // namespace paddle_like
