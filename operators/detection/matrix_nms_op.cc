// matrix_nms: Matrix NMS (SOLOv2), PaddlePaddle's matrix_nms, result for result: instead of
// removing overlapping boxes, each box's score decays by its overlaps with better boxes of
// its class, all at once.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/detection/bbox_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "matrix_nms";

class MatrixNmsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("BBoxes", "[N, M, 4] boxes [x_min, y_min, x_max, y_max], shared by the classes.");
    AddInput("Scores", "[N, C, M] per-class scores.");
    AddOutput("Out", "[No, 6] rows [label, decayed score, x_min, y_min, x_max, y_max], images "
                     "one after the other (LoD: the images' row offsets).");
    AddOutput("Index", "int32 [No, 1]: each row's box as an index into the flattened [N * M] "
                       "boxes.");
    AddOutput("RoisNum", "int32 [N]: rows of Out per image.").AsDispensable();
    AddAttr<float>("score_threshold", "Boxes scoring at most this are not candidates.");
    AddAttr<float>("post_threshold", "Boxes whose decayed score is at most this are dropped.")
        .SetDefault(0.0f);
    AddAttr<int>("nms_top_k", "Candidates per class; -1 = all.");
    AddAttr<int>("keep_top_k", "Rows kept per image over all classes; -1 = all.");
    AddAttr<bool>("normalized", "Coordinates in [0, 1] (else pixels: width + 1).")
        .SetDefault(true);
    AddAttr<bool>("use_gaussian", "Gaussian decay (else linear).").SetDefault(false);
    AddAttr<float>("gaussian_sigma", "Sigma of the gaussian decay.").SetDefault(2.0f);
    AddAttr<int>("background_label", "Class skipped; -1 = none.").SetDefault(0);
    AddComment(R"DOC(
Matrix non-maximum suppression (SOLOv2; PaddlePaddle's matrix_nms).

Per image and class c != background_label: the candidates are the boxes scoring above
score_threshold, best first, at most nms_top_k. With IoU_{ij} the overlap of candidates i and
j (j before i) and m_j = max_{k < j} IoU_{jk} (m_0 = 0), candidate i's score s_i becomes
$$s_i' = s_i \min_{j < i} d(IoU_{ij}, m_j), \quad d = \frac{1 - IoU_{ij}}{1 - m_j}
  \text{ (linear)} \text{ or } e^{(m_j^2 - IoU_{ij}^2)\,\sigma} \text{ (gaussian)}$$
(s_0' = s_0) and it is kept when s_i' > post_threshold. Of all kept rows of an image, the
keep_top_k best by decayed score remain, best first. IoU uses area (x_max - x_min)(y_max -
y_min), or with +1 on each side when not normalized.
)DOC");
  }
};

class MatrixNmsOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Scores");
  }
};

void CheckInputs(const DDim& boxes, const DDim& scores) {
  PL_ENFORCE(scores.size() == 3,
             errors::InvalidArgument("op `matrix_nms` input `Scores`: expected [N, C, M], "
                                     "received %s",
                                     scores.ToString()));
  const bool ok = boxes.size() == 3 && (boxes[2] == 4 || boxes[2] < 0) &&
                  (boxes[0] < 0 || scores[0] < 0 || boxes[0] == scores[0]) &&
                  (boxes[1] < 0 || scores[2] < 0 || boxes[1] == scores[2]);
  PL_ENFORCE(ok, errors::InvalidArgument("op `matrix_nms` input `BBoxes`: expected [N, M, 4] for "
                                         "Scores %s, received %s",
                                         scores.ToString(), boxes.ToString()));
}

void MatrixNmsInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("BBoxes");
  ctx->RequireInput("Scores");
  ctx->RequireOutput("Out");
  ctx->RequireOutput("Index");
  CheckInputs(ctx->GetInputDim("BBoxes"), ctx->GetInputDim("Scores"));
  if (ctx->IsRuntime()) return;  // The kernel sets the sizes.
  ctx->SetOutputDim("Out", DDim{-1, 6});
  ctx->SetOutputDim("Index", DDim{-1, 1});
  if (ctx->HasOutput("RoisNum")) ctx->SetOutputDim("RoisNum", DDim{-1});
}

