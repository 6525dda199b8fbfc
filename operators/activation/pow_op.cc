// pow: X raised to a constant power, `factor` or the one-element tensor FactorTensor. The
// gradient is written with differentiable ops (pow, scale or elementwise ops, multiply), so
// higher orders follow.
#include <complex>

#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/complex/map_values.h"
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

(complex X too, on the principal branch: exp(factor ln X)).

Gradient, written with differentiable ops:
$$dX = dOut \cdot \overline{factor \cdot X^{factor - 1}}$$
(the conjugate, the identity on real values: dL/da + i dL/db for z = a + ib).
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

// The declared dtype of forward variable `name` (float32 when undeclared: a cast's in_dtype
// is informational).
int DeclaredDtype(const framework::GradOpBuilder& g, const std::string& name) {
  const framework::VarDesc* v = framework::FindForwardVar(g, name);
  return static_cast<int>(v != nullptr ? v->GetDataType() : DataType::FLOAT32);
}

// dX = dOut * conj(factor * X^(factor - 1)) (conj: the identity on real values).
void PowGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string& x = g->Input("X")[0];
  const bool complex = framework::IsComplexForwardVar(*g, x);
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
    std::vector<std::string> factor = g->Input("FactorTensor");
    if (complex) {  // The real exponent times a complex power: as a complex value.
      factor = {g->NewTemp("factor_complex")};
      g->AddOp("cast", {{"X", g->Input("FactorTensor")}}, {{"Out", factor}},
               {{"in_dtype", DeclaredDtype(*g, g->Input("FactorTensor")[0])},
                {"out_dtype", DeclaredDtype(*g, x)}});
    }
    g->AddOp("elementwise_mul", {{"X", power}, {"Y", factor}}, {{"Out", slope}}, {{"axis", -1}});
  }
  std::vector<std::string> conj_slope = slope;
  if (complex) {
    conj_slope = {g->NewTemp("pow_slope_conj")};
    g->AddOp("conj", {{"X", slope}}, {{"Out", conj_slope}});
  }
  g->AddOp("elementwise_mul", {{"X", g->OutputGrad("Out")}, {"Y", conj_slope}},
           {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
}

template <typename C>
struct PowComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const double factor = activation::PowFactor(ctx);
    MapValues<C, C>(ctx, *ctx.Input("X"), "Out",
                    [factor](const C& v) { return C(std::pow(v, factor)); });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterPowOp) {
  framework::RegisterOp<UnaryOp, PowOpMakerWithTensor>("pow")
      .InferShape(SameShapeInferShape)
      .GradOpMaker(PowGradMaker);
  RegisterPlainCpuKernels<UnaryFunctorKernel<activation::Pow>::Kernel, float, double, int32_t,
                          int64_t>("pow");
  RegisterPlainCpuKernels<PowComplexKernel, std::complex<float>, std::complex<double>>("pow");
  DeclarePlainInPlace("pow", {{"X", "Out"}});
}

}  // namespace operators
}  // namespace paddle_like
