// multiclass_nms, multiclass_nms2 and multiclass_nms3: per-class greedy non-maximum
// suppression of detection boxes, as PaddlePaddle computes it, result for result.
//
// Two input forms:
//   BBoxes [N, M, 4] and Scores [N, C, M]: the boxes are shared by the classes;
//   BBoxes [M_total, C, 4] and Scores [M_total, C] with the images' box counts in RoisNum
//   (multiclass_nms3) or in the LoD of BBoxes: one box per class.
// Per image and class (except background_label): the boxes scoring above score_threshold,
// best first (ties keep box order), at most nms_top_k; a box is kept when its IoU with every
// kept box is at most the threshold (which shrinks by nms_eta while above 0.5). If more than
// keep_top_k boxes survive over all classes, the best keep_top_k are kept. Output rows
// [label, score, x_min, y_min, x_max, y_max] are ordered by label, then as kept (in the
// [M_total, C] form: by box).
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "operators/common.h"
#include "operators/detection/bbox_util.h"
#include "operators/detection/image_rows.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

bool ReturnsIndex(const std::string& type) { return type != "multiclass_nms"; }

class MulticlassNmsOpMaker : public OpProtoAndCheckerMaker {
 public:
  explicit MulticlassNmsOpMaker(int version) : version_(version) {}
  void Make() override {
    AddInput("BBoxes", "[N, M, 4] boxes shared by the classes, or [M_total, C, 4] with the "
                       "image box counts in RoisNum or the LoD.");
    AddInput("Scores", "[N, C, M] (with shared boxes) or [M_total, C].");
    if (version_ == 3) {
      AddInput("RoisNum", "int32 [N]: boxes per image for the [M_total, C, 4] form.")
          .AsDispensable();
    }
    AddOutput("Out", "[No, 6] rows [label, score, x_min, y_min, x_max, y_max], images one "
                     "after the other" +
                         std::string(version_ == 1 ? "; [1, 1] holding -1 when nothing is kept."
                                                   : "."));
    if (version_ > 1) {
      AddOutput("Index", "int32 [No, 1]: each row's box, as an index into the flattened "
                         "BBoxes rows (image offset included).");
    } else {
      // Programs saved by PaddlePaddle 1.x's detection_output (PaddleHub's pyramidbox_lite)
      // name it on multiclass_nms, where PaddlePaddle itself leaves it unwritten.
      AddOutput("Index", "Optional int32 [No, 1]: as multiclass_nms2's Index.").AsDispensable();
    }
    if (version_ == 3) {
      AddOutput("NmsRoisNum", "int32 [N]: rows of Out per image.").AsDispensable();
    }
    AddAttr<float>("score_threshold", "Boxes scoring at most this are dropped.");
    AddAttr<int>("nms_top_k", "Candidates per class after thresholding; -1 = all.");
    AddAttr<int>("keep_top_k", "Rows kept per image over all classes; -1 = all.");
    AddAttr<float>("nms_threshold", "IoU above which a box is suppressed.").SetDefault(0.3f);
    AddAttr<bool>("normalized", "Coordinates in [0, 1] (else pixels: width + 1).")
        .SetDefault(true);
    AddAttr<float>("nms_eta", "Adaptive factor of the threshold (1 = fixed).").SetDefault(1.0f);
    AddAttr<int>("background_label", "Class skipped; -1 = none.").SetDefault(0);
    AddComment(R"DOC(
Multi-class non-maximum suppression (PaddlePaddle's multiclass_nms / nms2 / nms3).

For each image and each class c != background_label, with candidates S_c = the boxes whose
score exceeds score_threshold, sorted by score (stable), the first nms_top_k:
$$keep(b) \iff \forall k \in K_c:\ IoU(b, k) \le \theta, \quad \theta \leftarrow \theta \cdot
\eta \text{ after each kept box while } \eta < 1 \text{ and } \theta > 0.5$$
visiting S_c in order. IoU uses area (x_max - x_min)(y_max - y_min), or with +1 on each
side when not normalized. If the kept boxes of all classes exceed keep_top_k, the
keep_top_k best (stable by score) remain. Out rows are grouped by ascending label.
)DOC");
  }

 private:
  int version_;
};

template <int kVersion>
class VersionedMaker : public MulticlassNmsOpMaker {
 public:
  VersionedMaker() : MulticlassNmsOpMaker(kVersion) {}
};

class MulticlassNmsOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Scores");
  }
  bool CastsInput(const std::string& slot, DataType, DataType) const override {
    return slot != "RoisNum";
  }
};

