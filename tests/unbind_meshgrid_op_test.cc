// unbind and meshgrid against direct index formulas, and their gradients (stack and
// reduce_sum, differentiable again) against finite differences up to second order.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(UnbindOp, SplitsAlongTheAxis) {
  operators::RegisterAllOps();
  const auto x = RandomValues(24, -1, 1, 3);  // [2, 3, 4]
  for (const int axis : {0, 1, -1}) {
    const int a = axis < 0 ? 2 : axis;
    const int64_t dims[] = {2, 3, 4};
    const OpRunResult r = RunOp("unbind", {{"X", {MakeTensor<double>({2, 3, 4}, x)}}},
                                {{"Out", static_cast<int>(dims[a])}}, {{"axis", axis}});
    ASSERT_EQ(r.outputs.at("Out").size(), static_cast<size_t>(dims[a]));
    for (int64_t p = 0; p < dims[a]; ++p) {
      std::vector<double> want;
      for (int64_t i = 0; i < 2; ++i) {
        for (int64_t j = 0; j < 3; ++j) {
          for (int64_t k = 0; k < 4; ++k) {
            if ((a == 0 && i == p) || (a == 1 && j == p) || (a == 2 && k == p)) {
              want.push_back(x[(i * 3 + j) * 4 + k]);
            }
          }
        }
      }
      EXPECT_EQ(ToDoubles(r.outputs.at("Out")[p]), want) << "axis " << axis << " piece " << p;
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unbind", {{"X", {MakeTensor<double>({2, 3, 4}, x)}}}, {{"Out", 2}}, {{"axis", 1}});
      },
      {"op `unbind`", "outputs `Out` (2)", "dim 1"});
}

TEST(MeshgridOp, RepeatsEachInputAlongItsDim) {
  operators::RegisterAllOps();
  const std::vector<double> a = {1, 2}, b = {3, 4, 5}, c = {6, 7, 8, 9};
  const OpRunResult r = RunOp(
      "meshgrid",
      {{"X", {MakeTensor<double>({2}, a), MakeTensor<double>({3}, b), MakeTensor<double>({4}, c)}}},
      {{"Out", 3}});
  std::vector<std::vector<double>> want(3);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) {
        want[0].push_back(a[i]);
        want[1].push_back(b[j]);
        want[2].push_back(c[k]);
      }
    }
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r.outputs.at("Out")[i].dims(), DDim({2, 3, 4}));
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[i]), want[i]) << i;
  }
}

TEST(UnbindMeshgrid, GradientsUpToSecondOrder) {
  operators::RegisterAllOps();
  {
    GradCheck check;
    check.op_type = "unbind";
    check.inputs = {{"X", {MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 4))}}};
    check.outputs = {{"Out", 3}};
    check.attrs = {{"axis", 0}};
    check.max_order = 2;
    CheckGradients(check);
  }
  {
    GradCheck check;
    check.op_type = "meshgrid";
    check.inputs = {{"X",
                     {MakeTensor<double>({2}, RandomValues(2, -1, 1, 5)),
                      MakeTensor<double>({3}, RandomValues(3, -1, 1, 6))}}};
    check.outputs = {{"Out", 2}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

// The gradient of the sum of all pieces: every element of X lies in exactly one piece.
TEST(UnbindOp, EveryElementGetsItsPiecesGradient) {
  operators::RegisterAllOps();
  const auto x = RandomValues(6, -1, 1, 7);
  const auto grads = NthGradient("unbind", {{"X", {MakeTensor<double>({3, 2}, x)}}}, {{"Out", 3}},
                                 {{"axis", 0}}, 1);
  EXPECT_EQ(ToDoubles(grads.at("X_0")), (std::vector<double>{1, 1, 1, 1, 1, 1}));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
