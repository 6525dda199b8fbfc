// gelu: the Gaussian error linear unit, exact (erf) or tanh-approximated, and its fused
// gradient op gelu_grad; the math is activation::Gelu and GeluGrad (parametric_activation.h).
#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "gelu";

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

}  // namespace

PL_REGISTER_OPS(RegisterGeluOp) {
  const framework::FusedGradDecl grad{
      {"X"}, {"Out"}, {"X"}, R"DOC($$dX = dOut \cdot \frac{d\,\mathrm{gelu}(X)}{dX}$$
with the derivative of the erf or the tanh form, as in `gelu`.)DOC"};
  RegisterUnaryOpWithFusedGrad<GeluOp, GeluOpMaker, UnaryFunctorKernel<activation::Gelu>::Kernel,
                               UnaryGradFunctorKernel<activation::GeluGrad>::Kernel>(kOp, grad);
}

}  // namespace operators
}  // namespace paddle_like
