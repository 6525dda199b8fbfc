// viterbi_decode against the best of every tag path scored by hand (with and without start
// and stop tags, ragged lengths, a length of 0), the doc's example; gather_tree against
// parents followed by hand and its doc example; typed errors of both.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// The best path of one sequence by enumerating all tags^n paths.
void BestPath(const std::vector<double>& x, int64_t steps, int64_t tags,
              const std::vector<double>& trans, bool bos_eos, int64_t n, double* score,
              std::vector<int64_t>* path) {
  *score = -std::numeric_limits<double>::infinity();
  std::vector<int64_t> y(n, 0);
  int64_t total = 1;
  for (int64_t t = 0; t < n; ++t) total *= tags;
  for (int64_t code = 0; code < total; ++code) {
    int64_t c = code;
    for (int64_t t = n - 1; t >= 0; --t, c /= tags) y[t] = c % tags;
    double s = 0;
    for (int64_t t = 0; t < n; ++t) {
      s += x[t * tags + y[t]];
      if (t > 0) s += trans[y[t - 1] * tags + y[t]];
    }
    if (bos_eos) s += trans[(tags - 1) * tags + y[0]] + trans[(tags - 2) * tags + y[n - 1]];
    if (s > *score) {
      *score = s;
      *path = y;
    }
  }
}

TEST(ViterbiDecodeOp, DocExample) {
  operators::RegisterAllOps();
  const auto r = RunOp("viterbi_decode",
                       {{"Input", {MakeTensor<float>({1, 2, 2}, {1, 0, 0, 2})}},
                        {"Transition", {MakeTensor<float>({2, 2}, {0, 0, 0, 0})}},
                        {"Length", {MakeTensor<int64_t>({1}, {2})}}},
                       {{"Scores", 1}, {"Path", 1}}, {{"include_bos_eos_tag", false}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Scores")[0]), (std::vector<double>{3}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Path")[0]), (std::vector<double>{0, 1}));
}

TEST(ViterbiDecodeOp, FindsTheBestOfEveryPath) {
  operators::RegisterAllOps();
  const int64_t steps = 5, tags = 4;
  const std::vector<int64_t> lengths = {3, 1, 5, 2, 4};
  const int64_t batch = static_cast<int64_t>(lengths.size());
  const std::vector<double> x = RandomValues(batch * steps * tags, -2, 2, 11);
  const std::vector<double> trans = RandomValues(tags * tags, -1, 1, 12);
  for (bool bos_eos : {true, false}) {
    SCOPED_TRACE(bos_eos ? "with start and stop tags" : "without");
    const auto r = RunOp("viterbi_decode",
                         {{"Input", {MakeTensor<double>({batch, steps, tags}, x)}},
                          {"Transition", {MakeTensor<double>({tags, tags}, trans)}},
                          {"Length", {MakeTensor<int32_t>({batch}, {3, 1, 5, 2, 4})}}},
                         {{"Scores", 1}, {"Path", 1}}, {{"include_bos_eos_tag", bos_eos}});
    const DenseTensor& path = r.outputs.at("Path")[0];
    ASSERT_EQ(path.dims(), DDim({batch, 5}));
    const std::vector<double> got_path = ToDoubles(path);
    const std::vector<double> got_score = ToDoubles(r.outputs.at("Scores")[0]);
    for (int64_t b = 0; b < batch; ++b) {
      double score = 0;
      std::vector<int64_t> best;
      BestPath(
          std::vector<double>(x.begin() + b * steps * tags, x.begin() + (b + 1) * steps * tags),
          steps, tags, trans, bos_eos, lengths[b], &score, &best);
      EXPECT_NEAR(got_score[b], score, 1e-12) << "sequence " << b;
      for (int64_t t = 0; t < 5; ++t) {
        EXPECT_EQ(got_path[b * 5 + t], t < lengths[b] ? best[t] : 0)
            << "sequence " << b << " step " << t;
      }
    }
  }
}

TEST(ViterbiDecodeOp, EmptySequenceScoresItsFirstStep) {
  operators::RegisterAllOps();
  // Lengths 0 and 2: Path is [2, 2]; the empty one is all zeros and scores max(x_0 + start).
  const std::vector<double> x = {0.5, -1, 2, 0, 0.25, 1, 3, 1, 0, 0, 0, 0};
  const std::vector<double> trans = {0, 0, 0, 0, 0, 0, 0.5, -4, 0};  // Start row: [0.5, -4, 0].
  const auto r = RunOp("viterbi_decode",
                       {{"Input", {MakeTensor<float>({2, 2, 3}, x)}},
                        {"Transition", {MakeTensor<float>({3, 3}, trans)}},
                        {"Length", {MakeTensor<int64_t>({2}, {0, 2})}}},
                       {{"Scores", 1}, {"Path", 1}});
  EXPECT_DOUBLE_EQ(ToDoubles(r.outputs.at("Scores")[0])[0], 2.0);  // max(1, -5, 2).
  const std::vector<double> path = ToDoubles(r.outputs.at("Path")[0]);
  EXPECT_EQ(path[0], 0);
  EXPECT_EQ(path[1], 0);
}