void CheckForms(const std::string& op, const DDim& boxes, const DDim& scores) {
  if (scores.size() == 3) {
    PL_ENFORCE(boxes.size() == 3 && (boxes[2] == 4 || boxes[2] < 0),
               errors::InvalidArgument("op `%s` input `BBoxes`: expected [N, M, 4] with Scores "
                                       "[N, C, M], received %s (polygon boxes are not supported)",
                                       op, boxes.ToString()));
    const bool ok = (boxes[0] < 0 || scores[0] < 0 || boxes[0] == scores[0]) &&
                    (boxes[1] < 0 || scores[2] < 0 || boxes[1] == scores[2]);
    PL_ENFORCE(ok, errors::InvalidArgument("op `%s` inputs `BBoxes` %s and `Scores` %s: "
                                           "expected BBoxes [N, M, 4] for Scores [N, C, M]",
                                           op, boxes.ToString(), scores.ToString()));
  } else {
    PL_ENFORCE(scores.size() == 2,
               errors::InvalidArgument("op `%s` input `Scores`: expected [N, C, M] or "
                                       "[M_total, C], received %s",
                                       op, scores.ToString()));
    PL_ENFORCE(boxes.size() == 3 && (boxes[2] == 4 || boxes[2] < 0) &&
                   (boxes[0] < 0 || scores[0] < 0 || boxes[0] == scores[0]) &&
                   (boxes[1] < 0 || scores[1] < 0 || boxes[1] == scores[1]),
               errors::InvalidArgument("op `%s` input `BBoxes`: expected [M_total, C, 4] for "
                                       "Scores %s, received %s",
                                       op, scores.ToString(), boxes.ToString()));
  }
}

void MulticlassNmsInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("BBoxes");
  ctx->RequireInput("Scores");
  ctx->RequireOutput("Out");
  CheckForms(ctx->OpType(), ctx->GetInputDim("BBoxes"), ctx->GetInputDim("Scores"));
  if (ctx->IsRuntime()) return;  // The kernel sets the sizes.
  ctx->SetOutputDim("Out", DDim{-1, 6});
  if (ctx->HasOutput("Index")) ctx->SetOutputDim("Index", DDim{-1, 1});
  if (ctx->HasOutput("NmsRoisNum")) ctx->SetOutputDim("NmsRoisNum", DDim{-1});
}

// One image: score(c, i) and box(c, i) of its M boxes.
template <typename T>
struct ImageView {
  const T* scores = nullptr;
  const T* boxes = nullptr;
  int64_t classes = 0, count = 0;
  bool shared = true;  // [C, M] scores and [M, 4] boxes; else [M, C] and [M, C, 4].
  T Score(int64_t c, int64_t i) const {
    return shared ? scores[c * count + i] : scores[i * classes + c];
  }
  const T* Box(int64_t c, int64_t i) const {
    return shared ? boxes + i * 4 : boxes + (i * classes + c) * 4;
  }
};

struct NmsAttrs {
  float score_threshold, nms_threshold, eta;
  int nms_top_k, keep_top_k, background;
  bool normalized;
};

// Kept box indices of class c, in the order kept.
template <typename T>
std::vector<int64_t> NmsOneClass(const ImageView<T>& v, int64_t c, const NmsAttrs& a) {
  std::vector<std::pair<T, int64_t>> sorted;
  for (int64_t i = 0; i < v.count; ++i) {
    if (v.Score(c, i) > static_cast<T>(a.score_threshold)) sorted.emplace_back(v.Score(c, i), i);
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& l, const auto& r) { return l.first > r.first; });
  if (a.nms_top_k > -1 && a.nms_top_k < static_cast<int>(sorted.size())) {
    sorted.resize(a.nms_top_k);
  }
  std::vector<int64_t> order;
  for (const auto& cand : sorted) order.push_back(cand.second);
  return GreedyNms(
      order, [&](int64_t i) { return v.Box(c, i); }, static_cast<T>(a.nms_threshold), a.eta,
      a.normalized, NanIoU::kSuppresses);
}

// label -> kept box indices, after keep_top_k.
template <typename T>
std::map<int64_t, std::vector<int64_t>> NmsImage(const ImageView<T>& v, const NmsAttrs& a) {
  std::map<int64_t, std::vector<int64_t>> kept;
  size_t total = 0;
  for (int64_t c = 0; c < v.classes; ++c) {
    if (c == a.background) continue;
    kept[c] = NmsOneClass(v, c, a);
    total += kept[c].size();
  }
  if (a.keep_top_k > -1 && total > static_cast<size_t>(a.keep_top_k)) {
    std::vector<std::pair<T, std::pair<int64_t, int64_t>>> all;
    for (const auto& [label, idx] : kept) {
      for (int64_t i : idx) all.push_back({v.Score(label, i), {label, i}});
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& l, const auto& r) { return l.first > r.first; });
    all.resize(a.keep_top_k);
    kept.clear();
    for (const auto& e : all) kept[e.second.first].push_back(e.second.second);
  }
  // With a box per class (the [M_total, C] form) each class lists its boxes in box order.
  if (!v.shared) {
    for (auto& entry : kept) std::sort(entry.second.begin(), entry.second.end());
  }
  return kept;
}

