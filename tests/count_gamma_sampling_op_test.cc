// poisson, standard_gamma, dirichlet, binomial and exponential
// (operators/random/count_gamma_sampling_ops.cc): the sample means and variances of 20000
// draws per parameter against the distributions' own (n p and n p (1 - p); the rate; the
// shape; Beta(alpha_i, alpha_0 - alpha_i) marginals; 1 / lambda and 1 / lambda^2), within six
// standard errors, on both sides of each sampler's switch between methods; integer values in
// range, Dirichlet rows on the simplex even where every gamma sample underflows; a seed
// reproducing every value; parameters outside their domains refused naming the element.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "operators/registry.h"
#include "platform/random.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr int64_t kDraws = 20000;

struct Moments {
  double mean = 0, variance = 0;
};

// The moments of row r of a [rows, kDraws] sample.
Moments RowMoments(const std::vector<double>& v, int64_t r) {
  Moments m;
  for (int64_t i = 0; i < kDraws; ++i) m.mean += v[r * kDraws + i];
  m.mean /= kDraws;
  for (int64_t i = 0; i < kDraws; ++i) {
    const double d = v[r * kDraws + i] - m.mean;
    m.variance += d * d;
  }
  m.variance /= kDraws - 1;
  return m;
}

// Checks a row's moments against mean `mu` and variance `var` (fourth central moment
// `mu4` for the variance's standard error).
void ExpectMoments(const Moments& got, double mu, double var, double mu4, const std::string& what) {
  const double mean_error = std::sqrt(var / kDraws);
  const double var_error = std::sqrt(std::max(mu4 - var * var, 0.0) / kDraws);
  EXPECT_NEAR(got.mean, mu, 6 * mean_error + 1e-12) << what << " mean";
  EXPECT_NEAR(got.variance, var, 6 * var_error + 1e-12) << what << " variance";
}

// A [rows, kDraws] tensor whose row r holds values[r].
DenseTensor Rows(const std::vector<double>& values, DataType t) {
  std::vector<double> v;
  for (double x : values) v.insert(v.end(), kDraws, x);
  const DDim dims({static_cast<int64_t>(values.size()), kDraws});
  return t == DataType::FLOAT32 ? MakeTensor<float>(dims, v) : MakeTensor<double>(dims, v);
}

TEST(PoissonOp, MomentsOfEveryRateAndIntegerValues) {
  operators::RegisterAllOps();
  platform::SetDefaultSeed(11);
  // Rates either side of the switch from multiplication to PTRS at 10.
  const std::vector<double> rates = {0, 0.5, 3, 9.5, 10, 40, 1000};
  for (DataType t : {DataType::FLOAT32, DataType::FLOAT64}) {
    const DenseTensor out =
        RunOp("poisson", {{"X", {Rows(rates, t)}}}, {{"Out", 1}}, {}).outputs.at("Out")[0];
    ASSERT_EQ(out.dtype(), t);
    const std::vector<double> v = ToDoubles(out);
    for (double x : v) ASSERT_TRUE(x >= 0 && x == std::floor(x)) << x;
    for (size_t r = 0; r < rates.size(); ++r) {
      const double l = rates[r];
      // Poisson: variance l, fourth central moment l + 3 l^2.
      ExpectMoments(RowMoments(v, r), l, l, l + 3 * l * l, "poisson rate " + std::to_string(l));
    }
  }
}

TEST(StandardGammaOp, MomentsOfEveryShape) {
  operators::RegisterAllOps();
  platform::SetDefaultSeed(12);
  // Shapes below 1 (boosted), at 1 and above.
  const std::vector<double> shapes = {0.3, 1, 2.5, 50};
  for (DataType t : {DataType::FLOAT32, DataType::FLOAT64}) {
    const std::vector<double> v = ToDoubles(
        RunOp("standard_gamma", {{"x", {Rows(shapes, t)}}}, {{"out", 1}}, {}).outputs.at("out")[0]);
    for (double x : v) ASSERT_GT(x, 0.0);
    for (size_t r = 0; r < shapes.size(); ++r) {
      const double a = shapes[r];
      // Gamma(a, 1): variance a, fourth central moment 3 a^2 + 6 a.
      ExpectMoments(RowMoments(v, r), a, a, 3 * a * a + 6 * a,
                    "standard_gamma shape " + std::to_string(a));
    }
  }
}

