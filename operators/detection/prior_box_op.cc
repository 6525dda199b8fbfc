// prior_box, density_prior_box and anchor_generator: the anchor boxes of one feature map (SSD,
// the dense fixed-size anchors of face detectors such as PyramidBox, and the pixel-coordinate
// anchors of Faster R-CNN's region proposal network), as PaddlePaddle computes them.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/onednn_precision_attrs.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class PriorBoxOpMaker : public OneDNNPrecisionAttrMaker {
 public:
  void Make() override {
    AddInput("Input", "Feature map [N, C, H, W]; only H and W are used.").AsNoNeedBuffer();
    AddInput("Image", "Input image [N, C, H_img, W_img]; only H_img and W_img are used.")
        .AsNoNeedBuffer();
    AddOutput("Boxes",
              "Priors [H, W, num_priors, 4] as [x_min, y_min, x_max, y_max] / image size.");
    AddOutput("Variances", "[H, W, num_priors, 4]: `variances` for every prior.");
    AddAttr<std::vector<float>>("min_sizes", "Prior sizes in pixels (each > 0).");
    AddAttr<std::vector<float>>("max_sizes", "Empty, or one per min size: adds a prior of side "
                                             "sqrt(min * max).")
        .SetDefault(std::vector<float>{});
    AddAttr<std::vector<float>>("aspect_ratios", "Aspect ratios besides 1 (w / h).")
        .SetDefault(std::vector<float>{});
    AddAttr<std::vector<float>>("variances", "Four variances copied to every prior.")
        .SetDefault(std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f});
    AddAttr<bool>("flip", "Also use 1 / ratio for each aspect ratio.").SetDefault(false);
    AddAttr<bool>("clip", "Clip the boxes to [0, 1].").SetDefault(false);
    AddAttr<float>("step_w", "Horizontal step in pixels; 0 = W_img / W.").SetDefault(0.0f);
    AddAttr<float>("step_h", "Vertical step in pixels; 0 = H_img / H.").SetDefault(0.0f);
    AddAttr<float>("offset", "Offset of the centre within a cell.").SetDefault(0.5f);
    AddAttr<bool>("min_max_aspect_ratios_order",
                  "Order per min size: [min, sqrt(min*max), other ratios] instead of "
                  "[ratios (1 first), sqrt(min*max)].")
        .SetDefault(false);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddOneDNNPrecisionAttrs(/*use_quantizer=*/true, /*force_fp32_output=*/false);
    AddComment(R"DOC(
Prior box operator (SSD anchors).

The aspect ratios are 1, then each given ratio r not yet listed (within 1e-6) and, with
flip, 1 / r. For cell (h, w) with centre c = ((w + offset) s_w, (h + offset) s_h) and each
min size m, the priors are, in order: for each ratio r a box of half-width m sqrt(r) / 2
and half-height m / sqrt(r) / 2, then (with max sizes) a square of half-side
sqrt(m M) / 2; min_max_aspect_ratios_order puts the squares of side m and sqrt(m M) first.
$$Box = [(c_x - w_{half}) / W_{img}, (c_y - h_{half}) / H_{img},
        (c_x + w_{half}) / W_{img}, (c_y + h_{half}) / H_{img}]$$
clipped to [0, 1] with `clip`. num_priors = |ratios| |min_sizes| + |max_sizes|.
)DOC");
  }
};

class PriorBoxOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
};

std::vector<float> ExpandAspectRatios(const std::vector<float>& given, bool flip) {
  std::vector<float> out = {1.0f};
  for (float r : given) {
    bool seen = false;
    for (float o : out) seen = seen || std::fabs(r - o) < 1e-6;
    if (seen) continue;
    out.push_back(r);
    if (flip) out.push_back(1.0f / r);
  }
  return out;
}

struct PriorBoxAttrs {
  std::vector<float> min_sizes, max_sizes, ratios, variances;
  int64_t num_priors = 0;
};

