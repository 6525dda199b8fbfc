// psroi_pool: position-sensitive ROI average pooling (R-FCN), as PaddlePaddle's psroi_pool:
// bin (i, j) of output channel c averages its own input channel (c * p_h + i) * p_w + j, with
// a fused gradient. The ROIs of all images are stacked; RoisNum or the ROIs' LoD says which
// image each is of.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/detection/image_rows.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "psroi_pool";

class PsroiPoolOpMaker : public RoiPoolingOpMaker {
 public:
  void Make() override {
    AddRoiPoolingSlotsAndAttrs();
    AddAttr<int>("output_channels",
                 "Channels of Out (> 0); X has output_channels * pooled_height * "
                 "pooled_width.")
        .SetDefault(1)
        .GreaterThan(0);
    AddComment(R"DOC(
Position-sensitive RoI pooling (R-FCN). ROI (x1, y1, x2, y2) of image b spans, with
s = spatial_scale,
$$[round(x_1) s, (round(x_2) + 1) s) \times [round(y_1) s, (round(y_2) + 1) s)$$
(at least 0.1 wide and high), cut into pooled_height x pooled_width bins; bin (i, j)
covers rows floor(i h / p_h + y_0) to ceil((i + 1) h / p_h + y_0) (clipped to the map),
columns likewise, and reads its own channel k = (c p_h + i) p_w + j:
$$Out[r, c, i, j] = \frac{1}{|bin|} \sum_{(y, x) \in bin} X[b, k, y, x]$$
0 for a bin that is empty after clipping. Gradient (fused op):
$$dX[b, k, y, x] \mathrel{+}= \frac{dOut[r, c, i, j]}{|bin|}$$
)DOC");
  }
};

struct PsroiShape {
  int64_t out_channels, ph, pw, height, width;
};

PsroiShape CheckedShape(const std::string& op, const DDim& x, const DDim& rois, int ph, int pw,
                        int out_channels) {
  CheckRoiInputs(op, x, rois);
  const int64_t want = static_cast<int64_t>(out_channels) * ph * pw;
  PL_ENFORCE(x[1] < 0 || x[1] == want,
             errors::InvalidArgument("op `%s` input `X`: expected output_channels x "
                                     "pooled_height x pooled_width = %d x %d x %d = %lld "
                                     "channels, received %lld",
                                     op, out_channels, ph, pw, static_cast<long long>(want),
                                     static_cast<long long>(x[1])));
  return {out_channels, ph, pw, x[2], x[3]};
}

PsroiShape ShapeOf(const ExecutionContext& ctx) {
  return CheckedShape(ctx.Type(), ctx.Input("X")->dims(), ctx.Input("ROIs")->dims(),
                      ctx.Attr<int>("pooled_height"), ctx.Attr<int>("pooled_width"),
                      ctx.Attr<int>("output_channels"));
}

void PsroiPoolInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("ROIs");
  ctx->RequireOutput("Out");
  const DDim rois = ctx->GetInputDim("ROIs");
  const PsroiShape s =
      CheckedShape(ctx->OpType(), ctx->GetInputDim("X"), rois, ctx->Attr<int>("pooled_height"),
                   ctx->Attr<int>("pooled_width"), ctx->Attr<int>("output_channels"));
  ctx->SetOutputDim("Out", DDim{rois[0], s.out_channels, s.ph, s.pw});
}

