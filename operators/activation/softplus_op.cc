// softplus: a smooth relu, Out = log(1 + exp(beta X)) / beta (X itself above the threshold),
// with PaddlePaddle's fused gradient op softplus_grad.
#include <algorithm>
#include <cmath>

#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "softplus";

class SoftplusOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddAttr<float>("beta", "Sharpness of the curve (not 0).").SetDefault(1.0f);
    AddAttr<float>("threshold", "Above beta * X > threshold, Out = X.").SetDefault(20.0f);
    AddComment(R"DOC(
Softplus activation operator, elementwise:

$$Out = \begin{cases} \frac{1}{\beta} \log\left(1 + e^{\beta X}\right) & \beta X \le threshold
\\ X & \beta X > threshold \end{cases}$$

computed as max(beta X, 0) + log1p(exp(-|beta X|)), divided by beta, so that exp never
overflows. Gradient (fused op `softplus_grad`, first order only):
$$dX = dOut \cdot \sigma(\beta X) \text{ where } \beta X \le threshold, \text{ else } dOut$$
)DOC");
  }
};

class SoftplusOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void CheckBeta(const ExecutionContext& ctx) {
  PL_ENFORCE(ctx.Attr<float>("beta") != 0.0f,
             errors::InvalidArgument("op `%s` attribute `beta`: expected a non-zero value, "
                                     "received 0",
                                     ctx.Type()));
}

template <typename T>
struct SoftplusKernel {
  static void Compute(const ExecutionContext& ctx) {
    CheckBeta(ctx);
    const T beta = static_cast<T>(ctx.Attr<float>("beta"));
    const T threshold = static_cast<T>(ctx.Attr<float>("threshold"));
    ComputeUnary<T>(ctx, [=](T x) {
      const T bx = beta * x;
      if (bx > threshold) return x;
      return (std::max(bx, T(0)) + std::log1p(std::exp(-std::abs(bx)))) / beta;
    });
  }
};

template <typename T>
struct SoftplusGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    CheckBeta(ctx);
    const T beta = static_cast<T>(ctx.Attr<float>("beta"));
    const T threshold = static_cast<T>(ctx.Attr<float>("threshold"));
    ComputeUnaryGrad<T>(ctx, "X", [=](T x, T dout) {
      const T bx = beta * x;
      if (bx > threshold) return dout;
      // sigmoid(bx) without overflow on either side.
      const T e = std::exp(-std::abs(bx));
      return dout * (bx >= T(0) ? T(1) / (T(1) + e) : e / (T(1) + e));
    });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSoftplusOp) {
  const framework::FusedGradDecl grad{
      {"X"}, {"Out"}, {"X"},
      R"DOC($$dX = dOut \cdot \sigma(\beta X) \text{ where } \beta X \le threshold, \text{ else } dOut$$)DOC"};
  RegisterUnaryOpWithFusedGrad<SoftplusOp, SoftplusOpMaker, SoftplusKernel, SoftplusGradKernel>(kOp, grad);
}

}  // namespace operators
}  // namespace paddle_like
