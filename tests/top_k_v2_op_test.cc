// top_k_v2: lines along every axis against a sort written here, largest and smallest, ties by
// position, NaN placement, a 0-D input, K as a tensor, typed errors, and the gradient by finite
// differences. PaddlePaddle's own outputs are checked by the fixture test
// (tests/fixtures/ops/top_k_v2_*).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class TopKV2Op : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

const std::map<std::string, int> kOutputs = {{"Out", 1}, {"Indices", 1}};

TEST_F(TopKV2Op, EveryAxisMatchesASortedLine) {
  const std::vector<int64_t> dims = {3, 4, 5};
  const std::vector<double> x = RandomValues(60, -5, 5, 17);
  for (int axis : {0, 1, 2, -1}) {
    for (bool largest : {true, false}) {
      const int a = axis < 0 ? axis + 3 : axis;
      const int64_t n = dims[a], k = 2;
      const std::string what =
          "axis " + std::to_string(axis) + (largest ? " largest" : " smallest");
      const auto r = RunOp("top_k_v2", {{"X", {MakeTensor<double>(DDim(dims), x)}}}, kOutputs,
                           {{"k", 2}, {"axis", axis}, {"largest", largest}});
      const std::vector<double> out = ToDoubles(r.outputs.at("Out")[0]);
      const std::vector<double> idx = ToDoubles(r.outputs.at("Indices")[0]);
      std::vector<int64_t> out_dims = dims;
      out_dims[a] = k;
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(out_dims)) << what;
      // Each line: gather, sort, compare the first k.
      const int64_t inner = a == 2 ? 1 : (a == 1 ? 5 : 20), outer = 60 / (n * inner);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          std::vector<int64_t> pos(static_cast<size_t>(n));
          std::iota(pos.begin(), pos.end(), 0);
          auto at = [&](int64_t j) { return x[(o * n + j) * inner + i]; };
          std::sort(pos.begin(), pos.end(),
                    [&](int64_t p, int64_t q) { return largest ? at(p) > at(q) : at(p) < at(q); });
          for (int64_t j = 0; j < k; ++j) {
            EXPECT_EQ(idx[(o * k + j) * inner + i], pos[j]) << what;
            EXPECT_EQ(out[(o * k + j) * inner + i], at(pos[j])) << what;
          }
        }
      }
    }
  }
}

TEST_F(TopKV2Op, TiesNanAndZeroD) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Which of the three 2s come first is PaddlePaddle's order (its fixtures); NaN leads the
  // largest and trails the smallest.
  const std::vector<double> x = {2, nan, 2, 7, 2};
  const auto hi = RunOp("top_k_v2", {{"X", {MakeTensor<double>({5}, x)}}}, kOutputs, {{"k", 4}});
  ExpectNear(ToDoubles(hi.outputs.at("Out")[0]), {nan, 7, 2, 2}, 0, 0, "largest values");
  EXPECT_EQ(ToDoubles(hi.outputs.at("Indices")[0]).at(0), 1) << "NaN first";
  ExpectIndicesHoldValues(x, 5, hi.outputs.at("Indices")[0], {nan, 7, 2, 2}, 4, "largest order");
  const auto lo = RunOp("top_k_v2", {{"X", {MakeTensor<double>({5}, x)}}}, kOutputs,
                        {{"k", 5}, {"largest", false}});
  ExpectNear(ToDoubles(lo.outputs.at("Out")[0]), {2, 2, 2, 7, nan}, 0, 0, "smallest values");
  ExpectIndicesHoldValues(x, 5, lo.outputs.at("Indices")[0], {2, 2, 2, 7, nan}, 5,
                          "smallest order");
  const auto zero_d =
      RunOp("top_k_v2", {{"X", {MakeTensor<float>(DDim(std::vector<int64_t>{}), {3.5})}}}, kOutputs,
            {{"k", 1}});
  EXPECT_EQ(zero_d.outputs.at("Out")[0].dims().size(), 0);
  ExpectNear(ToDoubles(zero_d.outputs.at("Out")[0]), {3.5}, 0, 0, "0-D");
  const auto k_tensor = RunOp("top_k_v2",
                              {{"X", {MakeTensor<int64_t>({2, 3}, {4, 9, 1, 0, -2, 8})}},
                               {"K", {MakeTensor<int32_t>({1}, {2})}}},
                              kOutputs, {{"k", 1}});
  ExpectNear(ToDoubles(k_tensor.outputs.at("Out")[0]), {9, 4, 8, 0}, 0, 0, "K tensor");
}

TEST_F(TopKV2Op, BadKAndAxisNameWhatIsWrong) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("top_k_v2", {{"X", {MakeTensor<double>({2, 3}, std::vector<double>(6))}}}, kOutputs,
              {{"k", 4}});
      },
      {"op `top_k_v2` attribute `k`", "expected k in [1, 3]", "received 4"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("top_k_v2", {{"X", {MakeTensor<double>({2, 3}, std::vector<double>(6))}}}, kOutputs,
              {{"k", 1}, {"axis", 2}});
      },
      {"op `top_k_v2` attribute `axis`", "[-2, 2)", "received 2"});
}

TEST_F(TopKV2Op, GradientMatchesFiniteDifferences) {
  for (int axis : {0, -1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    GradCheck check;
    check.op_type = "top_k_v2";
    check.inputs = {{"X",
                     {MakeTensor<double>({3, 4}, {0.3, -1.2, 2.5, 0.9, 1.7, -0.4, 0.1, 2.2, -2.0,
                                                  1.1, 0.6, -0.8})}}};
    check.outputs = kOutputs;
    check.attrs = {{"k", 2}, {"axis", axis}};
    check.loss_outputs = {"Out"};
    CheckGradients(check);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
