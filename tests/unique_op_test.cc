// unique against distinct values and slices found by hand (sorted, flattened or along an
// axis, and in order of first appearance), with every optional output, index types, NaN,
// the doc's example and typed errors; unique_consecutive against runs found by a scan
// written here.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

std::map<std::string, int> AllOutputs() {
  return {{"Out", 1}, {"Index", 1}, {"Indices", 1}, {"Counts", 1}};
}

AttributeMap Wanting(bool sorted, std::vector<int> axis = {}, int dtype = 3) {
  return {{"is_sorted", sorted},   {"return_index", true}, {"return_inverse", true},
          {"return_counts", true}, {"axis", axis},         {"dtype", dtype}};
}

TEST(UniqueOp, DocExample) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<int64_t>({6}, {2, 3, 3, 1, 5, 3});
  auto r = RunOp("unique", {{"X", {x}}}, AllOutputs(), Wanting(true));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1, 2, 3, 5}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), (std::vector<double>{3, 0, 1, 4}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Index")[0]), (std::vector<double>{1, 2, 2, 0, 3, 2}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Counts")[0]), (std::vector<double>{1, 1, 3, 1}));
  r = RunOp("unique", {{"X", {x}}}, {{"Out", 1}, {"Index", 1}}, {{"is_sorted", false}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{2, 3, 1, 5}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Index")[0]), (std::vector<double>{0, 1, 1, 2, 3, 1}));
  EXPECT_EQ(r.outputs.at("Index")[0].dtype(), DataType::INT32);  // The attribute's default.
}

TEST(UniqueOp, MatchesDistinctValuesFoundByHand) {
  operators::RegisterAllOps();
  std::vector<double> x = RandomValues(40, 0, 6, 3);
  for (double& v : x) v = std::floor(v);
  const auto r =
      RunOp("unique", {{"X", {MakeTensor<float>({5, 8}, x)}}}, AllOutputs(), Wanting(true, {}, 2));
  std::map<double, std::vector<int64_t>> where;  // Sorted values -> their positions.
  for (size_t i = 0; i < x.size(); ++i) where[x[i]].push_back(static_cast<int64_t>(i));
  std::vector<double> out, first, counts, inverse(x.size());
  for (const auto& [v, at] : where) {
    for (int64_t i : at) inverse[i] = static_cast<double>(out.size());
    out.push_back(v);
    first.push_back(static_cast<double>(at.front()));
    counts.push_back(static_cast<double>(at.size()));
  }
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), out);
  EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), first);
  EXPECT_EQ(ToDoubles(r.outputs.at("Index")[0]), inverse);
  EXPECT_EQ(ToDoubles(r.outputs.at("Counts")[0]), counts);
  EXPECT_EQ(r.outputs.at("Counts")[0].dtype(), DataType::INT32);
}

TEST(UniqueOp, DistinctSlicesAlongAnAxis) {
  operators::RegisterAllOps();
  // Columns of a [2, 5] matrix: (1,0) (0,2) (1,0) (0,1) (0,2).
  const DenseTensor x = MakeTensor<double>({2, 5}, {1, 0, 1, 0, 0, 0, 2, 0, 1, 2});
  auto r = RunOp("unique", {{"X", {x}}}, AllOutputs(), Wanting(true, {1}));
  // Sorted columns: (0,1) (0,2) (1,0).
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 3}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{0, 0, 1, 1, 2, 0}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), (std::vector<double>{3, 1, 0}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Index")[0]), (std::vector<double>{2, 1, 2, 0, 1}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Counts")[0]), (std::vector<double>{1, 2, 2}));
  // Rows (axis 0, written as -2): the same matrix transposed.
  const DenseTensor t = MakeTensor<double>({5, 2}, {1, 0, 0, 2, 1, 0, 0, 1, 0, 2});
  r = RunOp("unique", {{"X", {t}}}, AllOutputs(), Wanting(true, {-2}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{0, 1, 0, 2, 1, 0}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Index")[0]), (std::vector<double>{2, 1, 2, 0, 1}));
}

TEST(UniqueOp, NaNsAreOneValueAboveEveryNumber) {
  operators::RegisterAllOps();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto r = RunOp("unique", {{"X", {MakeTensor<double>({5}, {nan, 1, nan, -2, 1})}}},
                       AllOutputs(), Wanting(true));
  const std::vector<double> out = ToDoubles(r.outputs.at("Out")[0]);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], -2);
  EXPECT_EQ(out[1], 1);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(ToDoubles(r.outputs.at("Counts")[0]), (std::vector<double>{1, 2, 2}));
}

TEST(UniqueOp, BadAttributesAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2, 3}, RandomValues(6, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unique", {{"X", {x}}}, AllOutputs(), Wanting(true, {2}));
      },
      {"op `unique` attribute `axis`", "2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unique", {{"X", {x}}}, AllOutputs(), Wanting(true, {0, 1}));
      },
      {"op `unique` attribute `axis`", "at most one axis"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unique", {{"X", {x}}}, AllOutputs(), Wanting(false, {0}));
      },
      {"op `unique` attribute `axis`", "is_sorted"});
}

// Runs of equal neighbours among `n` rows of `width` values, found by a scan written here.
struct Runs {
  std::vector<double> starts, inverse, counts;
};
Runs FindRuns(const std::vector<double>& rows, int64_t n, int64_t width) {
  Runs r;
  for (int64_t i = 0; i < n; ++i) {
    bool same = i > 0;
    for (int64_t k = 0; same && k < width; ++k) {
      same = rows[i * width + k] == rows[static_cast<int64_t>(r.starts.back()) * width + k];
    }
    if (!same) {
      r.starts.push_back(static_cast<double>(i));
      r.counts.push_back(0);
    }
    r.inverse.push_back(static_cast<double>(r.starts.size() - 1));
    ++r.counts.back();
  }
  return r;
}