PriorBoxAttrs CheckAttrs(const std::string& op, const framework::AttributeMap& attrs) {
  PriorBoxAttrs a;
  a.min_sizes = std::get<std::vector<float>>(attrs.at("min_sizes"));
  a.max_sizes = std::get<std::vector<float>>(attrs.at("max_sizes"));
  a.variances = std::get<std::vector<float>>(attrs.at("variances"));
  a.ratios = ExpandAspectRatios(std::get<std::vector<float>>(attrs.at("aspect_ratios")),
                                std::get<bool>(attrs.at("flip")));
  PL_ENFORCE(!a.min_sizes.empty(),
             errors::InvalidArgument("op `%s` attribute `min_sizes`: expected at least one size",
                                     op));
  for (float m : a.min_sizes) {
    PL_ENFORCE(m > 0, errors::InvalidArgument(
                          "op `%s` attribute `min_sizes`: expected sizes > 0, received %g", op, m));
  }
  PL_ENFORCE(a.max_sizes.empty() || a.max_sizes.size() == a.min_sizes.size(),
             errors::InvalidArgument("op `%s` attribute `max_sizes`: expected none or %zu (one "
                                     "per min size), received %zu",
                                     op, a.min_sizes.size(), a.max_sizes.size()));
  for (size_t i = 0; i < a.max_sizes.size(); ++i) {
    PL_ENFORCE(a.max_sizes[i] > a.min_sizes[i],
               errors::InvalidArgument("op `%s` attribute `max_sizes`: expected max size %zu "
                                       "(%g) > its min size (%g)",
                                       op, i, a.max_sizes[i], a.min_sizes[i]));
  }
  PL_ENFORCE(a.variances.size() == 4,
             errors::InvalidArgument("op `%s` attribute `variances`: expected 4 values, "
                                     "received %zu",
                                     op, a.variances.size()));
  for (float r : a.ratios) {
    PL_ENFORCE(r > 0, errors::InvalidArgument(
                          "op `%s` attribute `aspect_ratios`: expected ratios > 0, received %g",
                          op, r));
  }
  a.num_priors = static_cast<int64_t>(a.ratios.size() * a.min_sizes.size() + a.max_sizes.size());
  return a;
}

void RequireRank4(const std::string& op, const char* slot, const DDim& d) {
  PL_ENFORCE(d.size() == 4, errors::InvalidArgument(
                                "op `%s` input `%s`: expected a 4-D tensor [N, C, H, W], "
                                "received shape %s",
                                op, slot, d.ToString()));
}

// Requires the slots both prior-box ops have and 4-D Input and Image; Input's dims.
DDim CheckPriorBoxSlots(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Image");
  ctx->RequireOutput("Boxes");
  ctx->RequireOutput("Variances");
  const DDim in = ctx->GetInputDim("Input");
  RequireRank4(ctx->OpType(), "Input", in);
  RequireRank4(ctx->OpType(), "Image", ctx->GetInputDim("Image"));
  return in;
}

void PriorBoxInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  const DDim in = CheckPriorBoxSlots(ctx);
  const PriorBoxAttrs a = CheckAttrs(op, ctx->Attrs());
  const DDim out{in[2], in[3], a.num_priors, 4};
  ctx->SetOutputDim("Boxes", out);
  ctx->SetOutputDim("Variances", out);
}

// The cells of a prior-box op's feature map: H, W, the image size and the steps between cell
// centres in image pixels (the step attributes, or W_img / W and H_img / H when either is 0).
template <typename T>
struct PriorGrid {
  int64_t h = 0, w = 0;
  T img_h = 0, img_w = 0, step_h = 0, step_w = 0;
};

