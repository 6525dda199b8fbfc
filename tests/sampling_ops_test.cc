// randint, randperm, bernoulli, multinomial and gumbel_softmax: ranges, permutations,
// frequencies against their probabilities (bounds of several standard deviations, fixed seeds,
// so the tests are deterministic), reproducibility under a seed, gumbel_softmax's gradient
// against finite differences of the soft sample at its noise, and typed errors.
#include <algorithm>
#include <cmath>
#include <vector>

#include "platform/random.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class SamplingOps : public ::testing::Test {
 protected:
  void SetUp() override {
    operators::RegisterAllOps();
    platform::SetDefaultSeed(2024);
  }
};

std::vector<double> Draw(const std::string& op, const SlotTensors& in, const AttributeMap& attrs,
                         DDim* dims = nullptr) {
  const auto r = RunOp(op, in, {{"Out", 1}}, attrs);
  if (dims != nullptr) *dims = r.outputs.at("Out")[0].dims();
  return ToDoubles(r.outputs.at("Out")[0]);
}

// |count - n p| within 5 standard deviations of a binomial count.
void ExpectFrequency(double count, double n, double p, const std::string& what) {
  EXPECT_LE(std::fabs(count - n * p), 5 * std::sqrt(n * p * (1 - p)) + 1e-9) << what;
}

TEST_F(SamplingOps, RandintCoversItsRangeEvenly) {
  DDim dims;
  const std::vector<double> v = Draw(
      "randint", {},
      {{"low", -3}, {"high", 4}, {"shape", std::vector<int64_t>{70, 100}}, {"seed", 11}}, &dims);
  EXPECT_EQ(dims, DDim({70, 100}));
  std::vector<double> count(7, 0);
  for (double x : v) {
    ASSERT_TRUE(x >= -3 && x < 4 && x == std::floor(x)) << x;
    ++count[static_cast<int>(x) + 3];
  }
  for (int k = 0; k < 7; ++k) ExpectFrequency(count[k], 7000, 1.0 / 7, std::to_string(k));
  // A seed reproduces the draw; another seed gives another one.
  const AttributeMap a = {
      {"low", 0}, {"high", 1000}, {"shape", std::vector<int64_t>{50}}, {"seed", 5}, {"dtype", 2}};
  EXPECT_EQ(Draw("randint", {}, a), Draw("randint", {}, a));
  AttributeMap b = a;
  b["seed"] = 6;
  EXPECT_NE(Draw("randint", {}, a), Draw("randint", {}, b));
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Draw("randint", {}, {{"low", 2}, {"high", 2}, {"shape", std::vector<int64_t>{1}}});
      },
      {"op `randint`", "`low`, `high`", "2"});
}

TEST_F(SamplingOps, RandpermIsAPermutationWithUniformPositions) {
  std::vector<double> first(5, 0);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> p = Draw("randperm", {}, {{"n", 5}, {"seed", 1000 + trial}});
    ++first[static_cast<int>(p[0])];
    std::sort(p.begin(), p.end());
    ASSERT_EQ(p, (std::vector<double>{0, 1, 2, 3, 4}));
  }
  for (int k = 0; k < 5; ++k) ExpectFrequency(first[k], 2000, 0.2, std::to_string(k));
  DDim dims;
  EXPECT_TRUE(Draw("randperm", {}, {{"n", 0}, {"dtype", 5}}, &dims).empty());
  EXPECT_EQ(dims, DDim({0}));
}

TEST_F(SamplingOps, BernoulliFollowsEachProbability) {
  std::vector<double> p;
  for (int i = 0; i < 4000; ++i) p.push_back(i < 2000 ? 0.3 : (i < 3000 ? 0.0 : 1.0));
  const std::vector<double> v = Draw("bernoulli", {{"X", {MakeTensor<double>({4000}, p)}}}, {});
  double ones = 0;
  for (int i = 0; i < 4000; ++i) {
    ASSERT_TRUE(v[i] == 0 || v[i] == 1);
    if (i < 2000) ones += v[i];
    if (i >= 2000 && i < 3000) {
      ASSERT_EQ(v[i], 0) << i;
    }
    if (i >= 3000) {
      ASSERT_EQ(v[i], 1) << i;
    }
  }
  ExpectFrequency(ones, 2000, 0.3, "p = 0.3");
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Draw("bernoulli", {{"X", {MakeTensor<float>({2}, {0.5, 1.5})}}}, {});
      },
      {"op `bernoulli`", "`X`", "1.5", "element 1"});
}

