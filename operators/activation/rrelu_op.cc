// rrelu: the randomized leaky relu. Training draws each negative element's slope from
// U[lower, upper] (seeded by the default generator); inference (is_test) uses their mean.
// Noise records the slope each element got (1 where X >= 0), and the fused backward
// multiplies by it.
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/random/random_transforms.h"
#include "platform/random.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "rrelu";

class RreluOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor.");
    AddOutput("Out", "X's shape.");
    AddOutput("Noise", "The slope applied to each element (1 where X >= 0).").AsIntermediate();
    AddAttr<float>("lower", "Lowest slope, in [0, 1].").SetDefault(0.125f);
    AddAttr<float>("upper", "Highest slope, in [lower, 1].").SetDefault(1.0f / 3.0f);
    AddAttr<bool>("is_test", "Use the mean slope (lower + upper) / 2 instead of random ones.")
        .SetDefault(false);
    AddComment(R"DOC(
Randomized leaky ReLU, elementwise:

$$Out = \begin{cases} X & X \ge 0 \\ a X & X < 0 \end{cases}, \quad
a \sim U[lower, upper] \text{ (training)}, \; a = \frac{lower + upper}{2} \text{ (is\_test)}$$

Gradient, by the fused op rrelu_grad: $$dX = dOut \cdot Noise$$
)DOC");
  }
};

class RreluOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void RreluInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  const float lower = ctx->Attr<float>("lower"), upper = ctx->Attr<float>("upper");
  PL_ENFORCE(lower >= 0.0f && lower <= upper && upper <= 1.0f,
             errors::InvalidArgument("op `%s` attributes `lower` and `upper`: expected 0 <= lower "
                                     "<= upper <= 1, received %g and %g",
                                     ctx->OpType(), lower, upper));
  for (const char* slot : {"Out", "Noise"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDim(slot, ctx->GetInputDim("X"));
  }
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct RreluKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const double lower = ctx.Attr<float>("lower"), upper = ctx.Attr<float>("upper");
    const bool is_test = ctx.Attr<bool>("is_test");
    DenseTensor out(x->dims(), x->dtype()), noise(x->dims(), x->dtype());
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    T* s = noise.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    const T mid = static_cast<T>((lower + upper) / 2);
    RandomSource random(is_test ? 0 : platform::NextDefaultSeed());
    for (int64_t i = 0; i < x->numel(); ++i) {
      if (in[i] >= T(0)) {
        s[i] = T(1);
      } else {
        s[i] = is_test ? mid : static_cast<T>(lower + (upper - lower) * random.Uniform());
      }
      o[i] = in[i] * s[i];
    }
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* n = ctx.Output("Noise")) *n = std::move(noise);
  }
};

template <typename T>
struct RreluGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* noise = ctx.Input("Noise");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    PL_ENFORCE(
        noise->dims() == dout->dims(),
        errors::InvalidArgument("op `%s` input `Noise`: expected Out@GRAD's shape %s, "
                                "received %s",
                                ctx.Type(), dout->dims().ToString(), noise->dims().ToString()));
    DenseTensor dx(dout->dims(), dout->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
    const T* s = dout->numel() > 0 ? noise->data<T>() : nullptr;
    for (int64_t i = 0; i < dx.numel(); ++i) d[i] = g[i] * s[i];
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRreluOp) {
  const framework::FusedGradDecl grad{
      {"Noise"}, {"Out"}, {"X"}, R"DOC($$dX = dOut \cdot Noise$$)DOC"};
  framework::RegisterOp<RreluOp, RreluOpMaker>(kOp)
      .InferShape(RreluInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<RreluKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(
      [](InferShapeContext* ctx) { UnaryGradInferShape(ctx, "Noise"); });
  RegisterPlainCpuFloatKernels<RreluGradKernel>("rrelu_grad");
}

}  // namespace operators
}  // namespace paddle_like