template <typename T>
PriorGrid<T> ResolvePriorGrid(const ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  const DDim in = ctx.Input("Input")->dims();
  const DDim image = ctx.Input("Image")->dims();
  RequireRank4(op, "Input", in);
  RequireRank4(op, "Image", image);
  PriorGrid<T> g;
  g.h = in[2];
  g.w = in[3];
  g.img_h = static_cast<T>(image[2]);
  g.img_w = static_cast<T>(image[3]);
  const float step_w = ctx.Attr<float>("step_w"), step_h = ctx.Attr<float>("step_h");
  PL_ENFORCE(step_w >= 0 && step_h >= 0,
             errors::InvalidArgument("op `%s` attributes `step_w`, `step_h`: expected steps >= 0, "
                                     "received %g, %g",
                                     op, step_w, step_h));
  g.step_w = step_w;
  g.step_h = step_h;
  if (step_w == 0 || step_h == 0) {
    PL_ENFORCE(g.w > 0 && g.h > 0,
               errors::InvalidArgument("op `%s` input `Input`: expected H, W > 0 to derive the "
                                       "steps, received shape %s",
                                       op, in.ToString()));
    g.step_w = g.img_w / static_cast<T>(g.w);
    g.step_h = g.img_h / static_cast<T>(g.h);
  }
  return g;
}

// Writes Boxes and Variances of `dims` on the kernel's place. `fill(boxes, variances)` computes
// them on the host: into the outputs themselves on the CPU, and on a device into host buffers
// uploaded with one copy each (the priors depend only on shapes and attributes, and the
// inputs' data are never read, so they are not moved either).
template <typename T, typename Fill>
void WritePriors(const ExecutionContext& ctx, const DDim& dims, const Fill& fill,
                 const char* boxes_slot = "Boxes") {
  DenseTensor boxes(dims, platform::ToDataType<T>()), vars(dims, platform::ToDataType<T>());
  T* b = boxes.mutable_data<T>(ctx.GetPlace());
  T* v = vars.mutable_data<T>(ctx.GetPlace());
  if (ctx.GetPlace().is_cpu()) {
    fill(b, v);
  } else {
    const size_t n = static_cast<size_t>(boxes.numel());
    std::vector<T> host_b(n), host_v(n);
    fill(host_b.data(), host_v.data());
    if (n > 0) {
      platform::Copy(ctx.GetPlace(), b, platform::CPUPlace(), host_b.data(), n * sizeof(T));
      platform::Copy(ctx.GetPlace(), v, platform::CPUPlace(), host_v.data(), n * sizeof(T));
    }
  }
  *ctx.Output(boxes_slot) = std::move(boxes);
  *ctx.Output("Variances") = std::move(vars);
}

// Clamps the n values at b to [0, 1] when `clip`, and sets the n / 4 variance quadruples at v.
template <typename T>
void ClipAndFillVariances(bool clip, const std::vector<float>& variances, int64_t n, T* b, T* v) {
  if (clip) {
    for (int64_t i = 0; i < n; ++i) b[i] = std::min<T>(std::max<T>(b[i], 0), 1);
  }
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(variances[i % 4]);
}

// The priors of prior_box, [H, W, num_priors, 4] at b and the variances at v.
template <typename T>
void FillPriorBoxes(const PriorGrid<T>& grid, const PriorBoxAttrs& a, T offset,
                    bool min_max_order, bool clip, T* b, T* v) {
  T* const first = b;
  const T img_h = grid.img_h, img_w = grid.img_w, sw = grid.step_w, sh = grid.step_h;
  for (int64_t h = 0; h < grid.h; ++h) {
    for (int64_t w = 0; w < grid.w; ++w) {
      const T cx = (static_cast<T>(w) + offset) * sw;
      const T cy = (static_cast<T>(h) + offset) * sh;
      auto push = [&](T half_w, T half_h) {
        *b++ = (cx - half_w) / img_w;
        *b++ = (cy - half_h) / img_h;
        *b++ = (cx + half_w) / img_w;
        *b++ = (cy + half_h) / img_h;
      };
      for (size_t s = 0; s < a.min_sizes.size(); ++s) {
        const T m = a.min_sizes[s];
        auto ratio_boxes = [&](bool skip_one) {
          for (float r : a.ratios) {
            if (skip_one && std::fabs(r - 1.) < 1e-6) continue;
            push(m * std::sqrt(static_cast<T>(r)) / 2, m / std::sqrt(static_cast<T>(r)) / 2);
          }
        };
        auto max_box = [&] {
          if (a.max_sizes.empty()) return;
          const T side = std::sqrt(m * static_cast<T>(a.max_sizes[s])) / 2;
          push(side, side);
        };
        if (min_max_order) {
          push(m / 2, m / 2);
          max_box();
          ratio_boxes(true);
        } else {
          ratio_boxes(false);
          max_box();
        }
      }
    }
  }
  ClipAndFillVariances(clip, a.variances, grid.h * grid.w * a.num_priors * 4, first, v);
}

