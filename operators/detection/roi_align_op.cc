// roi_align: each region of interest of an image pooled to a fixed grid by averaging bilinear
// samples (Mask R-CNN's RoIAlign), as PaddlePaddle's roi_align, with its fused gradient op.
// The ROIs of all images are stacked; RoisNum or the ROIs' LoD says which image each is of.
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

constexpr char kOp[] = "roi_align";

class RoiAlignOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Feature maps [N, C, H, W].");
    AddInput("ROIs",
             "Regions [R, 4] as (x1, y1, x2, y2) in input image coordinates, the ROIs "
             "of all images stacked (LoD: ROIs per image, unless RoisNum is given).");
    AddInput("RoisNum", "int32 [N]: ROIs per image; replaces the ROIs' LoD.").AsDispensable();
    AddOutput("Out", "Pooled features [R, C, pooled_height, pooled_width].");
    AddAttr<float>("spatial_scale", "Scale from image to feature map coordinates.")
        .SetDefault(1.0f);
    AddAttr<int>("pooled_height", "Output height (> 0).").SetDefault(1).GreaterThan(0);
    AddAttr<int>("pooled_width", "Output width (> 0).").SetDefault(1).GreaterThan(0);
    AddAttr<int>("sampling_ratio", "Samples per bin along each axis; <= 0: ceil(bin size).")
        .SetDefault(-1);
    AddAttr<bool>("aligned",
                  "Shift the ROI by -0.5 pixel (pixel centres at half integers) and "
                  "do not enlarge ROIs smaller than a pixel.")
        .SetDefault(false);
    AddComment(R"DOC(
RoIAlign. For ROI (x1, y1, x2, y2) of image b, with o = 0.5 when aligned else 0, the region
starts at (x1 s - o, y1 s - o) (s = spatial_scale) and has size w = (x2 - x1) s, h = (y2 - y1) s
(at least 1 each unless aligned). Bin (i, j) of the pooled_height x pooled_width grid averages
g_h x g_w bilinear samples (g = sampling_ratio, or ceil(h / pooled_height) and
ceil(w / pooled_width) when <= 0) at the centres of a regular sub-grid:

$$Out[r, c, i, j] = \frac{1}{g_h g_w} \sum_{u < g_h, v < g_w}
  \mathrm{bilinear}\left(X[b, c], \ y_1 + (i + \tfrac{u + 0.5}{g_h}) \tfrac{h}{p_h}, \
  x_1 + (j + \tfrac{v + 0.5}{g_w}) \tfrac{w}{p_w}\right)$$

A sample more than one pixel outside the map ([-1, H] x [-1, W]) is 0; otherwise its
coordinates are clamped to the map as in PaddlePaddle (below 0 to 0; from the last pixel on,
to the last pixel).

Gradient (fused op): X@GRAD receives each Out@GRAD with the same sample weights, divided by
g_h g_w.
)DOC");
  }
};

class RoiAlignOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "RoisNum" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

void CheckShapes(const std::string& op, const DDim& x, const DDim& rois) {
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected [N, C, H, W], "
                                                    "received shape %s",
                                                    op, x.ToString()));
  PL_ENFORCE(rois.size() == 2 && (rois[1] == 4 || rois[1] < 0),
             errors::InvalidArgument("op `%s` input `ROIs`: expected [R, 4], received shape %s", op,
                                     rois.ToString()));
}

void RoiAlignInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("ROIs");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X"), rois = ctx->GetInputDim("ROIs");
  CheckShapes(ctx->OpType(), x, rois);
  ctx->SetOutputDim(
      "Out", DDim{rois[0], x[1], ctx->Attr<int>("pooled_height"), ctx->Attr<int>("pooled_width")});
}

// One bilinear sample: up to four pixels (offsets in a H x W map) with weights.
struct Sample {
  int count = 0;
  int64_t at[4];
  double w[4];
};

Sample BilinearSample(double y, double x, int64_t h, int64_t w) {
  Sample s;
  if (y < -1.0 || y > static_cast<double>(h) || x < -1.0 || x > static_cast<double>(w)) return s;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  auto y_lo = static_cast<int64_t>(y), x_lo = static_cast<int64_t>(x);
  int64_t y_hi = y_lo + 1, x_hi = x_lo + 1;
  if (y_lo >= h - 1) {
    y_lo = y_hi = h - 1;
    y = static_cast<double>(y_lo);
  }
  if (x_lo >= w - 1) {
    x_lo = x_hi = w - 1;
    x = static_cast<double>(x_lo);
  }
  const double ly = y - static_cast<double>(y_lo), lx = x - static_cast<double>(x_lo);
  const double hy = 1 - ly, hx = 1 - lx;
  s.count = 4;
  s.at[0] = y_lo * w + x_lo;
  s.at[1] = y_lo * w + x_hi;
  s.at[2] = y_hi * w + x_lo;
  s.at[3] = y_hi * w + x_hi;
  s.w[0] = hy * hx;
  s.w[1] = hy * lx;
  s.w[2] = ly * hx;
  s.w[3] = ly * lx;
  return s;
}

