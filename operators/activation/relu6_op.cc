// relu6: relu clipped at `threshold` (6 by default), with PaddlePaddle's fused grad op
// relu6_grad.
#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "relu6";

class Relu6OpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddAttr<float>("threshold", "The upper bound of Out.").SetDefault(6.0f);
    AddComment(R"DOC(
Relu6 activation operator, elementwise:

$$Out = \min(\max(X, 0), threshold)$$

Gradient (fused op `relu6_grad`, first order), reading Out:
$$dX = dOut \cdot [0 < Out < threshold]$$
)DOC");
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRelu6Op) {
  RegisterUnaryOpWithFusedGrad<UnaryOp, Relu6OpMaker, UnaryFunctorKernel<activation::Relu6>::Kernel,
                               UnaryGradFunctorKernel<activation::Relu6Grad>::Kernel>(
      kOp, {{"Out"}, {"Out"}, {"X"}, R"DOC($$dX = dOut \cdot [0 < Out < threshold]$$)DOC"});
}

}  // namespace operators
}  // namespace paddle_like
