// yolov3_loss (paddle.vision.ops.yolo_loss): YOLOv3's training loss of one detection head, as
// PaddlePaddle's kernel computes it. Per image, with X [N, M (5 + C), H, H] holding per mask
// anchor the planes tx, ty, tw, th, objectness and C class logits:
// - every predicted box whose best IoU with a ground-truth box exceeds ignore_thresh has its
//   objectness loss ignored;
// - every valid ground-truth box (w, h >= 1e-6) takes the anchor (of all `anchors`) whose
//   shape fits it best; when that anchor is one of anchor_mask, the cell holding the box's
//   centre is a positive sample: location losses (sigmoid cross-entropy on tx, ty against
//   the offsets in the cell, L1 on tw, th against log(size / anchor)), weighted
//   (2 - w h) score, class losses (sigmoid cross-entropy, label smoothing optional) weighted
//   score, and an objectness target of score;
// - the objectness of every other, not ignored, cell learns 0.
// GTScore (mixup) defaults to 1. The gradient of X is fused (yolov3_loss_grad); where two
// ground-truth boxes fall on the same cell and anchor their gradients add up (PaddlePaddle's
// kernel keeps the last one's while its loss counts both).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "yolov3_loss";

class Yolov3LossOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, M (5 + class_num), H, H]: the head's output for the M mask anchors.");
    AddInput("GTBox",
             "[N, B, 4]: ground-truth boxes (centre x, y, width, height), relative to "
             "the image; boxes of zero width or height are padding.");
    AddInput("GTLabel", "int32 [N, B]: their classes.");
    AddInput("GTScore", "[N, B]: their weights (mixup); 1 when absent.").AsDispensable();
    AddOutput("Loss", "[N]: the loss of each image.");
    AddOutput("ObjectnessMask",
              "[N, M, H, H]: each cell's objectness target (score), 0 (negative) or -1 "
              "(ignored); kept for the gradient.")
        .AsIntermediate();
    AddOutput("GTMatchMask",
              "int32 [N, B]: each box's mask anchor, or -1; kept for the "
              "gradient.")
        .AsIntermediate();
    AddAttr<std::vector<int>>("anchors", "[w0, h0, w1, h1, ...]: every anchor, in pixels.");
    AddAttr<std::vector<int>>("anchor_mask", "The anchors (indices) this head predicts.");
    AddAttr<int>("class_num", "The classes C.").GreaterThan(0);
    AddAttr<float>("ignore_thresh", "Predictions overlapping a box more are not negatives.")
        .SetDefault(0.7f);
    AddAttr<int>("downsample_ratio", "Input size / H.").SetDefault(32);
    AddAttr<bool>("use_label_smooth", "Class targets 1 - s and s, s = min(1 / C, 1 / 40).")
        .SetDefault(true);
    AddAttr<float>("scale_x_y", "Centre decoding scale (for the ignore test).").SetDefault(1.0f);
    AddComment(R"DOC(
YOLOv3 loss. With $\ell(x, t) = \max(x, 0) - x t + \log(1 + e^{-|x|})$ and, for a positive
cell of box (x, y, w, h) with score s, anchor (a_w, a_h), input size S:
$$L_{loc} = (2 - w h) s \left[\ell(t_x, xH - \lfloor xH \rfloor) + \ell(t_y, yH - \lfloor yH
\rfloor) + |t_w - \log(wS / a_w)| + |t_h - \log(hS / a_h)|\right]$$
$$L_{cls} = s \sum_c \ell(p_c, [c = label]), \quad L_{obj} = \sum_{pos} s\,\ell(o, 1) +
\sum_{neg} \ell(o, 0)$$
Loss = L_loc + L_cls + L_obj per image.
)DOC");
  }
};

class Yolov3LossOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

struct Box {
  double x, y, w, h;
};

double Overlap(double c1, double w1, double c2, double w2) {
  return std::min(c1 + w1 / 2, c2 + w2 / 2) - std::max(c1 - w1 / 2, c2 - w2 / 2);
}

double Iou(const Box& a, const Box& b) {
  const double w = Overlap(a.x, a.w, b.x, b.w), h = Overlap(a.y, a.h, b.y, b.h);
  const double inter = (w < 0 || h < 0) ? 0.0 : w * h;
  return inter / (a.w * a.h + b.w * b.h - inter);
}

