// softplus against its closed form in double (both sides of the threshold, large |beta X|
// where a naive exp overflows), and its checks. The gradient op softplus_grad is checked
// against finite differences by tests/paddle_grad_ops_test.cc (every unary fused grad op).
#include <cmath>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

double Softplus(double x, double beta, double threshold) {
  const double bx = beta * x;
  return bx > threshold ? x : std::log1p(std::exp(bx)) / beta;
}

TEST(SoftplusOp, MatchesClosedFormOnBothSidesOfTheThreshold) {
  operators::RegisterAllOps();
  const std::vector<double> xs = {-30, -3, -0.5, 0, 0.25, 2, 9, 11, 40};
  for (const auto& [beta, threshold] :
       std::vector<std::pair<float, float>>{{1, 20}, {2, 20}, {0.5f, 5}, {-1, 20}, {3, 1}}) {
    const AttributeMap attrs = {{"beta", beta}, {"threshold", threshold}};
    std::vector<double> want;
    for (double x : xs) want.push_back(Softplus(x, beta, threshold));
    for (DataType dtype : {DataType::FLOAT64, DataType::FLOAT32}) {
      const DenseTensor x = dtype == DataType::FLOAT64 ? MakeTensor<double>({3, 3}, xs)
                                                       : MakeTensor<float>({3, 3}, xs);
      const OpRunResult r = RunOp("softplus", {{"X", {x}}}, {{"Out", 1}}, attrs);
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, RelTol(dtype), AbsTol(dtype),
                 "softplus beta " + std::to_string(beta));
    }
  }
}

TEST(SoftplusOp, ExtremeInputsStayFinite) {
  operators::RegisterAllOps();
  // beta X of +-1000 with the threshold out of reach: exp(1000) would overflow.
  const DenseTensor x = MakeTensor<float>({2}, {-1000, 1000});
  const OpRunResult r =
      RunOp("softplus", {{"X", {x}}}, {{"Out", 1}}, {{"threshold", 1e30f}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {0, 1000}, 1e-6, 1e-6, "softplus extremes");
  const DenseTensor g = MakeTensor<float>({2}, {1, 1});
  const OpRunResult d = RunOp("softplus_grad", {{"X", {x}}, {"Out@GRAD", {g}}}, {{"X@GRAD", 1}},
                              {{"threshold", 1e30f}});
  ExpectNear(ToDoubles(d.outputs.at("X@GRAD")[0]), {0, 1}, 0, 1e-6, "softplus_grad extremes");
}

TEST(SoftplusOp, ZeroBetaIsAnError) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2}, {1, 2});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("softplus", {{"X", {x}}}, {{"Out", 1}}, {{"beta", 0.0f}}); },
      {"op `softplus` attribute `beta`", "non-zero", "received 0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
