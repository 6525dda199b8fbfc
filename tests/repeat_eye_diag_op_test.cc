// repeat_interleave, eye and diag_v2 against results built by hand, their doc examples,
// gradients by finite differences, typed errors.
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(RepeatInterleaveOp, RepeatsEachSliceInPlace) {
  operators::RegisterAllOps();
  const DenseTensor ex = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  auto r = RunOp("repeat_interleave", {{"X", {ex}}}, {{"Out", 1}}, {{"Repeats", 2}, {"dim", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1, 1, 2, 2, 3, 3, 4, 4}));
  r = RunOp("repeat_interleave",
            {{"X", {ex}}, {"RepeatsTensor", {MakeTensor<int32_t>({2}, {1, 2})}}}, {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1, 2, 3, 4, 3, 4}));
  // [2, 3, 2] along dim 1 (and -2) with counts [2, 0, 3]: rows by hand.
  const std::vector<double> x = RandomValues(12, -1, 1, 3);
  const std::vector<int> counts = {2, 0, 3};
  std::vector<double> want;
  for (int a = 0; a < 2; ++a) {
    for (int i = 0; i < 3; ++i) {
      for (int k = 0; k < counts[i]; ++k) {
        for (int e = 0; e < 2; ++e) want.push_back(x[(a * 3 + i) * 2 + e]);
      }
    }
  }
  for (int dim : {1, -2}) {
    r = RunOp("repeat_interleave",
              {{"X", {MakeTensor<double>({2, 3, 2}, x)}},
               {"RepeatsTensor", {MakeTensor<int64_t>({3}, {2, 0, 3})}}},
              {{"Out", 1}}, {{"dim", dim}});
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 5, 2}));
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  }
}

TEST(RepeatInterleaveOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (bool tensor : {false, true}) {
    GradCheck check;
    check.op_type = "repeat_interleave";
    check.inputs = {{"X", {MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 4))}}};
    if (tensor) check.inputs["RepeatsTensor"] = {MakeTensor<int64_t>({3}, {1, 3, 0})};
    check.wrt = {"X"};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"Repeats", 2}, {"dim", 0}};
    CheckGradients(check);
  }
}

TEST(RepeatInterleaveOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("repeat_interleave",
              {{"X", {x}}, {"RepeatsTensor", {MakeTensor<int64_t>({3}, {1, 1, 1})}}}, {{"Out", 1}});
      },
      {"op `repeat_interleave` input `RepeatsTensor`", "expected 2 counts", "[3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("repeat_interleave",
              {{"X", {x}}, {"RepeatsTensor", {MakeTensor<int64_t>({2}, {1, -1})}}}, {{"Out", 1}});
      },
      {"op `repeat_interleave` input `RepeatsTensor`", ">= 0", "-1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("repeat_interleave", {{"X", {x}}}, {{"Out", 1}}, {{"Repeats", 1}, {"dim", 2}});
      },
      {"op `repeat_interleave` attribute `dim`"});
}

TEST(EyeOp, OnesOnTheMainDiagonal) {
  operators::RegisterAllOps();
  for (const auto& [rows, cols] :
       std::vector<std::pair<int64_t, int64_t>>{{2, 3}, {4, -1}, {3, 1}, {0, 2}}) {
    for (int dtype : {5, 6, 2, 3}) {
      const auto r = RunOp("eye", {}, {{"Out", 1}},
                           {{"num_rows", rows}, {"num_columns", cols}, {"dtype", dtype}});
      const int64_t c = cols < 0 ? rows : cols;
      std::vector<double> want(rows * c, 0.0);
      for (int64_t i = 0; i < rows && i < c; ++i) want[i * c + i] = 1;
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({rows, c}));
      EXPECT_EQ(r.outputs.at("Out")[0].dtype(), static_cast<DataType>(dtype));
      EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("eye", {}, {{"Out", 1}}, {{"num_rows", int64_t{-2}}});
      },
      {"op `eye`", "num_rows"});
}

TEST(DiagV2Op, VectorsOntoAndOutOfDiagonals) {
  operators::RegisterAllOps();
  auto r =
      RunOp("diag_v2", {{"X", {MakeTensor<float>({2}, {1, 2})}}}, {{"Out", 1}}, {{"offset", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{0, 1, 0, 0, 0, 2, 0, 0, 0}));
  r = RunOp("diag_v2", {{"X", {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}}}, {{"Out", 1}},
            {{"offset", -1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{4}));
  const std::vector<double> v = RandomValues(3, -1, 1, 5);
  for (int k : {-2, 0, 3}) {
    r = RunOp("diag_v2", {{"X", {MakeTensor<double>({3}, v)}}}, {{"Out", 1}},
              {{"offset", k}, {"padding_value", 7.0f}});
    const int64_t side = 3 + std::abs(k);
    std::vector<double> want(side * side, 7.0);
    for (int64_t i = 0; i < 3; ++i) want[(k < 0 ? i - k : i) * side + (k > 0 ? i + k : i)] = v[i];
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want) << "offset " << k;
  }
  const std::vector<double> m = RandomValues(12, -1, 1, 6);
  for (int k : {-2, -1, 0, 1, 3}) {
    r = RunOp("diag_v2", {{"X", {MakeTensor<double>({3, 4}, m)}}}, {{"Out", 1}}, {{"offset", k}});
    std::vector<double> want;
    for (int64_t i = 0; i < 3; ++i) {
      if (i + k >= 0 && i + k < 4) want.push_back(m[i * 4 + i + k]);
    }
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want) << "offset " << k;
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("diag_v2", {{"X", {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}}}, {{"Out", 1}},
              {{"offset", 3}});
      },
      {"op `diag_v2` attribute `offset`", "3", "[2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("diag_v2", {{"X", {MakeTensor<float>({1, 1, 2}, {1, 2})}}}, {{"Out", 1}});
      },
      {"op `diag_v2` input `X`", "rank 0, 1 or 2"});
  // A matrix of 2^62 elements is refused before anything is allocated.
  ExpectError<platform::OutOfRangeError>(
      [] {
        RunOp("diag_v2", {{"X", {MakeTensor<float>({2}, {1, 2})}}}, {{"Out", 1}},
              {{"offset", 2147483647}});
      },
      {"`diag_v2`", "[2147483649, 2147483649]", "exceeds int64"});
}

TEST(DiagV2Op, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const DDim& dims : {DDim{3}, DDim{3, 4}}) {
    GradCheck check;
    check.op_type = "diag_v2";
    check.inputs = {{"X", {MakeTensor<double>(dims, RandomValues(dims.numel(), -1, 1, 8))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"offset", 1}, {"padding_value", 0.5f}};
    CheckGradients(check);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
