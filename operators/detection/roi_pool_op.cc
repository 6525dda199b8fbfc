// roi_pool: each region of interest max-pooled to a fixed grid (Fast R-CNN's RoIPool), as
// PaddlePaddle's roi_pool, with Argmax for its fused gradient. The ROIs of all images are
// stacked; RoisNum or the ROIs' LoD says which image each is of.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/detection/image_rows.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "roi_pool";

class RoiPoolOpMaker : public RoiPoolingOpMaker {
 public:
  void Make() override {
    AddRoiPoolingSlotsAndAttrs();
    AddOutput("Argmax",
              "int64, Out's shape: the offset in the H x W map of each maximum (-1 "
              "for an empty bin).")
        .AsIntermediate()
        .AsDispensable();
    AddComment(R"DOC(
RoIPool. ROI (x1, y1, x2, y2) of image b covers feature rows round(y1 s) to round(y2 s) and
columns round(x1 s) to round(x2 s) (s = spatial_scale), at least one each: h x w cells. Bin
(i, j) of the pooled_height x pooled_width grid covers rows
$$[\lfloor i \tfrac{h}{p_h} \rfloor, \lceil (i + 1) \tfrac{h}{p_h} \rceil)$$
(shifted by the ROI's first row, clipped to the map), columns likewise, and
$$Out[r, c, i, j] = \max_{bin} X[b, c]$$
0 for a bin that is empty after clipping. Gradient (fused op): each Out@GRAD goes to its
Argmax.
)DOC");
  }
};

void RoiPoolInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("ROIs");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X"), rois = ctx->GetInputDim("ROIs");
  CheckRoiInputs(ctx->OpType(), x, rois);
  const DDim out{rois[0], x[1], ctx->Attr<int>("pooled_height"), ctx->Attr<int>("pooled_width")};
  ctx->SetOutputDim("Out", out);
  if (ctx->HasOutput("Argmax")) ctx->SetOutputDim("Argmax", out);
}

template <typename T>
struct RoiPoolKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* rois = ctx.Input("ROIs");
    CheckRoiInputs(ctx.Type(), x->dims(), rois->dims());
    const DDim xd = x->dims();
    const int64_t c = xd[1], height = xd[2], width = xd[3];
    const int ph = ctx.Attr<int>("pooled_height"), pw = ctx.Attr<int>("pooled_width");
    const T scale = static_cast<T>(ctx.Attr<float>("spatial_scale"));
    const std::vector<int64_t> image = RoiImages(ctx, xd[0]);
    const int64_t r_total = rois->dims()[0];
    DenseTensor out(DDim{r_total, c, ph, pw}, x->dtype());
    DenseTensor argmax(out.dims(), DataType::INT64);
    T* o = out.mutable_data<T>(ctx.GetPlace());
    int64_t* am = argmax.mutable_data<int64_t>(ctx.GetPlace());
    const T* box = rois->data<T>();
    // PaddlePaddle's arithmetic, in T: rounded corners, bins of h / p_h cells.
    for (int64_t r = 0; r < r_total; ++r) {
      const T* b = box + r * 4;
      const auto start_w = static_cast<int64_t>(std::round(b[0] * scale));
      const auto start_h = static_cast<int64_t>(std::round(b[1] * scale));
      const auto end_w = static_cast<int64_t>(std::round(b[2] * scale));
      const auto end_h = static_cast<int64_t>(std::round(b[3] * scale));
      const int64_t roi_h = std::max<int64_t>(end_h - start_h + 1, 1);
      const int64_t roi_w = std::max<int64_t>(end_w - start_w + 1, 1);
      const T bin_h = static_cast<T>(roi_h) / static_cast<T>(ph);
      const T bin_w = static_cast<T>(roi_w) / static_cast<T>(pw);
      for (int64_t ch = 0; ch < c; ++ch) {
        const T* map = x->data<T>() + (image[r] * c + ch) * height * width;
        for (int i = 0; i < ph; ++i) {
          for (int j = 0; j < pw; ++j) {
            auto h0 = static_cast<int64_t>(std::floor(static_cast<T>(i) * bin_h));
            auto w0 = static_cast<int64_t>(std::floor(static_cast<T>(j) * bin_w));
            auto h1 = static_cast<int64_t>(std::ceil(static_cast<T>(i + 1) * bin_h));
            auto w1 = static_cast<int64_t>(std::ceil(static_cast<T>(j + 1) * bin_w));
            h0 = std::min(std::max<int64_t>(h0 + start_h, 0), height);
            h1 = std::min(std::max<int64_t>(h1 + start_h, 0), height);
            w0 = std::min(std::max<int64_t>(w0 + start_w, 0), width);
            w1 = std::min(std::max<int64_t>(w1 + start_w, 0), width);
            const int64_t at = ((r * c + ch) * ph + i) * pw + j;
            if (h1 <= h0 || w1 <= w0) {
              o[at] = T(0);
              am[at] = -1;
              continue;
            }
            T best = -std::numeric_limits<T>::max();
            int64_t where = -1;
            for (int64_t y = h0; y < h1; ++y) {
              for (int64_t xx = w0; xx < w1; ++xx) {
                if (map[y * width + xx] > best) {
                  best = map[y * width + xx];
                  where = y * width + xx;
                }
              }
            }
            o[at] = best;
            am[at] = where;
          }
        }
      }
    }
    *ctx.Output("Out") = std::move(out);
    if (ctx.HasOutput("Argmax")) *ctx.Output("Argmax") = std::move(argmax);
  }
};

