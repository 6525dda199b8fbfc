// prelu: a leaky relu whose slope Alpha is learned, shared by all elements, per channel or
// per element; prelu_grad (PaddlePaddle's fused op, also our backward) gives dX and dAlpha.
#include "operators/activation/prelu_op.h"

#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "prelu";

class PreluOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor, rank >= 1 (rank >= 2 for mode channel).");
    AddInput("Alpha",
             "The slopes: one element (all), C elements (channel), or X's shape without the "
             "batch dim, with or without a leading 1 (element).");
    AddOutput("Out", "A tensor of X's shape, dtype and LoD.");
    AddAttr<std::string>("mode", "all, channel or element.")
        .SetDefault("all")
        .InEnum({"all", "channel", "element"});
    AddAttr<std::string>("data_format", "Where the channel dim is for mode channel: NCHW or NHWC.")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "NCDHW", "NDHWC", "NCL", "NLC", "AnyLayout"});
    AddComment(R"DOC(
PReLU operator, elementwise:

$$Out = \begin{cases} X & X > 0 \\ \alpha X & X \le 0 \end{cases}$$

with alpha = Alpha[0] (mode all), Alpha[c] for the channel c of the element (mode channel;
dim 1, or the last dim for a channel-last data_format) or the element of Alpha at the
element's position within one sample (mode element).

Gradient (fused op `prelu_grad`):
$$dX = dOut \cdot (X > 0 ? 1 : \alpha), \quad
d\alpha = \sum_{\text{elements using } \alpha} dOut \cdot \min(X, 0)$$
)DOC");
  }
};

class PreluOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

bool ChannelLast(const std::string& format) {
  return format == "NHWC" || format == "NDHWC" || format == "NLC";
}

}  // namespace

AlphaIndex MakeAlphaIndex(const std::string& op, const std::string& mode,
                          const std::string& format, const DDim& x, const DDim& alpha) {
  AlphaIndex a;
  a.mode = mode == "all"       ? AlphaIndex::kAll
           : mode == "channel" ? AlphaIndex::kChannel
                               : AlphaIndex::kElement;
  a.channel_last = ChannelLast(format);
  const int64_t n = alpha.numel();
  if (mode == "all") {
    PL_ENFORCE(n == 1, errors::InvalidArgument("op `%s` input `Alpha`: expected one element for "
                                               "mode all, received shape %s",
                                               op, alpha.ToString()));
    return a;
  }
  PL_ENFORCE(x.size() >= 2,
             errors::InvalidArgument("op `%s` input `X`: expected rank >= 2 for mode %s, "
                                     "received shape %s",
                                     op, mode, x.ToString()));
  if (mode == "channel") {
    const int c = a.channel_last ? x.size() - 1 : 1;
    a.channels = x[c];
    for (int d = c + 1; d < x.size(); ++d) a.inner *= x[d];
    PL_ENFORCE(n == a.channels,
               errors::InvalidArgument("op `%s` input `Alpha`: expected %lld elements (the "
                                       "channels of X %s, %s), received shape %s",
                                       op, static_cast<long long>(a.channels), x.ToString(),
                                       format, alpha.ToString()));
    return a;
  }
  for (int d = 1; d < x.size(); ++d) a.per_sample *= x[d];
  PL_ENFORCE(n == a.per_sample,
             errors::InvalidArgument("op `%s` input `Alpha`: expected %lld elements (one sample "
                                     "of X %s) for mode element, received shape %s",
                                     op, static_cast<long long>(a.per_sample), x.ToString(),
                                     alpha.ToString()));
  return a;
}

namespace {

void PreluInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Alpha");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const DDim alpha = ctx->GetInputDim("Alpha");
  if (!x.HasUnknown() && !alpha.HasUnknown()) {
    MakeAlphaIndex(ctx->OpType(), ctx->Attr<std::string>("mode"),
                   ctx->Attr<std::string>("data_format"), x, alpha);
  }
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct PreluKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor* alpha_t = ctx.Input("Alpha");
    const AlphaIndex at = MakeAlphaIndex(ctx.Type(), ctx.Attr<std::string>("mode"),
                                         ctx.Attr<std::string>("data_format"), x.dims(),
                                         alpha_t->dims());
    const T* alpha = alpha_t->data<T>();
    T* out = ctx.Output("Out")->mutable_data<T>(ctx.GetPlace());
    if (x.numel() == 0) return;
    const T* in = x.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = PreluValue(in[i], alpha[at(i)]);
  }
};

template <typename T>
struct PreluGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* alpha_t = ctx.Input("Alpha");
    const DenseTensor* dout_t = ctx.Input("Out@GRAD");
    PL_ENFORCE(dout_t->dims() == x->dims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected X's shape %s, "
                                       "received %s",
                                       ctx.Type(), x->dims().ToString(), dout_t->dims().ToString()));
    const AlphaIndex at = MakeAlphaIndex(ctx.Type(), ctx.Attr<std::string>("mode"),
                                         ctx.Attr<std::string>("data_format"), x->dims(),
                                         alpha_t->dims());
    const int64_t n = x->numel();
    const T* in = n > 0 ? x->data<T>() : nullptr;
    const T* alpha = alpha_t->data<T>();
    const T* dout = n > 0 ? dout_t->data<T>() : nullptr;
    if (DenseTensor* dx_t = ctx.Output("X@GRAD")) {
      DenseTensor fresh(x->dims(), x->dtype());
      T* dx = fresh.mutable_data<T>(ctx.GetPlace());
      for (int64_t i = 0; i < n; ++i) dx[i] = PreluInputGrad(in[i], alpha[at(i)], dout[i]);
      *dx_t = std::move(fresh);
    }
    if (DenseTensor* da_t = ctx.Output("Alpha@GRAD")) {
      DenseTensor fresh(alpha_t->dims(), alpha_t->dtype());
      T* da = fresh.mutable_data<T>(ctx.GetPlace());
      std::fill(da, da + fresh.numel(), T(0));
      for (int64_t i = 0; i < n; ++i) {
        T term;
        if (PreluAlphaGradTerm(in[i], dout[i], &term)) da[at(i)] += term;
      }
      *da_t = std::move(fresh);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterPreluOp) {
  const framework::FusedGradDecl grad{
      {"X", "Alpha"},
      {"Out"},
      {"X", "Alpha"},
      R"DOC($$dX = dOut \cdot (X > 0 ? 1 : \alpha), \quad d\alpha = \sum dOut \cdot \min(X, 0)$$)DOC"};
  framework::RegisterOp<PreluOp, PreluOpMaker>(kOp)
      .InferShape(PreluInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<PreluKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireInput("Alpha");
    if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
    if (ctx->HasOutput("Alpha@GRAD")) ctx->SetOutputDim("Alpha@GRAD", ctx->GetInputDim("Alpha"));
  });
  RegisterPlainCpuFloatKernels<PreluGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
