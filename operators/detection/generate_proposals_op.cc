// generate_proposals and generate_proposals_v2: the region proposals of Faster R-CNN's RPN,
// as PaddlePaddle computes them per image: the best-scored anchors decoded by their deltas,
// clipped to the image, small boxes dropped, greedy NMS. v1 takes ImInfo (height, width,
// scale of the resized image) and reads only the height and width, as PaddlePaddle 3 does;
// v2 takes ImShape (height, width) and `pixel_offset`.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/detection/bbox_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

bool IsV2(const std::string& op) { return op == "generate_proposals_v2"; }

template <bool kV2>
class GenerateProposalsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Scores", "Objectness [N, A, H, W].");
    AddInput("BboxDeltas", "Box deltas [N, 4 A, H, W] (dx, dy, dw, dh per anchor).");
    if (kV2) {
      AddInput("ImShape", "[N, 2]: height and width of each input image.");
    } else {
      AddInput("ImInfo",
               "[N, 3]: height, width and scale of each resized input image (the "
               "scale is not used).");
    }
    AddInput("Anchors", "Anchors [H, W, A, 4] (anchor_generator's).");
    AddInput("Variances", "Variances [H, W, A, 4].");
    AddOutput("RpnRois", "Proposals [R, 4] of every image, stacked (LoD: per image).");
    AddOutput("RpnRoiProbs", "Their scores [R, 1] (LoD: per image).");
    AddOutput("RpnRoisNum", "int32 [N]: proposals per image.").AsDispensable();
    AddAttr<int>("pre_nms_topN", "Anchors kept by score before NMS (<= 0: all).").SetDefault(6000);
    AddAttr<int>("post_nms_topN", "Proposals kept after NMS (<= 0: all).").SetDefault(1000);
    AddAttr<float>("nms_thresh", "NMS IoU threshold (<= 0: no NMS).").SetDefault(0.5f);
    AddAttr<float>("min_size", "Smallest width and height kept (at least 1).").SetDefault(0.1f);
    AddAttr<float>("eta", "Adaptive NMS factor (1 = fixed threshold).").SetDefault(1.0f);
    if (kV2) {
      AddAttr<bool>("pixel_offset", "Boxes span x_max - x_min + 1 pixels.").SetDefault(true);
    }
    AddComment(R"DOC(
Generate proposals (RPN). Per image, the scores and deltas are read in (h, w, anchor) order;
the pre_nms_topN best-scored anchors are decoded, with o = 1 under pixel_offset (always for
the v1 op) else 0, anchor size w_a = x_2 - x_1 + o, centre c_a = x_1 + w_a / 2, and
variances v:
$$c = v_0 \, d_x \, w_a + c_{a}, \quad w = e^{\min(v_2 d_w, \log(1000 / 16))} w_a, \quad
  box = [c_x - w / 2, \ c_y - h / 2, \ c_x + w / 2 - o, \ c_y + h / 2 - o]$$
clipped to [0, W - o] x [0, H - o] for the image's height H and width W. Boxes narrower or
lower than max(min_size, 1) are dropped, and under pixel_offset also those whose centre lies
beyond the image; greedy NMS (threshold nms_thresh, adapted by eta) visits them by descending score
and the first post_nms_topN kept are the proposals. An image left without boxes gives one
zero box with score 0.
)DOC");
  }
};

class GenerateProposalsOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Scores");
  }
};

const char* ImSlot(const std::string& op) { return IsV2(op) ? "ImShape" : "ImInfo"; }