TEST(ViterbiDecodeOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2, 3, 4}, RandomValues(24, 0, 1));
  const DenseTensor trans = MakeTensor<float>({4, 4}, RandomValues(16, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("viterbi_decode",
              {{"Input", {x}},
               {"Transition", {trans}},
               {"Length", {MakeTensor<int64_t>({2}, {3, 4})}}},
              {{"Scores", 1}, {"Path", 1}});
      },
      {"op `viterbi_decode` input `Length`", "value 4", "outside [0, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("viterbi_decode",
              {{"Input", {x}},
               {"Transition", {MakeTensor<float>({3, 3}, RandomValues(9, 0, 1))}},
               {"Length", {MakeTensor<int64_t>({2}, {1, 2})}}},
              {{"Scores", 1}, {"Path", 1}});
      },
      {"op `viterbi_decode` input `Transition`", "expected [4, 4]", "[3, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("viterbi_decode",
              {{"Input", {x}},
               {"Transition", {trans}},
               {"Length", {MakeTensor<int64_t>({3}, {1, 2, 3})}}},
              {{"Scores", 1}, {"Path", 1}});
      },
      {"op `viterbi_decode` input `Length`", "[2]", "[3]"});
}

TEST(GatherTreeOp, FollowsTheParents) {
  operators::RegisterAllOps();
  const auto ex = RunOp("gather_tree",
                        {{"Ids", {MakeTensor<int64_t>({3, 1, 2}, {2, 2, 6, 1, 3, 9})}},
                         {"Parents", {MakeTensor<int64_t>({3, 1, 2}, {0, 0, 1, 1, 1, 0})}}},
                        {{"Out", 1}});
  EXPECT_EQ(ToDoubles(ex.outputs.at("Out")[0]), (std::vector<double>{2, 2, 1, 6, 3, 9}));
  // Random trees: for each final beam, walk the parents back by hand.
  const int64_t steps = 6, batch = 3, beams = 4;
  std::vector<double> ids = RandomValues(steps * batch * beams, 0, 50, 21);
  std::vector<double> parents = RandomValues(steps * batch * beams, 0, beams, 22);
  for (double& v : ids) v = static_cast<double>(static_cast<int64_t>(v));
  for (double& v : parents) v = static_cast<double>(static_cast<int64_t>(v));
  const auto r = RunOp("gather_tree",
                       {{"Ids", {MakeTensor<int32_t>({steps, batch, beams}, ids)}},
                        {"Parents", {MakeTensor<int32_t>({steps, batch, beams}, parents)}}},
                       {{"Out", 1}});
  const std::vector<double> out = ToDoubles(r.outputs.at("Out")[0]);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t k = 0; k < beams; ++k) {
      int64_t beam = k;
      for (int64_t t = steps - 1; t >= 0; --t) {
        const int64_t at = (t * batch + b) * beams;
        EXPECT_EQ(out[at + k], ids[at + beam]) << "step " << t << " batch " << b << " beam " << k;
        beam = static_cast<int64_t>(parents[at + beam]);
      }
    }
  }
}

TEST(GatherTreeOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("gather_tree",
              {{"Ids", {MakeTensor<int64_t>({2, 1, 2}, {1, 2, 3, 4})}},
               {"Parents", {MakeTensor<int64_t>({2, 1, 2}, {0, 0, 2, 0})}}},
              {{"Out", 1}});
      },
      {"op `gather_tree` input `Parents`", "value 2", "[0, 2)"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("gather_tree",
              {{"Ids", {MakeTensor<int64_t>({2, 1, 2}, {1, 2, 3, 4})}},
               {"Parents", {MakeTensor<int64_t>({2, 2}, {0, 0, 1, 0})}}},
              {{"Out", 1}});
      },
      {"op `gather_tree` input `Parents`", "[2, 1, 2]", "[2, 2]"});
  // Float ids with a NaN parent: refused before any conversion to an index.
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("gather_tree",
              {{"Ids", {MakeTensor<float>({2, 1, 2}, {1, 2, 3, 4})}},
               {"Parents", {MakeTensor<float>({2, 1, 2}, {0, 0, std::nan(""), 0})}}},
              {{"Out", 1}});
      },
      {"op `gather_tree` input `Parents`", "nan", "[0, 2)"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