TEST(DirichletOp, BetaMarginalsAndRowsOnTheSimplex) {
  operators::RegisterAllOps();
  platform::SetDefaultSeed(14);
  // Concentrations below 1 (boosted gamma samples), mixed, and so small that U^(1 / alpha)
  // underflows for most draws: the ratios must still follow the distribution.
  const std::vector<std::vector<double>> cases = {{0.3, 2, 5}, {1, 1, 1, 1}, {1e-3, 2e-3}};
  for (DataType t : {DataType::FLOAT32, DataType::FLOAT64}) {
    for (const std::vector<double>& alpha : cases) {
      const int64_t k = static_cast<int64_t>(alpha.size());
      std::vector<double> a;
      for (int64_t i = 0; i < kDraws; ++i) a.insert(a.end(), alpha.begin(), alpha.end());
      const DDim dims({kDraws, k});
      const std::vector<double> v =
          ToDoubles(RunOp("dirichlet",
                          {{"Alpha",
                            {t == DataType::FLOAT32 ? MakeTensor<float>(dims, a)
                                                    : MakeTensor<double>(dims, a)}}},
                          {{"Out", 1}}, {})
                        .outputs.at("Out")[0]);
      for (int64_t i = 0; i < kDraws; ++i) {
        double sum = 0;
        for (int64_t j = 0; j < k; ++j) {
          ASSERT_TRUE(v[i * k + j] >= 0 && v[i * k + j] <= 1) << v[i * k + j];
          sum += v[i * k + j];
        }
        ASSERT_NEAR(sum, 1, t == DataType::FLOAT32 ? 1e-6 : 1e-12);
      }
      double a0 = 0;
      for (double x : alpha) a0 += x;
      for (int64_t j = 0; j < k; ++j) {
        std::vector<double> column(static_cast<size_t>(kDraws));
        for (int64_t i = 0; i < kDraws; ++i) column[i] = v[i * k + j];
        // Beta(p, q) with p = alpha_j, q = alpha_0 - alpha_j: its variance and, from its
        // excess kurtosis, its fourth central moment.
        const double p = alpha[j], q = a0 - alpha[j];
        const double var = p * q / (a0 * a0 * (a0 + 1));
        const double excess =
            6 * ((p - q) * (p - q) * (a0 + 1) - p * q * (a0 + 2)) / (p * q * (a0 + 2) * (a0 + 3));
        ExpectMoments(RowMoments(column, 0), p / a0, var, (excess + 3) * var * var,
                      "dirichlet alpha_" + std::to_string(j) + " = " + std::to_string(p));
      }
    }
  }
}

TEST(ExponentialOp, MomentsOfEveryRate) {
  operators::RegisterAllOps();
  platform::SetDefaultSeed(15);
  for (DataType t : {DataType::FLOAT32, DataType::FLOAT64}) {
    for (float rate : {0.5f, 1.0f, 4.0f}) {
      const std::vector<double> v = ToDoubles(
          RunOp("exponential", {{"X", {Rows({-3.0}, t)}}}, {{"Out", 1}}, {{"lambda", rate}})
              .outputs.at("Out")[0]);
      for (double x : v) ASSERT_GE(x, 0.0);
      // Exp(lambda): mean 1 / lambda, variance 1 / lambda^2, fourth central moment 9 / lambda^4.
      const double m = 1.0 / rate;
      ExpectMoments(RowMoments(v, 0), m, m * m, 9 * m * m * m * m,
                    "exponential lambda " + std::to_string(rate));
    }
  }
}

TEST(BinomialOp, MomentsOfEveryCountAndProbability) {
  operators::RegisterAllOps();
  platform::SetDefaultSeed(13);
  // Inversion below n min(p, 1 - p) = 10, BTRS above it, probabilities above 1/2 flipped.
  const std::vector<std::pair<int64_t, double>> cases = {
      {0, 0.3}, {5, 0.0}, {7, 1.0}, {10, 0.3}, {100, 0.05}, {50, 0.5}, {1000, 0.4}, {1000, 0.93}};
  std::vector<double> n, p;
  for (const auto& [count, prob] : cases) {
    n.insert(n.end(), kDraws, static_cast<double>(count));
    p.insert(p.end(), kDraws, prob);
  }
  const DDim dims({static_cast<int64_t>(cases.size()), kDraws});
  for (DataType t : {DataType::FLOAT32, DataType::FLOAT64}) {
    const DenseTensor out =
        RunOp(
            "binomial",
            {{"count", {MakeTensor<int64_t>(dims, n)}},
             {"prob",
              {t == DataType::FLOAT32 ? MakeTensor<float>(dims, p) : MakeTensor<double>(dims, p)}}},
            {{"out", 1}}, {})
            .outputs.at("out")[0];
    ASSERT_EQ(out.dtype(), DataType::INT64);
    const std::vector<double> v = ToDoubles(out);
    for (size_t r = 0; r < cases.size(); ++r) {
      const auto [count, prob] = cases[r];
      const double nd = static_cast<double>(count), q = 1 - prob;
      for (int64_t i = 0; i < kDraws; ++i) {
        ASSERT_TRUE(v[r * kDraws + i] >= 0 && v[r * kDraws + i] <= nd);
      }
      // Binomial: variance n p q, fourth central moment n p q (1 + 3 (n - 2) p q).
      const double var = nd * prob * q;
      ExpectMoments(RowMoments(v, r), nd * prob, var, var * (1 + 3 * (nd - 2) * prob * q),
                    "binomial n " + std::to_string(count) + " p " + std::to_string(prob));
    }
  }
}