// Visits every bin of every ROI: fn(offset of the bin in Out, offset of its map in X, rows
// [h0, h1), columns [w0, w1)), in PaddlePaddle's arithmetic (in T).
template <typename T, typename Fn>
void ForEachBin(const ExecutionContext& ctx, const PsroiShape& s, int64_t images, Fn fn) {
  const DenseTensor* rois = ctx.Input("ROIs");
  const std::vector<int64_t> image = RoiImages(ctx, images);
  const float scale = ctx.Attr<float>("spatial_scale");
  const int64_t channels = s.out_channels * s.ph * s.pw, plane = s.height * s.width;
  const T* box = rois->numel() > 0 ? rois->data<T>() : nullptr;
  for (int64_t r = 0; r < rois->dims()[0]; ++r) {
    const T* b = box + r * 4;
    const T x0 = static_cast<T>(std::round(b[0])) * scale;
    const T y0 = static_cast<T>(std::round(b[1])) * scale;
    const T x1 = static_cast<T>(std::round(b[2]) + 1.) * scale;
    const T y1 = static_cast<T>(std::round(b[3]) + 1.) * scale;
    const T bin_h = std::max(y1 - y0, static_cast<T>(0.1)) / static_cast<T>(s.ph);
    const T bin_w = std::max(x1 - x0, static_cast<T>(0.1)) / static_cast<T>(s.pw);
    for (int64_t c = 0; c < s.out_channels; ++c) {
      for (int64_t i = 0; i < s.ph; ++i) {
        for (int64_t j = 0; j < s.pw; ++j) {
          auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
          const int64_t h0 =
              clip(static_cast<int64_t>(std::floor(static_cast<T>(i) * bin_h + y0)), s.height);
          const int64_t h1 =
              clip(static_cast<int64_t>(std::ceil(static_cast<T>(i + 1) * bin_h + y0)), s.height);
          const int64_t w0 =
              clip(static_cast<int64_t>(std::floor(static_cast<T>(j) * bin_w + x0)), s.width);
          const int64_t w1 =
              clip(static_cast<int64_t>(std::ceil(static_cast<T>(j + 1) * bin_w + x0)), s.width);
          const int64_t k = (c * s.ph + i) * s.pw + j;
          fn(((r * s.out_channels + c) * s.ph + i) * s.pw + j, (image[r] * channels + k) * plane,
             h0, h1, w0, w1);
        }
      }
    }
  }
}

template <typename T>
struct PsroiPoolKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const PsroiShape s = ShapeOf(ctx);
    DenseTensor out(DDim{ctx.Input("ROIs")->dims()[0], s.out_channels, s.ph, s.pw}, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    ForEachBin<T>(ctx, s, x->dims()[0],
                  [&](int64_t at, int64_t map, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
                    if (h1 <= h0 || w1 <= w0) {
                      o[at] = T(0);
                      return;
                    }
                    T sum = 0;
                    for (int64_t y = h0; y < h1; ++y) {
                      for (int64_t xx = w0; xx < w1; ++xx) sum += in[map + y * s.width + xx];
                    }
                    o[at] = sum / static_cast<T>((h1 - h0) * (w1 - w0));
                  });
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct PsroiPoolGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const PsroiShape s = ShapeOf(ctx);
    const DDim want{ctx.Input("ROIs")->dims()[0], s.out_channels, s.ph, s.pw};
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    DenseTensor dx(x->dims(), dout->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(d, d + dx.numel(), T(0));
    const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
    ForEachBin<T>(ctx, s, x->dims()[0],
                  [&](int64_t at, int64_t map, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
                    if (h1 <= h0 || w1 <= w0) return;
                    const T share = g[at] / static_cast<T>((h1 - h0) * (w1 - w0));
                    for (int64_t y = h0; y < h1; ++y) {
                      for (int64_t xx = w0; xx < w1; ++xx) d[map + y * s.width + xx] += share;
                    }
                  });
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterPsroiPoolOp) {
  const framework::FusedGradDecl grad{
      {"X", "ROIs", "RoisNum"},
      {"Out"},
      {"X"},
      R"DOC($$dX[b, k, y, x] \mathrel{+}= \frac{dOut[r, c, i, j]}{|bin|}$$)DOC"};
  framework::RegisterOp<RoiPoolingOp, PsroiPoolOpMaker>(kOp)
      .InferShape(PsroiPoolInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<PsroiPoolKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuFloatKernels<PsroiPoolGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
