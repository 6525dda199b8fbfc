// leaky_relu: Out = X where X >= 0, alpha * X elsewhere. Its gradient is built from
// differentiable forward ops, so higher orders come from the backward builder. Also
// PaddlePaddle's fused grad op type leaky_relu_grad, for programs it built.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "leaky_relu";

class LeakyReluOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<float>("alpha", "Slope for negative inputs.").SetDefault(0.02f);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
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

template <typename T>
struct LeakyReluKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const T alpha = static_cast<T>(ctx.Attr<float>("alpha"));
    const T* in = x.data<T>();
    out->Resize(x.dims());
    out->set_lod(x.lod());
    T* o = out->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = in[i] >= T(0) ? in[i] : alpha * in[i];
        });
  }
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

// ---------------------------------------------------------------- PaddlePaddle grad op types

constexpr char kGradOp[] = "leaky_relu_grad";

class LeakyReluGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.");
    AddAttr<float>("alpha", "As in `leaky_relu`.").SetDefault(0.02f);
    AddComment(R"DOC(
Gradient of `leaky_relu` as PaddlePaddle's programs hold it (fused kernel, first order
only), elementwise:

$$dX = \begin{cases} dOut & X \ge 0 \\ \alpha \, dOut & X < 0 \end{cases}$$

(a NaN in X gives 0, as in PaddlePaddle).
)DOC");
  }
};

void LeakyReluGradInferShape(InferShapeContext* ctx) { UnaryGradInferShape(ctx, "X"); }

template <typename T>
struct LeakyReluGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    PL_ENFORCE(x.numel() == dout.numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of X %s, "
                                       "received %s",
                                       kGradOp, x.dims().ToString(), dout.dims().ToString()));
    const T alpha = static_cast<T>(ctx.Attr<float>("alpha"));
    DenseTensor* dx = ctx.Output("X@GRAD");
    dx->Resize(x.dims());
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    if (x.numel() == 0) return;
    const T* in = x.data<T>();
    const T* g = dout.data<T>();
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const T slope = in[i] < T(0) ? alpha : (in[i] >= T(0) ? T(1) : T(0));
            o[i] = g[i] * slope;
          }
        });
  }
};

}  // namespace

void RegisterLeakyReluOp() {
  framework::RegisterOp<LeakyReluOp, LeakyReluOpMaker>(kOp)
      .InferShape(SameShapeInferShape)
      .GradOpMaker(LeakyReluGradMaker)
      .Checkpoint("leaky_relu for alpha > 1",
                  framework::OpVersionDesc().BugfixWithBehaviorChanged(
                      "Out = X where X >= 0, alpha * X elsewhere (before: Out = max(X, alpha * "
                      "X), which differs for alpha > 1)"));
  RegisterPlainCpuFloatKernels<LeakyReluKernel>(kOp);
  framework::RegisterOp<LeakyReluOp, LeakyReluGradOpMaker>(kGradOp).InferShape(
      LeakyReluGradInferShape);
  RegisterPlainCpuFloatKernels<LeakyReluGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