template <typename T>
struct RoiPoolGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* rois = ctx.Input("ROIs");
    const DenseTensor* argmax = ctx.Input("Argmax");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckRoiInputs(ctx.Type(), x->dims(), rois->dims());
    const DDim xd = x->dims();
    const int64_t c = xd[1], hw = xd[2] * xd[3];
    const DDim want{rois->dims()[0], c, ctx.Attr<int>("pooled_height"),
                    ctx.Attr<int>("pooled_width")};
    PL_ENFORCE(dout->dims() == want && argmax->dims() == want && argmax->dtype() == DataType::INT64,
               errors::InvalidArgument("op `%s`: expected Out@GRAD and an int64 Argmax of shape "
                                       "%s, received %s and %s %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString(),
                                       DataTypeName(argmax->dtype()), argmax->dims().ToString()));
    const std::vector<int64_t> image = RoiImages(ctx, xd[0]);
    const int64_t bins = want[2] * want[3];
    DenseTensor dx(xd, dout->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(d, d + dx.numel(), T(0));
    const T* g = dout->data<T>();
    const int64_t* am = argmax->data<int64_t>();
    for (int64_t r = 0; r < want[0]; ++r) {
      for (int64_t ch = 0; ch < c; ++ch) {
        T* map = d + (image[r] * c + ch) * hw;
        for (int64_t k = 0; k < bins; ++k) {
          const int64_t at = (r * c + ch) * bins + k;
          if (am[at] < 0) continue;
          PL_ENFORCE(am[at] < hw,
                     errors::InvalidArgument("op `%s` input `Argmax`: offset %lld outside the %lld "
                                             "cells of a map",
                                             ctx.Type(), static_cast<long long>(am[at]),
                                             static_cast<long long>(hw)));
          map[am[at]] += g[at];
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRoiPoolOp) {
  const framework::FusedGradDecl grad{
      {"X", "ROIs", "RoisNum", "Argmax"},
      {"Out"},
      {"X"},
      R"DOC($$dX[b, c, Argmax[r, c, i, j]] \mathrel{+}= dOut[r, c, i, j]$$)DOC"};
  framework::RegisterOp<RoiPoolingOp, RoiPoolOpMaker>(kOp)
      .InferShape(RoiPoolInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad))
      .Checkpoint(
          "input RpnRoisLod removed (detection models never used it)",
          framework::OpVersionDesc().BugfixWithBehaviorChanged("RpnRoisLod is no longer an input"))
      .Checkpoint("input RoisNum", framework::OpVersionDesc().NewInput(
                                       "RoisNum", "ROIs per image, instead of a LoD"));
  RegisterPlainCpuFloatKernels<RoiPoolKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireInput("Argmax");  // Dispensable in the forward op, needed here.
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuFloatKernels<RoiPoolGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