void CheckShapes(const std::string& op, const DDim& scores, const DDim& deltas, const DDim& im,
                 const DDim& anchors, const DDim& variances) {
  PL_ENFORCE(scores.size() == 4, errors::InvalidArgument("op `%s` input `Scores`: expected [N, A, "
                                                         "H, W], received shape %s",
                                                         op, scores.ToString()));
  const DDim want_deltas{scores[0], scores[1] * 4, scores[2], scores[3]};
  PL_ENFORCE(
      deltas == want_deltas,
      errors::InvalidArgument("op `%s` input `BboxDeltas`: expected shape %s (4 values "
                              "per anchor of Scores %s), received %s",
                              op, want_deltas.ToString(), scores.ToString(), deltas.ToString()));
  const int64_t im_cols = IsV2(op) ? 2 : 3;
  PL_ENFORCE(im.size() == 2 && im[0] == scores[0] && im[1] >= im_cols,
             errors::InvalidArgument("op `%s` input `%s`: expected [%lld, %lld], received shape "
                                     "%s",
                                     op, ImSlot(op), static_cast<long long>(scores[0]),
                                     static_cast<long long>(im_cols), im.ToString()));
  const int64_t count = scores[1] * scores[2] * scores[3];
  PL_ENFORCE(anchors.numel() == count * 4 && anchors[anchors.size() - 1] == 4,
             errors::InvalidArgument("op `%s` input `Anchors`: expected %lld anchors of 4 values "
                                     "([H, W, A, 4] for Scores %s), received shape %s",
                                     op, static_cast<long long>(count), scores.ToString(),
                                     anchors.ToString()));
  PL_ENFORCE(variances.numel() == anchors.numel(),
             errors::InvalidArgument("op `%s` input `Variances`: expected Anchors' shape %s, "
                                     "received %s",
                                     op, anchors.ToString(), variances.ToString()));
}

void GenerateProposalsInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  for (const char* slot : {"Scores", "BboxDeltas", ImSlot(op), "Anchors", "Variances"}) {
    ctx->RequireInput(slot);
  }
  ctx->RequireOutput("RpnRois");
  ctx->RequireOutput("RpnRoiProbs");
  const DDim scores = ctx->GetInputDim("Scores");
  if (!scores.HasUnknown() && !ctx->GetInputDim("BboxDeltas").HasUnknown() &&
      !ctx->GetInputDim(ImSlot(op)).HasUnknown() && !ctx->GetInputDim("Anchors").HasUnknown()) {
    CheckShapes(op, scores, ctx->GetInputDim("BboxDeltas"), ctx->GetInputDim(ImSlot(op)),
                ctx->GetInputDim("Anchors"), ctx->GetInputDim("Variances"));
  }
  if (ctx->IsRuntime()) return;  // The kernel sizes the outputs by what it keeps.
  ctx->SetOutputDim("RpnRois", DDim{-1, 4});
  ctx->SetOutputDim("RpnRoiProbs", DDim{-1, 1});
  if (ctx->HasOutput("RpnRoisNum")) ctx->SetOutputDim("RpnRoisNum", DDim{scores[0]});
}

void GenerateProposalsInferVarType(framework::VarTypeInferenceContext* ctx) {
  for (const char* slot : {"RpnRois", "RpnRoiProbs"}) {
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, ctx->GetInputDataType("Scores"));
  }
  if (ctx->HasOutput("RpnRoisNum")) {
    ctx->SetOutputKind("RpnRoisNum", framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType("RpnRoisNum", DataType::INT32);
  }
}

struct ProposalAttrs {
  int pre_nms_top_n, post_nms_top_n;
  float nms_thresh, min_size, eta;
  bool pixel_offset;
};

// One image's proposals: boxes (4 per row) and scores.
template <typename T>
struct Proposals {
  std::vector<T> boxes, scores;
};

