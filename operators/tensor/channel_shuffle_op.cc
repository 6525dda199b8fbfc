// channel_shuffle (paddle.nn.ChannelShuffle, NCHW or NHWC) and shuffle_channel (its
// PaddlePaddle 1.x form, NCHW): ShuffleNet's interleaving of channel groups, with fused
// gradients that apply the inverse permutation.
#include <string>
#include <utility>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kChannelShuffle[] = "channel_shuffle";
constexpr char kShuffleChannel[] = "shuffle_channel";

const char* GroupsAttr(const std::string& op) {
  return op.rfind(kShuffleChannel, 0) == 0 ? "group" : "groups";
}

template <bool kV2>
class ChannelShuffleOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", kV2 ? "[N, C, H, W] (NCHW) or [N, H, W, C] (NHWC)." : "[N, C, H, W].");
    AddOutput("Out", "X's shape, with the channels interleaved.");
    AddAttr<int>(kV2 ? "groups" : "group", "g, the channel groups (> 0, dividing C).")
        .SetDefault(1)
        .GreaterThan(0);
    if (kV2) AddAttr<std::string>("data_format", "NCHW or NHWC.").SetDefault("NCHW");
    AddComment(R"DOC(
Channel shuffle: the C channels seen as g groups of C / g are transposed to C / g groups of
g, $$Out[:, j g + i] = X[:, i (C / g) + j], \quad 0 \le i < g, \ 0 \le j < C / g$$
Example: C = 6, g = 2 takes channels [0, 1, 2, 3, 4, 5] to [0, 3, 1, 4, 2, 5].
Gradient (fused op): the inverse permutation, a shuffle with C / g groups.
)DOC");
  }
};

class ChannelShuffleOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

struct ShuffleDims {
  int64_t n = 0, c = 0, pixels = 0, groups = 1;
  bool channel_last = false;
};

// `attrs`: the op's; shuffle_channel has no data_format (NCHW).
ShuffleDims CheckShuffle(const std::string& op, const DDim& x,
                         const framework::AttributeMap& attrs) {
  const auto f = attrs.find("data_format");
  const std::string format = f == attrs.end() ? "NCHW" : std::get<std::string>(f->second);
  const bool channel_last = ChannelLastFormat(op, "data_format", format);
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected rank 4, "
                                                    "received shape %s",
                                                    op, x.ToString()));
  ShuffleDims d;
  d.channel_last = channel_last;
  d.n = x[0];
  d.c = d.channel_last ? x[3] : x[1];
  d.pixels = d.channel_last ? x[1] * x[2] : x[2] * x[3];
  d.groups = std::get<int>(attrs.at(GroupsAttr(op)));
  PL_ENFORCE(d.groups > 0 && (d.c < 0 || d.c % d.groups == 0),
             errors::InvalidArgument("op `%s` attribute `%s`: expected a divisor of the %lld "
                                     "channels of X %s, received %lld",
                                     op, GroupsAttr(op), static_cast<long long>(d.c), x.ToString(),
                                     static_cast<long long>(d.groups)));
  return d;
}

void ChannelShuffleInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckShuffle(ctx->OpType(), x, ctx->Attrs());
  ctx->SetOutputDim("Out", x);
}

// out channel j g + i <- in channel i (C / g) + j; `inverse` moves them back.
template <typename T>
void Shuffle(const ShuffleDims& d, const T* in, bool inverse, T* out) {
  const int64_t per = d.c / d.groups;
  for (int64_t n = 0; n < d.n; ++n) {
    for (int64_t i = 0; i < d.groups; ++i) {
      for (int64_t j = 0; j < per; ++j) {
        int64_t from = i * per + j, to = j * d.groups + i;
        if (inverse) std::swap(from, to);
        for (int64_t p = 0; p < d.pixels; ++p) {
          const int64_t src =
              d.channel_last ? (n * d.pixels + p) * d.c + from : (n * d.c + from) * d.pixels + p;
          const int64_t dst =
              d.channel_last ? (n * d.pixels + p) * d.c + to : (n * d.c + to) * d.pixels + p;
          out[dst] = in[src];
        }
      }
    }
  }
}

template <typename T>
struct ChannelShuffleKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const ShuffleDims d = CheckShuffle(ctx.Type(), x->dims(), ctx.op().Attrs());
    DenseTensor out(x->dims(), x->dtype());
    Shuffle(d, x->data<T>(), false, out.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct ChannelShuffleGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const ShuffleDims d = CheckShuffle(ctx.Type(), dout->dims(), ctx.op().Attrs());
    DenseTensor dx(dout->dims(), dout->dtype());
    Shuffle(d, dout->data<T>(), true, dx.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

template <bool kV2>
void RegisterShuffle(const char* op) {
  const framework::FusedGradDecl grad{
      {}, {"Out"}, {"X"}, R"DOC($$dX = \mathrm{shuffle}^{-1}(dOut)$$)DOC"};
  framework::RegisterOp<ChannelShuffleOp, ChannelShuffleOpMaker<kV2>>(op)
      .InferShape(ChannelShuffleInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<ChannelShuffleKernel, float, double, int32_t, int64_t>(op);
  framework::RegisterFusedGradOp(op, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("Out@GRAD");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("Out@GRAD"));
  });
  RegisterPlainCpuFloatKernels<ChannelShuffleGradKernel>(std::string(op) + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterChannelShuffleOps) {
  RegisterShuffle<true>(kChannelShuffle);
  RegisterShuffle<false>(kShuffleChannel);
}

}  // namespace operators
}  // namespace paddle_like
