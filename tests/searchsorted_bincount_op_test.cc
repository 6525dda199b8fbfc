// searchsorted against counting the row elements below (or not above) each value, for 1-D and
// batched sequences, NaN, both output types; bincount against counting, with and without
// weights of every type; typed errors.
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

}  // namespace
}  // namespace testing
}  // namespace paddle_like