struct Attrs {
  float score_threshold = 0, post_threshold = 0, sigma = 2;
  int nms_top_k = -1;
  bool normalized = true, gaussian = false;
};

struct Kept {
  int box;
  int label;
  double score;
};

// The kept boxes of an image, and the score a box must beat to enter its best keep_top_k:
// classes are visited in order, and the final partial sort takes a later box only when its
// score is above the k-th best before it, so once keep_top_k boxes are kept a later box with a
// score at most the k-th best's can never enter the output.
class KeptBoxes {
 public:
  explicit KeptBoxes(int keep_top_k) : keep_top_k_(keep_top_k) {}
  void Add(const Kept& k) {
    all_.push_back(k);
    if (keep_top_k_ <= 0) return;
    best_.push(k.score);
    if (static_cast<int>(best_.size()) > keep_top_k_) best_.pop();
  }
  // Whether a box whose decayed score is at most `score` may still enter the output.
  bool MayEnter(double score) const {
    return keep_top_k_ < 0 || (keep_top_k_ > 0 && (static_cast<int>(best_.size()) < keep_top_k_ ||
                                                   score > best_.top()));
  }
  const std::vector<Kept>& all() const { return all_; }

 private:
  int keep_top_k_;
  std::vector<Kept> all_;
  std::priority_queue<double, std::vector<double>, std::greater<double>> best_;
};

