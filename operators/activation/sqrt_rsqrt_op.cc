// sqrt and rsqrt (1 / sqrt), with PaddlePaddle's fused grad ops sqrt_grad and rsqrt_grad,
// which read Out.
#include <cmath>

#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class SqrtOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddComment(R"DOC(
Square root operator, elementwise (NaN for X < 0):

$$Out = \sqrt{X}$$

Gradient (fused op `sqrt_grad`, first order), reading Out:
$$dX = \frac{dOut}{2 \, Out}$$
)DOC");
  }
};

class RsqrtOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddComment(R"DOC(
Reciprocal square root operator, elementwise (NaN for X < 0, inf at 0):

$$Out = \frac{1}{\sqrt{X}}$$

Gradient (fused op `rsqrt_grad`, first order), reading Out:
$$dX = -\frac{1}{2} \, dOut \cdot Out^3$$
)DOC");
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSqrtRsqrtOps) {
  RegisterUnaryOpWithFusedGrad<UnaryOp, SqrtOpMaker, UnaryFunctorKernel<activation::Sqrt>::Kernel,
                               UnaryGradFunctorKernel<activation::SqrtGrad>::Kernel>(
      "sqrt", {{"Out"}, {"Out"}, {"X"}, R"DOC($$dX = \frac{dOut}{2 \, Out}$$)DOC"});
  RegisterUnaryOpWithFusedGrad<UnaryOp, RsqrtOpMaker, UnaryFunctorKernel<activation::Rsqrt>::Kernel,
                               UnaryGradFunctorKernel<activation::RsqrtGrad>::Kernel>(
      "rsqrt", {{"Out"}, {"Out"}, {"X"}, R"DOC($$dX = -\frac{1}{2} \, dOut \cdot Out^3$$)DOC"});
}

}  // namespace operators
}  // namespace paddle_like
