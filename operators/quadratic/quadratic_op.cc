// quadratic: the worked example of docs/adding_an_operator.md.
#include "operators/quadratic/quadratic_op.h"

#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

class QuadraticOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor, same shape as X.");
    AddAttr<float>("a", "Coefficient of X^2.").SetDefault(0.0f);
    AddAttr<float>("b", "Coefficient of X.").SetDefault(0.0f);
    AddAttr<float>("c", "Constant term.").SetDefault(0.0f);
    AddComment(R"DOC(
Quadratic operator.

$$Out = a \cdot X^2 + b \cdot X + c$$

applied elementwise. With X = [[1, 2], [3, 4]], a = 1, b = 2, c = 3:
Out = [[6, 11], [18, 27]].

Gradient:

$$dX = dOut \cdot (2a \cdot X + b)$$
)DOC");
  }
};

class QuadraticOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

template <typename T>
struct QuadraticCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const QuadraticFunctor<T> f{static_cast<T>(ctx.Attr<float>("a")),
                                static_cast<T>(ctx.Attr<float>("b")),
                                static_cast<T>(ctx.Attr<float>("c"))};
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const int64_t n = x->numel();
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [f, in, o](int64_t begin, int64_t end) {
          // Local copies and __restrict__ let the compiler vectorize: stores to `o` cannot
          // alias the coefficients or the input.
          const QuadraticFunctor<T> fn = f;
          const T* __restrict__ src = in;
          T* __restrict__ dst = o;
          for (int64_t i = begin; i < end; ++i) dst[i] = fn(src[i]);
        });
  }
};

namespace {

// dX = dOut * (2a * X + b), with differentiable ops: scale, then elementwise_mul.
void QuadraticGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::vector<std::string> slope = {g->NewTemp("slope")};
  g->AddOp("scale", {{"X", g->Input("X")}}, {{"Out", slope}},
           {{"scale", 2.0f * g->Attr<float>("a")},
            {"bias", g->Attr<float>("b")},
            {"bias_after_scale", true}});
  g->AddOp("elementwise_mul", {{"X", g->OutputGrad("Out")}, {"Y", slope}},
           {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
}

}  // namespace

PL_REGISTER_OPS(RegisterQuadraticOp) {
  framework::RegisterOp<QuadraticOp, QuadraticOpMaker>("quadratic")
      .InferShape(SameShapeInferShape)
      .GradOpMaker(QuadraticGradMaker);
  RegisterPlainCpuFloatKernels<QuadraticCpuKernel>("quadratic");
  // Element i of Out depends on element i of X only.
  DeclarePlainInPlace("quadratic", {{"X", "Out"}});
}

}  // namespace operators
}  // namespace paddle_like
