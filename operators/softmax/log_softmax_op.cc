// log_softmax: Out = X - log(sum(exp(X))) along one dim. Also PaddlePaddle's fused grad op
// type log_softmax_grad, for programs it built. The axis and its [outer, n, inner] view are
// softmax's (softmax_op.h); the math is in operators/math/softmax.h.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/softmax.h"
#include "operators/op_family.h"
#include "operators/softmax/softmax_op.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "log_softmax";
constexpr char kGradOp[] = "log_softmax_grad";

class LogSoftmaxOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<int>("axis", "The dim to normalise along; negative values count from the end.")
        .SetDefault(-1);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
LogSoftmax operator.

$$Out_i = X_i - m - \log \sum_j e^{X_j - m}, \quad m = \max_j X_j$$

along dim `axis` (default -1, the last dim), for every position of the other dims: the log
of softmax, computed without forming softmax, so that values far below the maximum stay
finite. A 0-D X gives 0. With X = [1, 2, 3]: Out = [-2.4076, -1.4076, -0.4076].

Gradient (reads Out, not X):

$$dX = dOut - e^{Out} \odot \mathrm{reduce\_sum}(dOut, dim = [axis], keep\_dim)$$

built from reduce_sum, exp, elementwise_mul and elementwise_sub, so it can be differentiated
again.
)DOC");
  }
};

class LogSoftmaxOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void LogSoftmaxInferShape(InferShapeContext* ctx) {
  SameShapeInferShape(ctx);
  SoftmaxAxis(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attr<int>("axis"));
}

template <typename T>
struct LogSoftmaxCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    // A copy sharing X's buffer: if Out is X, Out gets a buffer of its own and X stays
    // readable.
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const SoftmaxDims d = GetSoftmaxDims(ctx.Type(), x.dims(), ctx.Attr<int>("axis"));
    out->Resize(x.dims());
    out->set_lod(x.lod());
    T* o = out->mutable_data<T>(ctx.GetPlace());
    math::LogSoftmaxForward(ctx.device_context<platform::CPUDeviceContext>(), x.data<T>(), o,
                            d.outer, d.n, d.inner);
  }
};

// dX = dOut - exp(Out) * reduce_sum(dOut, [axis], keep_dim); the kept size-1 dim of the sum
// broadcasts against exp(Out).
void LogSoftmaxGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const int axis = g->Forward().HasAttr("axis") ? g->Attr<int>("axis") : -1;
  const std::vector<std::string> dout = g->OutputGrad("Out");
  const std::string sum = g->NewTemp("sum_dout");
  const std::string softmax = g->NewTemp("exp_out");
  const std::string scaled = g->NewTemp("exp_out_mul_sum");
  g->AddOp("reduce_sum", {{"X", dout}}, {{"Out", {sum}}},
           {{"dim", std::vector<int>{axis}}, {"keep_dim", true}, {"reduce_all", false}});
  g->AddOp("exp", {{"X", g->Output("Out")}}, {{"Out", {softmax}}});
  g->AddOp("elementwise_mul", {{"X", {softmax}}, {"Y", {sum}}}, {{"Out", {scaled}}},
           {{"axis", -1}});
  g->AddOp("elementwise_sub", {{"X", dout}, {"Y", {scaled}}}, {{"Out", g->InputGrad("X")}},
           {{"axis", -1}});
}

// ---------------------------------------------------------------- PaddlePaddle grad op type

class LogSoftmaxGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Out", "The forward op's Out.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.");
    AddAttr<int>("axis", "As in `log_softmax`.").SetDefault(-1);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Gradient of `log_softmax` as PaddlePaddle's programs hold it (fused kernel, first order
only), along dim `axis`:

$$dX = dOut - e^{Out} \odot \sum_{axis} dOut$$

The sum accumulates in double.
)DOC");
  }
};


template <typename T>
struct LogSoftmaxGradCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor out = *ctx.Input("Out");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    PL_ENFORCE(out.dims() == dout.dims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of Out %s, "
                                       "received %s",
                                       kGradOp, out.dims().ToString(), dout.dims().ToString()));
    const SoftmaxDims d = GetSoftmaxDims(kGradOp, out.dims(), ctx.Attr<int>("axis"));
    DenseTensor* dx = ctx.Output("X@GRAD");
    dx->Resize(out.dims());
    dx->set_lod(out.lod());
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    math::LogSoftmaxBackward(ctx.device_context<platform::CPUDeviceContext>(), out.data<T>(),
                             dout.data<T>(), o, d.outer, d.n, d.inner);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLogSoftmaxOp) {
  framework::RegisterOp<LogSoftmaxOp, LogSoftmaxOpMaker>(kOp)
      .InferShape(LogSoftmaxInferShape)
      .GradOpMaker(LogSoftmaxGradMaker);
  RegisterPlainCpuFloatKernels<LogSoftmaxCpuKernel>(kOp);
  framework::RegisterOp<LogSoftmaxOp, LogSoftmaxGradOpMaker>(kGradOp).InferShape(
      SoftmaxGradInferShape);
  RegisterPlainCpuFloatKernels<LogSoftmaxGradCpuKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
