// elu, selu, celu, mish, stanh, hard_shrink, softshrink, thresholded_relu, brelu and logit: one tag
// per op (its float attributes with PaddlePaddle's defaults, its doc with the formulas, its
// functors from piecewise_activation.h), registered with PaddlePaddle's fused grad op
// `<type>_grad` as the backward (first order only).
#include <string>

#include "operators/activation/piecewise_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace activation {

void CheckCeluAlpha(const framework::ExecutionContext& ctx) {
  PL_ENFORCE(ctx.Attr<float>("alpha") != 0.0f,
             errors::InvalidArgument("op `%s` attribute `alpha`: expected a non-zero value, "
                                     "received 0",
                                     ctx.Type()));
}

void CheckSoftshrinkLambda(const framework::ExecutionContext& ctx) {
  const float lambda = ctx.Attr<float>("lambda");
  PL_ENFORCE(lambda >= 0.0f,
             errors::InvalidArgument("op `%s` attribute `lambda`: expected a value >= 0, "
                                     "received %g",
                                     ctx.Type(), lambda));
}

void CheckBreluBounds(const framework::ExecutionContext& ctx) {
  const float t_min = ctx.Attr<float>("t_min"), t_max = ctx.Attr<float>("t_max");
  PL_ENFORCE(t_min <= t_max,
             errors::InvalidArgument("op `%s` attributes `t_min` and `t_max`: expected t_min <= "
                                     "t_max, received %g > %g",
                                     ctx.Type(), t_min, t_max));
}

}  // namespace activation

namespace {

struct FloatAttrDecl {
  const char* name;
  float default_value;
  const char* doc;
};

struct EluTag {
  static constexpr const char* kType = "elu";
  static constexpr FloatAttrDecl kAttrs[] = {{"alpha", 1.0f, "Scale of the negative part."}};
  static constexpr const char* kDoc = R"DOC(
ELU activation operator, elementwise:

$$Out = \begin{cases} X & X > 0 \\ \alpha (e^{X} - 1) & X \le 0 \end{cases}$$
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = dOut \text{ where } X > 0, \; dOut \cdot \alpha e^{X} \text{ elsewhere}$$)DOC";
  template <typename T>
  using Functor = activation::Elu<T>;
  template <typename T>
  using GradFunctor = activation::EluGrad<T>;
};

struct SeluTag {
  static constexpr const char* kType = "selu";
  static constexpr FloatAttrDecl kAttrs[] = {
      {"scale", 1.0507009873554804934193349852946f, "Scale of both parts."},
      {"alpha", 1.6732632423543772848170429916717f, "Scale of the negative part."}};
  static constexpr const char* kDoc = R"DOC(
SELU activation operator, elementwise (the defaults are the self-normalising constants):

$$Out = scale \cdot \begin{cases} X & X > 0 \\ \alpha (e^{X} - 1) & X \le 0 \end{cases}$$
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = dOut \cdot scale \text{ where } Out > 0, \; dOut \cdot (Out + scale \cdot \alpha) \text{ elsewhere}$$)DOC";
  template <typename T>
  using Functor = activation::Selu<T>;
  template <typename T>
  using GradFunctor = activation::SeluGrad<T>;
};

struct CeluTag {
  static constexpr const char* kType = "celu";
  static constexpr FloatAttrDecl kAttrs[] = {{"alpha", 1.0f, "Scale and width (not 0)."}};
  static constexpr const char* kDoc = R"DOC(
CELU activation operator, elementwise:

$$Out = \max(0, X) + \min\left(0, \alpha \left(e^{X / \alpha} - 1\right)\right)$$
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = dOut \text{ where } X > 0, \; dOut \cdot e^{X / \alpha} \text{ elsewhere}$$)DOC";
  template <typename T>
  using Functor = activation::Celu<T>;
  template <typename T>
  using GradFunctor = activation::CeluGrad<T>;
};

