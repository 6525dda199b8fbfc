// pow: X^factor against std::pow in double for float, double and integer X, the exponent from
// FactorTensor, and gradients (first and second order) by finite differences for several
// exponents, the tensor exponent among them. PaddlePaddle's own outputs are checked by the
// fixture test (tests/fixtures/ops/pow_*).
#include <cmath>
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class PowOp : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

std::vector<double> PowOf(const std::vector<double>& x, double factor) {
  std::vector<double> out;
  for (double v : x) out.push_back(std::pow(v, factor));
  return out;
}

TEST_F(PowOp, MatchesStdPow) {
  const std::vector<double> x = RandomValues(12, 0.1, 3, 5);
  for (float factor : {2.0f, 0.5f, -1.5f, 3.0f, 0.0f}) {
    const std::string what = "factor " + std::to_string(factor);
    const AttributeMap attrs = {{"factor", factor}};
    const auto d = RunOp("pow", {{"X", {MakeTensor<double>({3, 4}, x)}}}, {{"Out", 1}}, attrs);
    ExpectNear(ToDoubles(d.outputs.at("Out")[0]), PowOf(x, factor), 1e-15, 0, what);
    const auto f = RunOp("pow", {{"X", {MakeTensor<float>({3, 4}, x)}}}, {{"Out", 1}}, attrs);
    std::vector<double> xf;
    for (double v : x) xf.push_back(static_cast<float>(v));
    ExpectNear(ToDoubles(f.outputs.at("Out")[0]), PowOf(xf, factor), 1e-6, 1e-7, what + " float");
  }
  const auto i = RunOp("pow", {{"X", {MakeTensor<int64_t>({4}, {-3, 0, 2, 5})}}}, {{"Out", 1}},
                       {{"factor", 3.0f}});
  ExpectNear(ToDoubles(i.outputs.at("Out")[0]), {-27, 0, 8, 125}, 0, 0, "int64");
  // FactorTensor overrides the attribute; any number dtype.
  const auto t = RunOp("pow",
                       {{"X", {MakeTensor<double>({3}, {-2, 1.5, 3})}},
                        {"FactorTensor", {MakeTensor<int32_t>({1}, {2})}}},
                       {{"Out", 1}}, {{"factor", 7.0f}});
  ExpectNear(ToDoubles(t.outputs.at("Out")[0]), {4, 2.25, 9}, 0, 0, "FactorTensor");
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("pow",
              {{"X", {MakeTensor<double>({2}, {1, 2})}},
               {"FactorTensor", {MakeTensor<double>({2}, {1, 2})}}},
              {{"Out", 1}}, {});
      },
      {"op `pow`", "FactorTensor"});
}

TEST_F(PowOp, GradientsMatchFiniteDifferences) {
  const std::vector<double> x = RandomValues(6, 0.3, 2, 7);
  for (float factor : {3.0f, 0.5f, -1.5f, 1.0f}) {
    SCOPED_TRACE("factor " + std::to_string(factor));
    GradCheck check;
    check.op_type = "pow";
    check.inputs = {{"X", {MakeTensor<double>({2, 3}, x)}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"factor", factor}};
    check.max_order = 2;
    CheckGradients(check);
  }
  SCOPED_TRACE("FactorTensor 2.5");
  GradCheck check;
  check.op_type = "pow";
  check.inputs = {{"X", {MakeTensor<double>({2, 3}, x)}},
                  {"FactorTensor", {MakeTensor<double>({1}, {2.5})}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"factor", 1.0f}};
  check.wrt = {"X"};
  check.max_order = 2;
  CheckGradients(check);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
