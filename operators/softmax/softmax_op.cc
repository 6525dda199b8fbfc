// softmax: Out = exp(X) / sum(exp(X)) along one dim. Also PaddlePaddle's fused grad op type
// softmax_grad, for programs it built.
#include "operators/softmax/softmax_op.h"

#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/softmax.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

int SoftmaxAxis(const std::string& op_type, const DDim& dims, int axis) {
  const int rank = dims.size();
  const int lo = rank == 0 ? -1 : -rank;
  const int hi = rank == 0 ? 1 : rank;
  PL_ENFORCE(axis >= lo && axis < hi,
             errors::InvalidArgument(
                 "op `%s` attribute `axis`: expected a value in [%d, %d) for input `X` of shape "
                 "%s, received %d",
                 op_type, lo, hi, dims.ToString(), axis));
  return axis < 0 ? axis + (rank == 0 ? 1 : rank) : axis;
}

SoftmaxDims GetSoftmaxDims(const std::string& op_type, const DDim& dims, int axis) {
  SoftmaxDims d;
  if (dims.size() == 0) {
    SoftmaxAxis(op_type, dims, axis);
    return d;
  }
  const int a = SoftmaxAxis(op_type, dims, axis);
  d.outer = framework::Product(dims, 0, a);
  d.n = dims[a];
  d.inner = framework::Product(dims, a + 1, dims.size());
  return d;
}

// dX = Out * (dOut - reduce_sum(dOut * Out, [axis], keep_dim)); the kept size-1 dim of the
// sum broadcasts against dOut.
void AppendSoftmaxGradOps(framework::GradOpBuilder* g, const std::vector<std::string>& out,
                          const std::vector<std::string>& dout, int axis,
                          const std::vector<std::string>& dx) {
  const std::string dout_out = g->NewTemp("dout_mul_out");
  const std::string sum = g->NewTemp("sum_dout_mul_out");
  const std::string centered = g->NewTemp("dout_sub_sum");
  g->AddOp("elementwise_mul", {{"X", dout}, {"Y", out}}, {{"Out", {dout_out}}}, {{"axis", -1}});
  g->AddOp("reduce_sum", {{"X", {dout_out}}}, {{"Out", {sum}}},
           {{"dim", std::vector<int>{axis}}, {"keep_dim", true}, {"reduce_all", false}});
  g->AddOp("elementwise_sub", {{"X", dout}, {"Y", {sum}}}, {{"Out", {centered}}}, {{"axis", -1}});
  g->AddOp("elementwise_mul", {{"X", {centered}}, {"Y", out}}, {{"Out", dx}}, {{"axis", -1}});
}

namespace {

class SoftmaxOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<int>("axis", "The dim to normalise along; negative values count from the end.")
        .SetDefault(-1);
    AddAttr<std::string>("data_format", "Layout hint for library kernels.")
        .SetDefault("AnyLayout")
        .AsExtra();
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Softmax operator.

$$Out_i = \frac{e^{X_i - m}}{\sum_j e^{X_j - m}}, \quad m = \max_j X_j$$

along dim `axis` (default -1, the last dim), for every position of the other dims.
Subtracting the maximum m keeps exp() from overflowing; the result equals
exp(X_i) / sum_j exp(X_j). A 0-D X gives 1. With X = [1, 2, 3]:
Out = [0.0900, 0.2447, 0.6652].

Gradient (reads Out, not X):

$$dX = Out \odot (dOut - \mathrm{reduce\_sum}(dOut \odot Out, dim = [axis], keep\_dim))$$

built from elementwise_mul, reduce_sum and elementwise_sub, so it can be differentiated
again.
)DOC");
  }
};

class SoftmaxOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void SoftmaxInferShape(InferShapeContext* ctx) {
  SameShapeInferShape(ctx);
  SoftmaxAxis(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attr<int>("axis"));
}

template <typename T>
struct SoftmaxCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    // A copy sharing X's buffer: if Out is X, Out gets a buffer of its own and X stays
    // readable.
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const SoftmaxDims d = GetSoftmaxDims(ctx.Type(), x.dims(), ctx.Attr<int>("axis"));
    T* o = out->mutable_data<T>(ctx.GetPlace());
    math::SoftmaxForward(ctx.device_context<platform::CPUDeviceContext>(), x.data<T>(), o,
                         d.outer, d.n, d.inner);
  }
};

void SoftmaxGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const int axis = g->Forward().HasAttr("axis") ? g->Attr<int>("axis") : -1;
  AppendSoftmaxGradOps(g, g->Output("Out"), g->OutputGrad("Out"), axis, g->InputGrad("X"));
}

// ---------------------------------------------------------------- PaddlePaddle grad op types

constexpr char kGradOp[] = "softmax_grad";

class SoftmaxGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Out", "The forward op's Out.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.");
    AddAttr<int>("axis", "As in `softmax`.").SetDefault(-1);
    AddAttr<std::string>("data_format", "Layout hint for library kernels.")
        .SetDefault("AnyLayout")
        .AsExtra();
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Gradient of `softmax` as PaddlePaddle's programs hold it (fused kernel, first order only),
along dim `axis`:

$$dX = Out \odot \left(dOut - \sum_{axis} dOut \odot Out\right)$$

The sum accumulates in double.
)DOC");
  }
};


template <typename T>
struct SoftmaxGradCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor out = *ctx.Input("Out");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    PL_ENFORCE(out.numel() == dout.numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of Out %s, "
                                       "received %s",
                                       kGradOp, out.dims().ToString(), dout.dims().ToString()));
    const SoftmaxDims d = GetSoftmaxDims(kGradOp, out.dims(), ctx.Attr<int>("axis"));
    DenseTensor* dx = ctx.Output("X@GRAD");
    dx->Resize(out.dims());
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    if (out.numel() == 0) return;
    math::SoftmaxBackward(ctx.device_context<platform::CPUDeviceContext>(), out.data<T>(),
                          dout.data<T>(), o, d.outer, d.n, d.inner);
  }
};

}  // namespace

void SoftmaxGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Out");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim out = ctx->GetInputDim("Out");
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  PL_ENFORCE(out.HasUnknown() || dout.HasUnknown() || out == dout,
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of Out %s, "
                                     "received %s",
                                     ctx->OpType(), out.ToString(), dout.ToString()));
  SoftmaxAxis(ctx->OpType(), out, ctx->Attr<int>("axis"));
  ctx->SetOutputDim("X@GRAD", out);
  ctx->ShareLoD("Out", "X@GRAD");
}

PL_REGISTER_OPS(RegisterSoftmaxOp) {
  framework::RegisterOp<SoftmaxOp, SoftmaxOpMaker>("softmax")
      .InferShape(SoftmaxInferShape)
      .GradOpMaker(SoftmaxGradMaker);
  RegisterPlainCpuFloatKernels<SoftmaxCpuKernel>("softmax");
  framework::RegisterOp<SoftmaxOp, SoftmaxGradOpMaker>(kGradOp).InferShape(SoftmaxGradInferShape);
  RegisterPlainCpuFloatKernels<SoftmaxGradCpuKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