// Calls fn(roi, image, bin, sample) for every sample of every bin of every ROI, where the
// sample's weights are already divided by the bin's sample count.
template <typename T, typename Fn>
void ForEachSample(const ExecutionContext& ctx, const DDim& x, const DenseTensor& rois_t, Fn&& fn) {
  const int64_t n = x[0], h = x[2], w = x[3];
  const int64_t r_total = rois_t.dims()[0];
  std::vector<int64_t> starts;
  if (!ctx.HasInput("RoisNum") && rois_t.lod().empty() && n == 1) {
    starts = {0, r_total};  // One image: every ROI is its own.
  } else {
    starts = ImageRowStarts(ctx, "ROIs", "RoisNum", r_total, "pooling ROIs");
  }
  PL_ENFORCE(static_cast<int64_t>(starts.size()) - 1 == n,
             errors::InvalidArgument("op `%s`: the ROIs are given for %zu images, X holds %lld",
                                     ctx.Type(), starts.size() - 1, static_cast<long long>(n)));
  const double scale = ctx.Attr<float>("spatial_scale");
  const int ph = ctx.Attr<int>("pooled_height"), pw = ctx.Attr<int>("pooled_width");
  const int ratio = ctx.Attr<int>("sampling_ratio");
  const bool aligned = ctx.Attr<bool>("aligned");
  const double offset = aligned ? 0.5 : 0.0;
  const T* rois = rois_t.data<T>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t r = starts[b]; r < starts[b + 1]; ++r) {
      const T* box = rois + r * 4;
      const double x1 = static_cast<double>(box[0]) * scale - offset;
      const double y1 = static_cast<double>(box[1]) * scale - offset;
      double rw = static_cast<double>(box[2]) * scale - offset - x1;
      double rh = static_cast<double>(box[3]) * scale - offset - y1;
      if (!aligned) {
        rw = std::max(rw, 1.0);
        rh = std::max(rh, 1.0);
      }
      const double bin_h = rh / ph, bin_w = rw / pw;
      const int64_t gh = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rh / ph));
      const int64_t gw = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rw / pw));
      const double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
      for (int i = 0; i < ph; ++i) {
        for (int j = 0; j < pw; ++j) {
          for (int64_t u = 0; u < gh; ++u) {
            const double y = y1 + i * bin_h + (u + 0.5) * bin_h / static_cast<double>(gh);
            for (int64_t v = 0; v < gw; ++v) {
              const double xx = x1 + j * bin_w + (v + 0.5) * bin_w / static_cast<double>(gw);
              Sample s = BilinearSample(y, xx, h, w);
              for (int k = 0; k < s.count; ++k) s.w[k] /= count;
              fn(r, b, static_cast<int64_t>(i) * pw + j, s);
            }
          }
        }
      }
    }
  }
}

template <typename T>
struct RoiAlignKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* rois = ctx.Input("ROIs");
    CheckShapes(ctx.Type(), x->dims(), rois->dims());
    const DDim xd = x->dims();
    const int64_t c = xd[1], hw = xd[2] * xd[3];
    const int64_t bins = int64_t{ctx.Attr<int>("pooled_height")} * ctx.Attr<int>("pooled_width");
    DenseTensor fresh(
        DDim{rois->dims()[0], c, ctx.Attr<int>("pooled_height"), ctx.Attr<int>("pooled_width")},
        x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    std::vector<double> acc(static_cast<size_t>(fresh.numel()), 0.0);
    const T* in = x->data<T>();
    ForEachSample<T>(ctx, xd, *rois, [&](int64_t r, int64_t b, int64_t bin, const Sample& s) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const T* map = in + (b * c + ch) * hw;
        double v = 0;
        for (int k = 0; k < s.count; ++k) v += s.w[k] * static_cast<double>(map[s.at[k]]);
        acc[static_cast<size_t>((r * c + ch) * bins + bin)] += v;
      }
    });
    for (size_t i = 0; i < acc.size(); ++i) out[i] = static_cast<T>(acc[i]);
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct RoiAlignGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* rois = ctx.Input("ROIs");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckShapes(ctx.Type(), x->dims(), rois->dims());
    const DDim xd = x->dims();
    const int64_t c = xd[1], hw = xd[2] * xd[3];
    const DDim want{rois->dims()[0], c, ctx.Attr<int>("pooled_height"),
                    ctx.Attr<int>("pooled_width")};
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    const int64_t bins = want[2] * want[3];
    std::vector<double> acc(static_cast<size_t>(x->numel()), 0.0);
    const T* g = dout->data<T>();
    ForEachSample<T>(ctx, xd, *rois, [&](int64_t r, int64_t b, int64_t bin, const Sample& s) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const double go = static_cast<double>(g[(r * c + ch) * bins + bin]);
        double* map = acc.data() + (b * c + ch) * hw;
        for (int k = 0; k < s.count; ++k) map[s.at[k]] += s.w[k] * go;
      }
    });
    DenseTensor fresh(xd, dout->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    for (size_t i = 0; i < acc.size(); ++i) dx[i] = static_cast<T>(acc[i]);
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRoiAlignOp) {
  const framework::FusedGradDecl grad{
      {"X", "ROIs", "RoisNum"},
      {"Out"},
      {"X"},
      R"DOC($$dX[b, c, p] = \sum_{r, i, j, u, v} \frac{w_{r,i,j,u,v}(p)}{g_h g_w} dOut[r, c, i, j]$$)DOC"};
  framework::RegisterOp<RoiAlignOp, RoiAlignOpMaker>(kOp)
      .InferShape(RoiAlignInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad))
      .Checkpoint(
          "input RpnRoisLod removed (detection models never used it)",
          framework::OpVersionDesc().BugfixWithBehaviorChanged("RpnRoisLod is no longer an input"))
      .Checkpoint("input RoisNum", framework::OpVersionDesc().NewInput(
                                       "RoisNum", "ROIs per image, instead of a LoD"))
      .Checkpoint("attribute aligned",
                  framework::OpVersionDesc().NewAttr("aligned", "half-pixel ROI shift", false));
  RegisterPlainCpuFloatKernels<RoiAlignKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireOutput("X@GRAD");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuFloatKernels<RoiAlignGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
