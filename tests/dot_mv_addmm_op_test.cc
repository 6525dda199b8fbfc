// dot, mv and addmm against sums written out in double (every broadcast form of addmm's
// Input, alpha and beta), the doc examples, gradients by finite differences, typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(DotMvAddmmOps, DocExamples) {
  operators::RegisterAllOps();
  auto r = RunOp(
      "dot",
      {{"X", {MakeTensor<float>({3}, {1, 2, 3})}}, {"Y", {MakeTensor<float>({3}, {4, 5, 6})}}},
      {{"Out", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim());
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{32}));
  r = RunOp(
      "mv",
      {{"X", {MakeTensor<float>({2, 2}, {1, 2, 3, 4})}}, {"Vec", {MakeTensor<float>({2}, {1, 1})}}},
      {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{3, 7}));
  r = RunOp("addmm",
            {{"Input", {MakeTensor<float>({2}, {10, 20})}},
             {"X", {MakeTensor<float>({1, 2}, {1, 2})}},
             {"Y", {MakeTensor<float>({2, 2}, {1, 0, 1, 1})}}},
            {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{13, 22}));
}

TEST(DotMvAddmmOps, MatchSumsWrittenOut) {
  operators::RegisterAllOps();
  const std::vector<double> a = RandomValues(12, -1, 1, 3), b = RandomValues(12, -1, 1, 4);
  auto r =
      RunOp("dot", {{"X", {MakeTensor<double>({3, 4}, a)}}, {"Y", {MakeTensor<double>({3, 4}, b)}}},
            {{"Out", 1}});
  std::vector<double> want(3, 0.0);
  for (int i = 0; i < 12; ++i) want[i / 4] += a[i] * b[i];
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "dot");
  r = RunOp("mv",
            {{"X", {MakeTensor<double>({3, 4}, a)}},
             {"Vec", {MakeTensor<double>({4}, {b.begin(), b.begin() + 4})}}},
            {{"Out", 1}});
  std::fill(want.begin(), want.end(), 0.0);
  for (int i = 0; i < 12; ++i) want[i / 4] += a[i] * b[i % 4];
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "mv");
  // addmm: X [3, 4], Y [4, 2], every form of Input.
  const std::vector<double> y = RandomValues(8, -1, 1, 5);
  for (const DDim& in_dims : {DDim{3, 2}, DDim{1, 2}, DDim{3, 1}, DDim{1, 1}, DDim{2}, DDim{1}}) {
    SCOPED_TRACE("Input " + in_dims.ToString());
    const std::vector<double> in = RandomValues(in_dims.numel(), -1, 1, 6);
    r = RunOp("addmm",
              {{"Input", {MakeTensor<double>(in_dims, in)}},
               {"X", {MakeTensor<double>({3, 4}, a)}},
               {"Y", {MakeTensor<double>({4, 2}, y)}}},
              {{"Out", 1}}, {{"Alpha", 0.5f}, {"Beta", -2.0f}});
    const int64_t rows = in_dims.size() == 2 ? in_dims[0] : 1, cols = in_dims[in_dims.size() - 1];
    std::vector<double> expect;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 2; ++j) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += a[i * 4 + k] * y[k * 2 + j];
        expect.push_back(-2.0 * in[(rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j)] + 0.5 * s);
      }
    }
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expect, 1e-15, 1e-15, "addmm");
  }
}

TEST(DotMvAddmmOps, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const DDim& dims : {DDim{5}, DDim{3, 4}}) {
    GradCheck dot;
    dot.op_type = "dot";
    dot.inputs = {{"X", {MakeTensor<double>(dims, RandomValues(dims.numel(), -1, 1, 3))}},
                  {"Y", {MakeTensor<double>(dims, RandomValues(dims.numel(), -1, 1, 4))}}};
    dot.outputs = {{"Out", 1}};
    CheckGradients(dot);
  }
  GradCheck mv;
  mv.op_type = "mv";
  mv.inputs = {{"X", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 5))}},
               {"Vec", {MakeTensor<double>({4}, RandomValues(4, -1, 1, 6))}}};
  mv.outputs = {{"Out", 1}};
  CheckGradients(mv);
  for (const DDim& in_dims : {DDim{3, 2}, DDim{1, 2}, DDim{3, 1}, DDim{2}}) {
    SCOPED_TRACE("Input " + in_dims.ToString());
    GradCheck addmm;
    addmm.op_type = "addmm";
    addmm.inputs = {
        {"Input", {MakeTensor<double>(in_dims, RandomValues(in_dims.numel(), -1, 1, 7))}},
        {"X", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 8))}},
        {"Y", {MakeTensor<double>({4, 2}, RandomValues(8, -1, 1, 9))}}};
    addmm.outputs = {{"Out", 1}};
    addmm.attrs = {{"Alpha", 0.5f}, {"Beta", -2.0f}};
    CheckGradients(addmm);
  }
}

TEST(DotMvAddmmOps, BadShapesAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("dot",
              {{"X", {MakeTensor<float>({3}, {1, 2, 3})}}, {"Y", {MakeTensor<float>({2}, {1, 2})}}},
              {{"Out", 1}});
      },
      {"op `dot` input `Y`", "[3]", "[2]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("mv",
              {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, 0, 1))}},
               {"Vec", {MakeTensor<float>({2}, {1, 2})}}},
              {{"Out", 1}});
      },
      {"op `mv` input `Vec`", "[3]", "[2]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("addmm",
              {{"Input", {MakeTensor<float>({2, 3}, RandomValues(6, 0, 1))}},
               {"X", {MakeTensor<float>({2, 2}, RandomValues(4, 0, 1))}},
               {"Y", {MakeTensor<float>({2, 2}, RandomValues(4, 0, 1))}}},
              {{"Out", 1}});
      },
      {"op `addmm` input `Input`", "[2, 3]", "[2, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("addmm",
              {{"Input", {MakeTensor<float>({2}, {0, 0})}},
               {"X", {MakeTensor<float>({2, 3}, RandomValues(6, 0, 1))}},
               {"Y", {MakeTensor<float>({2, 2}, RandomValues(4, 0, 1))}}},
              {{"Out", 1}});
      },
      {"op `addmm` input `Y`", "[3, N]", "[2, 2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