struct MishTag {
  static constexpr const char* kType = "mish";
  static constexpr FloatAttrDecl kAttrs[] = {
      {"threshold", 20.0f, "Above it, softplus(X) is taken as X."}};
  static constexpr const char* kDoc = R"DOC(
Mish activation operator, elementwise:

$$Out = X \tanh(sp(X)), \quad sp(X) = \begin{cases} X & X > threshold \\ \ln(1 + e^{X}) & X \le threshold \end{cases}$$
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = dOut \left(\tanh(sp) + X (1 - \tanh^2(sp)) \, sp'\right), \; sp' = \sigma(X) \text{ (1 above the threshold)}$$)DOC";
  template <typename T>
  using Functor = activation::Mish<T>;
  template <typename T>
  using GradFunctor = activation::MishGrad<T>;
};

struct StanhTag {
  static constexpr const char* kType = "stanh";
  static constexpr FloatAttrDecl kAttrs[] = {{"scale_a", 0.67f, "Scale of X."},
                                             {"scale_b", 1.7159f, "Scale of the tanh."}};
  static constexpr const char* kDoc = R"DOC(
Scaled tanh activation operator, elementwise:

$$Out = scale_b \tanh(scale_a X)$$
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = dOut \cdot scale_a \, scale_b \left(1 - \tanh^2(scale_a X)\right)$$)DOC";
  template <typename T>
  using Functor = activation::Stanh<T>;
  template <typename T>
  using GradFunctor = activation::StanhGrad<T>;
};

struct HardShrinkTag {
  static constexpr const char* kType = "hard_shrink";
  static constexpr FloatAttrDecl kAttrs[] = {
      {"threshold", 0.5f, "Inputs with |X| < threshold become 0."}};
  static constexpr const char* kDoc = R"DOC(
Hard shrink activation operator, elementwise:

$$Out = \begin{cases} X & |X| \ge threshold \\ 0 & |X| < threshold \end{cases}$$

(X itself at |X| = threshold, as in PaddlePaddle 3.)
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = dOut \text{ where } |X| \ge threshold, \; 0 \text{ elsewhere}$$)DOC";
  template <typename T>
  using Functor = activation::HardShrink<T>;
  template <typename T>
  using GradFunctor = activation::HardShrinkGrad<T>;
};

struct SoftshrinkTag {
  static constexpr const char* kType = "softshrink";
  static constexpr FloatAttrDecl kAttrs[] = {
      {"lambda", 0.5f, "Half width of the band mapped to 0 (>= 0)."}};
  static constexpr const char* kDoc = R"DOC(
Soft shrink activation operator, elementwise:

$$Out = \begin{cases} X - \lambda & X > \lambda \\ X + \lambda & X < -\lambda \\ 0 & |X| \le \lambda \end{cases}$$
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = dOut \text{ where } |X| > \lambda, \; 0 \text{ elsewhere}$$)DOC";
  template <typename T>
  using Functor = activation::Softshrink<T>;
  template <typename T>
  using GradFunctor = activation::SoftshrinkGrad<T>;
};

struct ThresholdedReluTag {
  static constexpr const char* kType = "thresholded_relu";
  static constexpr FloatAttrDecl kAttrs[] = {
      {"threshold", 1.0f, "Inputs at or below it become `value`."},
      {"value", 0.0f, "The output at or below the threshold."}};
  static constexpr const char* kDoc = R"DOC(
Thresholded ReLU activation operator, elementwise:

$$Out = \begin{cases} X & X > threshold \\ value & X \le threshold \end{cases}$$
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = dOut \text{ where } X > threshold, \; 0 \text{ elsewhere}$$)DOC";
  template <typename T>
  using Functor = activation::ThresholdedRelu<T>;
  template <typename T>
  using GradFunctor = activation::ThresholdedReluGrad<T>;
};