double SigmoidCrossEntropy(double x, double t) {
  return std::max(x, 0.0) - x * t + std::log1p(std::exp(-std::abs(x)));
}
double SigmoidCrossEntropyGrad(double x, double t) { return 1.0 / (1.0 + std::exp(-x)) - t; }

// The attributes and X's geometry, checked.
struct Geometry {
  int64_t n = 0, h = 0, b = 0, mask_num = 0, classes = 0, input_size = 0;
  std::vector<int> anchors, mask;
  int64_t Stride() const { return h * h; }
  int64_t AnchorStride() const { return (classes + 5) * Stride(); }
  // The index in X of `entry` (0-4 box and objectness, 5 + c class c) of (image, mask anchor,
  // cell).
  int64_t Entry(int64_t image, int64_t anchor, int64_t cell, int64_t entry) const {
    return (image * mask_num + anchor) * AnchorStride() + entry * Stride() + cell;
  }
};

Geometry ResolveGeometry(const std::string& op, const DDim& x, const DDim& box, const DDim& label,
                         const framework::AttributeMap& attrs) {
  Geometry g;
  g.anchors = std::get<std::vector<int>>(attrs.at("anchors"));
  g.mask = std::get<std::vector<int>>(attrs.at("anchor_mask"));
  g.classes = std::get<int>(attrs.at("class_num"));
  PL_ENFORCE(!g.anchors.empty() && g.anchors.size() % 2 == 0,
             errors::InvalidArgument("op `%s` attribute `anchors`: expected (width, height) "
                                     "pairs, received %zu values",
                                     op, g.anchors.size()));
  for (int a : g.anchors) {
    PL_ENFORCE(a > 0, errors::InvalidArgument("op `%s` attribute `anchors`: expected sizes > 0, "
                                              "received %d",
                                              op, a));
  }
  for (int m : g.mask) {
    PL_ENFORCE(m >= 0 && m < static_cast<int>(g.anchors.size() / 2),
               errors::InvalidArgument("op `%s` attribute `anchor_mask`: expected anchor "
                                       "indices in [0, %zu), received %d",
                                       op, g.anchors.size() / 2, m));
  }
  g.mask_num = static_cast<int64_t>(g.mask.size());
  PL_ENFORCE(x.size() == 4 && x[1] == g.mask_num * (5 + g.classes) && x[2] == x[3],
             errors::InvalidArgument("op `%s` input `X`: expected [N, %lld (anchor_mask size "
                                     "(5 + class_num)), H, H], received %s",
                                     op, static_cast<long long>(g.mask_num * (5 + g.classes)),
                                     x.ToString()));
  PL_ENFORCE(box.size() == 3 && box[2] == 4 && box[0] == x[0],
             errors::InvalidArgument("op `%s` input `GTBox`: expected [%lld, B, 4], received %s",
                                     op, static_cast<long long>(x[0]), box.ToString()));
  PL_ENFORCE(label.size() == 2 && label[0] == box[0] && label[1] == box[1],
             errors::InvalidArgument("op `%s` input `GTLabel`: expected [%lld, %lld] (GTBox's), "
                                     "received %s",
                                     op, static_cast<long long>(box[0]),
                                     static_cast<long long>(box[1]), label.ToString()));
  g.n = x[0];
  g.h = x[2];
  g.b = box[1];
  g.input_size = std::get<int>(attrs.at("downsample_ratio")) * g.h;
  return g;
}

void Yolov3LossInferShape(InferShapeContext* ctx) {
  for (const char* s : {"X", "GTBox", "GTLabel"}) ctx->RequireInput(s);
  const DDim x = ctx->GetInputDim("X"), box = ctx->GetInputDim("GTBox");
  if (!x.HasUnknown() && !box.HasUnknown()) {
    ResolveGeometry(ctx->OpType(), x, box, ctx->GetInputDim("GTLabel"), ctx->Attrs());
  }
  const int64_t mask_num =
      static_cast<int64_t>(std::get<std::vector<int>>(ctx->Attrs().at("anchor_mask")).size());
  ctx->SetOutputDim("Loss", DDim{x[0]});
  if (ctx->HasOutput("ObjectnessMask")) {
    ctx->SetOutputDim("ObjectnessMask", DDim{x[0], mask_num, x[2], x[3]});
  }
  if (ctx->HasOutput("GTMatchMask")) ctx->SetOutputDim("GTMatchMask", DDim{box[0], box[1]});
}

