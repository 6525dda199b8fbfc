// retinanet_detection_output: RetinaNet's post-processing, as PaddlePaddle computes it, row for
// row. Per image, from each FPN level: the (anchor, class) scores above score_threshold (above
// 0 on the last level), best first with ties in (anchor, class) order, at most nms_top_k;
// each decoded from its anchor, scaled back by the image scale and clipped to the image. Then
// per class greedy NMS over all levels' candidates (pixel IoU, adaptive with nms_eta), and the
// best keep_top_k of what is kept over all classes.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/detection/bbox_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "retinanet_detection_output";

class RetinanetDetectionOutputOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("BBoxes", "Per FPN level, [N, Mi, 4] box deltas (dx, dy, dw, dh) of its anchors.")
        .AsDuplicable();
    AddInput("Scores", "Per FPN level, [N, Mi, C] class scores (no background class).")
        .AsDuplicable();
    AddInput("Anchors", "Per FPN level, [Mi, 4] anchors [x_min, y_min, x_max, y_max].")
        .AsDuplicable();
    AddInput("ImInfo", "[N, 3]: each image's height, width and scale.");
    AddOutput("Out",
              "[No, 6] rows [label, score, x_min, y_min, x_max, y_max] (label from 1), "
              "images one after the other; LoD: the image offsets.");
    AddAttr<float>("score_threshold",
                   "Candidates of every level but the last must score "
                   "above this (the last: above 0).");
    AddAttr<int>("nms_top_k", "Candidates kept per level, best first; -1 = all.");
    AddAttr<float>("nms_threshold", "IoU above which NMS suppresses a box.");
    AddAttr<float>("nms_eta",
                   "Adaptive NMS: the threshold is multiplied by it after each kept "
                   "box while above 0.5 (1 = fixed).");
    AddAttr<int>("keep_top_k", "Rows kept per image over all classes; negative = all.");
    AddComment(R"DOC(
retinanet_detection_output. A candidate (anchor a = [x0, y0, x1, y1], deltas d, class c,
score s) decodes with w = x1 - x0 + 1, h = y1 - y0 + 1 as
$$cx = d_0 w + x_0 + w/2, \quad cy = d_1 h + y_0 + h/2, \quad
pw = e^{d_2} w, \quad ph = e^{d_3} h$$
$$box = [cx - pw/2, \; cy - ph/2, \; cx + pw/2 - 1, \; cy + ph/2 - 1] / scale$$
clipped to [0, round(width / scale) - 1] and [0, round(height / scale) - 1]. Candidates are
the scores above score_threshold (above 0 on the last level), at most nms_top_k per level;
per class, greedy NMS keeps a box whose IoU (pixel convention, +1) with every kept box is at
most the threshold; then the best keep_top_k over all classes, ordered by score (ties by
class, then as kept). Rows are [c + 1, s, box]. No gradient.
)DOC");
  }
};

class RetinanetDetectionOutputOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Scores");
  }
};

void CheckLevelShapes(const std::string& op, const std::vector<DDim>& boxes,
                      const std::vector<DDim>& scores, const std::vector<DDim>& anchors,
                      const DDim& im_info, bool runtime) {
  PL_ENFORCE(!boxes.empty() && boxes.size() == scores.size() && boxes.size() == anchors.size(),
             errors::InvalidArgument("op `%s` inputs `BBoxes`, `Scores` and `Anchors`: expected "
                                     "one tensor per FPN level each (at least one), received "
                                     "%zu, %zu and %zu",
                                     op, boxes.size(), scores.size(), anchors.size()));
  auto known = [runtime](int64_t a, int64_t b) { return a == b || (!runtime && (a < 0 || b < 0)); };
  for (size_t l = 0; l < boxes.size(); ++l) {
    const DDim& b = boxes[l];
    const DDim& s = scores[l];
    const DDim& a = anchors[l];
    PL_ENFORCE(b.size() == 3 && s.size() == 3 && a.size() == 2 && known(b[2], 4) &&
                   known(a[1], 4) && known(b[1], s[1]) && known(a[0], b[1]) && known(b[0], s[0]) &&
                   known(s[2], scores[0][2]),
               errors::InvalidArgument("op `%s` level %zu: expected BBoxes [N, M, 4], Scores "
                                       "[N, M, C] (C as on level 0) and Anchors [M, 4], "
                                       "received %s, %s and %s",
                                       op, l, b.ToString(), s.ToString(), a.ToString()));
  }
  PL_ENFORCE(im_info.size() == 2 && known(im_info[1], 3) && known(im_info[0], boxes[0][0]),
             errors::InvalidArgument("op `%s` input `ImInfo`: expected [N, 3] with N = %lld "
                                     "images, received %s",
                                     op, static_cast<long long>(boxes[0][0]), im_info.ToString()));
}

void RetinanetInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("ImInfo");
  ctx->RequireOutput("Out");
  CheckLevelShapes(ctx->OpType(), ctx->GetInputsDim("BBoxes"), ctx->GetInputsDim("Scores"),
                   ctx->GetInputsDim("Anchors"), ctx->GetInputDim("ImInfo"), ctx->IsRuntime());
  if (ctx->IsRuntime()) return;  // The kernel sets the row count.
  ctx->SetOutputDim("Out", DDim({-1, 6}));
}

void RetinanetInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("Scores"));
}

template <typename T>
struct Candidate {
  T box[4];
  T score;
};