template <typename T>
struct MulticlassNmsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* boxes = ctx.Input("BBoxes");
    const DenseTensor* scores = ctx.Input("Scores");
    CheckForms(op, boxes->dims(), scores->dims());
    PL_ENFORCE(boxes->dtype() == scores->dtype(),
               errors::InvalidArgument("op `%s` input `BBoxes`: expected the dtype of Scores "
                                       "(%s), received %s",
                                       op, platform::DataTypeName(scores->dtype()),
                                       platform::DataTypeName(boxes->dtype())));
    NmsAttrs a;
    a.score_threshold = ctx.Attr<float>("score_threshold");
    a.nms_threshold = ctx.Attr<float>("nms_threshold");
    a.eta = ctx.Attr<float>("nms_eta");
    a.nms_top_k = ctx.Attr<int>("nms_top_k");
    a.keep_top_k = ctx.Attr<int>("keep_top_k");
    a.background = ctx.Attr<int>("background_label");
    a.normalized = ctx.Attr<bool>("normalized");
    const bool shared = scores->dims().size() == 3;
    const T* sp = scores->numel() > 0 ? scores->data<T>() : nullptr;
    const T* bp = boxes->numel() > 0 ? boxes->data<T>() : nullptr;
    const DDim sd = scores->dims();
    std::vector<int64_t> starts;  // Image row starts (the [M_total, C] form).
    const int64_t images = shared ? sd[0] : 0;
    if (!shared) {
      starts = ImageRowStarts(ctx, "BBoxes", "RoisNum", sd[0], "the [M_total, C, 4] form");
    }
    const int64_t n = shared ? images : static_cast<int64_t>(starts.size()) - 1;
    std::vector<T> rows;
    std::vector<int32_t> index;
    std::vector<size_t> offsets = {0};
    for (int64_t b = 0; b < n; ++b) {
      ImageView<T> v;
      v.shared = shared;
      v.classes = sd[1];
      int64_t index_base;
      if (shared) {
        v.count = sd[2];
        v.scores = sp + b * sd[1] * sd[2];
        v.boxes = bp + b * sd[2] * 4;
        index_base = b * sd[2];
      } else {
        v.count = starts[b + 1] - starts[b];
        v.scores = sp + starts[b] * sd[1];
        v.boxes = bp + starts[b] * sd[1] * 4;
        index_base = starts[b] * sd[1];
      }
      for (const auto& [label, idx] : NmsImage(v, a)) {
        for (int64_t i : idx) {
          rows.push_back(static_cast<T>(label));
          rows.push_back(v.Score(label, i));
          const T* box = v.Box(label, i);
          rows.insert(rows.end(), box, box + 4);
          index.push_back(static_cast<int32_t>(index_base + (shared ? i : i * sd[1] + label)));
        }
      }
      offsets.push_back(rows.size() / 6);
    }
    const int64_t kept = static_cast<int64_t>(offsets.back());
    DenseTensor out;
    framework::LoD lod = {offsets};
    if (kept == 0 && !ReturnsIndex(op)) {
      // multiclass_nms marks an empty result with one -1.
      out = DenseTensor(DDim{1, 1}, scores->dtype());
      out.mutable_data<T>(ctx.GetPlace())[0] = T(-1);
      lod = {{0, 1}};
    } else {
      out = DenseTensor(DDim{kept, 6}, scores->dtype());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      std::copy(rows.begin(), rows.end(), o);
    }
    if (op == "multiclass_nms") out.set_lod(lod);
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* idx = ctx.Output("Index")) {
      DenseTensor t(DDim{kept, 1}, DataType::INT32);
      int32_t* p = t.mutable_data<int32_t>(ctx.GetPlace());
      std::copy(index.begin(), index.end(), p);
      if (op != "multiclass_nms3") t.set_lod(kept == 0 ? framework::LoD{offsets} : lod);
      *idx = std::move(t);
    }
    if (DenseTensor* num = ctx.Output("NmsRoisNum")) {
      DenseTensor t(DDim{n}, DataType::INT32);
      int32_t* p = t.mutable_data<int32_t>(ctx.GetPlace());
      for (int64_t b = 0; b < n; ++b) p[b] = static_cast<int32_t>(offsets[b + 1] - offsets[b]);
      *num = std::move(t);
    }
  }
};

template <int kVersion>
void RegisterNms(const std::string& type) {
  framework::RegisterOp<MulticlassNmsOp, VersionedMaker<kVersion>>(type)
      .InferShape(MulticlassNmsInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        const std::pair<const char*, DataType> outputs[] = {
            {"Out", ctx->GetInputDataType("Scores")},
            {"Index", DataType::INT32},
            {"NmsRoisNum", DataType::INT32}};
        for (const auto& [slot, dtype] : outputs) {
          if (!ctx->HasOutput(slot)) continue;
          ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
          ctx->SetOutputDataType(slot, dtype);
        }
      });
  RegisterPlainCpuFloatKernels<MulticlassNmsKernel>(type);
}

}  // namespace

PL_REGISTER_OPS(RegisterMulticlassNmsOps) {
  RegisterNms<1>("multiclass_nms");
  RegisterNms<2>("multiclass_nms2");
  RegisterNms<3>("multiclass_nms3");
}

}  // namespace operators
}  // namespace paddle_like
