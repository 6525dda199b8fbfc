// swish: X times the sigmoid of beta X, with PaddlePaddle's fused grad op swish_grad.
#include <cmath>

#include "operators/activation/parametric_activation.h"
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

}  // namespace

PL_REGISTER_OPS(RegisterSwishOp) {
  RegisterUnaryOpWithFusedGrad<UnaryOp, SwishOpMaker, UnaryFunctorKernel<activation::Swish>::Kernel,
                               UnaryGradFunctorKernel<activation::SwishGrad>::Kernel>(
      kOp, {{"X"},
            {"Out"},
            {"X"},
            R"DOC($$dX = dOut \cdot \left(\sigma(\beta X) + \beta X \, \sigma(\beta X) (1 - \sigma(\beta X))\right)$$)DOC"});
}

}  // namespace operators
}  // namespace paddle_like
