// temporal_shift: TSM's shift of channels along time (paddle.nn.functional.temporal_shift,
// PaddleVideo's PP-TSM). X holds N clips of T = seg_num frames as [N T, C, H, W] (or
// NHWC); the first C r channels of each frame take the previous frame's values, the next
// C r the next frame's, zeros past either end. Its fused gradient shifts the other way.
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "temporal_shift";

class TemporalShiftOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N T, C, H, W] (NCHW) or [N T, H, W, C] (NHWC): N clips of T frames.");
    AddOutput("Out", "X's shape.");
    AddAttr<int>("seg_num", "T, the frames of a clip (> 0; X's first dim a multiple of it).")
        .SetDefault(1)
        .GreaterThan(0);
    AddAttr<float>("shift_ratio", "r: the share of channels shifted each way, in [0, 0.5].")
        .SetDefault(0.25f);
    AddAttr<std::string>("data_format", "NCHW or NHWC.").SetDefault("NCHW");
    AddComment(R"DOC(
Temporal shift. With frame t of a clip, channel c, c_1 = floor(C r) and c_2 = floor(2 C r):
$$Out[t, c] = \begin{cases} X[t - 1, c] & c < c_1 \\ X[t + 1, c] & c_1 \le c < c_2 \\
X[t, c] & \text{otherwise} \end{cases}$$
where a frame outside [0, T) reads zeros. Gradient (fused op): the same with the directions
swapped, $$dX[t, c] = dOut[t + 1, c] \ (c < c_1), \quad dOut[t - 1, c] \ (c_1 \le c < c_2),
\quad dOut[t, c] \text{ otherwise}$$
)DOC");
  }
};

class TemporalShiftOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

struct ShiftGeometry {
  int64_t clips = 0, frames = 0, c = 0, pixels = 0;  // N, T, C, H W.
  int64_t c1 = 0, c2 = 0;
  bool channel_last = false;
};

template <typename Context>
ShiftGeometry CheckShift(const std::string& op, const DDim& x, const Context& ctx) {
  const std::string format = ctx.template Attr<std::string>("data_format");
  const bool channel_last = ChannelLastFormat(op, "data_format", format);
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected rank 4, "
                                                    "received shape %s",
                                                    op, x.ToString()));
  const int seg = ctx.template Attr<int>("seg_num");
  const float ratio = ctx.template Attr<float>("shift_ratio");
  PL_ENFORCE(seg > 0, errors::InvalidArgument("op `%s` attribute `seg_num`: expected > 0, "
                                              "received %d",
                                              op, seg));
  PL_ENFORCE(ratio >= 0.0f && ratio <= 0.5f,
             errors::InvalidArgument("op `%s` attribute `shift_ratio`: expected a value in "
                                     "[0, 0.5], received %g",
                                     op, static_cast<double>(ratio)));
  PL_ENFORCE(x[0] < 0 || x[0] % seg == 0,
             errors::InvalidArgument("op `%s` input `X`: dim 0 (%lld) must be a multiple of "
                                     "seg_num %d (X %s)",
                                     op, static_cast<long long>(x[0]), seg, x.ToString()));
  ShiftGeometry g;
  g.channel_last = channel_last;
  g.frames = seg;
  g.clips = x[0] < 0 ? -1 : x[0] / seg;
  g.c = g.channel_last ? x[3] : x[1];
  g.pixels = g.channel_last ? x[1] * x[2] : x[2] * x[3];
  g.c1 = static_cast<int64_t>(static_cast<float>(g.c) * ratio);
  g.c2 = static_cast<int64_t>(static_cast<float>(g.c) * 2 * ratio);
  return g;
}

void TemporalShiftInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckShift(ctx->OpType(), x, *ctx);
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

// Out = the shift of `in` with frame offsets `first` (channels below c1) and `second`
// (channels in [c1, c2)): element (t, c) reads frame t + offset.
template <typename T>
void Shift(const ShiftGeometry& g, const T* in, int first, int second, T* out) {
  for (int64_t n = 0; n < g.clips; ++n) {
    for (int64_t t = 0; t < g.frames; ++t) {
      const int64_t frame = n * g.frames + t;
      for (int64_t c = 0; c < g.c; ++c) {
        const int offset = c < g.c1 ? first : (c < g.c2 ? second : 0);
        const int64_t src = t + offset;
        const bool inside = src >= 0 && src < g.frames;
        const int64_t from = n * g.frames + src;
        for (int64_t p = 0; p < g.pixels; ++p) {
          const int64_t at = g.channel_last ? (frame * g.pixels + p) * g.c + c
                                            : (frame * g.c + c) * g.pixels + p;
          const int64_t read = g.channel_last ? (from * g.pixels + p) * g.c + c
                                              : (from * g.c + c) * g.pixels + p;
          out[at] = inside ? in[read] : T(0);
        }
      }
    }
  }
}

template <typename T>
struct TemporalShiftKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const ShiftGeometry g = CheckShift(kOp, x->dims(), ctx);
    DenseTensor out(x->dims(), x->dtype());
    Shift(g, x->data<T>(), -1, 1, out.mutable_data<T>(ctx.GetPlace()));
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct TemporalShiftGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const ShiftGeometry g = CheckShift(ctx.Type(), dout->dims(), ctx);
    DenseTensor dx(dout->dims(), dout->dtype());
    Shift(g, dout->data<T>(), 1, -1, dx.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterTemporalShiftOp) {
  const framework::FusedGradDecl grad{
      {}, {"Out"}, {"X"}, R"DOC($$dX = \mathrm{shift}(dOut) \text{ with the directions swapped}$$)DOC"};
  framework::RegisterOp<TemporalShiftOp, TemporalShiftOpMaker>(kOp)
      .InferShape(TemporalShiftInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<TemporalShiftKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("Out@GRAD");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("Out@GRAD"));
  });
  RegisterPlainCpuFloatKernels<TemporalShiftGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
