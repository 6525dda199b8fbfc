// swish: X times the sigmoid of beta X, with PaddlePaddle's fused grad op swish_grad.
#include <cmath>

#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "swish";

class SwishOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddAttr<float>("beta", "Scale of X inside the sigmoid.").SetDefault(1.0f);
    AddComment(R"DOC(
Swish activation operator, elementwise:

$$Out = X \cdot \sigma(\beta X) = \frac{X}{1 + e^{-\beta X}}$$

Gradient (fused op `swish_grad`, first order), reading X:
$$dX = dOut \cdot \left(\sigma(\beta X) + \beta X \, \sigma(\beta X) (1 - \sigma(\beta X))\right)$$
)DOC");
  }
};

// sigmoid(z) without overflow on either side.
template <typename T>
T StableSigmoid(T z) {
  if (z >= T(0)) return T(1) / (T(1) + std::exp(-z));
  const T e = std::exp(z);
  return e / (T(1) + e);
}

template <typename T>
struct SwishKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T beta = static_cast<T>(ctx.Attr<float>("beta"));
    ComputeUnary<T>(ctx, [=](T x) { return x * StableSigmoid(beta * x); });
  }
};

template <typename T>
struct SwishGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T beta = static_cast<T>(ctx.Attr<float>("beta"));
    ComputeUnaryGrad<T>(ctx, "X", [=](T x, T dout) {
      const T s = StableSigmoid(beta * x);
      return dout * (s + beta * x * s * (T(1) - s));
    });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSwishOp) {
  RegisterUnaryOpWithFusedGrad<UnaryOp, SwishOpMaker, SwishKernel, SwishGradKernel>(
      kOp, {{"X"},
            {"Out"},
            {"X"},
            R"DOC($$dX = dOut \cdot \left(\sigma(\beta X) + \beta X \, \sigma(\beta X) (1 - \sigma(\beta X))\right)$$)DOC"});
}

}  // namespace operators
}  // namespace paddle_like
