// rrelu (inference slope, random training slopes within bounds and reproducible from a seed,
// the gradient through Noise) and erfinv (against erf, the ends of [-1, 1], its gradient by
// finite differences to the second order); typed errors.
#include <cmath>
#include <string>
#include <vector>

#include "platform/random.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class RreluErfinv : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(RreluErfinv, RreluSlopes) {
  const std::vector<double> x = {-2, -0.5, 0, 1.5, -1, 3};
  const auto t = RunOp("rrelu", {{"X", {MakeTensor<double>({6}, x)}}}, {{"Out", 1}, {"Noise", 1}},
                       {{"lower", 0.1f}, {"upper", 0.3f}, {"is_test", true}});
  const double mid = (static_cast<double>(0.1f) + static_cast<double>(0.3f)) / 2;
  ExpectNear(ToDoubles(t.outputs.at("Out")[0]), {-2 * mid, -0.5 * mid, 0, 1.5, -mid, 3}, 1e-15, 0,
             "is_test");
  ExpectNear(ToDoubles(t.outputs.at("Noise")[0]), {mid, mid, 1, 1, mid, 1}, 1e-15, 0, "noise");
  // Training: slopes in [lower, upper], Out = X * Noise, the same for the same seed.
  const std::vector<double> many = RandomValues(200, -1, 1, 3);
  platform::SetDefaultSeed(42);
  const auto a = RunOp("rrelu", {{"X", {MakeTensor<double>({200}, many)}}},
                       {{"Out", 1}, {"Noise", 1}}, {{"lower", 0.1f}, {"upper", 0.3f}});
  platform::SetDefaultSeed(42);
  const auto b = RunOp("rrelu", {{"X", {MakeTensor<double>({200}, many)}}},
                       {{"Out", 1}, {"Noise", 1}}, {{"lower", 0.1f}, {"upper", 0.3f}});
  const std::vector<double> noise = ToDoubles(a.outputs.at("Noise")[0]);
  const std::vector<double> out = ToDoubles(a.outputs.at("Out")[0]);
  EXPECT_EQ(noise, ToDoubles(b.outputs.at("Noise")[0]));
  double lo = 1, hi = 0;
  for (size_t i = 0; i < many.size(); ++i) {
    if (many[i] >= 0) {
      EXPECT_EQ(noise[i], 1);
    } else {
      lo = std::min(lo, noise[i]);
      hi = std::max(hi, noise[i]);
    }
    EXPECT_EQ(out[i], many[i] * noise[i]);
  }
  EXPECT_GE(lo, static_cast<double>(0.1f));
  EXPECT_LE(hi, static_cast<double>(0.3f));
  EXPECT_LT(lo, 0.12);  // Spread over the range, not one value.
  EXPECT_GT(hi, 0.28);
  // The gradient is dOut * Noise (inference slopes: deterministic, so finite differences).
  GradCheck g;
  g.op_type = "rrelu";
  g.inputs = {{"X", {MakeTensor<double>({6}, {-2, -0.5, 0.2, 1.5, -1, 3})}}};
  g.outputs = {{"Out", 1}, {"Noise", 1}};
  g.loss_outputs = {"Out"};
  g.attrs = {{"is_test", true}};
  CheckGradients(g);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("rrelu", {{"X", {MakeTensor<double>({6}, x)}}}, {{"Out", 1}, {"Noise", 1}},
              {{"lower", 0.5f}, {"upper", 0.2f}});
      },
      {"op `rrelu`", "lower", "upper", "0.5", "0.2"});
}

TEST_F(RreluErfinv, ErfinvInvertsErf) {
  std::vector<double> y = RandomValues(40, -3.5, 3.5, 5);
  std::vector<double> x;
  for (double v : y) x.push_back(std::erf(v));
  for (bool as_float : {false, true}) {
    const DenseTensor t = as_float ? MakeTensor<float>({40}, x) : MakeTensor<double>({40}, x);
    const std::vector<double> got =
        ToDoubles(RunOp("erfinv", {{"X", {t}}}, {{"Out", 1}}).outputs.at("Out")[0]);
    for (size_t i = 0; i < x.size(); ++i) {
      // Compare through erf, which is well conditioned where erfinv is not (near +-1).
      EXPECT_NEAR(std::erf(got[i]), as_float ? static_cast<double>(static_cast<float>(x[i])) : x[i],
                  as_float ? 2e-7 : 1e-15)
          << i;
    }
  }
  const std::vector<double> ends = ToDoubles(
      RunOp("erfinv", {{"X", {MakeTensor<double>({5}, {1, -1, 1.5, -2, 0})}}}, {{"Out", 1}})
          .outputs.at("Out")[0]);
  EXPECT_EQ(ends[0], INFINITY);
  EXPECT_EQ(ends[1], -INFINITY);
  EXPECT_TRUE(std::isnan(ends[2]) && std::isnan(ends[3]));
  EXPECT_EQ(ends[4], 0);
  GradCheck g;
  g.op_type = "erfinv";
  g.inputs = {{"X", {MakeTensor<double>({6}, {-0.9, -0.5, -0.1, 0.2, 0.6, 0.95})}}};
  g.outputs = {{"Out", 1}};
  g.max_order = 2;
  g.rtol = 1e-4;
  CheckGradients(g);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
