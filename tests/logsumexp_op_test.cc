// logsumexp against log(sum(exp)) in double for every choice of dims, keepdim and
// reduce_all; large values that would overflow exp; gradients by finite differences; errors.
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "logsumexp";

TEST(LogsumexpOp, MatchesTheSumInDouble) {
  operators::RegisterAllOps();
  const std::vector<double> x = RandomValues(24, -3, 3, 3);  // [2, 3, 4]
  auto at = [&](int64_t i, int64_t j, int64_t k) { return x[(i * 3 + j) * 4 + k]; };
  // Over dims 0 and 2: one value per j.
  std::vector<double> over02;
  for (int64_t j = 0; j < 3; ++j) {
    double s = 0;
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t k = 0; k < 4; ++k) s += std::exp(at(i, j, k));
    }
    over02.push_back(std::log(s));
  }
  for (bool keepdim : {false, true}) {
    for (bool dbl : {false, true}) {
      const auto r = RunOp(
          kOp, {{"X", {dbl ? MakeTensor<double>({2, 3, 4}, x) : MakeTensor<float>({2, 3, 4}, x)}}},
          {{"Out", 1}}, {{"axis", std::vector<int>{0, -1}}, {"keepdim", keepdim}});
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), keepdim ? DDim({1, 3, 1}) : DDim({3}));
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), over02, dbl ? 1e-12 : 1e-6, 1e-6, "0, -1");
    }
  }
  double all = 0;
  for (double v : x) all += std::exp(v);
  for (const AttributeMap& attrs :
       {AttributeMap{{"axis", std::vector<int>{}}},
        AttributeMap{{"axis", std::vector<int>{1}}, {"reduce_all", true}}}) {
    const auto r = RunOp(kOp, {{"X", {MakeTensor<double>({2, 3, 4}, x)}}}, {{"Out", 1}}, attrs);
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(std::vector<int64_t>{}));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {std::log(all)}, 1e-12, 1e-12, "all");
  }
  // exp(1000) overflows; the result does not.
  const auto big = RunOp(kOp, {{"X", {MakeTensor<float>({2}, {1000, 1000})}}}, {{"Out", 1}},
                         {{"axis", std::vector<int>{0}}});
  ExpectNear(ToDoubles(big.outputs.at("Out")[0]), {1000 + std::log(2.0)}, 1e-6, 1e-4, "large");
}

TEST(LogsumexpOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const AttributeMap& attrs :
       {AttributeMap{{"axis", std::vector<int>{1}}},
        AttributeMap{{"axis", std::vector<int>{0, 2}}, {"keepdim", true}},
        AttributeMap{{"axis", std::vector<int>{}}}}) {
    GradCheck check;
    check.op_type = kOp;
    check.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, RandomValues(24, -2, 2, 5))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = attrs;
    CheckGradients(check);
  }
}

TEST(LogsumexpOp, AnAxisOutOfRangeIsRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp, {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, 0, 1))}}}, {{"Out", 1}},
              {{"axis", std::vector<int>{2}}});
      },
      {"op `logsumexp` attribute `axis`", "[-2, 2)", "[2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
