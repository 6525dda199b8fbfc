// kthvalue and mode against brute force over each line (a full sort for kthvalue, counts of
// every value for mode), with ties, NaN, every axis, keepdim, every dtype; gradients by finite
// differences and through the fused grad ops; typed errors.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class KthvalueMode : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

// The position chosen in `line`: the k-th in (NaN first, value, position) order for kthvalue
// (k >= 1); for mode (k = 0) the last position of the smallest most frequent value.
int64_t BruteForce(const std::vector<double>& line, int k) {
  const int64_t n = static_cast<int64_t>(line.size());
  if (k > 0) {
    std::vector<std::pair<double, int64_t>> sorted;
    for (int64_t j = 0; j < n; ++j) {
      sorted.push_back({std::isnan(line[j]) ? -1e300 : line[j], j});
    }
    std::sort(sorted.begin(), sorted.end());
    return sorted[k - 1].second;
  }
  int64_t best = -1, best_count = 0;
  for (int64_t j = 0; j < n; ++j) {
    int64_t count = 0, last = j;
    for (int64_t i = 0; i < n; ++i) {
      if (line[i] == line[j]) {
        ++count;
        last = i;
      }
    }
    if (count > best_count || (count == best_count && line[j] < line[best])) {
      best = last;
      best_count = count;
    }
  }
  return best;
}

TEST_F(KthvalueMode, DocExamples) {
  auto r = RunOp("kthvalue", {{"X", {MakeTensor<float>({4}, {3, 1, 2, 1})}}},
                 {{"Out", 1}, {"Indices", 1}}, {{"k", 2}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim());
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), (std::vector<double>{3}));
  r = RunOp("mode", {{"X", {MakeTensor<float>({5}, {2, 1, 2, 1, 3})}}},
            {{"Out", 1}, {"Indices", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), (std::vector<double>{3}));
}

TEST_F(KthvalueMode, EveryAxisMatchesBruteForce) {
  const std::vector<int64_t> dims = {2, 5, 3};
  // Values from a small set: many ties.
  std::vector<double> x = RandomValues(30, 0, 4, 3);
  for (double& v : x) v = std::floor(v);
  for (int axis = -3; axis < 3; ++axis) {
    const int a = axis < 0 ? axis + 3 : axis;
    for (int k : {0, 1, 2, static_cast<int>(dims[a])}) {
      for (bool keepdim : {false, true}) {
        const std::string op = k == 0 ? "mode" : "kthvalue";
        const std::string what = op + " axis " + std::to_string(axis) + " k " + std::to_string(k) +
                                 (keepdim ? " keepdim" : "");
        // The expected positions and values, line by line.
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < a; ++i) outer *= dims[i];
        for (int i = a + 1; i < 3; ++i) inner *= dims[i];
        std::vector<double> want_idx, want_val;
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t i = 0; i < inner; ++i) {
            std::vector<double> line;
            for (int64_t j = 0; j < dims[a]; ++j) line.push_back(x[(o * dims[a] + j) * inner + i]);
            const int64_t at = BruteForce(line, k);
            want_idx.push_back(static_cast<double>(at));
            want_val.push_back(line[at]);
          }
        }
        std::vector<int64_t> out_dims;
        for (int i = 0; i < 3; ++i) {
          if (i != a) out_dims.push_back(dims[i]);
          if (i == a && keepdim) out_dims.push_back(1);
        }
        AttributeMap attrs = {{"axis", axis}, {"keepdim", keepdim}};
        if (k > 0) attrs["k"] = k;
        for (const DenseTensor& t :
             {MakeTensor<double>(DDim(dims), x), MakeTensor<float>(DDim(dims), x),
              MakeTensor<int64_t>(DDim(dims), x)}) {
          const auto r = RunOp(op, {{"X", {t}}}, {{"Out", 1}, {"Indices", 1}}, attrs);
          EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(out_dims)) << what;
          EXPECT_EQ(r.outputs.at("Out")[0].dtype(), t.dtype()) << what;
          EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want_val) << what;
          EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), want_idx) << what;
        }
      }
    }
  }
}

TEST_F(KthvalueMode, NaNRanksFirstAndNeverTies) {
  const double nan = std::nan("");
  const DenseTensor x = MakeTensor<double>({6}, {2, nan, 1, nan, 2, 1});
  auto r = RunOp("kthvalue", {{"X", {x}}}, {{"Out", 1}, {"Indices", 1}}, {{"k", 1}});
  EXPECT_TRUE(std::isnan(ToDoubles(r.outputs.at("Out")[0])[0]));
  EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), (std::vector<double>{1}));
  r = RunOp("kthvalue", {{"X", {x}}}, {{"Out", 1}, {"Indices", 1}}, {{"k", 3}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), (std::vector<double>{2}));
  // Two NaNs are two distinct values: 1 and 2 both occur twice, 1 is smaller.
  r = RunOp("mode", {{"X", {x}}}, {{"Out", 1}, {"Indices", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), (std::vector<double>{5}));
}

TEST_F(KthvalueMode, GradientsGoToTheChosenPosition) {
  for (const char* op : {"kthvalue", "mode"}) {
    for (int axis : {0, 1, -1}) {
      SCOPED_TRACE(std::string(op) + " axis " + std::to_string(axis));
      GradCheck c;
      c.op_type = op;
      c.inputs = {{"X", {MakeTensor<double>({3, 4, 2}, RandomValues(24, -2, 2, 5))}}};
      c.outputs = {{"Out", 1}, {"Indices", 1}};
      c.loss_outputs = {"Out"};
      c.attrs = {{"axis", axis}, {"keepdim", axis == 0}};
      if (std::string(op) == "kthvalue") c.attrs["k"] = 2;
      CheckGradients(c);
    }
  }
  // With ties the fused op sends each dOut to the one position Indices names.
  const DenseTensor x = MakeTensor<double>({2, 3}, {1, 1, 0, 5, 5, 5});
  const auto f = RunOp("mode", {{"X", {x}}}, {{"Out", 1}, {"Indices", 1}}, {{"axis", 1}});
  const auto g = RunOp("mode_grad",
                       {{"X", {x}},
                        {"Indices", {f.outputs.at("Indices")[0]}},
                        {"Out@GRAD", {MakeTensor<double>({2}, {3, 7})}}},
                       {{"X@GRAD", 1}}, {{"axis", 1}});
  EXPECT_EQ(ToDoubles(g.outputs.at("X@GRAD")[0]), (std::vector<double>{0, 3, 0, 0, 0, 7}));
}

TEST_F(KthvalueMode, BadArgumentsAreRefused) {
  const DenseTensor x = MakeTensor<float>({2, 3}, RandomValues(6, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("kthvalue", {{"X", {x}}}, {{"Out", 1}, {"Indices", 1}}, {{"k", 4}});
      },
      {"op `kthvalue` attribute `k`", "[1, 3]", "4"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("kthvalue", {{"X", {x}}}, {{"Out", 1}, {"Indices", 1}}, {{"k", 0}});
      },
      {"op `kthvalue` attribute `k`", "0"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("mode", {{"X", {x}}}, {{"Out", 1}, {"Indices", 1}}, {{"axis", 2}});
      },
      {"op `mode`", "axis"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("mode", {{"X", {MakeTensor<float>({2, 0}, {})}}}, {{"Out", 1}, {"Indices", 1}});
      },
      {"op `mode` input `X`", "empty", "[2, 0]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
