// Activation ops (relu, sigmoid, tanh, exp, log, sin, cos, square, sign, abs, floor, ceil,
// reciprocal, erf, silu, logsigmoid, softsign, tan, atan, asin, acos, sinh, cosh, log1p, expm1,
// log2, log10, tanh_shrink, asinh, acosh, atanh): one op class, one maker template and one kernel
// template, instantiated per tag of activation_op.h, and the grad maker of each tag. Also
// PaddlePaddle's fused grad op types (relu_grad, sigmoid_grad, tanh_grad, exp_grad, square_grad),
// so that programs it built run here. The complex kernels of the functions PaddlePaddle defines
// on complex values are in operators/complex/complex_activation_op.cc; for them the grad makers
// here read conj(X) or conj(Out) (Conjugated below).
#include "operators/activation/activation_op.h"

#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/common.h"
#include "operators/complex/map_values.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

template <typename Tag>
class ActivationOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    std::string doc = std::string("Activation operator `") + Tag::kType + "`.\n\n$$" +
                      Tag::kFormula + "$$\n\napplied elementwise.";
    if (Tag::kNote[0] != '\0') doc += std::string(" ") + Tag::kNote;
    doc += std::string("\n\nGradient:\n\n$$") + Tag::kGradFormula + "$$";
    AddComment(doc + "\n");
  }
};

class ActivationOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

template <typename Tag>
struct ActivationCpuKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      ComputeUnary<T>(ctx, typename Tag::template Functor<T>{});
    }
  };
};

// Helpers that emit one forward op into a grad maker's backward ops, with every semantic
// attribute given explicitly.
using framework::GradOpBuilder;
using Names = std::vector<std::string>;

// out = type(x) for an activation op.
void EmitUnary(GradOpBuilder* g, const std::string& type, const Names& x, const Names& out) {
  g->AddOp(type, {{"X", x}}, {{"Out", out}});
}

// out = x * y, elementwise (same shapes).
void EmitMul(GradOpBuilder* g, const Names& x, const Names& y, const Names& out) {
  g->AddOp("elementwise_mul", {{"X", x}, {"Y", y}}, {{"Out", out}}, {{"axis", -1}});
}

// out = scale * x + bias.
void EmitScale(GradOpBuilder* g, const Names& x, float scale, float bias, const Names& out) {
  g->AddOp("scale", {{"X", x}}, {{"Out", out}},
           {{"scale", scale}, {"bias", bias}, {"bias_after_scale", true}});
}

Names Temp(GradOpBuilder* g, const std::string& hint) { return {g->NewTemp(hint)}; }

// Forward value `v` as a slope formula reads it: v itself, or conj(v) (emitted here) for a
// complex v. dX = dOut * conj(f'(X)) for complex values, and every function whose grad maker
// calls this has real Taylor coefficients, so conj(f'(X)) = f'(conj(X)), written in terms of
// conj(X) or conj(Out) with the ops of the real formula.
Names Conjugated(GradOpBuilder* g, const Names& v) {
  return {framework::ConjugatedIfComplex(g, v.at(0))};
}

// out = x / y, elementwise (same shapes).
void EmitDivide(GradOpBuilder* g, const Names& x, const Names& y, const Names& out) {
  g->AddOp("elementwise_div", {{"X", x}, {"Y", y}}, {{"Out", out}}, {{"axis", -1}});
}

// sqrt(1 - X^2), the denominator of asin's and acos's gradients.
Names EmitSqrtOneMinusSquare(GradOpBuilder* g) {
  const Names x_squared = Temp(g, "x_squared");
  EmitUnary(g, "square", Conjugated(g, g->Input("X")), x_squared);
  const Names one_minus = Temp(g, "one_minus_x_squared");
  EmitScale(g, x_squared, -1.0f, 1.0f, one_minus);
  const Names root = Temp(g, "root");
  EmitUnary(g, "sqrt", one_minus, root);
  return root;
}

}  // namespace

// Grad makers: dOut is g->OutputGrad("Out"), dX is g->InputGrad("X"). Each names only the
// forward variables its formula reads.

void ReluTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  // sign(relu(x)) is 1 where x > 0, else 0.
  const Names mask = Temp(g, "sign_out");
  EmitUnary(g, "sign", g->Output("Out"), mask);
  EmitMul(g, g->OutputGrad("Out"), mask, g->InputGrad("X"));
}

void SigmoidTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names one_minus_out = Temp(g, "one_minus_out");
  const Names out = Conjugated(g, g->Output("Out"));
  EmitScale(g, out, -1.0f, 1.0f, one_minus_out);
  const Names slope = Temp(g, "slope");
  EmitMul(g, out, one_minus_out, slope);
  EmitMul(g, g->OutputGrad("Out"), slope, g->InputGrad("X"));
}

void TanhTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names out_squared = Temp(g, "out_squared");
  EmitUnary(g, "square", Conjugated(g, g->Output("Out")), out_squared);
  const Names slope = Temp(g, "slope");
  EmitScale(g, out_squared, -1.0f, 1.0f, slope);
  EmitMul(g, g->OutputGrad("Out"), slope, g->InputGrad("X"));
}

// dX = dOut * conj(Out): for a complex X the conjugate (the gradient of a real loss by
// z = a + ib being dL/da + i dL/db).
void ExpTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  EmitMul(g, g->OutputGrad("Out"), {framework::ConjugatedIfComplex(g, g->Output("Out")[0])},
          g->InputGrad("X"));
}

// dX = dOut / conj(X) (conj: the identity on real values).
void LogTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(
      "elementwise_div",
      {{"X", g->OutputGrad("Out")}, {"Y", {framework::ConjugatedIfComplex(g, g->Input("X")[0])}}},
      {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
}

void SinTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names cos_x = Temp(g, "cos");
  EmitUnary(g, "cos", Conjugated(g, g->Input("X")), cos_x);
  EmitMul(g, g->OutputGrad("Out"), cos_x, g->InputGrad("X"));
}

void CosTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names sin_x = Temp(g, "sin");
  EmitUnary(g, "sin", Conjugated(g, g->Input("X")), sin_x);
  const Names product = Temp(g, "dout_sin");
  EmitMul(g, g->OutputGrad("Out"), sin_x, product);
  EmitScale(g, product, -1.0f, 0.0f, g->InputGrad("X"));
}

void SquareTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names two_x = Temp(g, "two_x");
  EmitScale(g, Conjugated(g, g->Input("X")), 2.0f, 0.0f, two_x);
  EmitMul(g, g->OutputGrad("Out"), two_x, g->InputGrad("X"));
}

// Zero almost everywhere: nothing flows back.
void SignTag::MakeGrad(GradOpBuilder*) {}

namespace {

// abs of a complex X: Out holds the parts' real type.
void AbsVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", platform::RealPartType(ctx->GetInputDataType("X")));
}

// |X| of a complex X, and its gradient dX = dOut * X / |X| (0 where X = 0), by the fused
// abs_grad (keyed by X's complex type; Out@GRAD holds the parts' type).
template <typename C>
struct AbsComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    MapValues<C, typename C::value_type>(ctx, *ctx.Input("X"), "Out",
                                         [](const C& v) { return std::abs(v); });
  }
};

// exp of complex values (std::exp on each).
template <typename C>
struct ExpComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    MapValues<C, C>(ctx, *ctx.Input("X"), "Out", [](const C& v) { return std::exp(v); });
  }
};

// The natural logarithm of complex values, on the principal branch (imaginary part in
// (-pi, pi]).
template <typename C>
struct LogComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    MapValues<C, C>(ctx, *ctx.Input("X"), "Out", [](const C& v) { return std::log(v); });
  }
};

// PaddlePaddle's fused exp_grad of complex values: X@GRAD = Out@GRAD * conj(Out).
template <typename C>
struct ExpComplexGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    MapValuePairs<C, C>(ctx, "Out", "Out@GRAD", "X@GRAD",
                        [](const C& y, const C& g) { return g * std::conj(y); });
  }
};

template <typename T>
struct AbsGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "X", x->dims());
    DenseTensor dx(x->dims(), x->dtype());
    T* o = dx.mutable_data<T>(ctx.GetPlace());
    const T* p = x->numel() > 0 ? x->data<T>() : nullptr;
    if constexpr (std::is_arithmetic_v<T>) {
      const T* g = x->numel() > 0 ? dout->data<T>() : nullptr;
      for (int64_t i = 0; i < x->numel(); ++i) {
        o[i] = p[i] > T(0) ? g[i] : (p[i] < T(0) ? -g[i] : T(0));
      }
    } else {
      using R = typename T::value_type;
      const R* g = x->numel() > 0 ? dout->data<R>() : nullptr;
      for (int64_t i = 0; i < x->numel(); ++i) {
        const R r = std::abs(p[i]);
        o[i] = r == R(0) ? T(0) : g[i] * p[i] / r;
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

const framework::FusedGradDecl kAbsGrad{
    {"X"}, {"Out"}, {"X"}, "$$dX = dOut \\cdot X / |X|$$ (0 where X = 0; sign(X) for a real X)"};

void AbsGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

}  // namespace

void AbsTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  // A complex X: the fused abs_grad (the composition below has no complex sign).
  if (framework::IsComplexForwardVar(*g, g->Input("X")[0])) {
    framework::FusedGradMaker(kAbsGrad)(g);
    return;
  }
  const Names sign_x = Temp(g, "sign");
  EmitUnary(g, "sign", g->Input("X"), sign_x);
  EmitMul(g, g->OutputGrad("Out"), sign_x, g->InputGrad("X"));
}

