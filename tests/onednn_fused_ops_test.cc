// framework/onednn_fused_ops.h: the ops PaddlePaddle's oneDNN passes fuse, written back as
// the ops they fused, against the formulas computed here in double (post-ops, output scales,
// fused reshapes, transposes and unsqueezes), and the typed refusals of what float ops cannot
// express. Saved programs of real models: the *_onednn_optimized fixtures.
#include "framework/onednn_fused_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "framework/scope.h"
#include "operators/registry.h"
#include "tests/pass_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ExpandOneDnnFusedOps;

std::vector<double> ExpandAndRun(ProgramWithParams* m, const DenseTensor& x) {
  operators::RegisterAllOps();
  EXPECT_EQ(ExpandOneDnnFusedOps(&m->program), 1);
  framework::Scope scope;
  m->Fill(&scope);
  return RunProgram(m->program, &scope, x);
}

// out = 2 leaky_relu(0.5 X Y + R) with Y^T stored, X given as [2, 1, 3] and reshaped to [2, 3].
TEST(OneDnnFusedOps, MatmulWithReshapeAlphaResidualActivationAndScale) {
  ProgramWithParams m;
  m.Declare("x", {2, 1, 3}, false);
  m.Param("yt", {2, 3});
  m.Param("r", {2, 2});
  m.Declare("out", {2, 2}, false);
  m.Op("fused_matmul", {{"X", {"x"}}, {"Y", {"yt"}}, {"ResidualData", {"r"}}}, {{"Out", {"out"}}},
       {{"trans_x", false},
        {"trans_y", true},
        {"matmul_alpha", 0.5f},
        {"fused_reshape_X", std::vector<int>{2, 3}},
        {"fuse_activation", std::string("leaky_relu")},
        {"fuse_alpha", 0.1f},
        {"fused_output_scale", 2.0f}});
  const std::vector<double> xv = RandomValues(6, -1, 1, 3);
  const std::vector<double> yt = ToDoubles(m.params.at("yt")), r = ToDoubles(m.params.at("r"));
  std::vector<double> want(4);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += xv[i * 3 + k] * yt[j * 3 + k];
      const double v = 0.5 * s + r[i * 2 + j];
      want[i * 2 + j] = 2 * (v >= 0 ? v : 0.1 * v);
    }
  }
  ExpectNear(ExpandAndRun(&m, MakeTensor<float>({2, 1, 3}, xv)), want, 1e-6, 1e-6, "fused_matmul");
}

// out = unsqueeze(sqrt(X * Y), [0]) and fc's hard_sigmoid and hard_swish post-ops.
TEST(OneDnnFusedOps, ElementwiseAndFcPostOps) {
  {
    ProgramWithParams m;
    m.Declare("x", {2, 3}, false);
    m.Param("y", {2, 3}, 0.5, 2);
    m.Declare("out", {1, 2, 3}, false);
    m.Op("fused_elementwise_mul", {{"X", {"x"}}, {"Y", {"y"}}}, {{"Out", {"out"}}},
         {{"axis", -1},
          {"fuse_activation", std::string("sqrt")},
          {"fused_unsqueeze2_axes", std::vector<int>{0}}});
    const std::vector<double> xv = RandomValues(6, 0.1, 2, 4), y = ToDoubles(m.params.at("y"));
    std::vector<double> want(6);
    for (int i = 0; i < 6; ++i) want[i] = std::sqrt(xv[i] * y[i]);
    ExpectNear(ExpandAndRun(&m, MakeTensor<float>({2, 3}, xv)), want, 1e-6, 1e-7,
               "fused_elementwise_mul");
  }
  for (const std::string act : {"hard_sigmoid", "hard_swish"}) {
    ProgramWithParams m;
    m.Declare("x", {2, 3}, false);
    m.Param("w", {3, 4});
    m.Param("b", {4});
    m.Declare("out", {2, 4}, false);
    m.Op("fc", {{"Input", {"x"}}, {"W", {"w"}}, {"Bias", {"b"}}}, {{"Out", {"out"}}},
         {{"in_num_col_dims", 1},
          {"fuse_activation", act},
          {"fuse_alpha", 0.25f},
          {"fuse_beta", 0.5f}});
    const std::vector<double> xv = RandomValues(6, -3, 3, 5), w = ToDoubles(m.params.at("w")),
                              b = ToDoubles(m.params.at("b"));
    std::vector<double> want(8);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 4; ++j) {
        double v = b[j];
        for (int k = 0; k < 3; ++k) v += xv[i * 3 + k] * w[k * 4 + j];
        const double gate = std::min(std::max(0.25 * v + 0.5, 0.0), 1.0);
        want[i * 4 + j] = act == "hard_sigmoid" ? gate : v * gate;
      }
    }
    ExpectNear(ExpandAndRun(&m, MakeTensor<float>({2, 3}, xv)), want, 1e-6, 1e-6, act);
  }
}

TEST(OneDnnFusedOps, WhatFloatOpsCannotExpressIsRefused) {
  operators::RegisterAllOps();
  auto program = [](const framework::AttributeMap& attrs) {
    ProgramWithParams m;
    m.Declare("x", {2, 3}, false);
    m.Declare("y", {2, 3}, false);
    m.Declare("out", {2, 3}, false);
    m.Op("fused_elementwise_add", {{"X", {"x"}}, {"Y", {"y"}}}, {{"Out", {"out"}}}, attrs);
    return m.program;
  };
  framework::ProgramDesc quantised = program({{"scale_x", 0.5f}});
  ExpectError<platform::UnimplementedError>([&] { ExpandOneDnnFusedOps(&quantised); },
                                            {"fused_elementwise_add", "scale_x", "quantised"});
  framework::ProgramDesc int8 = program({{"mkldnn_data_type", std::string("int8")}});
  ExpectError<platform::UnimplementedError>([&] { ExpandOneDnnFusedOps(&int8); },
                                            {"fused_elementwise_add", "mkldnn_data_type", "int8"});
  framework::ProgramDesc cosine = program({{"fuse_activation", std::string("cos")}});
  ExpectError<platform::UnimplementedError>([&] { ExpandOneDnnFusedOps(&cosine); },
                                            {"fused_elementwise_add", "post-op `cos`"});
  // A plain program is left as it is.
  ProgramWithParams plain;
  plain.Declare("x", {2}, false);
  plain.Declare("out", {2}, false);
  plain.Op("relu", {{"X", {"x"}}}, {{"Out", {"out"}}});
  EXPECT_EQ(ExpandOneDnnFusedOps(&plain.program), 0);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