TEST(UniqueConsecutiveOp, DocExampleAndNaNs) {
  operators::RegisterAllOps();
  const AttributeMap all = {{"return_inverse", true}, {"return_counts", true}, {"dtype", 3}};
  auto r =
      RunOp("unique_consecutive", {{"X", {MakeTensor<int32_t>({8}, {1, 1, 2, 2, 3, 1, 1, 2})}}},
            {{"Out", 1}, {"Index", 1}, {"Counts", 1}}, all);
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1, 2, 3, 1, 2}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Index")[0]), (std::vector<double>{0, 0, 1, 1, 2, 3, 3, 4}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Counts")[0]), (std::vector<double>{2, 2, 1, 2, 1}));
  EXPECT_EQ(r.outputs.at("Out")[0].dtype(), DataType::INT32);
  EXPECT_EQ(r.outputs.at("Index")[0].dtype(), DataType::INT64);
  // NaNs never merge (== is false for them); the attribute's old default gives float indices.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  r = RunOp("unique_consecutive", {{"X", {MakeTensor<double>({5}, {nan, nan, 1, 1, nan})}}},
            {{"Out", 1}, {"Index", 1}, {"Counts", 1}},
            {{"return_inverse", true}, {"return_counts", true}});
  EXPECT_EQ(r.outputs.at("Out")[0].numel(), 4);
  EXPECT_EQ(ToDoubles(r.outputs.at("Counts")[0]), (std::vector<double>{1, 1, 2, 1}));
  EXPECT_EQ(r.outputs.at("Counts")[0].dtype(), DataType::FLOAT32);
  // Without return_* only Out is written; an empty X gives empty outputs.
  r = RunOp("unique_consecutive", {{"X", {MakeTensor<float>({0}, {})}}}, {{"Out", 1}}, all);
  EXPECT_EQ(r.outputs.at("Out")[0].numel(), 0);
}

TEST(UniqueConsecutiveOp, RunsOfValuesAndOfSlicesMatchAScan) {
  operators::RegisterAllOps();
  std::vector<double> x = RandomValues(60, 0, 3, 11);
  for (double& v : x) v = std::floor(v);
  const AttributeMap flat = {{"return_inverse", true}, {"return_counts", true}, {"dtype", 2}};
  auto r = RunOp("unique_consecutive", {{"X", {MakeTensor<float>({6, 10}, x)}}},
                 {{"Out", 1}, {"Index", 1}, {"Counts", 1}}, flat);
  Runs want = FindRuns(x, 60, 1);
  std::vector<double> values;
  for (double s : want.starts) values.push_back(x[static_cast<size_t>(s)]);
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), values);
  EXPECT_EQ(ToDoubles(r.outputs.at("Index")[0]), want.inverse);
  EXPECT_EQ(ToDoubles(r.outputs.at("Counts")[0]), want.counts);

  // Along axis 1 (and -2) of [2, 5, 3]: slices X[:, i, :], with repeated neighbours planted.
  std::vector<double> y = RandomValues(30, 0, 2, 5);
  for (double& v : y) v = std::floor(v);
  for (int64_t a = 0; a < 2; ++a) {
    for (int64_t k = 0; k < 3; ++k) {
      y[(a * 5 + 2) * 3 + k] = y[(a * 5 + 1) * 3 + k];  // Slice 2 repeats slice 1.
      y[(a * 5 + 4) * 3 + k] = y[(a * 5 + 3) * 3 + k];  // Slice 4 repeats slice 3.
    }
  }
  std::vector<double> rows(30);
  for (int64_t a = 0; a < 2; ++a) {
    for (int64_t i = 0; i < 5; ++i) {
      for (int64_t k = 0; k < 3; ++k) rows[i * 6 + a * 3 + k] = y[(a * 5 + i) * 3 + k];
    }
  }
  want = FindRuns(rows, 5, 6);
  ASSERT_LE(want.starts.size(), 3u);
  for (int axis : {1, -2}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    AttributeMap attrs = flat;
    attrs["axis"] = std::vector<int>{axis};
    r = RunOp("unique_consecutive", {{"X", {MakeTensor<double>({2, 5, 3}, y)}}},
              {{"Out", 1}, {"Index", 1}, {"Counts", 1}}, attrs);
    const int64_t u = static_cast<int64_t>(want.starts.size());
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, u, 3}));
    std::vector<double> out;
    for (int64_t a = 0; a < 2; ++a) {
      for (int64_t k = 0; k < u; ++k) {
        for (int64_t c = 0; c < 3; ++c) {
          out.push_back(y[(a * 5 + static_cast<int64_t>(want.starts[k])) * 3 + c]);
        }
      }
    }
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), out);
    EXPECT_EQ(ToDoubles(r.outputs.at("Index")[0]), want.inverse);
    EXPECT_EQ(ToDoubles(r.outputs.at("Counts")[0]), want.counts);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unique_consecutive", {{"X", {MakeTensor<double>({2, 5, 3}, y)}}}, {{"Out", 1}},
              {{"axis", std::vector<int>{3}}});
      },
      {"op `unique_consecutive`", "axis", "3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unique_consecutive", {{"X", {MakeTensor<double>({2, 5, 3}, y)}}}, {{"Out", 1}},
              {{"axis", std::vector<int>{0, 1}}});
      },
      {"op `unique_consecutive` attribute `axis`", "at most one axis"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