TEST_F(SamplingOps, MultinomialWithAndWithoutReplacement) {
  // Weights 1 : 3 : 0 : 4 per row.
  const std::vector<double> w = {1, 3, 0, 4, 1, 3, 0, 4};
  DDim dims;
  const std::vector<double> v = Draw("multinomial", {{"X", {MakeTensor<double>({2, 4}, w)}}},
                                     {{"num_samples", 4000}, {"replacement", true}}, &dims);
  EXPECT_EQ(dims, DDim({2, 4000}));
  std::vector<double> count(4, 0);
  for (double c : v) ++count[static_cast<int>(c)];
  EXPECT_EQ(count[2], 0);
  ExpectFrequency(count[0], 8000, 1.0 / 8, "category 0");
  ExpectFrequency(count[1], 8000, 3.0 / 8, "category 1");
  ExpectFrequency(count[3], 8000, 4.0 / 8, "category 3");
  // Without replacement every positive category appears once in 3 draws; the first draw
  // follows the weights.
  std::vector<double> first(4, 0);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<double> s =
        Draw("multinomial", {{"X", {MakeTensor<float>({4}, {1, 3, 0, 4})}}}, {{"num_samples", 3}});
    ++first[static_cast<int>(s[0])];
    std::sort(s.begin(), s.end());
    ASSERT_EQ(s, (std::vector<double>{0, 1, 3}));
  }
  ExpectFrequency(first[3], 1000, 0.5, "first draw of category 3");
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Draw("multinomial", {{"X", {MakeTensor<float>({3}, {1, 0, 2})}}}, {{"num_samples", 3}});
      },
      {"op `multinomial`", "`num_samples`", "2 categories", "3"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Draw("multinomial", {{"X", {MakeTensor<float>({2}, {1, -1})}}}, {});
      },
      {"op `multinomial`", "`X`", "-1"});
}

TEST_F(SamplingOps, GumbelSoftmaxSamplesTheSoftmaxOfX) {
  // Gumbel-max: the largest entry is category i with probability softmax(X)_i, any tau.
  const std::vector<double> p = {0.1, 0.2, 0.7};
  std::vector<double> x;
  for (int r = 0; r < 3000; ++r) {
    for (double v : p) x.push_back(std::log(v) + 3.0);  // a shift per line changes nothing
  }
  const std::vector<double> hard =
      Draw("gumbel_softmax", {{"X", {MakeTensor<double>({3000, 3}, x)}}},
           {{"hard", true}, {"temperature", 0.5f}});
  std::vector<double> count(3, 0);
  for (int r = 0; r < 3000; ++r) {
    double line = 0;
    for (int k = 0; k < 3; ++k) {
      ASSERT_TRUE(hard[r * 3 + k] == 0 || hard[r * 3 + k] == 1);
      line += hard[r * 3 + k];
      count[k] += hard[r * 3 + k];
    }
    ASSERT_EQ(line, 1) << r;
  }
  for (int k = 0; k < 3; ++k) ExpectFrequency(count[k], 3000, p[k], std::to_string(k));
  // Soft samples along axis 0 of [3, 2]: positive, each column summing to 1.
  const std::vector<double> xs = RandomValues(6, -1, 1, 8);
  const std::vector<double> soft =
      Draw("gumbel_softmax", {{"X", {MakeTensor<double>({3, 2}, xs)}}}, {{"axis", 0}});
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(soft[c] + soft[2 + c] + soft[4 + c], 1.0, 1e-15);
    for (int k = 0; k < 3; ++k) EXPECT_GT(soft[k * 2 + c], 0);
  }
  // The gradient from Out against finite differences of f(X) = softmax((X + g) / tau) at the
  // noise of that sample (g = tau log Out - X, up to a constant per line).
  const double tau = 0.7;
  const std::vector<double> out = Draw("gumbel_softmax", {{"X", {MakeTensor<double>({3, 2}, xs)}}},
                                       {{"axis", 0}, {"temperature", static_cast<float>(tau)}});
  std::vector<double> g(6);
  for (int i = 0; i < 6; ++i) g[i] = tau * std::log(out[i]) - xs[i];
  const std::vector<double> dout = RandomValues(6, -1, 1, 9);
  const auto loss = [&](const std::vector<double>& v) {
    double total = 0;
    for (int c = 0; c < 2; ++c) {
      double sum = 0;
      for (int k = 0; k < 3; ++k) sum += std::exp((v[k * 2 + c] + g[k * 2 + c]) / tau);
      for (int k = 0; k < 3; ++k) {
        total += dout[k * 2 + c] * std::exp((v[k * 2 + c] + g[k * 2 + c]) / tau) / sum;
      }
    }
    return total;
  };
  const auto r = RunOp("gumbel_softmax_grad",
                       {{"Out", {MakeTensor<double>({3, 2}, out)}},
                        {"Out@GRAD", {MakeTensor<double>({3, 2}, dout)}}},
                       {{"X@GRAD", 1}}, {{"axis", 0}, {"temperature", static_cast<float>(tau)}});
  const std::vector<double> dx = ToDoubles(r.outputs.at("X@GRAD")[0]);
  for (int i = 0; i < 6; ++i) {
    std::vector<double> up = xs, down = xs;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    EXPECT_NEAR(dx[i], (loss(up) - loss(down)) / 2e-6, 1e-8) << i;
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Draw("gumbel_softmax", {{"X", {MakeTensor<double>({3, 2}, xs)}}}, {{"temperature", 0.0f}});
      },
      {"op `gumbel_softmax`", "`temperature`", "0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