// Matrix NMS of one class: adds its kept boxes. One pass over the candidates, best first:
// candidate i's IoU with each better candidate j gives both its own largest IoU m_i and its
// decay (which reads m_j of the earlier rows), so no IoU matrix is stored. The pass stops at
// the first candidate whose undecayed score cannot enter the output any more.
template <typename T>
void DecayClass(const T* boxes, const T* scores, int64_t m, int label, const Attrs& a,
                KeptBoxes* kept) {
  std::vector<int> order(static_cast<size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  const auto end = std::remove_if(order.begin(), order.end(),
                                  [&](int i) { return scores[i] <= a.score_threshold; });
  int64_t n = end - order.begin();
  if (n <= 0) return;
  if (a.nms_top_k > -1 && n > a.nms_top_k) n = a.nms_top_k;
  // Best first, by PaddlePaddle's comparator on scores alone: the same partial sort of the
  // same arrangement leaves equal scores where PaddlePaddle's kernel has them.
  std::partial_sort(order.begin(), order.begin() + n, end,
                    [&](int l, int r) { return scores[l] > scores[r]; });
  // The candidates' corners and areas in rows of their own, for the inner loop.
  BoxRows<T> rows;
  std::vector<T> max_iou(n, T(0));
  for (int64_t i = 0; i < n; ++i) rows.Add(boxes + order[i] * 4, a.normalized);
  const T norm = a.normalized ? T(0) : T(1);
  const T sigma = static_cast<T>(a.sigma);
  for (int64_t i = 0; i < n; ++i) {
    const T score = scores[order[i]];
    if (!kept->MayEnter(static_cast<double>(score))) break;
    T decay = T(1), largest = T(0);
    for (int64_t j = 0; j < i; ++j) {
      const T iou = rows.IoU(j, rows.x0[i], rows.y0[i], rows.x1[i], rows.y1[i], rows.area[i], norm);
      largest = std::max(largest, iou);
      const T d = a.gaussian ? std::exp((max_iou[j] * max_iou[j] - iou * iou) * sigma)
                             : (T(1) - iou) / (T(1) - max_iou[j]);
      decay = std::min(decay, d);
    }
    max_iou[i] = largest;
    const T s = i == 0 ? score : decay * score;
    if (s <= static_cast<T>(a.post_threshold)) continue;
    kept->Add({order[i], label, static_cast<double>(s)});
  }
}

template <typename T>
struct MatrixNmsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* bboxes = ctx.Input("BBoxes");
    const DenseTensor* scores = ctx.Input("Scores");
    CheckInputs(bboxes->dims(), scores->dims());
    const int64_t n = scores->dims()[0], classes = scores->dims()[1], m = scores->dims()[2];
    Attrs a;
    a.score_threshold = ctx.Attr<float>("score_threshold");
    a.post_threshold = ctx.Attr<float>("post_threshold");
    a.nms_top_k = ctx.Attr<int>("nms_top_k");
    a.normalized = ctx.Attr<bool>("normalized");
    a.gaussian = ctx.Attr<bool>("use_gaussian");
    a.sigma = ctx.Attr<float>("gaussian_sigma");
    const int keep_top_k = ctx.Attr<int>("keep_top_k");
    const int background = ctx.Attr<int>("background_label");
    std::vector<T> rows;
    std::vector<int32_t> index;
    std::vector<size_t> offsets = {0};
    for (int64_t b = 0; b < n; ++b) {
      const T* boxes = bboxes->data<T>() + b * m * 4;
      KeptBoxes kept_boxes(keep_top_k);
      for (int64_t c = 0; c < classes; ++c) {
        if (c == background) continue;
        DecayClass(boxes, scores->data<T>() + (b * classes + c) * m, m, static_cast<int>(c), a,
                   &kept_boxes);
      }
      const std::vector<Kept>& kept = kept_boxes.all();
      size_t count = kept.size();
      if (keep_top_k > -1) count = std::min(count, static_cast<size_t>(keep_top_k));
      // Best first over the classes, as PaddlePaddle's kernel takes them: a partial sort of
      // the boxes in class-by-class order on scores alone. The boxes DecayClass never adds
      // (below the k-th best score when they come) are those that PaddlePaddle's partial sort
      // passes over without moving anything, so equal scores come out in its order.
      std::vector<int> perm(kept.size());
      std::iota(perm.begin(), perm.end(), 0);
      std::partial_sort(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(count), perm.end(),
                        [&](int l, int r) { return kept[l].score > kept[r].score; });
      for (size_t i = 0; i < count; ++i) {
        const Kept& k = kept[perm[i]];
        rows.push_back(static_cast<T>(k.label));
        rows.push_back(static_cast<T>(k.score));
        for (int j = 0; j < 4; ++j) rows.push_back(boxes[k.box * 4 + j]);
        index.push_back(static_cast<int32_t>(b * m + k.box));
      }
      offsets.push_back(offsets.back() + count);
    }
    const int64_t total = static_cast<int64_t>(index.size());
    DenseTensor out(DDim{total, 6}, scores->dtype());
    std::copy(rows.begin(), rows.end(), out.mutable_data<T>(ctx.GetPlace()));
    out.set_lod({offsets});
    DenseTensor idx(DDim{total, 1}, DataType::INT32);
    std::copy(index.begin(), index.end(), idx.mutable_data<int32_t>(ctx.GetPlace()));
    *ctx.Output("Out") = std::move(out);
    *ctx.Output("Index") = std::move(idx);
    if (DenseTensor* rois = ctx.Output("RoisNum")) {
      DenseTensor t(DDim{n}, DataType::INT32);
      int32_t* p = t.mutable_data<int32_t>(ctx.GetPlace());
      for (int64_t b = 0; b < n; ++b) p[b] = static_cast<int32_t>(offsets[b + 1] - offsets[b]);
      *rois = std::move(t);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMatrixNmsOp) {
  framework::RegisterOp<MatrixNmsOp, MatrixNmsOpMaker>(kOp)
      .InferShape(MatrixNmsInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        const std::pair<const char*, DataType> outputs[] = {
            {"Out", ctx->GetInputDataType("Scores")},
            {"Index", DataType::INT32},
            {"RoisNum", DataType::INT32}};
        for (const auto& [slot, dtype] : outputs) {
          if (!ctx->HasOutput(slot)) continue;
          ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
          ctx->SetOutputDataType(slot, dtype);
        }
      })
      .Checkpoint("matrix_nms: new output RoisNum",
                  framework::OpVersionDesc().NewOutput("RoisNum", "the rows of Out per image"));
  RegisterPlainCpuFloatKernels<MatrixNmsKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