struct BreluTag {
  static constexpr const char* kType = "brelu";
  static constexpr FloatAttrDecl kAttrs[] = {{"t_min", 0.0f, "Lower bound."},
                                             {"t_max", 24.0f, "Upper bound (>= t_min)."}};
  static constexpr const char* kDoc = R"DOC(
Bounded ReLU activation operator (paddle.nn.functional.hardtanh), elementwise:

$$Out = \min(\max(X, t_{min}), t_{max})$$
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = dOut \text{ where } t_{min} < X < t_{max}, \; 0 \text{ elsewhere}$$)DOC";
  template <typename T>
  using Functor = activation::Brelu<T>;
  template <typename T>
  using GradFunctor = activation::BreluGrad<T>;
};

struct LogitTag {
  static constexpr const char* kType = "logit";
  static constexpr FloatAttrDecl kAttrs[] = {
      {"eps", 1e-6f, "X is clipped to [eps, 1 - eps] first (0: no clipping)."}};
  static constexpr const char* kDoc = R"DOC(
Logit operator (the inverse of the sigmoid), elementwise:

$$Out = \log \frac{c}{1 - c}, \quad c = \min(\max(X, eps), 1 - eps)$$

With eps = 0, Out is NaN where X lies outside [0, 1] and infinite at 0 and 1.
)DOC";
  static constexpr const char* kGradDoc =
      R"DOC($$dX = \frac{dOut}{X (1 - X)} \text{ where } eps \le X \le 1 - eps, \; 0 \text{ elsewhere}$$)DOC";
  template <typename T>
  using Functor = activation::Logit<T>;
  template <typename T>
  using GradFunctor = activation::LogitGrad<T>;
};

template <typename Tag>
class PiecewiseActivationOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    for (const FloatAttrDecl& a : Tag::kAttrs) {
      AddAttr<float>(a.name, a.doc).SetDefault(a.default_value);
    }
    AddComment(std::string(Tag::kDoc) + "\nGradient (fused op `" + Tag::kType +
               "_grad`, first order only):\n" + Tag::kGradDoc + "\n");
  }
};

// Returns the forward op's registrar (for checkpoints).
template <typename Tag>
framework::OpRegistrar RegisterPiecewiseActivation() {
  const framework::FusedGradDecl grad{
      {Tag::template GradFunctor<float>::kGradDep}, {"Out"}, {"X"}, Tag::kGradDoc};
  return RegisterUnaryOpWithFusedGrad<UnaryOp, PiecewiseActivationOpMaker<Tag>,
                               UnaryFunctorKernel<Tag::template Functor>::template Kernel,
                               UnaryGradFunctorKernel<Tag::template GradFunctor>::template Kernel>(
      Tag::kType, grad);
}

}  // namespace

PL_REGISTER_OPS(RegisterPiecewiseActivationOps) {
  RegisterPiecewiseActivation<EluTag>();
  RegisterPiecewiseActivation<SeluTag>();
  RegisterPiecewiseActivation<CeluTag>();
  RegisterPiecewiseActivation<MishTag>();
  RegisterPiecewiseActivation<StanhTag>();
  RegisterPiecewiseActivation<HardShrinkTag>().Checkpoint(
      "hard_shrink for threshold < 0",
      framework::OpVersionDesc().BugfixWithBehaviorChanged(
          "Out = X where X <= -threshold or X >= threshold, else 0 (before: a sum of the two "
          "conditions, 2X where both hold)"));
  RegisterPiecewiseActivation<SoftshrinkTag>();
  RegisterPiecewiseActivation<ThresholdedReluTag>().Checkpoint(
      "thresholded_relu with an output below the threshold",
      framework::OpVersionDesc().NewAttr("value", "The output at or below the threshold.", 0.0f));
  RegisterPiecewiseActivation<BreluTag>();
  RegisterPiecewiseActivation<LogitTag>();
}

}  // namespace operators
}  // namespace paddle_like
