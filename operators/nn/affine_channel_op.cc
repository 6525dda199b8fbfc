// affine_channel: a per-channel scale and shift (what a frozen batch_norm becomes in
// PaddlePaddle's older detection models). Its gradients are written with elementwise_mul and
// reduce_as, so every order is differentiable.
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "affine_channel";

class AffineChannelOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input [N, C, ...] (NCHW) or [N, ..., C] (NHWC).");
    AddInput("Scale", "Per-channel scale, shape [C].");
    AddInput("Bias", "Per-channel shift, shape [C].");
    AddOutput("Out", "X's shape.");
    AddAttr<std::string>("data_layout", "NCHW (or AnyLayout) or NHWC.").SetDefault("AnyLayout");
    AddComment(R"DOC(
Affine channel operator: for channel c,

$$Out_{\ldots c \ldots} = X_{\ldots c \ldots} \cdot Scale_c + Bias_c$$

Gradients, written with elementwise_mul and reduce_as (sums over all dims but the channel):
$$dX = dOut \cdot Scale_c, \quad dScale_c = \sum dOut \cdot X, \quad dBias_c = \sum dOut$$
)DOC");
  }
};

class AffineChannelOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// Whether the channel is the last dim; InvalidArgumentError for another layout.
bool ChannelLast(const std::string& op, const std::string& layout) {
  PL_ENFORCE(layout == "NCHW" || layout == "AnyLayout" || layout == "NHWC",
             errors::InvalidArgument("op `%s` attribute `data_layout`: expected NCHW, NHWC or "
                                     "AnyLayout, received %s",
                                     op, layout));
  return layout == "NHWC";
}

// The channel count of X, with Scale and Bias checked against it.
int64_t CheckedChannels(const std::string& op, const DDim& x, bool channel_last, const DDim& scale,
                        const DDim& bias) {
  PL_ENFORCE(x.size() >= 2,
             errors::InvalidArgument("op `%s` input `X`: expected rank >= 2, received %s", op,
                                     x.ToString()));
  const int64_t c = channel_last ? x[x.size() - 1] : x[1];
  for (const auto& [slot, d] : {std::make_pair("Scale", scale), std::make_pair("Bias", bias)}) {
    PL_ENFORCE(d.size() == 1 && (d[0] < 0 || c < 0 || d[0] == c),
               errors::InvalidArgument("op `%s` input `%s`: expected shape %s (the channels of "
                                       "input `X` %s), received %s",
                                       op, slot, DDim({c}).ToString(), x.ToString(), d.ToString()));
  }
  return c;
}

void AffineChannelInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Scale", "Bias"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckedChannels(ctx->OpType(), x,
                  ChannelLast(ctx->OpType(), ctx->Attr<std::string>("data_layout")),
                  ctx->GetInputDim("Scale"), ctx->GetInputDim("Bias"));
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct AffineChannelKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* scale = ctx.Input("Scale");
    const DenseTensor* bias = ctx.Input("Bias");
    const DDim dims = x->dims();
    const bool last = ChannelLast(kOp, ctx.Attr<std::string>("data_layout"));
    const int64_t c = CheckedChannels(kOp, dims, last, scale->dims(), bias->dims());
    // NCHW: element e is in channel (e / inner) % c; NHWC: e % c.
    int64_t inner = 1;
    if (!last) {
      for (int d = 2; d < dims.size(); ++d) inner *= dims[d];
    }
    DenseTensor out(dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    const T* s = scale->data<T>();
    const T* b = bias->data<T>();
    for (int64_t e = 0; e < dims.numel(); ++e) {
      const int64_t ch = last ? e % c : (e / inner) % c;
      o[e] = in[e] * s[ch] + b[ch];
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

void AffineChannelGradMaker(framework::GradOpBuilder* g) {
  const int axis =
      g->Forward().HasAttr("data_layout") && g->Attr<std::string>("data_layout") == "NHWC" ? -1 : 1;
  const auto dout = g->OutputGrad("Out");
  if (g->WantsInputGrad("X")) {
    g->AddOp("elementwise_mul", {{"X", dout}, {"Y", g->Input("Scale")}},
             {{"Out", g->InputGrad("X")}}, {{"axis", axis}});
  }
  if (g->WantsInputGrad("Scale")) {
    const std::string product = g->NewTemp("dout_x");
    g->AddOp("elementwise_mul", {{"X", dout}, {"Y", g->Input("X")}}, {{"Out", {product}}},
             {{"axis", -1}});
    g->AddOp("reduce_as", {{"X", {product}}, {"Target", g->Input("Scale")}},
             {{"Out", g->InputGrad("Scale")}}, {{"axis", axis}});
  }
  if (g->WantsInputGrad("Bias")) {
    g->AddOp("reduce_as", {{"X", dout}, {"Target", g->Input("Bias")}},
             {{"Out", g->InputGrad("Bias")}}, {{"axis", axis}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterAffineChannelOp) {
  framework::RegisterOp<AffineChannelOp, AffineChannelOpMaker>(kOp)
      .InferShape(AffineChannelInferShape)
      .GradOpMaker(AffineChannelGradMaker);
  RegisterPlainCpuFloatKernels<AffineChannelKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