// The plain kernel of every device: computes on the host (see WritePriors).
template <typename T>
struct PriorBoxKernel {
  static void Compute(const ExecutionContext& ctx) {
    const PriorGrid<T> grid = ResolvePriorGrid<T>(ctx);
    const PriorBoxAttrs a = CheckAttrs(ctx.Type(), ctx.op().Attrs());
    const T offset = ctx.Attr<float>("offset");
    const bool min_max_order = ctx.Attr<bool>("min_max_aspect_ratios_order");
    const bool clip = ctx.Attr<bool>("clip");
    WritePriors<T>(ctx, DDim{grid.h, grid.w, a.num_priors, 4}, [&](T* b, T* v) {
      FillPriorBoxes(grid, a, offset, min_max_order, clip, b, v);
    });
  }
};

// ---- density_prior_box ----

class DensityPriorBoxOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Feature map [N, C, H, W]; only H and W are used.").AsNoNeedBuffer();
    AddInput("Image", "Input image [N, C, H_img, W_img]; only H_img and W_img are used.")
        .AsNoNeedBuffer();
    AddOutput("Boxes", "Priors [H, W, num_priors, 4] (or [H W num_priors, 4] with "
                       "flatten_to_2d) as [x_min, y_min, x_max, y_max] / image size.");
    AddOutput("Variances", "Same shape as Boxes: `variances` for every prior.");
    AddAttr<std::vector<float>>("variances", "Four variances copied to every prior.");
    AddAttr<bool>("clip", "Clip the boxes to [0, 1].").SetDefault(true);
    AddAttr<bool>("flatten_to_2d", "Give Boxes and Variances as [H W num_priors, 4].")
        .SetDefault(false);
    AddAttr<float>("step_w", "Horizontal step in pixels; 0 = W_img / W.").SetDefault(0.0f);
    AddAttr<float>("step_h", "Vertical step in pixels; 0 = H_img / H.").SetDefault(0.0f);
    AddAttr<float>("offset", "Offset of the centre within a cell.").SetDefault(0.5f);
    AddAttr<std::vector<float>>("fixed_sizes", "Prior sizes in pixels, one per density.")
        .SetDefault(std::vector<float>{});
    AddAttr<std::vector<float>>("fixed_ratios", "Aspect ratios (w / h) used with every size.")
        .SetDefault(std::vector<float>{});
    AddAttr<std::vector<int>>("densities", "Per size, the priors per cell along each axis.")
        .SetDefault(std::vector<int>{});
    AddComment(R"DOC(
Density prior box operator: for each fixed size s with density d and each ratio r, a d x d
grid of boxes of width s sqrt(r) and height s / sqrt(r) in every cell.

With the steps s_w, s_h (W_img / W and H_img / H when either attribute is 0), the integer
a = int((s_w + s_h) / 2) and shift k = a / d (integer division), cell (h, w) has centre
c = ((w + offset) s_w, (h + offset) s_h), and box (i, j) of the grid is centred at
$$c_x' = c_x - a / 2 + k / 2 + j k, \quad c_y' = c_y - a / 2 + k / 2 + i k$$
$$Box = [\max((c_x' - w / 2) / W_{img}, 0), \max((c_y' - h / 2) / H_{img}, 0),
        \min((c_x' + w / 2) / W_{img}, 1), \min((c_y' + h / 2) / H_{img}, 1)]$$
Priors are ordered by size, then ratio, then i, then j; num_priors = sum_s |ratios| d_s^2.
`clip` clamps every coordinate to [0, 1] again (a no-op after the bounds above).
)DOC");
  }
};