// scores[k], deltas + 4 k, anchors + 4 k, variances + 4 k for the k = (h, w, a) of one image.
template <typename T>
Proposals<T> ProposeForImage(const std::vector<T>& scores, const std::vector<T>& deltas,
                             const T* anchors, const T* variances, const T* im,
                             const ProposalAttrs& a) {
  const auto count = static_cast<int64_t>(scores.size());
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  // PaddlePaddle's selection, by its comparator on scores alone: a sort of all anchors, or
  // nth_element's pre_nms_top_n best, left in the order it leaves them. The same calls on the
  // same arrangement pick and arrange equal scores as PaddlePaddle's kernel does, and the NMS
  // below visits them by that arrangement.
  const auto better = [&](int64_t i, int64_t j) { return scores[i] > scores[j]; };
  if (a.pre_nms_top_n > 0 && a.pre_nms_top_n < count) {
    std::nth_element(order.begin(), order.begin() + a.pre_nms_top_n, order.end(), better);
    order.resize(static_cast<size_t>(a.pre_nms_top_n));
  } else {
    std::sort(order.begin(), order.end(), better);
  }
  const T offset = a.pixel_offset ? T(1) : T(0);
  const T min_size = std::max<T>(static_cast<T>(a.min_size), T(1));
  const T max_log = static_cast<T>(std::log(1000.0 / 16.0));
  Proposals<T> kept;  // After decoding, clipping and the size filter.
  for (int64_t k : order) {
    const T* an = anchors + 4 * k;
    const T* d = deltas.data() + 4 * k;
    const T* v = variances + 4 * k;
    const T aw = an[2] - an[0] + offset, ah = an[3] - an[1] + offset;
    const T acx = an[0] + T(0.5) * aw, acy = an[1] + T(0.5) * ah;
    const T cx = v[0] * d[0] * aw + acx, cy = v[1] * d[1] * ah + acy;
    const T w = std::exp(std::min(v[2] * d[2], max_log)) * aw;
    const T h = std::exp(std::min(v[3] * d[3], max_log)) * ah;
    T box[4] = {cx - w / 2, cy - h / 2, cx + w / 2 - offset, cy + h / 2 - offset};
    for (int i = 0; i < 4; ++i) {
      box[i] = std::max(std::min(box[i], (i % 2 == 0 ? im[1] : im[0]) - offset), T(0));
    }
    const T ws = box[2] - box[0] + offset, hs = box[3] - box[1] + offset;
    bool keep = ws >= min_size && hs >= min_size;
    if (a.pixel_offset) keep = keep && box[0] + ws / 2 <= im[1] && box[1] + hs / 2 <= im[0];
    if (!keep) continue;
    kept.boxes.insert(kept.boxes.end(), box, box + 4);
    kept.scores.push_back(scores[k]);
  }
  if (kept.scores.empty()) return {{T(0), T(0), T(0), T(0)}, {T(0)}};
  if (a.nms_thresh <= 0) return kept;
  // PaddlePaddle's NMS takes its candidates from the back of a stable ascending sort: best
  // first, equal scores by the later position first.
  std::vector<int64_t> visit(kept.scores.size());
  std::iota(visit.begin(), visit.end(), 0);
  std::stable_sort(visit.begin(), visit.end(), [&](int64_t i, int64_t j) {
    return kept.scores[i] > kept.scores[j] || (kept.scores[i] == kept.scores[j] && i > j);
  });
  std::vector<int64_t> chosen = GreedyNms(
      visit, [&](int64_t i) { return kept.boxes.data() + 4 * i; }, static_cast<T>(a.nms_thresh),
      a.eta, !a.pixel_offset, NanIoU::kSuppresses);
  if (a.post_nms_top_n > 0 && a.post_nms_top_n < static_cast<int>(chosen.size())) {
    chosen.resize(static_cast<size_t>(a.post_nms_top_n));
  }
  Proposals<T> out;
  for (int64_t i : chosen) {
    out.boxes.insert(out.boxes.end(), kept.boxes.begin() + 4 * i, kept.boxes.begin() + 4 * i + 4);
    out.scores.push_back(kept.scores[i]);
  }
  return out;
}