// Piecewise constant: nothing flows back.
void FloorTag::MakeGrad(GradOpBuilder*) {}
void CeilTag::MakeGrad(GradOpBuilder*) {}
void TruncTag::MakeGrad(GradOpBuilder*) {}

// dX = dOut * sqrt(pi) / 2 * exp(Out^2).
void ErfinvTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names out_squared = Temp(g, "out_squared");
  EmitUnary(g, "square", Conjugated(g, g->Output("Out")), out_squared);
  const Names grows = Temp(g, "exp_out_squared");
  EmitUnary(g, "exp", out_squared, grows);
  const Names slope = Temp(g, "slope");
  EmitScale(g, grows, 0.88622692545275801f, 0.0f, slope);  // sqrt(pi) / 2
  EmitMul(g, g->OutputGrad("Out"), slope, g->InputGrad("X"));
}

void ReciprocalTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names out_squared = Temp(g, "out_squared");
  EmitUnary(g, "square", Conjugated(g, g->Output("Out")), out_squared);
  const Names product = Temp(g, "dout_out_squared");
  EmitMul(g, g->OutputGrad("Out"), out_squared, product);
  EmitScale(g, product, -1.0f, 0.0f, g->InputGrad("X"));
}

void ErfTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names x_squared = Temp(g, "x_squared");
  EmitUnary(g, "square", g->Input("X"), x_squared);
  const Names minus = Temp(g, "minus_x_squared");
  EmitScale(g, x_squared, -1.0f, 0.0f, minus);
  const Names gauss = Temp(g, "gauss");
  EmitUnary(g, "exp", minus, gauss);
  const Names slope = Temp(g, "slope");
  EmitScale(g, gauss, static_cast<float>(1.1283791670955126), 0.0f, slope);  // 2 / sqrt(pi)
  EmitMul(g, g->OutputGrad("Out"), slope, g->InputGrad("X"));
}

void SiluTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names x = Conjugated(g, g->Input("X"));
  const Names s = Temp(g, "sigmoid");
  EmitUnary(g, "sigmoid", x, s);
  const Names one_minus_s = Temp(g, "one_minus_sigmoid");
  EmitScale(g, s, -1.0f, 1.0f, one_minus_s);
  const Names x_term = Temp(g, "x_one_minus_sigmoid");
  EmitMul(g, x, one_minus_s, x_term);
  const Names one_plus = Temp(g, "one_plus");
  EmitScale(g, x_term, 1.0f, 1.0f, one_plus);
  const Names slope = Temp(g, "slope");
  EmitMul(g, s, one_plus, slope);
  EmitMul(g, g->OutputGrad("Out"), slope, g->InputGrad("X"));
}

void LogSigmoidTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names minus_x = Temp(g, "minus_x");
  EmitScale(g, Conjugated(g, g->Input("X")), -1.0f, 0.0f, minus_x);
  const Names slope = Temp(g, "slope");
  EmitUnary(g, "sigmoid", minus_x, slope);
  EmitMul(g, g->OutputGrad("Out"), slope, g->InputGrad("X"));
}

void SoftsignTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names abs_x = Temp(g, "abs");
  EmitUnary(g, "abs", g->Input("X"), abs_x);
  const Names one_plus = Temp(g, "one_plus_abs");
  EmitScale(g, abs_x, 1.0f, 1.0f, one_plus);
  const Names squared = Temp(g, "squared");
  EmitUnary(g, "square", one_plus, squared);
  EmitDivide(g, g->OutputGrad("Out"), squared, g->InputGrad("X"));
}

void TanTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names out_squared = Temp(g, "out_squared");
  EmitUnary(g, "square", Conjugated(g, g->Output("Out")), out_squared);
  const Names slope = Temp(g, "slope");
  EmitScale(g, out_squared, 1.0f, 1.0f, slope);
  EmitMul(g, g->OutputGrad("Out"), slope, g->InputGrad("X"));
}

void AtanTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names x_squared = Temp(g, "x_squared");
  EmitUnary(g, "square", Conjugated(g, g->Input("X")), x_squared);
  const Names denominator = Temp(g, "one_plus_x_squared");
  EmitScale(g, x_squared, 1.0f, 1.0f, denominator);
  EmitDivide(g, g->OutputGrad("Out"), denominator, g->InputGrad("X"));
}

void AsinTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  EmitDivide(g, g->OutputGrad("Out"), EmitSqrtOneMinusSquare(g), g->InputGrad("X"));
}

void AcosTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names quotient = Temp(g, "quotient");
  EmitDivide(g, g->OutputGrad("Out"), EmitSqrtOneMinusSquare(g), quotient);
  EmitScale(g, quotient, -1.0f, 0.0f, g->InputGrad("X"));
}

void SinhTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names cosh_x = Temp(g, "cosh");
  EmitUnary(g, "cosh", Conjugated(g, g->Input("X")), cosh_x);
  EmitMul(g, g->OutputGrad("Out"), cosh_x, g->InputGrad("X"));
}

void CoshTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names sinh_x = Temp(g, "sinh");
  EmitUnary(g, "sinh", Conjugated(g, g->Input("X")), sinh_x);
  EmitMul(g, g->OutputGrad("Out"), sinh_x, g->InputGrad("X"));
}

void Log1pTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names one_plus = Temp(g, "one_plus_x");
  EmitScale(g, Conjugated(g, g->Input("X")), 1.0f, 1.0f, one_plus);
  EmitDivide(g, g->OutputGrad("Out"), one_plus, g->InputGrad("X"));
}

void Expm1Tag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names exp_x = Temp(g, "exp");
  EmitUnary(g, "exp", Conjugated(g, g->Input("X")), exp_x);
  EmitMul(g, g->OutputGrad("Out"), exp_x, g->InputGrad("X"));
}

namespace {

// dX = dOut / (X ln(base)).
void EmitLogBaseGrad(GradOpBuilder* g, double ln_base) {
  if (!g->WantsInputGrad("X")) return;
  const Names scaled = Temp(g, "x_ln_base");
  EmitScale(g, Conjugated(g, g->Input("X")), static_cast<float>(ln_base), 0.0f, scaled);
  EmitDivide(g, g->OutputGrad("Out"), scaled, g->InputGrad("X"));
}

}  // namespace

void Log2Tag::MakeGrad(GradOpBuilder* g) { EmitLogBaseGrad(g, 0.69314718055994530942); }
void Log10Tag::MakeGrad(GradOpBuilder* g) { EmitLogBaseGrad(g, 2.30258509299404568402); }

void TanhShrinkTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names t = Temp(g, "tanh");
  EmitUnary(g, "tanh", g->Input("X"), t);
  const Names t_squared = Temp(g, "tanh_squared");
  EmitUnary(g, "square", t, t_squared);
  EmitMul(g, g->OutputGrad("Out"), t_squared, g->InputGrad("X"));
}

namespace {

// dX = dOut / f(X^2) for f(s) = scale s + bias, with a square root of f when `root`: the
// gradients of asinh (1, 1, root), acosh (1, -1, root) and atanh (-1, 1).
void EmitInverseHyperbolicGrad(GradOpBuilder* g, float scale, float bias, bool root) {
  if (!g->WantsInputGrad("X")) return;
  const Names x_squared = Temp(g, "x_squared");
  EmitUnary(g, "square", Conjugated(g, g->Input("X")), x_squared);
  Names denominator = Temp(g, "denominator");
  EmitScale(g, x_squared, scale, bias, denominator);
  if (root) {
    const Names rooted = Temp(g, "root");
    EmitUnary(g, "sqrt", denominator, rooted);
    denominator = rooted;
  }
  EmitDivide(g, g->OutputGrad("Out"), denominator, g->InputGrad("X"));
}

}  // namespace

