// norm (L2 normalisation) against sums written here for every axis, float and double; Norm's
// shape; gradients by finite differences; typed errors.
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "norm";

TEST(NormOp, DividesEachLineByItsNorm) {
  operators::RegisterAllOps();
  const std::vector<int64_t> dims = {2, 3, 4};
  const std::vector<double> x = RandomValues(24, -1, 1, 3);
  for (int axis : {0, 1, 2, -1}) {
    const int a = axis < 0 ? axis + 3 : axis;
    SCOPED_TRACE("axis " + std::to_string(axis));
    std::vector<double> want(24), norms;
    std::vector<int64_t> norm_dims = dims;
    norm_dims[a] = 1;
    // Every line along the axis: the other two coordinates fixed.
    for (int64_t i = 0; i < 24; ++i) {
      int64_t c[3] = {i / 12, (i / 4) % 3, i % 4};
      double sum = 1e-10;
      for (int64_t k = 0; k < dims[a]; ++k) {
        int64_t o[3] = {c[0], c[1], c[2]};
        o[a] = k;
        const double v = x[(o[0] * 3 + o[1]) * 4 + o[2]];
        sum += v * v;
      }
      want[i] = x[i] / std::sqrt(sum);
      if (c[a] == 0) norms.push_back(std::sqrt(sum));
    }
    for (bool dbl : {false, true}) {
      const auto r = RunOp(
          kOp,
          {{"X", {dbl ? MakeTensor<double>(DDim(dims), x) : MakeTensor<float>(DDim(dims), x)}}},
          {{"Out", 1}, {"Norm", 1}}, {{"axis", axis}, {"epsilon", 1e-10f}});
      const double tol = dbl ? 1e-12 : 1e-6;
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, tol, tol, "Out");
      EXPECT_EQ(r.outputs.at("Norm")[0].dims(), DDim(norm_dims));
      ExpectNear(ToDoubles(r.outputs.at("Norm")[0]), norms, tol, tol, "Norm");
    }
  }
}

TEST(NormOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (int axis : {0, 1, -1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    GradCheck check;
    check.op_type = kOp;
    check.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, RandomValues(24, -1, 1, 5))}}};
    check.outputs = {{"Out", 1}, {"Norm", 1}};
    check.loss_outputs = {"Out"};
    check.attrs = {{"axis", axis}, {"epsilon", 1e-6f}};
    CheckGradients(check);
  }
}

TEST(NormOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp, {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, -1, 1))}}},
              {{"Out", 1}, {"Norm", 1}}, {{"axis", 2}});
      },
      {"op `norm` attribute `axis`", "[-2, 2)", "received 2"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp, {{"X", {MakeTensor<float>(DDim(std::vector<int64_t>{}), {1})}}},
              {{"Out", 1}, {"Norm", 1}}, {{"axis", 0}});
      },
      {"op `norm` input `X`", "rank >= 1"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
