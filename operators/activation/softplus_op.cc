// softplus: a smooth relu, Out = log(1 + exp(beta X)) / beta (X itself above the threshold),
// with PaddlePaddle's fused gradient op softplus_grad; the math is activation::Softplus and
// SoftplusGrad (parametric_activation.h).
#include "operators/activation/parametric_activation.h"
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

}  // namespace

PL_REGISTER_OPS(RegisterSoftplusOp) {
  const framework::FusedGradDecl grad{
      {"X"}, {"Out"}, {"X"},
      R"DOC($$dX = dOut \cdot \sigma(\beta X) \text{ where } \beta X \le threshold, \text{ else } dOut$$)DOC"};
  RegisterUnaryOpWithFusedGrad<SoftplusOp, SoftplusOpMaker,
                               UnaryFunctorKernel<activation::Softplus>::Kernel,
                               UnaryGradFunctorKernel<activation::SoftplusGrad>::Kernel>(kOp, grad)
      .Checkpoint(
          "add attributes beta and threshold: Out = log(1 + exp(beta X)) / beta, X "
          "itself where beta X > threshold",
          framework::OpVersionDesc()
              .NewAttr("beta", "the slope inside the exponential", 1.0f)
              .NewAttr("threshold", "above it, Out is X", 20.0f));
}

}  // namespace operators
}  // namespace paddle_like
