// pixel_shuffle and pixel_unshuffle: the rearrangement between channels and space of
// sub-pixel convolution (paddle.nn.PixelShuffle / PixelUnshuffle). Each is the other's
// gradient, so every order is differentiable.
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kShuffle[] = "pixel_shuffle";
constexpr char kUnshuffle[] = "pixel_unshuffle";

template <bool kUp>
class PixelShuffleOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", kUp ? "[N, C r^2, H, W] (NCHW) or [N, H, W, C r^2] (NHWC)."
                      : "[N, C, H r, W r] (NCHW) or [N, H r, W r, C] (NHWC).");
    AddOutput("Out", kUp ? "[N, C, H r, W r] (NCHW) or [N, H r, W r, C] (NHWC)."
                         : "[N, C r^2, H, W] (NCHW) or [N, H, W, C r^2] (NHWC).");
    AddAttr<int>(kUp ? "upscale_factor" : "downscale_factor", "r, the block size (> 0).")
        .SetDefault(1)
        .GreaterThan(0);
    AddAttr<std::string>("data_format", "NCHW or NHWC.").SetDefault("NCHW");
    AddComment(std::string(kUp ? "Pixel shuffle" : "Pixel unshuffle") + R"DOC( operator.
With block size r, channel c, row h, column w and offsets 0 <= i, j < r (NCHW shown; NHWC
moves the channel last):

$$Shuffled[n, c, h r + i, w r + j] = Unshuffled[n, c r^2 + i r + j, h, w]$$

)DOC" +
               (kUp ? "pixel_shuffle maps Unshuffled (X) to Shuffled (Out); its gradient is "
                      "pixel_unshuffle of dOut."
                    : "pixel_unshuffle maps Shuffled (X) to Unshuffled (Out); its gradient is "
                      "pixel_shuffle of dOut.") +
               "\n");
  }
};

class PixelShuffleOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

struct ShuffleGeometry {
  int64_t n, c, h, w,
      r;  // The unshuffled side: [n, c r^2, h, w]; the shuffled one: [n, c, h r, w r].
  bool channel_last;
};

// The geometry of `op` from its input dims; InvalidArgumentError naming the op, slot and
// attribute for a bad rank, layout or size.
ShuffleGeometry Geometry(const std::string& op, const DDim& x, int r, const std::string& format) {
  const bool up = op == kShuffle;
  const bool last = ChannelLastFormat(op, "data_format", format);
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected rank 4, "
                                                    "received %s",
                                                    op, x.ToString()));
  PL_ENFORCE(r > 0, errors::InvalidArgument("op `%s` attribute `%s`: expected > 0, received %d", op,
                                            up ? "upscale_factor" : "downscale_factor", r));
  const int64_t channels = last ? x[3] : x[1];
  const int64_t height = last ? x[1] : x[2], width = last ? x[2] : x[3];
  ShuffleGeometry g{x[0], 0, 0, 0, r, last};
  if (up) {
    PL_ENFORCE(channels < 0 || channels % (int64_t{r} * r) == 0,
               errors::InvalidArgument("op `%s` input `X` %s: expected channels divisible by "
                                       "upscale_factor^2 = %d, received %s",
                                       op, x.ToString(), r * r, std::to_string(channels)));
    g.c = channels < 0 ? -1 : channels / (int64_t{r} * r);
    g.h = height;
    g.w = width;
  } else {
    PL_ENFORCE((height < 0 || height % r == 0) && (width < 0 || width % r == 0),
               errors::InvalidArgument("op `%s` input `X` %s: expected height and width "
                                       "divisible by downscale_factor = %d",
                                       op, x.ToString(), r));
    g.c = channels;
    g.h = height < 0 ? -1 : height / r;
    g.w = width < 0 ? -1 : width / r;
  }
  return g;
}

DDim Unshuffled(const ShuffleGeometry& g) {
  const int64_t c = g.c < 0 ? -1 : g.c * g.r * g.r;
  return g.channel_last ? DDim({g.n, g.h, g.w, c}) : DDim({g.n, c, g.h, g.w});
}
DDim Shuffled(const ShuffleGeometry& g) {
  const int64_t h = g.h < 0 ? -1 : g.h * g.r, w = g.w < 0 ? -1 : g.w * g.r;
  return g.channel_last ? DDim({g.n, h, w, g.c}) : DDim({g.n, g.c, h, w});
}

const char* FactorAttr(const std::string& op) {
  return op == kShuffle ? "upscale_factor" : "downscale_factor";
}

void PixelShuffleInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const std::string& op = ctx->OpType();
  const ShuffleGeometry g = Geometry(op, ctx->GetInputDim("X"), ctx->Attr<int>(FactorAttr(op)),
                                     ctx->Attr<std::string>("data_format"));
  ctx->SetOutputDim("Out", op == kShuffle ? Shuffled(g) : Unshuffled(g));
}

template <typename T>
struct PixelShuffleKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const bool up = op == kShuffle;
    const DenseTensor* x = ctx.Input("X");
    const ShuffleGeometry g = Geometry(op, x->dims(), ctx.Attr<int>(FactorAttr(op)),
                                       ctx.Attr<std::string>("data_format"));
    DenseTensor out(up ? Shuffled(g) : Unshuffled(g), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    const int64_t r = g.r, cr = g.c * r * r, hr = g.h * r, wr = g.w * r;
    // Offsets of one element on either side.
    const auto unshuffled = [&](int64_t n, int64_t ch, int64_t h, int64_t w) {
      return g.channel_last ? ((n * g.h + h) * g.w + w) * cr + ch
                            : ((n * cr + ch) * g.h + h) * g.w + w;
    };
    const auto shuffled = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
      return g.channel_last ? ((n * hr + h) * wr + w) * g.c + c : ((n * g.c + c) * hr + h) * wr + w;
    };
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t c = 0; c < g.c; ++c) {
        for (int64_t i = 0; i < r; ++i) {
          for (int64_t j = 0; j < r; ++j) {
            for (int64_t h = 0; h < g.h; ++h) {
              for (int64_t w = 0; w < g.w; ++w) {
                const int64_t a = unshuffled(n, c * r * r + i * r + j, h, w);
                const int64_t b = shuffled(n, c, h * r + i, w * r + j);
                if (up) {
                  o[b] = in[a];
                } else {
                  o[a] = in[b];
                }
              }
            }
          }
        }
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <bool kUp>
void PixelShuffleGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(kUp ? kUnshuffle : kShuffle, {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{kUp ? "downscale_factor" : "upscale_factor",
             g->Attr<int>(kUp ? "upscale_factor" : "downscale_factor")},
            {"data_format", g->Attr<std::string>("data_format")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterPixelShuffleOps) {
  framework::RegisterOp<PixelShuffleOp, PixelShuffleOpMaker<true>>(kShuffle)
      .InferShape(PixelShuffleInferShape)
      .GradOpMaker(PixelShuffleGradMaker<true>)
      .Checkpoint("channels-last inputs", framework::OpVersionDesc().NewAttr(
                                              "data_format", "NCHW or NHWC.", std::string("NCHW")));
  RegisterPlainCpuFloatKernels<PixelShuffleKernel>(kShuffle);
  framework::RegisterOp<PixelShuffleOp, PixelShuffleOpMaker<false>>(kUnshuffle)
      .InferShape(PixelShuffleInferShape)
      .GradOpMaker(PixelShuffleGradMaker<false>);
  RegisterPlainCpuFloatKernels<PixelShuffleKernel>(kUnshuffle);
}

}  // namespace operators
}  // namespace paddle_like
