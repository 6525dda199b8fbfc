// atan2, logit and trunc against the C library in double (every quadrant, axes and the
// origin for atan2; clipping and eps = 0 for logit; halves and negatives for trunc), gradients
// by finite differences (second order for atan2, whose backward is written with ops), typed
// errors.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class MathOps : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(MathOps, Atan2CoversEveryQuadrant) {
  const std::vector<double> y = {1, 1, -1, -1, 0, 0, 2, -3, 0};
  const std::vector<double> x = {1, -1, -1, 1, 1, -1, 0, 0, 0};
  std::vector<double> want;
  for (size_t i = 0; i < y.size(); ++i) want.push_back(std::atan2(y[i], x[i]));
  for (bool as_float : {false, true}) {
    const DenseTensor a = as_float ? MakeTensor<float>({3, 3}, y) : MakeTensor<double>({3, 3}, y);
    const DenseTensor b = as_float ? MakeTensor<float>({3, 3}, x) : MakeTensor<double>({3, 3}, x);
    const auto r = RunOp("atan2", {{"X1", {a}}, {"X2", {b}}}, {{"Out", 1}});
    EXPECT_EQ(r.outputs.at("Out")[0].dtype(), a.dtype());
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, as_float ? 1e-7 : 1e-15, 1e-7, "atan2");
  }
  // Integers give float64.
  const auto i = RunOp(
      "atan2",
      {{"X1", {MakeTensor<int64_t>({2}, {1, -2})}}, {"X2", {MakeTensor<int64_t>({2}, {-1, 0})}}},
      {{"Out", 1}});
  EXPECT_EQ(i.outputs.at("Out")[0].dtype(), DataType::FLOAT64);
  ExpectNear(ToDoubles(i.outputs.at("Out")[0]), {3 * M_PI / 4, -M_PI / 2}, 1e-15, 0, "int64");
}

TEST_F(MathOps, LogitClipsAndTruncRoundsTowardsZero) {
  const std::vector<double> x = {0.25, 0.5, 0.9, 1e-9, 1 - 1e-9, -0.5, 1.5, 0, 1};
  for (float eps : {0.0f, 1e-6f, 0.1f}) {
    std::vector<double> want;
    for (double v : x) {
      if (eps == 0 && (v < 0 || v > 1)) {
        want.push_back(1e300);  // NaN, compared below as a flag.
        continue;
      }
      const double c = std::min(std::max(v, static_cast<double>(eps)), 1.0 - eps);
      want.push_back(std::log(c / (1 - c)));
    }
    std::vector<double> got = ToDoubles(
        RunOp("logit", {{"X", {MakeTensor<double>({9}, x)}}}, {{"Out", 1}}, {{"eps", eps}})
            .outputs.at("Out")[0]);
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(got[i])) got[i] = 1e300;
      if (std::isinf(got[i])) got[i] = got[i] > 0 ? 1e299 : -1e299;
      if (std::isinf(want[i])) want[i] = want[i] > 0 ? 1e299 : -1e299;
    }
    ExpectNear(got, want, 1e-12, 1e-12, "logit eps " + std::to_string(eps));
  }
  const std::vector<double> t = {2.5, -2.5, 0.7, -0.7, 3, -0.0, 1e10 + 0.5};
  std::vector<double> want;
  for (double v : t) want.push_back(std::trunc(v));
  ExpectNear(
      ToDoubles(
          RunOp("trunc", {{"X", {MakeTensor<double>({7}, t)}}}, {{"Out", 1}}).outputs.at("Out")[0]),
      want, 0, 0, "trunc");
}

TEST_F(MathOps, GradientsMatchFiniteDifferences) {
  GradCheck atan2;
  atan2.op_type = "atan2";
  atan2.inputs = {{"X1", {MakeTensor<double>({2, 3}, RandomValues(6, -2, 2, 3))}},
                  {"X2", {MakeTensor<double>({2, 3}, RandomValues(6, -2, 2, 4))}}};
  atan2.outputs = {{"Out", 1}};
  atan2.max_order = 2;
  CheckGradients(atan2);
  // Inside [eps, 1 - eps] and outside it (zero gradient there).
  GradCheck logit;
  logit.op_type = "logit";
  logit.inputs = {{"X", {MakeTensor<double>({6}, {0.2, 0.45, 0.8, 0.97, 0.01, 0.99})}}};
  logit.outputs = {{"Out", 1}};
  logit.attrs = {{"eps", 0.05f}};
  CheckGradients(logit);
  // trunc's gradient is zero (away from the integers).
  const auto g = NthGradient("trunc", {{"X", {MakeTensor<double>({3}, {0.5, -1.5, 2.25})}}},
                             {{"Out", 1}}, {}, 1);
  EXPECT_EQ(ToDoubles(g.at("X_0")), (std::vector<double>{0, 0, 0}));
}

TEST_F(MathOps, Atan2RefusesMismatchedOperands) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("atan2",
              {{"X1", {MakeTensor<float>({2, 3}, RandomValues(6, 0, 1))}},
               {"X2", {MakeTensor<float>({3}, RandomValues(3, 0, 1))}}},
              {{"Out", 1}});
      },
      {"op `atan2` input `X2`", "[2, 3]", "[3]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
