// sigmoid_cross_entropy_with_logits: elementwise binary cross entropy on logits (what
// paddle.nn.BCEWithLogitsLoss and detection heads write), with PaddlePaddle's ignore_index,
// normalize and pos_weight, and its fused gradient op.
#include <algorithm>
#include <cmath>
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sigmoid_cross_entropy_with_logits";

class SigmoidCrossEntropyOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Logits x, any shape.");
    AddInput("Label", "Targets l in [0, 1] (or ignore_index), X's shape and dtype.");
    AddInput("pos_weight",
             "Optional weight w of the log-sigmoid term, X's shape (paddle.nn's pos_weight p "
             "enters as w = 1 + (p - 1) l).")
        .AsDispensable();
    AddOutput("Out", "The loss of each element, X's shape.");
    AddAttr<bool>("normalize", "Divide by the number of elements whose label is not ignored.")
        .SetDefault(false);
    AddAttr<int>("ignore_index", "Elements whose label (truncated to int) equals it give 0.")
        .SetDefault(-100);
    AddComment(R"DOC(
Sigmoid cross entropy with logits, elementwise, computed without overflow:

$$Out = \max(x, 0) - x \, l + \log(1 + e^{-|x|})$$

and with pos_weight w weighing the log-sigmoid term, -\log \sigma(x) = \log(1 + e^{-|x|}) +
\max(-x, 0) (PaddlePaddle's Python API passes w = 1 + (p - 1) l for a positive-class weight p):

$$Out = (1 - l) \, x + w \left(\log(1 + e^{-|x|}) + \max(-x, 0)\right)$$

Elements whose label truncated to an integer equals ignore_index give 0. With normalize, every
element is divided by the number of labels farther than 1e-6 from ignore_index (by 1 when
there is none, so an all-ignored batch gives zeros). Example: x = 0, l = 1 gives log 2.

Gradient (fused op): dX = dOut (1 - l - w (1 - sigmoid(x))) (without pos_weight: sigmoid(x) - l),
0 at ignored elements, divided by the same count with normalize.
)DOC");
  }
};

class SigmoidCrossEntropyOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

void CheckSameShape(const std::string& op, const char* slot, const DDim& x, const DDim& other) {
  PL_ENFORCE(x.HasUnknown() || other.HasUnknown() || x == other,
             errors::InvalidArgument("op `%s` input `%s`: expected X's shape %s, received %s", op,
                                     slot, x.ToString(), other.ToString()));
}

void SigmoidCrossEntropyInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Label");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckSameShape(ctx->OpType(), "Label", x, ctx->GetInputDim("Label"));
  if (ctx->HasInput("pos_weight")) {
    CheckSameShape(ctx->OpType(), "pos_weight", x, ctx->GetInputDim("pos_weight"));
  }
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

// X, Label and pos_weight (nullptr when absent), checked to have one shape.
template <typename T>
struct LossInputs {
  const T* x;
  const T* label;
  const T* pos_weight;
  int64_t n;
};

template <typename T>
LossInputs<T> ReadInputs(const ExecutionContext& ctx) {
  const DenseTensor* x = ctx.Input("X");
  const DenseTensor* label = ctx.Input("Label");
  CheckSameShape(ctx.Type(), "Label", x->dims(), label->dims());
  const DenseTensor* w = ctx.Input("pos_weight");
  if (w != nullptr) CheckSameShape(ctx.Type(), "pos_weight", x->dims(), w->dims());
  return {x->data<T>(), label->data<T>(), w != nullptr ? w->data<T>() : nullptr, x->numel()};
}

// 1 / the number of labels not (within 1e-6) at ignore_index; 1 when there are none.
template <typename T>
T NormalizeScale(const ExecutionContext& ctx, const LossInputs<T>& in) {
  if (!ctx.Attr<bool>("normalize")) return T(1);
  const T ignore = static_cast<T>(ctx.Attr<int>("ignore_index"));
  int64_t count = 0;
  for (int64_t i = 0; i < in.n; ++i) count += std::abs(in.label[i] - ignore) > T(1e-6);
  return T(1) / static_cast<T>(std::max<int64_t>(count, 1));
}

bool Ignored(double label, int ignore_index) {
  return std::isfinite(label) && std::abs(label) < 2147483648.0 &&
         static_cast<int>(label) == ignore_index;
}

template <typename T>
struct SigmoidCrossEntropyKernel {
  static void Compute(const ExecutionContext& ctx) {
    const LossInputs<T> in = ReadInputs<T>(ctx);
    const int ignore = ctx.Attr<int>("ignore_index");
    const T scale = NormalizeScale(ctx, in);
    DenseTensor fresh(ctx.Input("X")->dims(), ctx.Input("X")->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < in.n; ++i) {
      const T x = in.x[i], l = in.label[i];
      if (Ignored(l, ignore)) {
        out[i] = T(0);
        continue;
      }
      const T softplus_neg_abs = std::log1p(std::exp(-std::abs(x)));
      if (in.pos_weight == nullptr) {
        out[i] = (std::max(x, T(0)) - x * l + softplus_neg_abs) * scale;
      } else {
        out[i] =
            ((T(1) - l) * x + in.pos_weight[i] * (softplus_neg_abs + std::max(-x, T(0)))) * scale;
      }
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct SigmoidCrossEntropyGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const LossInputs<T> in = ReadInputs<T>(ctx);
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Out@GRAD", ctx.Input("X")->dims(), dout->dims());
    const int ignore = ctx.Attr<int>("ignore_index");
    const T scale = NormalizeScale(ctx, in);
    const T* g = dout->data<T>();
    DenseTensor fresh(ctx.Input("X")->dims(), dout->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < in.n; ++i) {
      const T x = in.x[i], l = in.label[i];
      if (Ignored(l, ignore)) {
        dx[i] = T(0);
        continue;
      }
      const T sigmoid = T(1) / (T(1) + std::exp(-x));
      const T w = in.pos_weight == nullptr ? T(1) : in.pos_weight[i];
      dx[i] = g[i] * (T(1) - l - w * (T(1) - sigmoid)) * scale;
    }
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSigmoidCrossEntropyOp) {
  const framework::FusedGradDecl grad{
      {"X", "Label", "pos_weight"},
      {"Out"},
      {"X"},
      R"DOC($$dX = dOut \left(1 - l - w (1 - \sigma(x))\right)$$)DOC"};
  framework::RegisterOp<SigmoidCrossEntropyOp, SigmoidCrossEntropyOpMaker>(kOp)
      .InferShape(SigmoidCrossEntropyInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<SigmoidCrossEntropyKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireOutput("X@GRAD");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuFloatKernels<SigmoidCrossEntropyGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
