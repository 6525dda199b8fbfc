// lgamma and digamma against closed forms (Gamma at half-integers, psi(1) = -gamma,
// psi(n + 1) = H_n - gamma, the reflection formula for negative arguments), digamma against
// central differences of lgamma, the poles, gradients by finite differences (second order for
// lgamma, whose backward is digamma).
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr double kEulerGamma = 0.57721566490153286;

std::vector<double> Elementwise(const std::string& op, const std::vector<double>& x) {
  return ToDoubles(
      RunOp(op, {{"X", {MakeTensor<double>({static_cast<int64_t>(x.size())}, x)}}}, {{"Out", 1}})
          .outputs.at("Out")[0]);
}

TEST(LgammaDigamma, ClosedForms) {
  operators::RegisterAllOps();
  // Gamma(1/2) = sqrt(pi), Gamma(5) = 24, Gamma(-1/2) = -2 sqrt(pi).
  ExpectNear(Elementwise("lgamma", {0.5, 5, -0.5, 1}),
             {0.5 * std::log(M_PI), std::log(24.0), std::log(2 * std::sqrt(M_PI)), 0}, 1e-14, 1e-14,
             "lgamma");
  // psi(1), psi(1/2), psi(4) = 1 + 1/2 + 1/3 - gamma; psi(-1/2) = psi(1/2) + 2 = psi(3/2) (the
  // recurrence psi(x + 1) = psi(x) + 1/x, and the reflection at -1/2).
  const double psi_half = -kEulerGamma - 2 * std::log(2.0);
  ExpectNear(Elementwise("digamma", {1, 0.5, 4, -0.5, 1.5}),
             {-kEulerGamma, psi_half, 1 + 0.5 + 1.0 / 3 - kEulerGamma, psi_half + 2, psi_half + 2},
             1e-13, 1e-13, "digamma");
}

TEST(LgammaDigamma, DigammaIsTheSlopeOfLgammaAndPolesAreMarked) {
  operators::RegisterAllOps();
  const std::vector<double> x = {-3.7, -1.2, -0.3, 0.1, 0.9, 2.5, 7.3, 13.0, 55.5};
  std::vector<double> slope;
  for (double v : x) {
    const double h = 1e-6 * std::max(1.0, std::abs(v));
    slope.push_back((std::lgamma(v + h) - std::lgamma(v - h)) / (2 * h));
  }
  ExpectNear(Elementwise("digamma", x), slope, 1e-6, 1e-6, "digamma vs lgamma'");
  const std::vector<double> poles = Elementwise("digamma", {0, -1, -2});
  EXPECT_EQ(poles[0], -INFINITY);
  EXPECT_TRUE(std::isnan(poles[1]) && std::isnan(poles[2]));
  for (double v : Elementwise("lgamma", {0, -1, -2})) EXPECT_EQ(v, INFINITY);
}

TEST(LgammaDigamma, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck l;
  l.op_type = "lgamma";
  l.inputs = {{"X", {MakeTensor<double>({6}, {-2.5, -0.4, 0.3, 1.7, 4.2, 11})}}};
  l.outputs = {{"Out", 1}};
  l.max_order = 2;
  l.rtol = 1e-4;
  CheckGradients(l);
  GradCheck d;
  d.op_type = "digamma";
  d.inputs = {{"X", {MakeTensor<double>({5}, {-1.5, 0.2, 0.8, 3.3, 12})}}};
  d.outputs = {{"Out", 1}};
  d.rtol = 1e-4;
  CheckGradients(d);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
