// gammaln, polygamma, i0, i0e, i1, i1e, rint, gammaincc and nextafter against closed forms,
// power series summed in long double and the functions' own identities; gradients by
// finite differences, to the orders each op claims.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

std::vector<double> Unary(const std::string& op, const std::vector<double>& x,
                          AttributeMap attrs = {}) {
  const auto r = RunOp(op, {{"x", {MakeTensor<double>({static_cast<int64_t>(x.size())}, x)}}},
                       {{"out", 1}}, attrs);
  return ToDoubles(r.outputs.at("out").at(0));
}

// I_nu(x) for nu = 0 or 1 by its power series, in long double.
long double BesselSeries(int nu, long double x) {
  long double term = nu == 0 ? 1.0L : x / 2, sum = term;
  for (int k = 1; k < 200; ++k) {
    term *= (x / 2) * (x / 2) / (static_cast<long double>(k) * (k + nu));
    sum += term;
  }
  return sum;
}

TEST(SpecialFunctions, BesselFunctionsMatchTheirSeries) {
  const std::vector<double> x = {-12.5, -3, -0.75, 0, 1e-3, 0.5, 2, 7.25, 20};
  const auto i0 = Unary("i0", x), i1 = Unary("i1", x), i0e = Unary("i0e", x), i1e = Unary("i1e", x);
  for (size_t k = 0; k < x.size(); ++k) {
    const long double v0 = BesselSeries(0, x[k]), v1 = BesselSeries(1, x[k]);
    const long double scale = std::exp(-std::fabs(static_cast<long double>(x[k])));
    EXPECT_NEAR(i0[k], v0, 1e-14 * std::fabs(v0)) << x[k];
    EXPECT_NEAR(i1[k], v1, 1e-14 * std::fabs(v1) + 1e-300) << x[k];
    EXPECT_NEAR(i0e[k], v0 * scale, 1e-14 * std::fabs(v0 * scale)) << x[k];
    EXPECT_NEAR(i1e[k], v1 * scale, 1e-14 * std::fabs(v1 * scale) + 1e-300) << x[k];
  }
  // Far beyond I0's overflow the scaled functions follow e^{-x} I(x) ~ (1 - (m - 1)/(8x)
  // + (m - 1)(m - 9)/(2! (8x)^2) - (m - 1)(m - 9)(m - 25)/(3! (8x)^3)) / sqrt(2 pi x), m = 4 nu^2.
  const double big = 2000;
  const double base = 1 / std::sqrt(2 * M_PI * big), e = 8 * big;
  EXPECT_NEAR(Unary("i0e", {big})[0], base * (1 + 1 / e + 9 / (2 * e * e) + 75 / (2 * e * e * e)),
              1e-13 * base);
  EXPECT_NEAR(Unary("i1e", {-big})[0],
              -base * (1 - 3 / e - 15 / (2 * e * e) - 105 / (2 * e * e * e)), 1e-13 * base);
  EXPECT_TRUE(std::isinf(Unary("i0", {big})[0]));
}

TEST(SpecialFunctions, GammalnAndPolygammaMatchClosedForms) {
  const auto lg = Unary("gammaln", {1, 5, 0.5, -0.5, 0});
  EXPECT_NEAR(lg[0], 0, 1e-15);
  EXPECT_NEAR(lg[1], std::log(24.0), 1e-14);
  EXPECT_NEAR(lg[2], 0.5 * std::log(M_PI), 1e-14);
  EXPECT_NEAR(lg[3], std::log(2 * std::sqrt(M_PI)), 1e-14);  // |Gamma(-1/2)| = 2 sqrt(pi).
  EXPECT_TRUE(std::isinf(lg[4]));
  const double zeta3 = 1.2020569031595942854;
  const double euler = 0.57721566490153286061;
  EXPECT_NEAR(Unary("polygamma", {1}, {{"n", 0}})[0], -euler, 1e-14);
  EXPECT_NEAR(Unary("polygamma", {1}, {{"n", 1}})[0], M_PI * M_PI / 6, 1e-14);
  EXPECT_NEAR(Unary("polygamma", {0.5}, {{"n", 1}})[0], M_PI * M_PI / 2, 1e-13);
  EXPECT_NEAR(Unary("polygamma", {1}, {{"n", 2}})[0], -2 * zeta3, 1e-13);
  EXPECT_NEAR(Unary("polygamma", {1}, {{"n", 3}})[0], std::pow(M_PI, 4) / 15, 1e-12);
  // The recurrence psi^(n)(x + 1) = psi^(n)(x) + (-1)^n n! / x^(n+1), at points where the
  // implementation takes different paths.
  const std::vector<double> x = {0.3, 1.7, 4.5, 9.5, 25};
  for (int n = 0; n <= 4; ++n) {
    std::vector<double> x1;
    for (double v : x) x1.push_back(v + 1);
    const auto a = Unary("polygamma", x, {{"n", n}}), b = Unary("polygamma", x1, {{"n", n}});
    const double fact = std::tgamma(n + 1.0);
    for (size_t k = 0; k < x.size(); ++k) {
      const double step = (n % 2 == 0 ? 1 : -1) * fact / std::pow(x[k], n + 1);
      EXPECT_NEAR(b[k], a[k] + step, 1e-12 * (std::fabs(a[k]) + std::fabs(step)))
          << "n " << n << " x " << x[k];
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Unary("polygamma", {1}, {{"n", -1}});
      },
      {"polygamma", "`n`", "-1"});
}

