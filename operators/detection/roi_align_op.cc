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

class RoiAlignOpMaker : public RoiPoolingOpMaker {
 public:
  void Make() override {
    AddRoiPoolingSlotsAndAttrs();
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

void RoiAlignInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("ROIs");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X"), rois = ctx->GetInputDim("ROIs");
  CheckRoiInputs(ctx->OpType(), x, rois);
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

// Where the ROIs lie: the image of each, and the pooling attributes.
struct RoiLayout {
  std::vector<int64_t> image;  // Per ROI.
  double scale = 1, offset = 0;
  int ph = 1, pw = 1, ratio = 0;
  bool aligned = false;
};

RoiLayout LayoutRois(const ExecutionContext& ctx, const DDim& x) {
  RoiLayout l;
  l.image = RoiImages(ctx, x[0]);
  l.scale = ctx.Attr<float>("spatial_scale");
  l.ph = ctx.Attr<int>("pooled_height");
  l.pw = ctx.Attr<int>("pooled_width");
  l.ratio = ctx.Attr<int>("sampling_ratio");
  l.aligned = ctx.Attr<bool>("aligned");
  l.offset = l.aligned ? 0.5 : 0.0;
  return l;
}

// The samples of one ROI, bin by bin: bin k's are samples[bin_begin[k], bin_begin[k + 1]),
// their weights already divided by the bin's sample count. Every channel reads the same.
struct RoiSamples {
  std::vector<Sample> samples;
  std::vector<int64_t> bin_begin;
};

template <typename T>
void SampleRoi(const RoiLayout& l, const T* box, int64_t h, int64_t w, RoiSamples* out) {
  out->samples.clear();
  out->bin_begin.clear();
  const double x1 = static_cast<double>(box[0]) * l.scale - l.offset;
  const double y1 = static_cast<double>(box[1]) * l.scale - l.offset;
  double rw = static_cast<double>(box[2]) * l.scale - l.offset - x1;
  double rh = static_cast<double>(box[3]) * l.scale - l.offset - y1;
  if (!l.aligned) {
    rw = std::max(rw, 1.0);
    rh = std::max(rh, 1.0);
  }
  const double bin_h = rh / l.ph, bin_w = rw / l.pw;
  const int64_t gh = l.ratio > 0 ? l.ratio : static_cast<int64_t>(std::ceil(rh / l.ph));
  const int64_t gw = l.ratio > 0 ? l.ratio : static_cast<int64_t>(std::ceil(rw / l.pw));
  const double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
  for (int i = 0; i < l.ph; ++i) {
    for (int j = 0; j < l.pw; ++j) {
      out->bin_begin.push_back(static_cast<int64_t>(out->samples.size()));
      for (int64_t u = 0; u < gh; ++u) {
        const double y = y1 + i * bin_h + (u + 0.5) * bin_h / static_cast<double>(gh);
        for (int64_t v = 0; v < gw; ++v) {
          const double xx = x1 + j * bin_w + (v + 0.5) * bin_w / static_cast<double>(gw);
          Sample s = BilinearSample(y, xx, h, w);
          for (int k = 0; k < s.count; ++k) s.w[k] /= count;
          if (s.count > 0) out->samples.push_back(s);
        }
      }
    }
  }
  out->bin_begin.push_back(static_cast<int64_t>(out->samples.size()));
}

// Each ROI's bins read one channel plane at a time, so that the plane's pixels under the ROI
// stay in cache; ROIs run in parallel (each writes its own rows of Out).
template <typename T>
struct RoiAlignKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* rois = ctx.Input("ROIs");
    CheckRoiInputs(ctx.Type(), x->dims(), rois->dims());
    const DDim xd = x->dims();
    const int64_t c = xd[1], hw = xd[2] * xd[3];
    const RoiLayout l = LayoutRois(ctx, xd);
    const int64_t bins = int64_t{l.ph} * l.pw;
    DenseTensor fresh(DDim{rois->dims()[0], c, l.ph, l.pw}, x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    const T* boxes = rois->data<T>();
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        rois->dims()[0], 1, [&](int64_t r0, int64_t r1) {
          RoiSamples rs;
          std::vector<int64_t> taps;
          std::vector<T> weights;
          for (int64_t r = r0; r < r1; ++r) {
            SampleRoi(l, boxes + r * 4, xd[2], xd[3], &rs);
            // Every sample as four taps (weight 0 where a pixel is missing), in T.
            taps.resize(rs.samples.size() * 4);
            weights.resize(rs.samples.size() * 4);
            for (size_t k = 0; k < rs.samples.size(); ++k) {
              for (int q = 0; q < 4; ++q) {
                const bool has = q < rs.samples[k].count;
                taps[k * 4 + q] = has ? rs.samples[k].at[q] : 0;
                weights[k * 4 + q] = has ? static_cast<T>(rs.samples[k].w[q]) : T(0);
              }
            }
            for (int64_t ch = 0; ch < c; ++ch) {
              const T* map = in + (l.image[r] * c + ch) * hw;
              T* o = out + (r * c + ch) * bins;
              for (int64_t bin = 0; bin < bins; ++bin) {
                T acc = 0;
                for (int64_t k = rs.bin_begin[bin] * 4; k < rs.bin_begin[bin + 1] * 4; k += 4) {
                  acc += weights[k] * map[taps[k]] + weights[k + 1] * map[taps[k + 1]] +
                         weights[k + 2] * map[taps[k + 2]] + weights[k + 3] * map[taps[k + 3]];
                }
                o[bin] = acc;
              }
            }
          }
        });
    *ctx.Output("Out") = std::move(fresh);
  }
};

// Channels run in parallel: each accumulates into its own planes of dX, ROI by ROI in order,
// so the sums do not depend on the thread count.
template <typename T>
struct RoiAlignGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* rois = ctx.Input("ROIs");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckRoiInputs(ctx.Type(), x->dims(), rois->dims());
    const DDim xd = x->dims();
    const int64_t c = xd[1], hw = xd[2] * xd[3];
    const DDim want{rois->dims()[0], c, ctx.Attr<int>("pooled_height"),
                    ctx.Attr<int>("pooled_width")};
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    const int64_t bins = want[2] * want[3];
    const RoiLayout l = LayoutRois(ctx, xd);
    std::vector<RoiSamples> all(static_cast<size_t>(rois->dims()[0]));
    for (int64_t r = 0; r < rois->dims()[0]; ++r) {
      SampleRoi(l, rois->data<T>() + r * 4, xd[2], xd[3], &all[r]);
    }
    std::vector<double> acc(static_cast<size_t>(x->numel()), 0.0);
    const T* g = dout->data<T>();
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(c, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t ch = c0; ch < c1; ++ch) {
        for (int64_t r = 0; r < static_cast<int64_t>(all.size()); ++r) {
          const RoiSamples& rs = all[r];
          double* map = acc.data() + (l.image[r] * c + ch) * hw;
          const T* go = g + (r * c + ch) * bins;
          for (int64_t bin = 0; bin < bins; ++bin) {
            const double gv = static_cast<double>(go[bin]);
            for (int64_t k = rs.bin_begin[bin]; k < rs.bin_begin[bin + 1]; ++k) {
              const Sample& s = rs.samples[k];
              for (int q = 0; q < s.count; ++q) map[s.at[q]] += s.w[q] * gv;
            }
          }
        }
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
  framework::RegisterOp<RoiPoolingOp, RoiAlignOpMaker>(kOp)
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
