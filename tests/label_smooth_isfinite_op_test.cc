// label_smooth against its formula (uniform and given priors) with its gradient up to second
// order, and isnan_v2 / isinf_v2 / isfinite_v2 on every kind of value and dtype.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(LabelSmoothOp, MixesTheLabelsWithThePrior) {
  operators::RegisterAllOps();
  const DDim dims({2, 3, 4});
  const auto x = RandomValues(dims.numel(), 0, 1, 3);
  const std::vector<double> prior = {0.1, 0.2, 0.3, 0.4};
  for (const float eps : {0.0f, 0.1f, 0.5f}) {
    for (const bool with_prior : {false, true}) {
      std::vector<double> want(x.size());
      for (size_t e = 0; e < x.size(); ++e) {
        want[e] = (1 - double{eps}) * x[e] + double{eps} * (with_prior ? prior[e % 4] : 0.25);
      }
      SlotTensors in = {{"X", {MakeTensor<double>(dims, x)}}};
      if (with_prior) in["PriorDist"] = {MakeTensor<double>({1, 4}, prior)};
      const OpRunResult r = RunOp("label_smooth", in, {{"Out", 1}}, {{"epsilon", eps}});
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-12, 1e-12, "label_smooth");
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("label_smooth",
              {{"X", {MakeTensor<double>(dims, x)}},
               {"PriorDist", {MakeTensor<double>({3}, {1, 1, 1})}}},
              {{"Out", 1}}, {{"epsilon", 0.1f}});
      },
      {"op `label_smooth` input `PriorDist`", "expected 4 values", "received [3]"});
}

TEST(LabelSmoothOp, GradientUpToSecondOrder) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "label_smooth";
  check.inputs = {{"X", {MakeTensor<double>({3, 5}, RandomValues(15, 0, 1, 4))}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"epsilon", 0.25f}};
  check.wrt = {"X"};
  check.max_order = 2;
  CheckGradients(check);
}

TEST(IsFiniteOps, TestEveryKindOfValue) {
  operators::RegisterAllOps();
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> x = {0, -1.5, inf, -inf, nan, 1e300, -0.0, 3};
  const std::vector<double> is_nan = {0, 0, 0, 0, 1, 0, 0, 0};
  const std::vector<double> is_inf = {0, 0, 1, 1, 0, 0, 0, 0};
  const std::vector<double> is_finite = {1, 1, 0, 0, 0, 1, 1, 1};
  for (const auto& [op, want] : std::vector<std::pair<std::string, std::vector<double>>>{
           {"isnan_v2", is_nan}, {"isinf_v2", is_inf}, {"isfinite_v2", is_finite}}) {
    for (DataType t : {DataType::FLOAT64, DataType::FLOAT32}) {
      const DenseTensor in =
          t == DataType::FLOAT64 ? MakeTensor<double>({2, 4}, x) : MakeTensor<float>({2, 4}, x);
      const OpRunResult r = RunOp(op, {{"X", {in}}}, {{"Out", 1}});
      EXPECT_EQ(r.outputs.at("Out")[0].dtype(), DataType::BOOL) << op;
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 4})) << op;
      // 1e300 overflows to inf in float.
      std::vector<double> expected = want;
      if (t == DataType::FLOAT32)
        expected[5] = op == "isinf_v2" ? 1 : (op == "isfinite_v2" ? 0 : 0);
      EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), expected) << op;
    }
    const OpRunResult ints =
        RunOp(op, {{"X", {MakeTensor<int64_t>({3}, {0, -7, 9})}}}, {{"Out", 1}});
    const double all = op == "isfinite_v2" ? 1 : 0;
    EXPECT_EQ(ToDoubles(ints.outputs.at("Out")[0]), (std::vector<double>{all, all, all})) << op;
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
