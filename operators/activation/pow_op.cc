// pow: X raised to a constant power, `factor` or the one-element tensor FactorTensor. The
// gradient is written with differentiable ops (pow, scale or elementwise ops, multiply), so
// higher orders follow.
#include "framework/grad_op_maker.h"
#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace activation {

double PowFactor(const framework::ExecutionContext& ctx) {
  if (!ctx.HasInput("FactorTensor")) return ctx.Attr<float>("factor");
  return ReadScalarInput(ctx, "FactorTensor");
}

}  // namespace activation

namespace {

class PowOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddAttr<float>("factor", "The exponent.").SetDefault(1.0f);
    AddComment(R"DOC(
Pow operator, elementwise, with the exponent from the one-element tensor FactorTensor when
given, else from the attribute factor:

$$Out = X^{factor}$$

Gradient, written with differentiable ops:
$$dX = dOut \cdot factor \cdot X^{factor - 1}$$
)DOC");
  }
};

// UnaryOpMaker with the optional FactorTensor input.
class PowOpMakerWithTensor : public PowOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddInput("FactorTensor",
             "Optional one-element tensor (any number dtype): the exponent, "
             "instead of `factor`.")
        .AsDispensable();
    PowOpMaker::MakeAttrsAndDoc();
  }
};

void PowGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::vector<std::string> slope = {g->NewTemp("pow_slope")};
  if (g->Input("FactorTensor").empty()) {
    const float factor = g->Attr<float>("factor");
    const std::vector<std::string> power = {g->NewTemp("x_pow_factor_minus_one")};
    g->AddOp("pow", {{"X", g->Input("X")}}, {{"Out", power}}, {{"factor", factor - 1.0f}});
    g->AddOp("scale", {{"X", power}}, {{"Out", slope}},
             {{"scale", factor}, {"bias", 0.0f}, {"bias_after_scale", true}});
  } else {
    // factor * X^(factor - 1) with the exponent a tensor: pow with FactorTensor - 1.
    const std::vector<std::string> minus_one = {g->NewTemp("factor_minus_one")};
    g->AddOp("scale", {{"X", g->Input("FactorTensor")}}, {{"Out", minus_one}},
             {{"scale", 1.0f}, {"bias", -1.0f}, {"bias_after_scale", true}});
    const std::vector<std::string> power = {g->NewTemp("x_pow_factor_minus_one")};
    g->AddOp("pow", {{"X", g->Input("X")}, {"FactorTensor", minus_one}}, {{"Out", power}},
             {{"factor", 1.0f}});
    g->AddOp("elementwise_mul", {{"X", power}, {"Y", g->Input("FactorTensor")}}, {{"Out", slope}},
             {{"axis", -1}});
  }
  g->AddOp("elementwise_mul", {{"X", g->OutputGrad("Out")}, {"Y", slope}},
           {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
}

}  // namespace

PL_REGISTER_OPS(RegisterPowOp) {
  framework::RegisterOp<UnaryOp, PowOpMakerWithTensor>("pow")
      .InferShape(SameShapeInferShape)
      .GradOpMaker(PowGradMaker);
  RegisterPlainCpuKernels<UnaryFunctorKernel<activation::Pow>::Kernel, float, double, int32_t,
                          int64_t>("pow");
  DeclarePlainInPlace("pow", {{"X", "Out"}});
}

}  // namespace operators
}  // namespace paddle_like
