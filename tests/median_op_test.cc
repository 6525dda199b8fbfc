// median and nanmedian against a full sort of each reduced line (every axis set, keepdim,
// both modes, every dtype), NaN handling, gradients by finite differences and through the
// fused grad ops; typed errors.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class MedianOps : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

struct Expected {
  std::vector<double> values, index;
};

// Brute force over X [2, 3, 4] reduced over `axes` (empty: all): lines gathered by explicit
// loops, sorted by (value, position) with NaN handled per op.
Expected BruteForce(const std::vector<double>& x, const std::vector<int>& axes, bool avg,
                    bool skip_nan) {
  const int dims[3] = {2, 3, 4};
  bool reduced[3] = {axes.empty(), axes.empty(), axes.empty()};
  for (int a : axes) reduced[a < 0 ? a + 3 : a] = true;
  Expected e;
  // Kept positions in row-major order, reduced positions row-major inside each line.
  for (int i0 = 0; i0 < (reduced[0] ? 1 : dims[0]); ++i0) {
    for (int i1 = 0; i1 < (reduced[1] ? 1 : dims[1]); ++i1) {
      for (int i2 = 0; i2 < (reduced[2] ? 1 : dims[2]); ++i2) {
        std::vector<double> line;
        for (int j0 = 0; j0 < (reduced[0] ? dims[0] : 1); ++j0) {
          for (int j1 = 0; j1 < (reduced[1] ? dims[1] : 1); ++j1) {
            for (int j2 = 0; j2 < (reduced[2] ? dims[2] : 1); ++j2) {
              const int a = reduced[0] ? j0 : i0, b = reduced[1] ? j1 : i1,
                        c = reduced[2] ? j2 : i2;
              line.push_back(x[(a * 3 + b) * 4 + c]);
            }
          }
        }
        std::vector<std::pair<double, int>> valid;
        int first_nan = -1;
        for (int j = 0; j < static_cast<int>(line.size()); ++j) {
          if (std::isnan(line[j])) {
            if (first_nan < 0) first_nan = j;
          } else {
            valid.push_back({line[j], j});
          }
        }
        std::sort(valid.begin(), valid.end());
        int lo, hi;
        double v;
        if (!skip_nan && first_nan >= 0) {
          v = std::nan(""), lo = hi = first_nan;
        } else if (valid.empty()) {
          v = std::nan(""), lo = hi = -1;
        } else {
          const size_t n = valid.size();
          hi = valid[n / 2].second;
          lo = n % 2 ? hi : valid[n / 2 - 1].second;
          v = avg ? (line[lo] + line[hi]) / 2 : line[lo];
          if (!avg) hi = lo;
        }
        e.values.push_back(v);
        e.index.push_back(lo);
        if (avg) e.index.push_back(hi);
      }
    }
  }
  return e;
}

void ExpectSameWithNan(const std::vector<double>& got, const std::vector<double>& want,
                       const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-6 * std::max(1.0, std::fabs(want[i]))) << what << " " << i;
    }
  }
}