struct DensityAttrs {
  std::vector<float> sizes, ratios, variances;
  std::vector<int> densities;
  int64_t num_priors = 0;
};

DensityAttrs CheckDensityAttrs(const std::string& op, const framework::AttributeMap& attrs) {
  DensityAttrs a;
  a.sizes = std::get<std::vector<float>>(attrs.at("fixed_sizes"));
  a.ratios = std::get<std::vector<float>>(attrs.at("fixed_ratios"));
  a.variances = std::get<std::vector<float>>(attrs.at("variances"));
  a.densities = std::get<std::vector<int>>(attrs.at("densities"));
  PL_ENFORCE(a.densities.size() == a.sizes.size(),
             errors::InvalidArgument("op `%s` attribute `densities`: expected one per fixed size "
                                     "(%zu), received %zu",
                                     op, a.sizes.size(), a.densities.size()));
  for (float s : a.sizes) {
    PL_ENFORCE(s > 0, errors::InvalidArgument(
                          "op `%s` attribute `fixed_sizes`: expected sizes > 0, received %g", op,
                          s));
  }
  for (float r : a.ratios) {
    PL_ENFORCE(r > 0, errors::InvalidArgument(
                          "op `%s` attribute `fixed_ratios`: expected ratios > 0, received %g",
                          op, r));
  }
  for (int d : a.densities) {
    PL_ENFORCE(d > 0, errors::InvalidArgument(
                          "op `%s` attribute `densities`: expected densities > 0, received %d",
                          op, d));
    a.num_priors += static_cast<int64_t>(a.ratios.size()) * d * d;
  }
  PL_ENFORCE(a.variances.size() == 4,
             errors::InvalidArgument("op `%s` attribute `variances`: expected 4 values, "
                                     "received %zu",
                                     op, a.variances.size()));
  return a;
}

DDim DensityPriorDims(const framework::AttributeMap& attrs, int64_t h, int64_t w,
                      int64_t num_priors) {
  if (!FlagAttr(attrs, "flatten_to_2d")) return DDim{h, w, num_priors, 4};
  const int64_t rows = h < 0 || w < 0 ? -1 : h * w * num_priors;
  return DDim{rows, 4};
}

void DensityPriorBoxInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  const DDim in = CheckPriorBoxSlots(ctx);
  const DensityAttrs a = CheckDensityAttrs(op, ctx->Attrs());
  const DDim out = DensityPriorDims(ctx->Attrs(), in[2], in[3], a.num_priors);
  ctx->SetOutputDim("Boxes", out);
  ctx->SetOutputDim("Variances", out);
}

// The priors of density_prior_box, H W num_priors boxes at b and the variances at v.
template <typename T>
void FillDensityPriorBoxes(const PriorGrid<T>& grid, const DensityAttrs& a, T offset, bool clip,
                           T* b, T* v) {
  T* const first = b;
  const double img_h = grid.img_h, img_w = grid.img_w;
  const T sw = grid.step_w, sh = grid.step_h;
  // PaddlePaddle rounds the average step, and the shift within it, to integers.
  const int step_average = static_cast<int>((sw + sh) * 0.5);
  for (int64_t h = 0; h < grid.h; ++h) {
    for (int64_t w = 0; w < grid.w; ++w) {
      const T cx = (static_cast<T>(w) + offset) * sw;
      const T cy = (static_cast<T>(h) + offset) * sh;
      for (size_t s = 0; s < a.sizes.size(); ++s) {
        const int density = a.densities[s];
        const int shift = step_average / density;
        for (float r : a.ratios) {
          const T box_w = a.sizes[s] * std::sqrt(static_cast<T>(r));
          const T box_h = a.sizes[s] / std::sqrt(static_cast<T>(r));
          const T first_x = cx - step_average / 2. + shift / 2.;
          const T first_y = cy - step_average / 2. + shift / 2.;
          for (int i = 0; i < density; ++i) {
            for (int j = 0; j < density; ++j) {
              const T x = first_x + j * shift, y = first_y + i * shift;
              *b++ = static_cast<T>(std::max((x - box_w / 2.) / img_w, 0.));
              *b++ = static_cast<T>(std::max((y - box_h / 2.) / img_h, 0.));
              *b++ = static_cast<T>(std::min((x + box_w / 2.) / img_w, 1.));
              *b++ = static_cast<T>(std::min((y + box_h / 2.) / img_h, 1.));
            }
          }
        }
      }
    }
  }
  ClipAndFillVariances(clip, a.variances, grid.h * grid.w * a.num_priors * 4, first, v);
}

