// searchsorted against counting the row elements below (or not above) each value, for 1-D and
// batched sequences, NaN, both output types; bincount against counting, with and without
// weights of every type; histogram against bins counted in double (given and data ranges,
// integer X, weights, density); typed errors.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class SearchAndCount : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(SearchAndCount, SearchsortedCountsTheRowElementsBelow) {
  const double nan = std::nan("");
  // Doc example, and NaN after every number.
  auto r = RunOp("searchsorted",
                 {{"SortedSequence", {MakeTensor<double>({4}, {1, 2, 2, 3})}},
                  {"Values", {MakeTensor<double>({4}, {2, 0, 5, nan})}}},
                 {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1, 0, 4, 4}));
  r = RunOp("searchsorted",
            {{"SortedSequence", {MakeTensor<double>({4}, {1, 2, 2, 3})}},
             {"Values", {MakeTensor<double>({4}, {2, 0, 5, nan})}}},
            {{"Out", 1}}, {{"right", true}, {"out_int32", true}});
  EXPECT_EQ(r.outputs.at("Out")[0].dtype(), DataType::INT32);
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{3, 0, 4, 4}));
  // Batched rows [2, 5] with values [2, 3]; ties from a coarse grid.
  std::vector<double> seq = RandomValues(10, 0, 4, 3), values = RandomValues(6, -1, 5, 4);
  for (double& v : seq) v = std::floor(v);
  for (double& v : values) v = std::floor(v);
  std::sort(seq.begin(), seq.begin() + 5);
  std::sort(seq.begin() + 5, seq.end());
  for (bool right : {false, true}) {
    std::vector<double> want;
    for (int i = 0; i < 6; ++i) {
      int count = 0;
      for (int j = 0; j < 5; ++j) {
        const double s = seq[(i / 3) * 5 + j];
        count += right ? s <= values[i] : s < values[i];
      }
      want.push_back(count);
    }
    for (bool as_int : {false, true}) {
      const DenseTensor st =
          as_int ? MakeTensor<int64_t>({2, 5}, seq) : MakeTensor<float>({2, 5}, seq);
      const DenseTensor vt =
          as_int ? MakeTensor<int64_t>({2, 3}, values) : MakeTensor<float>({2, 3}, values);
      const auto b = RunOp("searchsorted", {{"SortedSequence", {st}}, {"Values", {vt}}},
                           {{"Out", 1}}, {{"right", right}});
      EXPECT_EQ(b.outputs.at("Out")[0].dims(), DDim({2, 3}));
      EXPECT_EQ(ToDoubles(b.outputs.at("Out")[0]), want) << (right ? "right" : "left");
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("searchsorted",
              {{"SortedSequence", {MakeTensor<float>({2, 5}, seq)}},
               {"Values", {MakeTensor<float>({3, 2}, values)}}},
              {{"Out", 1}});
      },
      {"op `searchsorted` input `Values`", "[2, 5]", "[3, 2]"});
}

TEST_F(SearchAndCount, BincountCountsAndSumsWeights) {
  const std::vector<double> ids = {1, 3, 3, 0, 7, 3};
  for (bool long_ids : {false, true}) {
    const DenseTensor x = long_ids ? MakeTensor<int64_t>({6}, ids) : MakeTensor<int32_t>({6}, ids);
    auto r = RunOp("bincount", {{"X", {x}}}, {{"Out", 1}});
    EXPECT_EQ(r.outputs.at("Out")[0].dtype(), DataType::INT64);
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1, 1, 0, 3, 0, 0, 0, 1}));
    r = RunOp("bincount", {{"X", {x}}}, {{"Out", 1}}, {{"minlength", 10}});
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({10}));
    const std::vector<double> w = {0.5, 1, 2, 4, 8, 16};
    const std::vector<double> want = {4, 0.5, 0, 19, 0, 0, 0, 8};
    for (const DenseTensor& wt : {MakeTensor<float>({6}, w), MakeTensor<double>({6}, w),
                                  MakeTensor<int32_t>({6}, {1, 1, 2, 4, 8, 16})}) {
      const auto s = RunOp("bincount", {{"X", {x}}, {"Weights", {wt}}}, {{"Out", 1}});
      const DataType want_type =
          wt.dtype() == DataType::FLOAT32 ? DataType::FLOAT32 : DataType::FLOAT64;
      EXPECT_EQ(s.outputs.at("Out")[0].dtype(), want_type);
      std::vector<double> expect = want;
      if (wt.dtype() == DataType::INT32) expect[1] = 1;  // The int weight is 1, not 0.5.
      EXPECT_EQ(ToDoubles(s.outputs.at("Out")[0]), expect);
    }
  }
  const auto empty =
      RunOp("bincount", {{"X", {MakeTensor<int64_t>({0}, {})}}}, {{"Out", 1}}, {{"minlength", 3}});
  EXPECT_EQ(ToDoubles(empty.outputs.at("Out")[0]), (std::vector<double>{0, 0, 0}));
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("bincount", {{"X", {MakeTensor<int64_t>({3}, {1, -2, 0})}}}, {{"Out", 1}});
      },
      {"op `bincount` input `X`", "non-negative", "-2", "index 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("bincount",
              {{"X", {MakeTensor<int64_t>({3}, {1, 2, 0})}},
               {"Weights", {MakeTensor<float>({2}, {1, 2})}}},
              {{"Out", 1}});
      },
      {"op `bincount` input `Weights`", "[3]", "[2]"});
}

