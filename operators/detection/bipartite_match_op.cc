// bipartite_match: SSD's matching of ground-truth boxes (rows) to priors (columns) from a
// similarity matrix, per image of a LoD batch, greedily by the largest similarity, as
// PaddlePaddle's kernel does it (its two methods: below 130 rows a scan for the largest
// remaining entry, at 130 and above one sort of all entries; ties go to the smaller column,
// then the smaller row, where PaddlePaddle's unstable sort leaves them open).
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "bipartite_match";

class BipartiteMatchOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("DistMat",
             "[rows, M] similarities (float or double) of each ground-truth box to each of M "
             "priors; a level-1 LoD splits the rows by image (none: one image).");
    AddOutput("ColToRowMatchIndices",
              "int32 [images, M]: the row (within its image) matched to each column, or -1.");
    AddOutput("ColToRowMatchDist", "[images, M]: the matched similarity, or 0.");
    AddAttr<std::string>("match_type",
                         "bipartite, or per_prediction: then every column still unmatched takes "
                         "its most similar row when that is at least dist_threshold.")
        .SetDefault("bipartite")
        .InEnum({"bipartite", "per_prediction"});
    AddAttr<float>("dist_threshold", "The per_prediction threshold.").SetDefault(0.5f);
    AddComment(R"DOC(
Bipartite match: repeatedly the largest similarity between an unmatched row and an unmatched
column pairs them, while one is positive (at least 1e-6 below 130 rows):
$$(i^*, j^*) = \arg\max_{i \notin R, j \notin C} D_{ij}, \quad
ColToRowMatchIndices_{j^*} = i^*$$
per_prediction then matches each remaining column j to $\arg\max_i D_{ij}$ where that is at
least dist_threshold. No gradient.
)DOC");
  }
};

class BipartiteMatchOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void BipartiteMatchInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("DistMat");
  const DDim d = ctx->GetInputDim("DistMat");
  PL_ENFORCE(d.size() == 2, errors::InvalidArgument("op `%s` input `DistMat`: expected rank 2 "
                                                    "([rows, M]), received %s",
                                                    kOp, d.ToString()));
  if (ctx->IsRuntime()) return;  // The images come from the LoD.
  for (const char* slot : {"ColToRowMatchIndices", "ColToRowMatchDist"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDim(slot, DDim{-1, d[1]});
  }
}

void BipartiteMatchInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("ColToRowMatchIndices", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("ColToRowMatchIndices", DataType::INT32);
  ctx->SetOutputKind("ColToRowMatchDist", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("ColToRowMatchDist", ctx->GetInputDataType("DistMat"));
}

// Greedy matching of one image's rows x cols similarities into match (-1: none) and dist.
template <typename T>
void Match(const T* d, int64_t rows, int64_t cols, int32_t* match, T* dist) {
  if (rows >= 130) {
    std::vector<int64_t> order(static_cast<size_t>(rows * cols));
    std::iota(order.begin(), order.end(), 0);
    // Equal similarities in column order, then row order (as the scan below takes them).
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      if (d[a] != d[b]) return d[a] > d[b];
      return a % cols != b % cols ? a % cols < b % cols : a < b;
    });
    std::vector<bool> row_used(static_cast<size_t>(rows), false);
    int64_t matched = 0;
    for (int64_t k : order) {
      if (matched >= rows) break;
      const int64_t i = k / cols, j = k % cols;
      if (match[j] == -1 && !row_used[i] && d[k] > T(0)) {
        match[j] = static_cast<int32_t>(i);
        dist[j] = d[k];
        row_used[i] = true;
        ++matched;
      }
    }
    return;
  }
  const T eps = static_cast<T>(1e-6);
  std::vector<int64_t> pool(static_cast<size_t>(rows));
  std::iota(pool.begin(), pool.end(), 0);
  while (!pool.empty()) {
    int64_t best_col = -1, best_row = -1;
    T best = T(-1);
    for (int64_t j = 0; j < cols; ++j) {
      if (match[j] != -1) continue;
      for (int64_t i : pool) {
        const T v = d[i * cols + j];
        if (v < eps) continue;
        if (v > best) best = v, best_col = j, best_row = i;
      }
    }
    if (best_col == -1) break;
    match[best_col] = static_cast<int32_t>(best_row);
    dist[best_col] = best;
    pool.erase(std::find(pool.begin(), pool.end(), best_row));
  }
}

