// relu6: relu clipped at `threshold` (6 by default), with PaddlePaddle's fused grad op
// relu6_grad.
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

template <typename T>
struct Relu6Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const T threshold = static_cast<T>(ctx.Attr<float>("threshold"));
    // NaN propagates: both comparisons fail.
    ComputeUnary<T>(ctx, [=](T x) { return x < T(0) ? T(0) : (x > threshold ? threshold : x); });
  }
};

template <typename T>
struct Relu6GradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T threshold = static_cast<T>(ctx.Attr<float>("threshold"));
    ComputeUnaryGrad<T>(ctx, "Out", [=](T out, T dout) {
      return out > T(0) && out < threshold ? dout : T(0);
    });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRelu6Op) {
  RegisterUnaryOpWithFusedGrad<UnaryOp, Relu6OpMaker, Relu6Kernel, Relu6GradKernel>(
      kOp, {{"Out"}, {"Out"}, {"X"}, R"DOC($$dX = dOut \cdot [0 < Out < threshold]$$)DOC"});
}

}  // namespace operators
}  // namespace paddle_like