TEST_F(MedianOps, EveryAxisSetModeAndDtypeMatchesSorting) {
  std::vector<double> x = RandomValues(24, -5, 5, 11);
  for (double& v : x) v = std::round(v * 4) / 4;  // ties on purpose
  const std::vector<std::vector<int>> axis_sets = {{}, {0}, {1}, {-1}, {0, 2}, {2, 0}, {0, 1, 2}};
  for (const char* op : {"median", "nanmedian"}) {
    const bool nan_op = std::string(op) == "nanmedian";
    for (const auto& axes : axis_sets) {
      for (bool keepdim : {false, true}) {
        for (const char* mode : {"avg", "min"}) {
          const bool avg = std::string(mode) == "avg";
          const Expected e = BruteForce(x, axes, avg, nan_op);
          std::vector<int64_t> out_dims;
          const bool all = axes.empty();
          for (int d = 0; d < 3; ++d) {
            bool r = all;
            for (int a : axes) r = r || (a < 0 ? a + 3 : a) == d;
            if (!r) out_dims.push_back(d == 0 ? 2 : d == 1 ? 3 : 4);
            if (r && keepdim) out_dims.push_back(1);
          }
          std::vector<int64_t> index_dims = out_dims;
          if (avg) index_dims.push_back(2);
          AttributeMap attrs = {{"keepdim", keepdim}, {"mode", std::string(mode)}};
          if (nan_op) {
            attrs["axis"] = axes;
          } else {
            attrs["axis"] = std::vector<int64_t>(axes.begin(), axes.end());
          }
          const std::string in = nan_op ? "X" : "x", out = nan_op ? "Out" : "out",
                            index = nan_op ? "MedianIndex" : "medians";
          for (DataType dt : {DataType::FLOAT32, DataType::FLOAT64}) {
            const std::string what = std::string(op) + " axes " + std::to_string(axes.size()) +
                                     (axes.empty() ? "" : " first " + std::to_string(axes[0])) +
                                     " " + mode + (keepdim ? " keepdim " : " ") +
                                     platform::DataTypeName(dt);
            const DenseTensor t = dt == DataType::FLOAT32 ? MakeTensor<float>({2, 3, 4}, x)
                                                          : MakeTensor<double>({2, 3, 4}, x);
            const auto r = RunOp(op, {{in, {t}}}, {{out, 1}, {index, 1}}, attrs);
            EXPECT_EQ(r.outputs.at(out)[0].dims(), DDim(out_dims)) << what;
            EXPECT_EQ(r.outputs.at(out)[0].dtype(), dt) << what;
            EXPECT_EQ(r.outputs.at(index)[0].dims(), DDim(index_dims)) << what;
            ExpectSameWithNan(ToDoubles(r.outputs.at(out)[0]), e.values, what);
            EXPECT_EQ(ToDoubles(r.outputs.at(index)[0]), e.index) << what;
          }
        }
      }
    }
  }
}

TEST_F(MedianOps, IntegersAverageWithIntegerDivision) {
  const DenseTensor x = MakeTensor<int64_t>({2, 4}, {1, 2, 4, 3, 7, 8, 6, 5});
  const auto r = RunOp("median", {{"x", {x}}}, {{"out", 1}, {"medians", 1}},
                       {{"axis", std::vector<int64_t>{1}}, {"keepdim", false}});
  EXPECT_EQ(ToDoubles(r.outputs.at("out")[0]), (std::vector<double>{2, 6}));
  EXPECT_EQ(ToDoubles(r.outputs.at("medians")[0]), (std::vector<double>{1, 3, 2, 0}));
  const auto i32 = RunOp("nanmedian", {{"X", {MakeTensor<int32_t>({3}, {-5, 0, -2})}}},
                         {{"Out", 1}, {"MedianIndex", 1}}, {{"mode", std::string("min")}});
  EXPECT_EQ(ToDoubles(i32.outputs.at("Out")[0]), (std::vector<double>{-2}));
}

TEST_F(MedianOps, NanLinesFollowEachOpsRule) {
  const double nan = std::nan("");
  // Rows: one NaN, no NaN, only NaNs.
  const std::vector<double> x = {3, 1, nan, 2, 5, 4, 7, 6, nan, nan, nan, nan};
  for (bool nan_op : {false, true}) {
    const auto r = RunOp(nan_op ? "nanmedian" : "median",
                         {{nan_op ? "X" : "x", {MakeTensor<float>({3, 4}, x)}}},
                         {{nan_op ? "Out" : "out", 1}, {nan_op ? "MedianIndex" : "medians", 1}},
                         {{"axis", nan_op ? framework::Attribute(std::vector<int>{1})
                                          : framework::Attribute(std::vector<int64_t>{1})},
                          {"keepdim", false}});
    const std::vector<double> values = ToDoubles(r.outputs.at(nan_op ? "Out" : "out")[0]);
    const std::vector<double> index =
        ToDoubles(r.outputs.at(nan_op ? "MedianIndex" : "medians")[0]);
    if (nan_op) {  // the median of {3, 1, 2} is 2, at 3; -1 for the row of NaNs
      EXPECT_EQ(values[0], 2);
      EXPECT_EQ(index, (std::vector<double>{3, 3, 0, 3, -1, -1}));
    } else {  // NaN at the first NaN
      EXPECT_TRUE(std::isnan(values[0]));
      EXPECT_EQ(index, (std::vector<double>{2, 2, 0, 3, 0, 0}));
    }
    EXPECT_EQ(values[1], 5.5);
    EXPECT_TRUE(std::isnan(values[2]));
  }
}