TEST(CountGammaSampling, ASeedReproducesEveryValue) {
  operators::RegisterAllOps();
  const auto draw = [](uint64_t seed) {
    platform::SetDefaultSeed(seed);
    std::vector<double> all;
    for (const std::vector<double>& v :
         {ToDoubles(RunOp("poisson", {{"X", {MakeTensor<double>({4}, {0.5, 5, 50, 500})}}},
                          {{"Out", 1}}, {})
                        .outputs.at("Out")[0]),
          ToDoubles(RunOp("standard_gamma", {{"x", {MakeTensor<double>({3}, {0.5, 2, 20})}}},
                          {{"out", 1}}, {})
                        .outputs.at("out")[0]),
          ToDoubles(RunOp("binomial",
                          {{"count", {MakeTensor<int32_t>({2}, {20, 400})}},
                           {"prob", {MakeTensor<double>({2}, {0.2, 0.7})}}},
                          {{"out", 1}}, {})
                        .outputs.at("out")[0]),
          ToDoubles(RunOp("dirichlet", {{"Alpha", {MakeTensor<double>({2, 2}, {0.5, 2, 1, 9})}}},
                          {{"Out", 1}}, {})
                        .outputs.at("Out")[0]),
          ToDoubles(RunOp("exponential", {{"X", {MakeTensor<float>({3}, {0, 0, 0})}}}, {{"Out", 1}},
                          {{"lambda", 2.0f}})
                        .outputs.at("Out")[0])}) {
      all.insert(all.end(), v.begin(), v.end());
    }
    return all;
  };
  EXPECT_EQ(draw(5), draw(5));
  EXPECT_NE(draw(5), draw(6));
}

TEST(CountGammaSampling, ParametersOutsideTheirDomainsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("poisson", {{"X", {MakeTensor<float>({2}, {1, -1})}}}, {{"Out", 1}}, {});
      },
      {"op `poisson` input `X`", "finite rates >= 0", "-1 at element 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("standard_gamma", {{"x", {MakeTensor<double>({2}, {0, 1})}}}, {{"out", 1}}, {});
      },
      {"op `standard_gamma` input `x`", "shapes > 0", "element 0"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("binomial",
              {{"count", {MakeTensor<int64_t>({2}, {3, 4})}},
               {"prob", {MakeTensor<float>({2}, {0.5, 1.5})}}},
              {{"out", 1}}, {});
      },
      {"op `binomial` input `prob`", "[0, 1]", "element 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("binomial",
              {{"count", {MakeTensor<int64_t>({2}, {-3, 4})}},
               {"prob", {MakeTensor<float>({2}, {0.5, 0.5})}}},
              {{"out", 1}}, {});
      },
      {"op `binomial` input `count`", "counts >= 0", "element 0"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("binomial",
              {{"count", {MakeTensor<int64_t>({2}, {3, 4})}},
               {"prob", {MakeTensor<float>({3}, {0.5, 0.5, 0.5})}}},
              {{"out", 1}}, {});
      },
      {"op `binomial`", "prob"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("dirichlet", {{"Alpha", {MakeTensor<double>({1, 3}, {1, 0, 2})}}}, {{"Out", 1}}, {});
      },
      {"op `dirichlet` input `Alpha`", "concentrations > 0", "element 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("exponential", {{"X", {MakeTensor<float>({2}, {0, 0})}}}, {{"Out", 1}},
              {{"lambda", 0.0f}});
      },
      {"exponential", "lambda"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