TEST(SpecialFunctions, RintRoundsHalvesToEven) {
  const auto r = Unary("rint", {2.5, 3.5, -0.5, -1.5, 0.49999999999999994, 1e300, -2.7});
  EXPECT_EQ(r, (std::vector<double>{2, 4, -0.0, -2, 0, 1e300, -3}));
  EXPECT_TRUE(std::signbit(r[2]));
}

TEST(SpecialFunctions, GammainccMatchesClosedForms) {
  const std::vector<double> y = {0, 0.25, 1, 3.5, 12};
  const std::vector<double> ones(y.size(), 1.0), twos(y.size(), 2.0), halves(y.size(), 0.5);
  auto q = [&](const std::vector<double>& a) {
    const auto r = RunOp("gammaincc",
                         {{"x", {MakeTensor<double>({5}, a)}}, {"y", {MakeTensor<double>({5}, y)}}},
                         {{"out", 1}});
    return ToDoubles(r.outputs.at("out").at(0));
  };
  const auto q1 = q(ones), q2 = q(twos), qh = q(halves);
  for (size_t k = 0; k < y.size(); ++k) {
    EXPECT_NEAR(q1[k], std::exp(-y[k]), 1e-14) << y[k];
    EXPECT_NEAR(q2[k], (1 + y[k]) * std::exp(-y[k]), 1e-14) << y[k];
    EXPECT_NEAR(qh[k], std::erfc(std::sqrt(y[k])), 1e-14) << y[k];
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("gammaincc",
              {{"x", {MakeTensor<double>({2, 1}, {1, 2})}},
               {"y", {MakeTensor<double>({3}, {1, 2, 3})}}},
              {{"out", 1}});
      },
      {"op `gammaincc`", "`y`", "[2, 1]", "[3]"});
}

TEST(SpecialFunctions, NextafterStepsOneUlpWithBroadcasting) {
  const auto r = RunOp(
      "nextafter",
      {{"x", {MakeTensor<float>({2, 2}, {1, 1, 0, 2})}}, {"y", {MakeTensor<float>({2}, {2, 0})}}},
      {{"out", 1}});
  const DenseTensor& out = r.outputs.at("out").at(0);
  EXPECT_EQ(out.dtype(), DataType::FLOAT32);
  const float* o = out.data<float>();
  EXPECT_EQ(o[0], 1.0f + std::ldexp(1.0f, -23));
  EXPECT_EQ(o[1], 1.0f - std::ldexp(1.0f, -24));
  EXPECT_EQ(o[2], std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(o[3], 2.0f - std::ldexp(1.0f, -23));
  const auto same = RunOp(
      "nextafter", {{"x", {MakeTensor<double>({1}, {3})}}, {"y", {MakeTensor<double>({1}, {3})}}},
      {{"out", 1}});
  EXPECT_EQ(ToDoubles(same.outputs.at("out").at(0)), std::vector<double>{3});
}

GradCheck UnaryCheck(const std::string& op, const std::vector<double>& x, int order,
                     AttributeMap attrs = {}) {
  GradCheck g;
  g.op_type = op;
  g.inputs = {{"x", {MakeTensor<double>({static_cast<int64_t>(x.size())}, x)}}};
  g.outputs = {{"out", 1}};
  g.attrs = attrs;
  g.max_order = order;
  return g;
}

TEST(SpecialFunctions, GradientsMatchFiniteDifferences) {
  const std::vector<double> x = {-2.5, -0.7, 0.3, 1.9, 4.2};
  const std::vector<double> positive = {0.4, 1.3, 2.6, 5.5};
  CheckGradients(UnaryCheck("gammaln", positive, 3));
  CheckGradients(UnaryCheck("polygamma", positive, 3, {{"n", 1}}));
  CheckGradients(UnaryCheck("i0", x, 2));
  for (const char* op : {"i0e", "i1", "i1e"}) CheckGradients(UnaryCheck(op, x, 1));
  // At 0 the fused gradients take their limits.
  const auto grads =
      NthGradient("i1", {{"x", {MakeTensor<double>({1}, {0})}}}, {{"out", 1}}, {}, 1);
  EXPECT_NEAR(ToDoubles(grads.at("x_0"))[0], 0.5, 1e-15);
  GradCheck g;
  g.op_type = "gammaincc";
  g.inputs = {{"x", {MakeTensor<double>({4}, {0.6, 1, 2.5, 4})}},
              {"y", {MakeTensor<double>({4}, {0.3, 1.2, 2, 6})}}};
  g.outputs = {{"out", 1}};
  g.wrt = {"y"};
  CheckGradients(g);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
