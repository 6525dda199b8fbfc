// lerp, cross and kron against formulas written here in double (broadcasting for lerp, every
// vector dim for cross, rank padding for kron), gradients by finite differences (second order
// for lerp and cross, whose backwards are ops), typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class LerpCrossKron : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(LerpCrossKron, LerpBroadcastsItsThreeInputs) {
  const auto doc = RunOp("lerp",
                         {{"X", {MakeTensor<float>({2}, {0, 0})}},
                          {"Y", {MakeTensor<float>({2}, {10, 20})}},
                          {"Weight", {MakeTensor<float>({1}, {0.5})}}},
                         {{"Out", 1}});
  EXPECT_EQ(ToDoubles(doc.outputs.at("Out")[0]), (std::vector<double>{5, 10}));
  // X [2, 3], Y [3], Weight [2, 1]: Out [2, 3].
  const std::vector<double> x = RandomValues(6, -1, 1, 3), y = RandomValues(3, -1, 1, 4),
                            w = RandomValues(2, 0, 1, 5);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) want.push_back(x[i * 3 + j] + w[i] * (y[j] - x[i * 3 + j]));
  }
  const SlotTensors in = {{"X", {MakeTensor<double>({2, 3}, x)}},
                          {"Y", {MakeTensor<double>({3}, y)}},
                          {"Weight", {MakeTensor<double>({2, 1}, w)}}};
  const auto r = RunOp("lerp", in, {{"Out", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 3}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "lerp");
  GradCheck g;
  g.op_type = "lerp";
  g.inputs = in;
  g.outputs = {{"Out", 1}};
  g.max_order = 2;
  CheckGradients(g);
  // A 0-D weight and X of lower rank than Y.
  GradCheck h;
  h.op_type = "lerp";
  h.inputs = {{"X", {MakeTensor<double>({3}, y)}},
              {"Y", {MakeTensor<double>({2, 3}, x)}},
              {"Weight", {MakeTensor<double>({}, {0.3})}}};
  h.outputs = {{"Out", 1}};
  CheckGradients(h);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lerp",
              {{"X", {MakeTensor<double>({2, 3}, x)}},
               {"Y", {MakeTensor<double>({2}, {1, 2})}},
               {"Weight", {MakeTensor<double>({1}, {0.5})}}},
              {{"Out", 1}});
      },
      {"op `lerp`", "[2, 3]", "[2]"});
}

TEST_F(LerpCrossKron, CrossAlongEveryVectorDim) {
  const DenseTensor e0 = MakeTensor<float>({3}, {1, 0, 0});
  const DenseTensor e1 = MakeTensor<float>({3}, {0, 1, 0});
  EXPECT_EQ(
      ToDoubles(RunOp("cross", {{"X", {e0}}, {"Y", {e1}}}, {{"Out", 1}}).outputs.at("Out")[0]),
      (std::vector<double>{0, 0, 1}));
  // [2, 3, 3]: dim 1, dim 2 (-1), and the default (the first dim of size 3: 1).
  const std::vector<double> x = RandomValues(18, -1, 1, 6), y = RandomValues(18, -1, 1, 7);
  for (int dim : {1, -1, 9}) {
    const int d = dim == 9 ? 1 : (dim < 0 ? dim + 3 : dim);
    const int64_t stride = d == 1 ? 3 : 1;
    std::vector<double> want(18);
    for (int64_t i = 0; i < 18; ++i) {
      const int64_t idx[3] = {i / 9, (i / 3) % 3, i % 3};
      if (idx[d] != 0) continue;
      const double a[3] = {x[i], x[i + stride], x[i + 2 * stride]};
      const double b[3] = {y[i], y[i + stride], y[i + 2 * stride]};
      want[i] = a[1] * b[2] - a[2] * b[1];
      want[i + stride] = a[2] * b[0] - a[0] * b[2];
      want[i + 2 * stride] = a[0] * b[1] - a[1] * b[0];
    }
    const SlotTensors in = {{"X", {MakeTensor<double>({2, 3, 3}, x)}},
                            {"Y", {MakeTensor<double>({2, 3, 3}, y)}}};
    const auto r = RunOp("cross", in, {{"Out", 1}}, {{"dim", dim}});
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "dim " + std::to_string(dim));
    GradCheck g;
    g.op_type = "cross";
    g.inputs = in;
    g.outputs = {{"Out", 1}};
    g.attrs = {{"dim", dim}};
    g.max_order = 2;
    CheckGradients(g);
  }
  const DenseTensor bad = MakeTensor<float>({2, 4}, RandomValues(8, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("cross", {{"X", {bad}}, {"Y", {bad}}}, {{"Out", 1}});
      },
      {"op `cross` input `X`", "size 3", "[2, 4]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("cross", {{"X", {bad}}, {"Y", {bad}}}, {{"Out", 1}}, {{"dim", 1}});
      },
      {"op `cross` attribute `dim`", "size 3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("cross", {{"X", {e0}}, {"Y", {bad}}}, {{"Out", 1}});
      },
      {"op `cross` input `Y`", "[3]", "[2, 4]"});
}

TEST_F(LerpCrossKron, KronPadsTheLowerRank) {
  const auto doc = RunOp(
      "kron",
      {{"X", {MakeTensor<float>({1, 2}, {1, 2})}}, {"Y", {MakeTensor<float>({2, 1}, {1, 10})}}},
      {{"Out", 1}});
  EXPECT_EQ(doc.outputs.at("Out")[0].dims(), DDim({2, 2}));
  EXPECT_EQ(ToDoubles(doc.outputs.at("Out")[0]), (std::vector<double>{1, 2, 10, 20}));
  // X [3] (padded to [1, 3]) and Y [2, 2]: Out [2, 6], Out[i, 2a + b] = X[a] Y[i, b].
  const std::vector<double> x = RandomValues(3, -1, 1, 8), y = RandomValues(4, -1, 1, 9);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 2; ++b) want.push_back(x[a] * y[i * 2 + b]);
    }
  }
  const SlotTensors in = {{"X", {MakeTensor<double>({3}, x)}},
                          {"Y", {MakeTensor<double>({2, 2}, y)}}};
  const auto r = RunOp("kron", in, {{"Out", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 6}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "kron");
  GradCheck g;
  g.op_type = "kron";
  g.inputs = in;
  g.outputs = {{"Out", 1}};
  CheckGradients(g);
  GradCheck h;
  h.op_type = "kron";
  h.inputs = {{"X", {MakeTensor<double>({2, 1, 2}, RandomValues(4, -1, 1, 10))}},
              {"Y", {MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 11))}}};
  h.outputs = {{"Out", 1}};
  CheckGradients(h);
  const auto i =
      RunOp("kron",
            {{"X", {MakeTensor<int64_t>({2}, {2, 3})}}, {"Y", {MakeTensor<int64_t>({2}, {1, -1})}}},
            {{"Out", 1}});
  EXPECT_EQ(ToDoubles(i.outputs.at("Out")[0]), (std::vector<double>{2, -2, 3, -3}));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
