// round: to `decimals` decimal places, halves to even, as PaddlePaddle 3 rounds (version 1
// of the op added `decimals`). Piecewise constant, so no gradient flows back.
#include "framework/grad_op_maker.h"
#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class RoundOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddAttr<int>("decimals", "Decimal places kept; negative rounds to tens, hundreds, ...")
        .SetDefault(0);
    AddComment(R"DOC(
Round operator, elementwise, to `decimals` decimal places with halves going to the even
neighbour:

$$Out = \mathrm{round}(X \cdot 10^{d}) / 10^{d}$$

Out is -2 for X = -2.5 and 2 for X = 2.5 (d = 0). The gradient is zero almost everywhere:
none flows back.
)DOC");
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRoundOp) {
  framework::RegisterOp<UnaryOp, RoundOpMaker>("round")
      .InferShape(SameShapeInferShape)
      .GradOpMaker(framework::NoGradient)
      .Checkpoint("PaddlePaddle 3: attribute `decimals`",
                  framework::OpVersionDesc().NewAttr(
                      "decimals", "decimal places kept; 0 rounds to integers as before", 0));
  RegisterPlainCpuFloatKernels<UnaryFunctorKernel<activation::Round>::Kernel>("round");
  // Integers stay as they are, whatever `decimals` (as in PaddlePaddle).
  RegisterPlainCpuKernels<IntegerIdentityKernel, int32_t, int64_t>("round");
  DeclarePlainInPlace("round", {{"X", "Out"}});
}

}  // namespace operators
}  // namespace paddle_like