void Yolov3LossInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType t = ctx->GetInputDataType("X");
  for (const char* s : {"Loss", "ObjectnessMask"}) {
    ctx->SetOutputKind(s, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(s, t);
  }
  ctx->SetOutputKind("GTMatchMask", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("GTMatchMask", DataType::INT32);
}

// One positive sample: a ground-truth box on its cell and mask anchor.
struct Positive {
  int64_t image, anchor, best, cell, label;
  Box gt;
  double score;
  int64_t gi, gj;
};

// The inputs read as doubles, and each valid box's match.
struct Matches {
  std::vector<Positive> positives;
  std::vector<int32_t> match;  // [N, B]: mask anchor or -1.
};

template <typename T>
Matches MatchBoxes(const ExecutionContext& ctx, const Geometry& g) {
  const T* box = ctx.Input("GTBox")->template data<T>();
  const DenseTensor* label_t = ctx.Input("GTLabel");
  PL_ENFORCE(label_t->dtype() == DataType::INT32,
             errors::InvalidArgument("op `%s` input `GTLabel`: expected int32, received %s", kOp,
                                     platform::DataTypeName(label_t->dtype())));
  const int32_t* label = label_t->data<int32_t>();
  const T* score = ctx.HasInput("GTScore") ? ctx.Input("GTScore")->template data<T>() : nullptr;
  if (score != nullptr) {
    CheckSameShape(kOp, "GTScore", ctx.Input("GTScore")->dims(), "GTLabel", label_t->dims());
  }
  Matches m;
  m.match.assign(static_cast<size_t>(g.n * g.b), -1);
  for (int64_t i = 0; i < g.n; ++i) {
    for (int64_t t = 0; t < g.b; ++t) {
      const T* bx = box + (i * g.b + t) * 4;
      if (bx[2] < T(1e-6) || bx[3] < T(1e-6)) continue;
      const Box gt{bx[0], bx[1], bx[2], bx[3]};
      // The anchor of best shape (both centred at the origin).
      double best_iou = 0;
      int64_t best = 0;
      for (size_t a = 0; a < g.anchors.size() / 2; ++a) {
        const Box anchor{0, 0, g.anchors[2 * a] / static_cast<double>(g.input_size),
                         g.anchors[2 * a + 1] / static_cast<double>(g.input_size)};
        const double iou = static_cast<float>(Iou(anchor, Box{0, 0, gt.w, gt.h}));
        if (iou > best_iou) best_iou = iou, best = static_cast<int64_t>(a);
      }
      const auto it = std::find(g.mask.begin(), g.mask.end(), static_cast<int>(best));
      if (it == g.mask.end()) continue;
      const int64_t anchor = it - g.mask.begin();
      m.match[i * g.b + t] = static_cast<int32_t>(anchor);
      const int64_t gi = static_cast<int64_t>(gt.x * g.h), gj = static_cast<int64_t>(gt.y * g.h);
      PL_ENFORCE(gi >= 0 && gi < g.h && gj >= 0 && gj < g.h,
                 errors::InvalidArgument("op `%s` input `GTBox`: box %lld of image %lld has its "
                                         "centre (%g, %g) outside the image [0, 1)",
                                         kOp, static_cast<long long>(t), static_cast<long long>(i),
                                         gt.x, gt.y));
      PL_ENFORCE(label[i * g.b + t] >= 0 && label[i * g.b + t] < g.classes,
                 errors::InvalidArgument("op `%s` input `GTLabel`: expected classes in [0, %lld), "
                                         "received %d at image %lld box %lld",
                                         kOp, static_cast<long long>(g.classes), label[i * g.b + t],
                                         static_cast<long long>(i), static_cast<long long>(t)));
      m.positives.push_back({i, anchor, best, gj * g.h + gi, label[i * g.b + t], gt,
                             score != nullptr ? static_cast<double>(score[i * g.b + t]) : 1.0, gi,
                             gj});
    }
  }
  return m;
}

double LabelTarget(const Geometry& g, bool smooth, bool positive) {
  if (!smooth) return positive ? 1.0 : 0.0;
  const double s = std::min(1.0 / static_cast<double>(g.classes), 1.0 / 40);
  return positive ? 1.0 - s : s;
}

template <typename T>
struct Yolov3LossKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("X");
    const Geometry g = ResolveGeometry(kOp, x_t->dims(), ctx.Input("GTBox")->dims(),
                                       ctx.Input("GTLabel")->dims(), ctx.op().Attrs());
    const T* x = x_t->data<T>();
    const T* box = ctx.Input("GTBox")->data<T>();
    const double scale = ctx.Attr<float>("scale_x_y"), bias = -0.5 * (scale - 1.0);
    const double ignore = ctx.Attr<float>("ignore_thresh");
    const bool smooth = ctx.Attr<bool>("use_label_smooth");
    const int64_t stride = g.Stride();
    std::vector<double> loss(static_cast<size_t>(g.n), 0.0);
    DenseTensor obj(DDim{g.n, g.mask_num, g.h, g.h}, x_t->dtype());
    T* objness = obj.mutable_data<T>(ctx.GetPlace());
    std::fill(objness, objness + obj.numel(), T(0));
    const auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    // Predictions that overlap a ground-truth box enough are not negatives.
    for (int64_t i = 0; i < g.n; ++i) {
      for (int64_t j = 0; j < g.mask_num; ++j) {
        const int a = g.mask[j];
        for (int64_t cell = 0; cell < stride; ++cell) {
          const int64_t k = cell / g.h, l = cell % g.h, e = g.Entry(i, j, cell, 0);
          const Box pred{
              (l + sigmoid(x[e]) * scale + bias) / g.h,
              (k + sigmoid(x[e + stride]) * scale + bias) / g.h,
              std::exp(static_cast<double>(x[e + 2 * stride])) * g.anchors[2 * a] / g.input_size,
              std::exp(static_cast<double>(x[e + 3 * stride])) * g.anchors[2 * a + 1] /
                  g.input_size};
          double best = 0;
          for (int64_t t = 0; t < g.b; ++t) {
            const T* bx = box + (i * g.b + t) * 4;
            if (bx[2] < T(1e-6) || bx[3] < T(1e-6)) continue;
            best = std::max(best, Iou(pred, Box{bx[0], bx[1], bx[2], bx[3]}));
          }
          if (best > ignore) objness[(i * g.mask_num + j) * stride + cell] = T(-1);
        }
      }
    }
    const Matches m = MatchBoxes<T>(ctx, g);
    for (const Positive& p : m.positives) {
      const int64_t e = g.Entry(p.image, p.anchor, p.cell, 0);
      const double tx = p.gt.x * g.h - p.gi, ty = p.gt.y * g.h - p.gj;
      const double tw = std::log(p.gt.w * g.input_size / g.anchors[2 * p.best]);
      const double th = std::log(p.gt.h * g.input_size / g.anchors[2 * p.best + 1]);
      const double w = (2.0 - p.gt.w * p.gt.h) * p.score;
      double& l = loss[p.image];
      l += SigmoidCrossEntropy(x[e], tx) * w + SigmoidCrossEntropy(x[e + stride], ty) * w +
           std::abs(tw - x[e + 2 * stride]) * w + std::abs(th - x[e + 3 * stride]) * w;
      objness[(p.image * g.mask_num + p.anchor) * stride + p.cell] = static_cast<T>(p.score);
      for (int64_t c = 0; c < g.classes; ++c) {
        l += SigmoidCrossEntropy(x[e + (5 + c) * stride], LabelTarget(g, smooth, c == p.label)) *
             p.score;
      }
    }
    for (int64_t i = 0; i < g.n; ++i) {
      for (int64_t j = 0; j < g.mask_num; ++j) {
        for (int64_t cell = 0; cell < stride; ++cell) {
          const double o = objness[(i * g.mask_num + j) * stride + cell];
          const double logit = x[g.Entry(i, j, cell, 4)];
          if (o > 1e-5) {
            loss[i] += SigmoidCrossEntropy(logit, 1.0) * o;
          } else if (o > -0.5) {
            loss[i] += SigmoidCrossEntropy(logit, 0.0);
          }
        }
      }
    }
    DenseTensor loss_t(DDim{g.n}, x_t->dtype());
    T* ld = loss_t.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < g.n; ++i) ld[i] = static_cast<T>(loss[i]);
    *ctx.Output("Loss") = std::move(loss_t);
    if (DenseTensor* o = ctx.Output("ObjectnessMask")) *o = std::move(obj);
    if (DenseTensor* o = ctx.Output("GTMatchMask")) {
      DenseTensor mm(DDim{g.n, g.b}, DataType::INT32);
      std::copy(m.match.begin(), m.match.end(), mm.mutable_data<int32_t>(ctx.GetPlace()));
      *o = std::move(mm);
    }
  }
};