template <typename T>
struct RetinanetDetectionOutputKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> boxes = ctx.MultiInput("BBoxes");
    const std::vector<const DenseTensor*> scores = ctx.MultiInput("Scores");
    const std::vector<const DenseTensor*> anchors = ctx.MultiInput("Anchors");
    const DenseTensor* im_info = ctx.Input("ImInfo");
    auto dims_of = [](const std::vector<const DenseTensor*>& ts) {
      std::vector<DDim> d;
      for (const DenseTensor* t : ts) d.push_back(t->dims());
      return d;
    };
    CheckLevelShapes(ctx.Type(), dims_of(boxes), dims_of(scores), dims_of(anchors), im_info->dims(),
                     true);
    const int64_t n = scores[0]->dims()[0];
    const int64_t classes = scores[0]->dims()[2];
    const int nms_top_k = ctx.Attr<int>("nms_top_k");
    const int keep_top_k = ctx.Attr<int>("keep_top_k");
    const T nms_threshold = static_cast<T>(ctx.Attr<float>("nms_threshold"));
    const float nms_eta = ctx.Attr<float>("nms_eta");
    const T score_threshold = static_cast<T>(ctx.Attr<float>("score_threshold"));
    const T* info = im_info->data<T>();

    std::vector<T> rows;
    std::vector<size_t> offsets = {0};
    for (int64_t i = 0; i < n; ++i) {
      const T im_h = static_cast<T>(std::round(info[i * 3] / info[i * 3 + 2]));
      const T im_w = static_cast<T>(std::round(info[i * 3 + 1] / info[i * 3 + 2]));
      const T scale = info[i * 3 + 2];
      std::map<int64_t, std::vector<Candidate<T>>> by_class;
      for (size_t l = 0; l < scores.size(); ++l) {
        const int64_t m = scores[l]->dims()[1];
        const T* s = scores[l]->data<T>() + i * m * classes;
        const T* d = boxes[l]->data<T>() + i * m * 4;
        const T* a = anchors[l]->data<T>();
        const T threshold = l + 1 < scores.size() ? score_threshold : T(0);
        std::vector<std::pair<T, int64_t>> picked;
        for (int64_t k = 0; k < m * classes; ++k) {
          if (s[k] > threshold) picked.push_back({s[k], k});
        }
        std::stable_sort(picked.begin(), picked.end(),
                         [](const auto& p, const auto& q) { return p.first > q.first; });
        if (nms_top_k > -1 && nms_top_k < static_cast<int64_t>(picked.size())) {
          picked.resize(static_cast<size_t>(nms_top_k));
        }
        for (const auto& [score, k] : picked) {
          const T* an = a + (k / classes) * 4;
          const T* dl = d + (k / classes) * 4;
          const T w = an[2] - an[0] + 1, h = an[3] - an[1] + 1;
          const T cx = dl[0] * w + (an[0] + w / 2), cy = dl[1] * h + (an[1] + h / 2);
          const T pw = std::exp(dl[2]) * w, ph = std::exp(dl[3]) * h;
          const T raw[4] = {cx - pw / 2, cy - ph / 2, cx + pw / 2 - 1, cy + ph / 2 - 1};
          Candidate<T> c;
          for (int j = 0; j < 4; ++j) {
            const T limit = (j % 2 == 0 ? im_w : im_h) - 1;
            c.box[j] = std::max(std::min(raw[j] / scale, limit), T(0));
          }
          c.score = score;
          by_class[k % classes].push_back(c);
        }
      }
      // (score, class, candidate) of every kept box, by class then as kept.
      struct Kept {
        T score;
        int64_t label;
        const Candidate<T>* c;
      };
      std::vector<Kept> kept;
      for (const auto& entry : by_class) {
        // Named, not a structured binding: lambdas below capture it.
        const int64_t label = entry.first;
        const std::vector<Candidate<T>>& cands = entry.second;
        std::vector<int64_t> order(cands.size());
        for (size_t j = 0; j < order.size(); ++j) order[j] = static_cast<int64_t>(j);
        std::stable_sort(order.begin(), order.end(), [&cands](int64_t p, int64_t q) {
          return cands[p].score > cands[q].score;
        });
        const auto box_of = [&cands](int64_t j) { return cands[j].box; };
        for (int64_t j :
             GreedyNms(order, box_of, nms_threshold, nms_eta, false, NanIoU::kSuppresses)) {
          kept.push_back({cands[j].score, label, &cands[j]});
        }
      }
      std::stable_sort(kept.begin(), kept.end(),
                       [](const Kept& p, const Kept& q) { return p.score > q.score; });
      if (keep_top_k >= 0 && static_cast<int64_t>(kept.size()) > keep_top_k) {
        kept.resize(static_cast<size_t>(keep_top_k));
      }
      for (const Kept& k : kept) {
        rows.insert(rows.end(), {static_cast<T>(k.label + 1), k.score, k.c->box[0], k.c->box[1],
                                 k.c->box[2], k.c->box[3]});
      }
      offsets.push_back(rows.size() / 6);
    }
    DenseTensor out(DDim({static_cast<int64_t>(rows.size() / 6), 6}), platform::ToDataType<T>());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::copy(rows.begin(), rows.end(), o);
    out.set_lod(framework::LoD{offsets});
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRetinanetDetectionOutputOp) {
  framework::RegisterOp<RetinanetDetectionOutputOp, RetinanetDetectionOutputOpMaker>(kOp)
      .InferShape(RetinanetInferShape)
      .InferVarType(RetinanetInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<RetinanetDetectionOutputKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