// Bins of the values in [lo, hi] counted here in double: floor((v - lo) * bins / (hi - lo)),
// the last bin closed.
std::vector<double> CountBins(const std::vector<double>& v, const std::vector<double>& w,
                              int64_t bins, double lo, double hi) {
  std::vector<double> out(static_cast<size_t>(bins), 0.0);
  for (size_t i = 0; i < v.size(); ++i) {
    if (!(v[i] >= lo && v[i] <= hi)) continue;
    const auto b = std::min<int64_t>(
        static_cast<int64_t>(std::floor((v[i] - lo) * bins / (hi - lo))), bins - 1);
    out[static_cast<size_t>(b)] += w.empty() ? 1.0 : w[i];
  }
  return out;
}

TEST_F(SearchAndCount, HistogramCountsValuesInEqualBins) {
  const double nan = std::nan("");
  // Values away from the bin edges (a float rounding there could move a value), an outlier
  // on each side, hi itself (the last bin) and a NaN (never counted).
  std::vector<double> x = {0.13, 0.61, 1.77, 2.2, 2.9, -5, 9, 3.0, 0.41, 1.13, 2.47, nan};
  const DenseTensor xt = MakeTensor<float>({3, 4}, x);
  auto r = RunOp("histogram", {{"X", {xt}}}, {{"Out", 1}},
                 {{"bins", int64_t{6}}, {"min", 0.0f}, {"max", 3.0f}});
  EXPECT_EQ(r.outputs.at("Out")[0].dtype(), DataType::INT64);
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), CountBins(x, {}, 6, 0, 3));
  // min = max: the data's range (NaN-free data).
  x.pop_back();
  r = RunOp("histogram", {{"X", {MakeTensor<double>({11}, x)}}}, {{"Out", 1}},
            {{"bins", int64_t{4}}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), CountBins(x, {}, 4, -5, 9));
  // One value only: the range becomes [v - 1, v + 1].
  r = RunOp("histogram", {{"X", {MakeTensor<double>({2}, {2.5, 2.5})}}}, {{"Out", 1}},
            {{"bins", int64_t{4}}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{0, 0, 2, 0}));
  // Integer X: the bin by integer division, (v - lo) * bins / (hi - lo).
  const std::vector<double> ints = {0, 1, 2, 3, 4, 5, 6, 7, 7, -1, 8};
  r = RunOp("histogram", {{"X", {MakeTensor<int32_t>({11}, ints)}}}, {{"Out", 1}},
            {{"bins", int64_t{3}}, {"min", 0.0f}, {"max", 7.0f}});
  std::vector<double> want(3, 0.0);
  for (double v : ints) {
    if (v >= 0 && v <= 7) want[std::min<int64_t>(static_cast<int64_t>(v) * 3 / 7, 2)] += 1;
  }
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  // Weights give float32 sums; density scales them to integrate to 1.
  const std::vector<double> v = {0.2, 0.7, 1.4, 1.6, 2.5}, w = {1.5, -0.5, 2, 0.25, 3};
  const SlotTensors weighted = {{"X", {MakeTensor<double>({5}, v)}},
                                {"Weight", {MakeTensor<double>({5}, w)}}};
  r = RunOp("histogram", weighted, {{"Out", 1}},
            {{"bins", int64_t{3}}, {"min", 0.0f}, {"max", 3.0f}});
  EXPECT_EQ(r.outputs.at("Out")[0].dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), CountBins(v, w, 3, 0, 3), 1e-6, 1e-6, "sums");
  r = RunOp("histogram", weighted, {{"Out", 1}},
            {{"bins", int64_t{3}}, {"min", 0.0f}, {"max", 3.0f}, {"density", true}});
  std::vector<double> density = CountBins(v, w, 3, 0, 3);
  double total = 0;
  for (double d : density) total += d;
  for (double& d : density) d *= 3 / 3.0 / total;
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), density, 1e-6, 1e-6, "density");

  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("histogram", {{"X", {xt}}}, {{"Out", 1}}, {{"bins", int64_t{0}}});
      },
      {"op `histogram` attribute `bins`", "at least 1", "0"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("histogram", {{"X", {xt}}}, {{"Out", 1}},
              {{"bins", int64_t{2}}, {"min", 3.0f}, {"max", 1.0f}});
      },
      {"op `histogram`", "min <= max", "min 3, max 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("histogram", {{"X", {MakeTensor<float>({3}, {nan, 1, 2})}}}, {{"Out", 1}},
              {{"bins", int64_t{2}}});
      },
      {"op `histogram`", "not finite"});  // The range of data led by a NaN.
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("histogram",
              {{"X", {MakeTensor<double>({5}, v)}},
               {"Weight", {MakeTensor<double>({4}, {1, 2, 3, 4})}}},
              {{"Out", 1}}, {{"bins", int64_t{2}}});
      },
      {"op `histogram` input `Weight`", "[5]", "[4]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
