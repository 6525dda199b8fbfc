// bipartite_match (operators/detection/bipartite_match_op.cc): a hand-worked matrix; random
// matrices on both of the kernel's methods (below and from 130 rows) against the other method
// written here (repeated arg-max against one sort of all entries); per_prediction's extra
// matches; LoD batches with an empty image; bad inputs. PaddlePaddle's outputs: fixtures
// bipartite_match_*.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "operators/registry.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Matching {
  std::vector<double> indices, dist;
};

Matching RunMatch(const DenseTensor& d, const std::string& type, float threshold = 0.5f) {
  const OpRunResult r = RunOp("bipartite_match", {{"DistMat", {d}}},
                              {{"ColToRowMatchIndices", 1}, {"ColToRowMatchDist", 1}},
                              {{"match_type", type}, {"dist_threshold", threshold}});
  EXPECT_EQ(r.outputs.at("ColToRowMatchIndices")[0].dtype(), DataType::INT32);
  return {ToDoubles(r.outputs.at("ColToRowMatchIndices")[0]),
          ToDoubles(r.outputs.at("ColToRowMatchDist")[0])};
}

// Greedy matching by repeated arg-max over the unmatched rows and columns (for a matrix of
// 130 rows or more, whose kernel sorts instead) or by one descending sort of all entries (for
// fewer rows, whose kernel scans); entries must be distinct and positive.
Matching Reference(const std::vector<double>& d, int64_t rows, int64_t cols) {
  Matching m{std::vector<double>(cols, -1), std::vector<double>(cols, 0)};
  std::vector<bool> row_used(rows, false);
  if (rows >= 130) {
    while (true) {
      int64_t bi = -1, bj = -1;
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          if (row_used[i] || m.indices[j] != -1) continue;
          if (bi == -1 || d[i * cols + j] > d[bi * cols + bj]) bi = i, bj = j;
        }
      }
      if (bi == -1) break;
      m.indices[bj] = bi;
      m.dist[bj] = d[bi * cols + bj];
      row_used[bi] = true;
    }
    return m;
  }
  std::vector<int64_t> order(rows * cols);
  for (int64_t k = 0; k < rows * cols; ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return d[a] > d[b]; });
  for (int64_t k : order) {
    const int64_t i = k / cols, j = k % cols;
    if (row_used[i] || m.indices[j] != -1) continue;
    m.indices[j] = i;
    m.dist[j] = d[k];
    row_used[i] = true;
  }
  return m;
}

TEST(BipartiteMatchOp, HandWorkedMatrix) {
  operators::RegisterAllOps();
  // Rows (ground truth) x columns (priors). 0.9 pairs (1, 2); then 0.6 pairs (0, 0); row 2's
  // best remaining is 0.3 at column 1. per_prediction adds column 3 -> row 1 (0.55 >= 0.5).
  const DenseTensor d =
      MakeTensor<float>({3, 4}, {0.6, 0.2, 0.7, 0.1, 0.0, 0.1, 0.9, 0.55, 0.2, 0.3, 0.8, 0.0});
  const Matching b = RunMatch(d, "bipartite");
  EXPECT_EQ(b.indices, std::vector<double>({0, 2, 1, -1}));
  ExpectNear(b.dist, {0.6, 0.3, 0.9, 0}, 1e-7, 0, "bipartite dist");
  const Matching p = RunMatch(d, "per_prediction");
  EXPECT_EQ(p.indices, std::vector<double>({0, 2, 1, 1}));
  ExpectNear(p.dist, {0.6, 0.3, 0.9, 0.55}, 1e-7, 0, "per_prediction dist");
}

TEST(BipartiteMatchOp, BothMethodsAgainstTheOtherOne) {
  operators::RegisterAllOps();
  for (int64_t rows : {7, 129, 130, 150}) {
    const int64_t cols = rows < 100 ? 11 : 140;
    SCOPED_TRACE(std::to_string(rows) + " rows");
    const std::vector<double> d = RandomValues(rows * cols, 0.01, 1, 150 + rows);
    const Matching got = RunMatch(MakeTensor<double>({rows, cols}, d), "bipartite");
    const Matching want = Reference(d, rows, cols);
    EXPECT_EQ(got.indices, want.indices);
    EXPECT_EQ(got.dist, want.dist);
  }
}

TEST(BipartiteMatchOp, LodBatchesMatchEachImage) {
  operators::RegisterAllOps();
  const int64_t cols = 6;
  const std::vector<double> d = RandomValues(5 * cols, 0.01, 1, 160);
  DenseTensor t = MakeTensor<double>({5, cols}, d);
  t.set_lod({{0, 2, 2, 5}});  // The second image has no ground truth.
  const Matching got = RunMatch(t, "per_prediction", 0.3f);
  ASSERT_EQ(got.indices.size(), 18u);
  const Matching first =
      RunMatch(MakeTensor<double>({2, cols}, std::vector<double>(d.begin(), d.begin() + 12)),
               "per_prediction", 0.3f);
  const Matching third =
      RunMatch(MakeTensor<double>({3, cols}, std::vector<double>(d.begin() + 12, d.end())),
               "per_prediction", 0.3f);
  EXPECT_EQ(std::vector<double>(got.indices.begin(), got.indices.begin() + 6), first.indices);
  EXPECT_EQ(std::vector<double>(got.indices.begin() + 6, got.indices.begin() + 12),
            std::vector<double>(6, -1));
  EXPECT_EQ(std::vector<double>(got.indices.begin() + 12, got.indices.end()), third.indices);
  // per_prediction: a column is matched when the bipartite phase matched it or its best row
  // reaches the threshold (then to that row).
  const Matching bip = RunMatch(
      MakeTensor<double>({3, cols}, std::vector<double>(d.begin() + 12, d.end())), "bipartite");
  for (int64_t j = 0; j < cols; ++j) {
    int64_t best_row = 0;
    for (int64_t i = 1; i < 3; ++i) {
      if (d[(2 + i) * cols + j] > d[(2 + best_row) * cols + j]) best_row = i;
    }
    if (bip.indices[j] != -1) {
      EXPECT_EQ(third.indices[j], bip.indices[j]) << "column " << j;
    } else if (d[(2 + best_row) * cols + j] >= 0.3) {
      EXPECT_EQ(third.indices[j], best_row) << "column " << j;
    } else {
      EXPECT_EQ(third.indices[j], -1) << "column " << j;
    }
  }
}

TEST(BipartiteMatchOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunMatch(MakeTensor<float>({4}, {1, 2, 3, 4}), "bipartite");
      },
      {"op `bipartite_match` input `DistMat`", "rank 2"});
  DenseTensor t = MakeTensor<float>({3, 2}, RandomValues(6, 0, 1));
  t.set_lod({{0, 2}});
  ExpectError<platform::InvalidArgumentError>([&] { RunMatch(t, "bipartite"); },
                                              {"op `bipartite_match` input `DistMat`", "LoD"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunMatch(MakeTensor<float>({2, 2}, {1, 0, 0, 1}), "greedy");
      },
      {"bipartite_match", "match_type"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
