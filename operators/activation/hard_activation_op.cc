// hard_sigmoid and hard_swish: the piecewise-linear activations of mobile networks
// (PP-LCNet, MobileNetV3), with PaddlePaddle's fused grad op types hard_sigmoid_grad and
// hard_swish_grad (first order only).
#include <algorithm>
#include <string>

#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kHardSigmoid[] = "hard_sigmoid";
constexpr char kHardSwish[] = "hard_swish";

class HardSigmoidOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<float>("slope", "Slope of the linear part.").SetDefault(0.2f);
    AddAttr<float>("offset", "Value of the linear part at X = 0.").SetDefault(0.5f);
    AddComment(R"DOC(
Hard sigmoid activation operator, elementwise:

$$Out = \max(0, \min(1, slope \cdot X + offset))$$

Gradient (op hard_sigmoid_grad, reads Out):
$$dX = dOut \cdot slope \text{ where } 0 < Out < 1, \text{ else } 0$$
)DOC");
  }
};

class HardSwishOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<float>("threshold", "Upper clip of X + offset.").SetDefault(6.0f);
    AddAttr<float>("scale", "Divisor of the product.").SetDefault(6.0f);
    AddAttr<float>("offset", "Shift of X before clipping.").SetDefault(3.0f);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Hard swish activation operator, elementwise:

$$Out = \frac{X \cdot \min(\max(0, X + offset), threshold)}{scale}$$

Gradient (op hard_swish_grad, reads X):
$$dX = dOut \cdot \begin{cases} 0 & X + offset \le 0 \\ (2X + offset) / scale &
0 < X + offset < threshold \\ threshold / scale & X + offset \ge threshold \end{cases}$$
)DOC");
  }
};

class HardActivationOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

}  // namespace

PL_REGISTER_OPS(RegisterHardActivationOps) {
  const framework::FusedGradDecl sigmoid_grad{
      {"Out"}, {"Out"}, {"X"}, R"DOC($$dX = dOut \cdot slope \text{ where } 0 < Out < 1, \text{ else } 0$$)DOC"};
  RegisterUnaryOpWithFusedGrad<HardActivationOp, HardSigmoidOpMaker,
                               UnaryFunctorKernel<activation::HardSigmoid>::Kernel,
                               UnaryGradFunctorKernel<activation::HardSigmoidGrad>::Kernel>(kHardSigmoid, sigmoid_grad);

  const framework::FusedGradDecl swish_grad{{"X"}, {"Out"}, {"X"}, R"DOC(
$$dX = dOut \cdot \begin{cases} 0 & X + offset \le 0 \\ (2X + offset) / scale &
0 < X + offset < threshold \\ threshold / scale & X + offset \ge threshold \end{cases}$$)DOC"};
  RegisterUnaryOpWithFusedGrad<HardActivationOp, HardSwishOpMaker,
                               UnaryFunctorKernel<activation::HardSwish>::Kernel,
                               UnaryGradFunctorKernel<activation::HardSwishGrad>::Kernel>(kHardSwish, swish_grad);
}

}  // namespace operators
}  // namespace paddle_like