// per_prediction: each unmatched column takes its most similar row at or above threshold.
template <typename T>
void MatchRemainingColumns(const T* d, int64_t rows, int64_t cols, T threshold, int32_t* match,
                           T* dist) {
  const T eps = static_cast<T>(1e-6);
  for (int64_t j = 0; j < cols; ++j) {
    if (match[j] != -1) continue;
    int64_t best_row = -1;
    T best = T(-1);
    for (int64_t i = 0; i < rows; ++i) {
      const T v = d[i * cols + j];
      if (v < eps) continue;
      if (v >= threshold && v > best) best = v, best_row = i;
    }
    if (best_row != -1) {
      match[j] = static_cast<int32_t>(best_row);
      dist[j] = best;
    }
  }
}

template <typename T>
struct BipartiteMatchKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* d = ctx.Input("DistMat");
    PL_ENFORCE(d->dims().size() == 2,
               errors::InvalidArgument("op `%s` input `DistMat`: expected rank 2, received %s", kOp,
                                       d->dims().ToString()));
    PL_ENFORCE(d->lod().size() <= 1,
               errors::InvalidArgument("op `%s` input `DistMat`: expected at most one LoD "
                                       "level, received %zu",
                                       kOp, d->lod().size()));
    const int64_t rows = d->dims()[0], cols = d->dims()[1];
    std::vector<size_t> offsets = {0, static_cast<size_t>(rows)};
    if (!d->lod().empty()) {
      offsets = d->lod()[0];
      PL_ENFORCE(offsets.size() >= 2 && offsets.front() == 0 &&
                     offsets.back() == static_cast<size_t>(rows) &&
                     std::is_sorted(offsets.begin(), offsets.end()),
                 errors::InvalidArgument("op `%s` input `DistMat`: its LoD does not split its "
                                         "%lld rows",
                                         kOp, static_cast<long long>(rows)));
    }
    const int64_t images = static_cast<int64_t>(offsets.size()) - 1;
    DenseTensor indices(DDim{images, cols}, DataType::INT32);
    DenseTensor dist(DDim{images, cols}, d->dtype());
    int32_t* m = indices.mutable_data<int32_t>(ctx.GetPlace());
    T* v = dist.mutable_data<T>(ctx.GetPlace());
    std::fill(m, m + indices.numel(), -1);
    std::fill(v, v + dist.numel(), T(0));
    const bool per_prediction = ctx.Attr<std::string>("match_type") == "per_prediction";
    const T threshold = static_cast<T>(ctx.Attr<float>("dist_threshold"));
    for (int64_t b = 0; b < images; ++b) {
      const int64_t n = static_cast<int64_t>(offsets[b + 1] - offsets[b]);
      if (n == 0) continue;
      const T* rows_of = d->data<T>() + offsets[b] * cols;
      Match(rows_of, n, cols, m + b * cols, v + b * cols);
      if (per_prediction) {
        MatchRemainingColumns(rows_of, n, cols, threshold, m + b * cols, v + b * cols);
      }
    }
    *ctx.Output("ColToRowMatchIndices") = std::move(indices);
    *ctx.Output("ColToRowMatchDist") = std::move(dist);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterBipartiteMatchOp) {
  framework::RegisterOp<BipartiteMatchOp, BipartiteMatchOpMaker>(kOp)
      .InferShape(BipartiteMatchInferShape)
      .InferVarType(BipartiteMatchInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<BipartiteMatchKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