void AsinhTag::MakeGrad(GradOpBuilder* g) { EmitInverseHyperbolicGrad(g, 1.0f, 1.0f, true); }
// For a complex X the derivative of the principal acosh is 1 / (sqrt(X - 1) sqrt(X + 1)),
// which is not 1 / sqrt(X^2 - 1) where Re(X) < 0 (the square roots' branches differ there).
void AcoshTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  if (!framework::IsComplexForwardVar(*g, g->Input("X")[0])) {
    EmitInverseHyperbolicGrad(g, 1.0f, -1.0f, true);
    return;
  }
  const Names x = Conjugated(g, g->Input("X"));
  const Names minus_one = Temp(g, "x_minus_one"), plus_one = Temp(g, "x_plus_one");
  EmitScale(g, x, 1.0f, -1.0f, minus_one);
  EmitScale(g, x, 1.0f, 1.0f, plus_one);
  const Names root_minus = Temp(g, "root_minus"), root_plus = Temp(g, "root_plus");
  EmitUnary(g, "sqrt", minus_one, root_minus);
  EmitUnary(g, "sqrt", plus_one, root_plus);
  const Names denominator = Temp(g, "denominator");
  EmitMul(g, root_minus, root_plus, denominator);
  EmitDivide(g, g->OutputGrad("Out"), denominator, g->InputGrad("X"));
}
void AtanhTag::MakeGrad(GradOpBuilder* g) { EmitInverseHyperbolicGrad(g, -1.0f, 1.0f, false); }

// ---------------------------------------------------------------- PaddlePaddle grad op types

namespace {

// `<type>_grad`: X@GRAD from Tag::kGradDep (Out or X) and dOut = Out@GRAD. paddle_like's own
// backward pass uses the grad makers above instead; these ops are not differentiable.
template <typename Tag>
struct ActivationGradCpuKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      ComputeUnaryGrad<T>(ctx, Tag::kGradDep, typename Tag::template GradFunctor<T>{});
    }
  };
};

void RegisterActivationGradOps() {
  ForEachActivationWithGradOp([](auto tag) {
    using Tag = decltype(tag);
    const framework::FusedGradDecl decl{
        {Tag::kGradDep}, {"Out"}, {"X"}, std::string("$$") + Tag::kGradFormula + "$$"};
    RegisterUnaryFusedGradOp<ActivationGradCpuKernel<Tag>::template Kernel>(Tag::kType, decl);
  });
}

}  // namespace

PL_REGISTER_OPS(RegisterActivationOps) {
  ForEachActivation([](auto tag) {
    using Tag = decltype(tag);
    framework::OpRegistrar op =
        framework::RegisterOp<ActivationOp, ActivationOpMaker<Tag>>(Tag::kType);
    op.InferShape(SameShapeInferShape).GradOpMaker(&Tag::MakeGrad);
    if constexpr (std::is_same_v<Tag, AbsTag>) op.InferVarType(AbsVarType);
    RegisterPlainCpuFloatKernels<ActivationCpuKernel<Tag>::template Kernel>(Tag::kType);
    DeclarePlainInPlace(Tag::kType, {{"X", "Out"}});
  });
  // Integer tensors, with PaddlePaddle's integer types per op: abs and square compute on
  // them; sign too; floor and ceil return them unchanged.
  RegisterPlainCpuKernels<ActivationCpuKernel<AbsTag>::Kernel, int32_t, int64_t>("abs");
  RegisterPlainCpuKernels<ActivationCpuKernel<SquareTag>::Kernel, int32_t, int64_t>("square");
  RegisterPlainCpuKernels<ActivationCpuKernel<SignTag>::Kernel, int8_t, int16_t, int32_t, int64_t,
                          uint8_t>("sign");
  for (const char* op : {"floor", "ceil"}) {
    RegisterPlainCpuKernels<IntegerIdentityKernel, int8_t, int16_t, int32_t, int64_t, uint8_t>(op);
  }
  RegisterPlainCpuKernels<AbsComplexKernel, std::complex<float>, std::complex<double>>("abs");
  RegisterPlainCpuKernels<ExpComplexKernel, std::complex<float>, std::complex<double>>("exp");
  RegisterPlainCpuKernels<LogComplexKernel, std::complex<float>, std::complex<double>>("log");
  framework::RegisterFusedGradOp("abs", kAbsGrad).InferShape(AbsGradInferShape);
  RegisterPlainCpuKernels<AbsGradKernel, float, double, std::complex<float>, std::complex<double>>(
      "abs_grad");
  RegisterActivationGradOps();
  RegisterPlainCpuKernels<ExpComplexGradKernel, std::complex<float>, std::complex<double>>(
      "exp_grad");
}

}  // namespace operators
}  // namespace paddle_like