// The plain kernel of every device: computes on the host (see WritePriors).
template <typename T>
struct DensityPriorBoxKernel {
  static void Compute(const ExecutionContext& ctx) {
    const PriorGrid<T> grid = ResolvePriorGrid<T>(ctx);
    const DensityAttrs a = CheckDensityAttrs(ctx.Type(), ctx.op().Attrs());
    const T offset = ctx.Attr<float>("offset");
    const bool clip = ctx.Attr<bool>("clip");
    WritePriors<T>(ctx, DensityPriorDims(ctx.op().Attrs(), grid.h, grid.w, a.num_priors),
                   [&](T* b, T* v) { FillDensityPriorBoxes(grid, a, offset, clip, b, v); });
  }
};

// ---- anchor_generator ----

class AnchorGeneratorOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Feature map [N, C, H, W]; only H and W are used.").AsNoNeedBuffer();
    AddOutput("Anchors",
              "Anchors [H, W, num_anchors, 4] as [x_min, y_min, x_max, y_max] in "
              "input image pixels.");
    AddOutput("Variances", "[H, W, num_anchors, 4]: `variances` for every anchor.");
    AddAttr<std::vector<float>>("anchor_sizes", "Anchor sizes in pixels (each > 0).")
        .SetDefault(std::vector<float>{64, 128, 256, 512});
    AddAttr<std::vector<float>>("aspect_ratios", "Height / width ratios (each > 0).")
        .SetDefault(std::vector<float>{0.5f, 1.0f, 2.0f});
    AddAttr<std::vector<float>>("variances", "Four variances copied to every anchor.")
        .SetDefault(std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f});
    AddAttr<std::vector<float>>("stride", "[stride_w, stride_h]: pixels per feature cell.")
        .SetDefault(std::vector<float>{16.0f, 16.0f});
    AddAttr<float>("offset", "Offset of the centre within a cell.").SetDefault(0.5f);
    AddComment(R"DOC(
Anchor generator (Faster R-CNN). Cell (h, w) has centre
c = (w s_w + offset (s_w - 1), h s_h + offset (s_h - 1)). For each aspect ratio r (outer
loop) and anchor size a (inner loop), with b_w = round(sqrt(s_w s_h / r)) and
b_h = round(b_w r), the anchor has width W = (a / s_w) b_w and height H = (a / s_h) b_h:
$$Anchor = [c_x - (W - 1) / 2, \ c_y - (H - 1) / 2, \ c_x + (W - 1) / 2, \ c_y + (H - 1) / 2]$$
num_anchors = |aspect_ratios| |anchor_sizes|. Example: stride 16, offset 0.5, size 64,
ratio 1: cell (0, 0) gives [-24, -24, 39, 39].
)DOC");
  }
};

std::vector<float> PositiveList(const std::string& op, const framework::AttributeMap& attrs,
                                const char* name, size_t want_size) {
  const auto& v = std::get<std::vector<float>>(attrs.at(name));
  PL_ENFORCE(want_size == 0 ? !v.empty() : v.size() == want_size,
             errors::InvalidArgument(
                 "op `%s` attribute `%s`: expected %s values, received %zu", op, name,
                 want_size == 0 ? "one or more" : std::to_string(want_size), v.size()));
  for (float x : v) {
    PL_ENFORCE(x > 0, errors::InvalidArgument("op `%s` attribute `%s`: expected values > 0, "
                                              "received %g",
                                              op, name, x));
  }
  return v;
}