template <typename T>
struct GenerateProposalsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* scores = ctx.Input("Scores");
    const DenseTensor* deltas = ctx.Input("BboxDeltas");
    const DenseTensor* im = ctx.Input(ImSlot(op));
    const DenseTensor* anchors = ctx.Input("Anchors");
    const DenseTensor* variances = ctx.Input("Variances");
    CheckShapes(op, scores->dims(), deltas->dims(), im->dims(), anchors->dims(), variances->dims());
    ProposalAttrs a;
    a.pre_nms_top_n = ctx.Attr<int>("pre_nms_topN");
    a.post_nms_top_n = ctx.Attr<int>("post_nms_topN");
    a.nms_thresh = ctx.Attr<float>("nms_thresh");
    a.min_size = ctx.Attr<float>("min_size");
    a.eta = ctx.Attr<float>("eta");
    a.pixel_offset = IsV2(op) ? ctx.Attr<bool>("pixel_offset") : true;
    const DDim sd = scores->dims();
    const int64_t n = sd[0], na = sd[1], hw = sd[2] * sd[3];
    const T* s = scores->data<T>();
    const T* d = deltas->data<T>();
    std::vector<T> all_boxes, all_scores;
    std::vector<size_t> lod = {0};
    std::vector<int32_t> per_image;
    for (int64_t b = 0; b < n; ++b) {
      // (a, h, w) to (h, w, a) order.
      std::vector<T> img_scores(static_cast<size_t>(na * hw)), img_deltas(img_scores.size() * 4);
      for (int64_t k = 0; k < na; ++k) {
        for (int64_t p = 0; p < hw; ++p) {
          img_scores[p * na + k] = s[(b * na + k) * hw + p];
          for (int j = 0; j < 4; ++j) {
            img_deltas[(p * na + k) * 4 + j] = d[((b * na + k) * 4 + j) * hw + p];
          }
        }
      }
      const Proposals<T> prop =
          ProposeForImage(img_scores, img_deltas, anchors->data<T>(), variances->data<T>(),
                          im->data<T>() + b * im->dims()[1], a);
      all_boxes.insert(all_boxes.end(), prop.boxes.begin(), prop.boxes.end());
      all_scores.insert(all_scores.end(), prop.scores.begin(), prop.scores.end());
      per_image.push_back(static_cast<int32_t>(prop.scores.size()));
      lod.push_back(all_scores.size());
    }
    const auto r = static_cast<int64_t>(all_scores.size());
    DenseTensor rois(DDim{r, 4}, scores->dtype()), probs(DDim{r, 1}, scores->dtype());
    std::copy(all_boxes.begin(), all_boxes.end(), rois.mutable_data<T>(ctx.GetPlace()));
    std::copy(all_scores.begin(), all_scores.end(), probs.mutable_data<T>(ctx.GetPlace()));
    rois.set_lod({lod});
    probs.set_lod({lod});
    *ctx.Output("RpnRois") = std::move(rois);
    *ctx.Output("RpnRoiProbs") = std::move(probs);
    if (DenseTensor* num = ctx.Output("RpnRoisNum")) {
      DenseTensor t(DDim{n}, DataType::INT32);
      std::copy(per_image.begin(), per_image.end(), t.mutable_data<int32_t>(ctx.GetPlace()));
      *num = std::move(t);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterGenerateProposalsOps) {
  framework::RegisterOp<GenerateProposalsOp, GenerateProposalsOpMaker<false>>("generate_proposals")
      .InferShape(GenerateProposalsInferShape)
      .InferVarType(GenerateProposalsInferVarType)
      .Checkpoint("output RpnRoisLod removed",
                  framework::OpVersionDesc().BugfixWithBehaviorChanged(
                      "RpnRoisLod is no longer an output (RpnRoisNum replaces it)"))
      .Checkpoint("output RpnRoisNum",
                  framework::OpVersionDesc().NewOutput("RpnRoisNum", "proposals per image"));
  RegisterPlainCpuFloatKernels<GenerateProposalsKernel>("generate_proposals");
  framework::RegisterOp<GenerateProposalsOp, GenerateProposalsOpMaker<true>>(
      "generate_proposals_v2")
      .InferShape(GenerateProposalsInferShape)
      .InferVarType(GenerateProposalsInferVarType)
      .Checkpoint("attribute pixel_offset", framework::OpVersionDesc().NewAttr(
                                                "pixel_offset", "boxes span x2 - x1 + 1", true));
  RegisterPlainCpuFloatKernels<GenerateProposalsKernel>("generate_proposals_v2");
}

}  // namespace operators
}  // namespace paddle_like