template <typename T>
struct Yolov3LossGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("X");
    const Geometry g = ResolveGeometry(kOp, x_t->dims(), ctx.Input("GTBox")->dims(),
                                       ctx.Input("GTLabel")->dims(), ctx.op().Attrs());
    const T* x = x_t->data<T>();
    const DenseTensor* obj_t = ctx.Input("ObjectnessMask");
    CheckSameShape(kOp, "ObjectnessMask", obj_t->dims(), "ObjectnessMask",
                   DDim{g.n, g.mask_num, g.h, g.h});
    const T* objness = obj_t->data<T>();
    const DenseTensor* dloss_t = ctx.Input("Loss@GRAD");
    PL_ENFORCE(
        dloss_t->numel() == g.n,
        errors::InvalidArgument("op `%s` input `Loss@GRAD`: expected [%lld], received %s", kOp,
                                static_cast<long long>(g.n), dloss_t->dims().ToString()));
    const T* dloss = dloss_t->data<T>();
    const bool smooth = ctx.Attr<bool>("use_label_smooth");
    const int64_t stride = g.Stride();
    DenseTensor dx(x_t->dims(), x_t->dtype());
    T* gx = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(gx, gx + dx.numel(), T(0));
    // The matches again (the forward's GTMatchMask says which boxes matched; the positive
    // cells follow from the boxes).
    const Matches m = MatchBoxes<T>(ctx, g);
    for (const Positive& p : m.positives) {
      const int64_t e = g.Entry(p.image, p.anchor, p.cell, 0);
      const double d = dloss[p.image];
      const double tx = p.gt.x * g.h - p.gi, ty = p.gt.y * g.h - p.gj;
      const double tw = std::log(p.gt.w * g.input_size / g.anchors[2 * p.best]);
      const double th = std::log(p.gt.h * g.input_size / g.anchors[2 * p.best + 1]);
      const double w = (2.0 - p.gt.w * p.gt.h) * p.score * d;
      gx[e] += static_cast<T>(SigmoidCrossEntropyGrad(x[e], tx) * w);
      gx[e + stride] += static_cast<T>(SigmoidCrossEntropyGrad(x[e + stride], ty) * w);
      gx[e + 2 * stride] += static_cast<T>((x[e + 2 * stride] > tw ? 1.0 : -1.0) * w);
      gx[e + 3 * stride] += static_cast<T>((x[e + 3 * stride] > th ? 1.0 : -1.0) * w);
      for (int64_t c = 0; c < g.classes; ++c) {
        const int64_t ec = e + (5 + c) * stride;
        gx[ec] += static_cast<T>(
            SigmoidCrossEntropyGrad(x[ec], LabelTarget(g, smooth, c == p.label)) * p.score * d);
      }
    }
    for (int64_t i = 0; i < g.n; ++i) {
      for (int64_t j = 0; j < g.mask_num; ++j) {
        for (int64_t cell = 0; cell < stride; ++cell) {
          const double o = objness[(i * g.mask_num + j) * stride + cell];
          const int64_t e = g.Entry(i, j, cell, 4);
          if (o > 1e-5) {
            gx[e] += static_cast<T>(SigmoidCrossEntropyGrad(x[e], 1.0) * o * dloss[i]);
          } else if (o > -0.5) {
            gx[e] += static_cast<T>(SigmoidCrossEntropyGrad(x[e], 0.0) * dloss[i]);
          }
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterYolov3LossOp) {
  const framework::FusedGradDecl grad{
      {"X", "GTBox", "GTLabel", "GTScore", "ObjectnessMask"},
      {"Loss"},
      {"X"},
      R"DOC($$dX = dLoss \cdot \frac{\partial Loss}{\partial X}$$ term by term:
$\ell'(x, t) = \sigma(x) - t$ for the cross-entropies, $\operatorname{sign}(x - t)$ for the
L1 terms)DOC"};
  framework::RegisterOp<Yolov3LossOp, Yolov3LossOpMaker>(kOp)
      .InferShape(Yolov3LossInferShape)
      .InferVarType(Yolov3LossInferVarType)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<Yolov3LossKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(
      [](InferShapeContext* ctx) { ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X")); });
  RegisterPlainCpuFloatKernels<Yolov3LossGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