int64_t AnchorCount(const std::string& op, const framework::AttributeMap& attrs) {
  return static_cast<int64_t>(PositiveList(op, attrs, "anchor_sizes", 0).size() *
                              PositiveList(op, attrs, "aspect_ratios", 0).size());
}

void AnchorGeneratorInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Anchors");
  ctx->RequireOutput("Variances");
  const DDim in = ctx->GetInputDim("Input");
  PL_ENFORCE(in.size() == 4, errors::InvalidArgument("op `%s` input `Input`: expected [N, C, H, "
                                                     "W], received shape %s",
                                                     ctx->OpType(), in.ToString()));
  const DDim out{in[2], in[3], AnchorCount(ctx->OpType(), ctx->Attrs()), 4};
  ctx->SetOutputDim("Anchors", out);
  ctx->SetOutputDim("Variances", out);
}

template <typename T>
struct AnchorGeneratorKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const auto& attrs = ctx.op().Attrs();
    const DDim in = ctx.Input("Input")->dims();
    PL_ENFORCE(in.size() == 4, errors::InvalidArgument("op `%s` input `Input`: expected [N, C, "
                                                       "H, W], received shape %s",
                                                       op, in.ToString()));
    const std::vector<float> sizes = PositiveList(op, attrs, "anchor_sizes", 0);
    const std::vector<float> ratios = PositiveList(op, attrs, "aspect_ratios", 0);
    const std::vector<float> stride = PositiveList(op, attrs, "stride", 2);
    const std::vector<float> variances = ctx.Attr<std::vector<float>>("variances");
    PL_ENFORCE(variances.size() == 4,
               errors::InvalidArgument("op `%s` attribute `variances`: expected 4 values, "
                                       "received %zu",
                                       op, variances.size()));
    const T offset = ctx.Attr<float>("offset");
    const int64_t h = in[2], w = in[3];
    const int64_t count = static_cast<int64_t>(sizes.size() * ratios.size());
    const T sw = stride[0], sh = stride[1];
    WritePriors<T>(
        ctx, DDim{h, w, count, 4},
        [&](T* b, T* v) {
          for (int64_t y = 0; y < h; ++y) {
            for (int64_t x = 0; x < w; ++x) {
              const T cx = static_cast<T>(x) * sw + offset * (sw - 1);
              const T cy = static_cast<T>(y) * sh + offset * (sh - 1);
              for (float r : ratios) {
                for (float size : sizes) {
                  const T base_w = std::round(std::sqrt(sw * sh / static_cast<T>(r)));
                  const T base_h = std::round(base_w * static_cast<T>(r));
                  const T aw = static_cast<T>(size) / sw * base_w;
                  const T ah = static_cast<T>(size) / sh * base_h;
                  b[0] = cx - T(0.5) * (aw - 1);
                  b[1] = cy - T(0.5) * (ah - 1);
                  b[2] = cx + T(0.5) * (aw - 1);
                  b[3] = cy + T(0.5) * (ah - 1);
                  b += 4;
                }
              }
            }
          }
          for (int64_t i = 0; i < h * w * count * 4; ++i) v[i] = static_cast<T>(variances[i % 4]);
        },
        "Anchors");
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterPriorBoxOp) {
  framework::RegisterOp<PriorBoxOp, PriorBoxOpMaker>("prior_box")
      .InferShape(PriorBoxInferShape);
  RegisterPlainKernelsOnEveryDevice<PriorBoxKernel, float, double>("prior_box");
  framework::RegisterOp<PriorBoxOp, DensityPriorBoxOpMaker>("density_prior_box")
      .InferShape(DensityPriorBoxInferShape);
  RegisterPlainKernelsOnEveryDevice<DensityPriorBoxKernel, float, double>("density_prior_box");
  framework::RegisterOp<PriorBoxOp, AnchorGeneratorOpMaker>("anchor_generator")
      .InferShape(AnchorGeneratorInferShape);
  RegisterPlainKernelsOnEveryDevice<AnchorGeneratorKernel, float, double>("anchor_generator");
}

}  // namespace operators
}  // namespace paddle_like