TEST_F(MedianOps, GradientsGoToTheMiddleValues) {
  for (const char* op : {"median", "nanmedian"}) {
    const bool nan_op = std::string(op) == "nanmedian";
    for (const char* mode : {"avg", "min"}) {
      for (const std::vector<int>& axes : std::vector<std::vector<int>>{{}, {1}, {0, 2}}) {
        SCOPED_TRACE(std::string(op) + " " + mode + " axes " + std::to_string(axes.size()));
        GradCheck c;
        c.op_type = op;
        c.inputs = {
            {nan_op ? "X" : "x", {MakeTensor<double>({2, 3, 4}, RandomValues(24, -2, 2, 5))}}};
        c.outputs = {{nan_op ? "Out" : "out", 1}, {nan_op ? "MedianIndex" : "medians", 1}};
        c.loss_outputs = {nan_op ? "Out" : "out"};
        c.attrs = {{"mode", std::string(mode)}, {"keepdim", axes.size() == 1}};
        if (nan_op) {
          c.attrs["axis"] = axes;
        } else {
          c.attrs["axis"] = std::vector<int64_t>(axes.begin(), axes.end());
        }
        CheckGradients(c);
      }
    }
  }
  // A NaN-only line gets no gradient; an even line splits dOut between its middle values.
  const double nan = std::nan("");
  const DenseTensor x = MakeTensor<double>({2, 2}, {nan, nan, 4, 1});
  const auto f = RunOp("nanmedian", {{"X", {x}}}, {{"Out", 1}, {"MedianIndex", 1}},
                       {{"axis", std::vector<int>{1}}, {"keepdim", false}});
  const auto g = RunOp("nanmedian_grad",
                       {{"X", {x}},
                        {"MedianIndex", {f.outputs.at("MedianIndex")[0]}},
                        {"Out@GRAD", {MakeTensor<double>({2}, {3, 8})}}},
                       {{"X@GRAD", 1}}, {{"axis", std::vector<int>{1}}, {"keepdim", false}});
  EXPECT_EQ(ToDoubles(g.outputs.at("X@GRAD")[0]), (std::vector<double>{0, 0, 4, 4}));
}

TEST_F(MedianOps, BadArgumentsAreRefused) {
  const DenseTensor x = MakeTensor<float>({2, 3}, RandomValues(6, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("nanmedian", {{"X", {x}}}, {{"Out", 1}, {"MedianIndex", 1}},
              {{"axis", std::vector<int>{2}}});
      },
      {"op `nanmedian` attribute `axis`", "[-2, 2)", "2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("median", {{"x", {x}}}, {{"out", 1}, {"medians", 1}},
              {{"axis", std::vector<int64_t>{1, -1}}});
      },
      {"op `median` attribute `axis`", "dim 1", "twice"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("median", {{"x", {MakeTensor<float>({2, 0}, {})}}}, {{"out", 1}, {"medians", 1}},
              {{"axis", std::vector<int64_t>{1}}});
      },
      {"op `median` input `x`", "[2, 0]", "no element"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("median", {{"x", {x}}}, {{"out", 1}, {"medians", 1}}, {{"mode", std::string("max")}});
      },
      {"median", "mode", "max"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
