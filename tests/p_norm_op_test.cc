// p_norm against direct loops in double for p = 2, 1, 3.5, 0.5, 0, +inf and -inf, along each
// axis, with keepdim and asvector; its gradient against finite differences; its errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

double Norm(const std::vector<double>& v, double p) {
  if (std::isinf(p)) {
    double m = p > 0 ? 0 : std::numeric_limits<double>::infinity();
    for (double x : v) m = p > 0 ? std::max(m, std::fabs(x)) : std::min(m, std::fabs(x));
    return m;
  }
  double s = 0;
  for (double x : v) s += p == 0 ? (x != 0) : std::pow(std::fabs(x), p);
  return p == 0 ? s : std::pow(s, 1 / p);
}

TEST(PNormOp, MatchesDirectLoops) {
  operators::RegisterAllOps();
  const std::vector<int64_t> shape = {2, 3, 4};
  auto x = RandomValues(24, -2, 2, 3);
  x[5] = 0;
  const double inf = std::numeric_limits<double>::infinity();
  for (const double p : {2.0, 1.0, 3.5, 0.5, 0.0, inf, -inf}) {
    for (const int axis : {0, 1, -1}) {
      for (const bool keepdim : {false, true}) {
        const int a = axis < 0 ? axis + 3 : axis;
        std::vector<double> want;
        std::vector<int64_t> out_shape;
        for (int d = 0; d < 3; ++d) {
          if (d != a) out_shape.push_back(shape[d]);
          if (d == a && keepdim) out_shape.push_back(1);
        }
        for (int64_t i = 0; i < 2; ++i) {
          for (int64_t j = 0; j < 3; ++j) {
            for (int64_t k = 0; k < 4; ++k) {
              if ((a == 0 && i > 0) || (a == 1 && j > 0) || (a == 2 && k > 0)) continue;
              std::vector<double> line;
              for (int64_t t = 0; t < shape[a]; ++t) {
                const int64_t ii = a == 0 ? t : i, jj = a == 1 ? t : j, kk = a == 2 ? t : k;
                line.push_back(x[(ii * 3 + jj) * 4 + kk]);
              }
              want.push_back(Norm(line, p));
            }
          }
        }
        const OpRunResult r = RunOp("p_norm", {{"X", {MakeTensor<double>(DDim(shape), x)}}},
                                    {{"Out", 1}},
                                    {{"porder", static_cast<float>(p)}, {"axis", axis},
                                     {"keepdim", keepdim}});
        EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(out_shape));
        ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-12, 1e-12,
                   "p_norm p " + std::to_string(p) + " axis " + std::to_string(axis));
      }
    }
    const OpRunResult all = RunOp("p_norm", {{"X", {MakeTensor<double>(DDim(shape), x)}}},
                                  {{"Out", 1}},
                                  {{"porder", static_cast<float>(p)}, {"asvector", true}});
    EXPECT_EQ(all.outputs.at("Out")[0].dims(), DDim({}));
    ExpectNear(ToDoubles(all.outputs.at("Out")[0]), {Norm(x, p)}, 1e-12, 1e-12, "asvector");
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("p_norm", {{"X", {MakeTensor<double>(DDim(shape), x)}}}, {{"Out", 1}},
              {{"axis", 3}});
      },
      {"op `p_norm` attribute `axis`", "[-3, 3)", "received 3"});
}

TEST(PNormOp, GradientMatchesFiniteDifferences) {
  operators::RegisterAllOps();
  for (const float p : {2.0f, 1.0f, 3.0f, std::numeric_limits<float>::infinity()}) {
    for (const bool asvector : {false, true}) {
      SCOPED_TRACE("p " + std::to_string(p) + (asvector ? " asvector" : ""));
      GradCheck check;
      check.op_type = "p_norm";
      check.inputs = {{"X", {MakeTensor<double>({3, 4}, RandomValues(12, 0.2, 2, 7))}}};
      check.outputs = {{"Out", 1}};
      check.attrs = {{"porder", p}, {"axis", 1}, {"asvector", asvector}};
      CheckGradients(check);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
