// leaky_relu: Out = X where X >= 0, alpha * X elsewhere. Its gradient is built from
// differentiable forward ops, so higher orders come from the backward builder. Also
// PaddlePaddle's fused grad op type leaky_relu_grad, for programs it built.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "leaky_relu";

class LeakyReluOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddAttr<float>("alpha", "Slope for negative inputs.").SetDefault(0.02f);
    AddComment(R"DOC(
Leaky ReLU activation operator, elementwise:

$$Out = \begin{cases} X & X \ge 0 \\ \alpha X & X < 0 \end{cases}$$

Gradient, written with the forward ops scale, relu, sign and elementwise_mul (so it can be
differentiated again); the slope is 1 at X = 0, as in PaddlePaddle:
$$dX = dOut \cdot \left(1 - (1 - \alpha) \, \mathrm{sign}(\mathrm{relu}(-X))\right)$$
)DOC");
  }
};

class LeakyReluOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

using Names = std::vector<std::string>;

void EmitScale(framework::GradOpBuilder* g, const Names& x, float scale, float bias,
               const Names& out) {
  g->AddOp("scale", {{"X", x}}, {{"Out", out}},
           {{"scale", scale}, {"bias", bias}, {"bias_after_scale", true}});
}

// dX = dOut * (1 - (1 - alpha) * sign(relu(-X))): sign(relu(-X)) is 1 where X < 0, else 0.
void LeakyReluGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const float alpha = g->Forward().HasAttr("alpha") ? g->Attr<float>("alpha") : 0.02f;
  const Names neg_x = {g->NewTemp("neg_x")};
  EmitScale(g, g->Input("X"), -1.0f, 0.0f, neg_x);
  const Names relu_neg_x = {g->NewTemp("relu_neg_x")};
  g->AddOp("relu", {{"X", neg_x}}, {{"Out", relu_neg_x}});
  const Names negative = {g->NewTemp("negative")};
  g->AddOp("sign", {{"X", relu_neg_x}}, {{"Out", negative}});
  const Names slope = {g->NewTemp("slope")};
  EmitScale(g, negative, alpha - 1.0f, 1.0f, slope);
  g->AddOp("elementwise_mul", {{"X", g->OutputGrad("Out")}, {"Y", slope}},
           {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
}


}  // namespace

PL_REGISTER_OPS(RegisterLeakyReluOp) {
  framework::RegisterOp<LeakyReluOp, LeakyReluOpMaker>(kOp)
      .InferShape(SameShapeInferShape)
      .GradOpMaker(LeakyReluGradMaker)
      .Checkpoint("leaky_relu for alpha > 1",
                  framework::OpVersionDesc().BugfixWithBehaviorChanged(
                      "Out = X where X >= 0, alpha * X elsewhere (before: Out = max(X, alpha * "
                      "X), which differs for alpha > 1)"));
  RegisterPlainCpuFloatKernels<UnaryFunctorKernel<activation::LeakyRelu>::Kernel>(kOp);
  DeclarePlainInPlace(kOp, {{"X", "Out"}});
  RegisterUnaryFusedGradOp<UnaryGradFunctorKernel<activation::LeakyReluGrad>::Kernel>(
      kOp, {{"X"}, {"Out"}, {"X"}, R"DOC($$dX = \begin{cases} dOut & X \ge 0 \\ \alpha \, dOut & X < 0 \end{cases}$$
elementwise (a NaN in X gives 0, as in PaddlePaddle).)DOC"});
}

}  // namespace operators
}  // namespace paddle_like
