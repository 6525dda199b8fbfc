// gelu: the Gaussian error linear unit, exact (erf) or tanh-approximated, and its fused
// gradient op gelu_grad.
#include <cmath>

#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "gelu";

// sqrt(2 / pi) and 1 / sqrt(2 pi).
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kCubic = 0.044715;

template <typename T>
struct GeluFunctor {
  bool approximate;
  T operator()(T x) const {
    if (approximate) {
      const T t =
          std::tanh(static_cast<T>(kSqrt2OverPi) * (x + static_cast<T>(kCubic) * x * x * x));
      return static_cast<T>(0.5) * x * (static_cast<T>(1) + t);
    }
    return static_cast<T>(0.5) * x * (static_cast<T>(1) + std::erf(x * static_cast<T>(kInvSqrt2)));
  }
};

// d gelu(x) / dx.
template <typename T>
struct GeluDerivative {
  bool approximate;
  T operator()(T x) const {
    if (approximate) {
      const T x2 = x * x;
      const T t = std::tanh(static_cast<T>(kSqrt2OverPi) * x *
                            (static_cast<T>(1) + static_cast<T>(kCubic) * x2));
      const T dt =
          static_cast<T>(kSqrt2OverPi) * (static_cast<T>(1) + static_cast<T>(3 * kCubic) * x2);
      return static_cast<T>(0.5) * (static_cast<T>(1) + t) +
             static_cast<T>(0.5) * x * (static_cast<T>(1) - t * t) * dt;
    }
    const T cdf =
        static_cast<T>(0.5) * (static_cast<T>(1) + std::erf(x * static_cast<T>(kInvSqrt2)));
    const T pdf = static_cast<T>(kInvSqrt2Pi) * std::exp(static_cast<T>(-0.5) * x * x);
    return cdf + x * pdf;
  }
};

class GeluOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddAttr<bool>("approximate", "Use the tanh approximation instead of erf.").SetDefault(false);
    AddComment(R"DOC(
GELU activation operator, elementwise. Exact form (approximate = false):

$$Out = \frac{X}{2} \left(1 + \mathrm{erf}\left(\frac{X}{\sqrt{2}}\right)\right)$$

tanh approximation (approximate = true):

$$Out = \frac{X}{2} \left(1 + \tanh\left(\sqrt{2 / \pi} \, (X + 0.044715 X^3)\right)\right)$$

Gradient (fused op `gelu_grad`, first order only), with Phi and phi the standard normal
cdf and pdf, and t the tanh above:
$$dX = dOut \cdot \left(\Phi(X) + X \phi(X)\right)$$
$$dX = dOut \cdot \left(\frac{1 + t}{2} + \frac{X}{2} (1 - t^2) \sqrt{2 / \pi} \, (1 + 3 \cdot 0.044715 X^2)\right)$$
)DOC");
  }
};

class GeluOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

template <typename T>
struct GeluKernel {
  static void Compute(const ExecutionContext& ctx) {
    ComputeUnary<T>(ctx, GeluFunctor<T>{ctx.Attr<bool>("approximate")});
  }
};

template <typename T>
struct GeluGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const GeluDerivative<T> f{ctx.Attr<bool>("approximate")};
    ComputeUnaryGrad<T>(ctx, "X", [&](T x, T dout) { return dout * f(x); });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterGeluOp) {
  const framework::FusedGradDecl grad{
      {"X"}, {"Out"}, {"X"}, R"DOC($$dX = dOut \cdot \frac{d\,\mathrm{gelu}(X)}{dX}$$
with the derivative of the erf or the tanh form, as in `gelu`.)DOC"};
  RegisterUnaryOpWithFusedGrad<GeluOp, GeluOpMaker, GeluKernel, GeluGradKernel>(kOp, grad);
}

}  // namespace operators
}  // namespace paddle_like
