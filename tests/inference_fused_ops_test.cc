// framework/inference_fused_ops.h: the ops PaddlePaddle's oneDNN passes fuse, written back as
// the ops they fused, against the formulas computed here in double (post-ops, output scales,
// fused reshapes, transposes and unsqueezes), and the typed refusals of what float ops cannot
// express. Saved programs of real models: the *_onednn_optimized fixtures.
#include "framework/inference_fused_ops.h"

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

using framework::ExpandInferenceFusedOps;

std::vector<double> ExpandAndRun(ProgramWithParams* m, const DenseTensor& x) {
  operators::RegisterAllOps();
  EXPECT_EQ(ExpandInferenceFusedOps(&m->program), 1);
  framework::Scope scope;
  m->Fill(&scope);
  return RunProgram(m->program, &scope, x);
}

// out = 2 leaky_relu(0.5 X Y + R) with Y^T stored, X given as [2, 1, 3] and reshaped to [2, 3].
TEST(InferenceFusedOps, MatmulWithReshapeAlphaResidualActivationAndScale) {
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
TEST(InferenceFusedOps, ElementwiseAndFcPostOps) {
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

// Layer normalisation of rows of `cols` values, scale and bias per column.
std::vector<double> LayerNormRows(const std::vector<double>& t, size_t cols,
                                  const std::vector<double>& scale, const std::vector<double>& bias,
                                  double eps) {
  std::vector<double> y(t.size());
  for (size_t r = 0; r < t.size() / cols; ++r) {
    double mean = 0, var = 0;
    for (size_t c = 0; c < cols; ++c) mean += t[r * cols + c] / cols;
    for (size_t c = 0; c < cols; ++c) var += std::pow(t[r * cols + c] - mean, 2) / cols;
    for (size_t c = 0; c < cols; ++c) {
      y[r * cols + c] = (t[r * cols + c] - mean) / std::sqrt(var + eps) * scale[c] + bias[c];
    }
  }
  return y;
}

// The transformer fusions of PaddlePaddle's GPU passes (skip_layernorm,
// fused_fc_elementwise_layernorm, fused_embedding_eltwise_layernorm) and oneDNN's
// fused_transpose, against their formulas.
TEST(InferenceFusedOps, TransformerFusionsAndTransposeMatchTheirFormulas) {
  const std::vector<double> xv = RandomValues(8, -2, 2, 11);
  {
    ProgramWithParams m;
    m.Declare("x", {2, 4}, false);
    m.Param("y", {2, 4});
    m.Param("s", {4}, 0.5, 1.5);
    m.Param("b", {4});
    m.Declare("out", {2, 4}, false);
    m.Op("skip_layernorm", {{"X", {"x"}}, {"Y", {"y"}}, {"Scale", {"s"}}, {"Bias", {"b"}}},
         {{"Out", {"out"}}}, {{"epsilon", 1e-3f}, {"begin_norm_axis", 1}});
    std::vector<double> t(8);
    const std::vector<double> y = ToDoubles(m.params.at("y"));
    for (int i = 0; i < 8; ++i) t[i] = xv[i] + y[i];
    const std::vector<double> want =
        LayerNormRows(t, 4, ToDoubles(m.params.at("s")), ToDoubles(m.params.at("b")), 1e-3f);
    ExpectNear(ExpandAndRun(&m, MakeTensor<float>({2, 4}, xv)), want, 1e-5, 1e-6, "skip_layernorm");
  }
  {
    ProgramWithParams m;
    m.Declare("x", {2, 4}, false);
    m.Param("w", {4, 3});
    m.Param("b0", {3});
    m.Param("y", {2, 3});
    m.Param("s", {3}, 0.5, 1.5);
    m.Param("b1", {3});
    m.Declare("out", {2, 3}, false);
    m.Op("fused_fc_elementwise_layernorm",
         {{"X", {"x"}},
          {"W", {"w"}},
          {"Bias0", {"b0"}},
          {"Y", {"y"}},
          {"Scale", {"s"}},
          {"Bias1", {"b1"}}},
         {{"Out", {"out"}}}, {{"x_num_col_dims", 1}, {"epsilon", 1e-5f}, {"begin_norm_axis", 1}});
    const std::vector<double> w = ToDoubles(m.params.at("w")), b0 = ToDoubles(m.params.at("b0")),
                              y = ToDoubles(m.params.at("y"));
    std::vector<double> t(6);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        t[i * 3 + j] = b0[j] + y[i * 3 + j];
        for (int k = 0; k < 4; ++k) t[i * 3 + j] += xv[i * 4 + k] * w[k * 3 + j];
      }
    }
    const std::vector<double> want =
        LayerNormRows(t, 3, ToDoubles(m.params.at("s")), ToDoubles(m.params.at("b1")), 1e-5f);
    ExpectNear(ExpandAndRun(&m, MakeTensor<float>({2, 4}, xv)), want, 1e-5, 1e-6,
               "fused_fc_elementwise_layernorm");
  }
  {
    // Word and position embeddings of ids [2, 3].
    ProgramWithParams m;
    m.Declare("x", {2, 3}, false);
    m.program.Block(0).Var("x")->SetDataType(DataType::INT64);
    m.Param("pos_ids", {2, 3}, 0, 0);
    m.Param("word", {5, 4});
    m.Param("pos", {3, 4});
    m.Param("s", {4}, 0.5, 1.5);
    m.Param("b", {4});
    m.params["pos_ids"] = MakeTensor<int64_t>({2, 3}, {0, 1, 2, 0, 1, 2});
    m.program.Block(0).Var("pos_ids")->SetDataType(DataType::INT64);
    m.Declare("out", {2, 3, 4}, false);
    m.Op("fused_embedding_eltwise_layernorm",
         {{"Ids", {"x", "pos_ids"}}, {"Embs", {"word", "pos"}}, {"Scale", {"s"}}, {"Bias", {"b"}}},
         {{"Out", {"out"}}}, {{"epsilon", 1e-5f}});
    const std::vector<double> ids = {4, 0, 2, 1, 1, 3};
    const std::vector<double> word = ToDoubles(m.params.at("word")),
                              pos = ToDoubles(m.params.at("pos"));
    std::vector<double> t(24);
    for (int i = 0; i < 6; ++i) {
      for (int c = 0; c < 4; ++c) t[i * 4 + c] = word[ids[i] * 4 + c] + pos[(i % 3) * 4 + c];
    }
    const std::vector<double> want =
        LayerNormRows(t, 4, ToDoubles(m.params.at("s")), ToDoubles(m.params.at("b")), 1e-5f);
    ExpectNear(ExpandAndRun(&m, MakeTensor<int64_t>({2, 3}, ids)), want, 1e-5, 1e-6,
               "fused_embedding_eltwise_layernorm");
  }
  {
    // [2, 1, 4] squeezed to [2, 4], transposed to [4, 2], unsqueezed to [1, 4, 2], reshaped
    // to [8].
    ProgramWithParams m;
    m.Declare("x", {2, 1, 4}, false);
    m.Declare("out", {8}, false);
    m.Declare("xshape", {0}, false);
    m.Op("fused_transpose", {{"X", {"x"}}}, {{"Out", {"out"}}, {"XShape", {"xshape"}}},
         {{"axis", std::vector<int>{1, 0}},
          {"fused_squeeze2_axes", std::vector<int>{1}},
          {"fused_unsqueeze2_axes", std::vector<int>{0}},
          {"fused_reshape2_shape", std::vector<int>{8}}});
    std::vector<double> want(8);
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 2; ++j) want[i * 2 + j] = xv[j * 4 + i];
    }
    EXPECT_EQ(ExpandAndRun(&m, MakeTensor<float>({2, 1, 4}, xv)),
              ToDoubles(MakeTensor<float>({8}, want)));
  }
}

// fused_conv2d_add_act (cuDNN's fusion) with split outputs and depthwise_conv2d_bias, against
// the unfused ops they stand for.
TEST(InferenceFusedOps, ConvolutionFusionsMatchTheirUnfusedOps) {
  const DenseTensor x = MakeTensor<float>({1, 4, 5, 5}, RandomValues(100, -1, 1, 21));
  auto base = [](ProgramWithParams* m) {
    m->Declare("x", {1, 4, 5, 5}, false);
    m->Param("w", {6, 4, 3, 3}, -0.5, 0.5);
    m->Param("dw", {4, 1, 3, 3}, -0.5, 0.5);
    m->Param("b", {1, 6, 1, 1});
    m->Param("db", {4});
    m->Param("r", {1, 6, 5, 5});
  };
  const AttributeMap conv_attrs = {{"paddings", std::vector<int>{1, 1}}};
  ProgramWithParams fused;
  base(&fused);
  for (const char* v : {"y", "part0", "part1"}) fused.Declare(v, {}, false);
  AttributeMap fused_attrs = conv_attrs;
  fused_attrs["activation"] = std::string("relu");
  fused_attrs["split_channels"] = std::vector<int>{2, 4};
  fused.Op("fused_conv2d_add_act",
           {{"Input", {"x"}}, {"Filter", {"w"}}, {"Bias", {"b"}}, {"ResidualData", {"r"}}},
           {{"Output", {"y"}}, {"Outputs", {"part0", "part1"}}}, fused_attrs);
  fused.Declare("out", {}, false);
  AttributeMap dw_attrs = conv_attrs;
  dw_attrs["groups"] = 4;
  fused.Op("depthwise_conv2d_bias", {{"input", {"x"}}, {"filter", {"dw"}}, {"bias", {"db"}}},
           {{"out", {"out"}}}, dw_attrs);

  ProgramWithParams plain;
  base(&plain);
  for (const char* v : {"c", "cb", "cr", "y", "part0", "part1", "d", "out"}) {
    plain.Declare(v, {}, false);
  }
  plain.Op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c"}}}, conv_attrs);
  plain.Op("elementwise_add", {{"X", {"c"}}, {"Y", {"b"}}}, {{"Out", {"cb"}}}, {{"axis", -1}});
  plain.Op("elementwise_add", {{"X", {"cb"}}, {"Y", {"r"}}}, {{"Out", {"cr"}}}, {{"axis", -1}});
  plain.Op("relu", {{"X", {"cr"}}}, {{"Out", {"y"}}});
  plain.Op("split", {{"X", {"y"}}}, {{"Out", {"part0", "part1"}}},
           {{"sections", std::vector<int>{2, 4}}, {"axis", 1}});
  plain.Op("depthwise_conv2d", {{"Input", {"x"}}, {"Filter", {"dw"}}}, {{"Output", {"d"}}},
           dw_attrs);
  plain.Op("elementwise_add", {{"X", {"d"}}, {"Y", {"db"}}}, {{"Out", {"out"}}}, {{"axis", 1}});

  operators::RegisterAllOps();
  EXPECT_EQ(ExpandInferenceFusedOps(&fused.program), 2);
  framework::Scope fused_scope, plain_scope;
  fused.Fill(&fused_scope);
  plain.Fill(&plain_scope);
  for (const char* name : {"part0", "part1", "out"}) {
    ExpectNear(RunProgram(fused.program, &fused_scope, x, name),
               RunProgram(plain.program, &plain_scope, x, name), 1e-5, 1e-6, name);
  }
}

TEST(InferenceFusedOps, WhatFloatOpsCannotExpressIsRefused) {
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
  ExpectError<platform::UnimplementedError>([&] { ExpandInferenceFusedOps(&quantised); },
                                            {"fused_elementwise_add", "scale_x", "quantised"});
  framework::ProgramDesc int8 = program({{"mkldnn_data_type", std::string("int8")}});
  ExpectError<platform::UnimplementedError>([&] { ExpandInferenceFusedOps(&int8); },
                                            {"fused_elementwise_add", "mkldnn_data_type", "int8"});
  framework::ProgramDesc cosine = program({{"fuse_activation", std::string("cos")}});
  ExpectError<platform::UnimplementedError>([&] { ExpandInferenceFusedOps(&cosine); },
                                            {"fused_elementwise_add", "post-op `cos`"});
  // A plain program is left as it is.
  ProgramWithParams plain;
  plain.Declare("x", {2}, false);
  plain.Declare("out", {2}, false);
  plain.Op("relu", {{"X", {"x"}}}, {{"Out", {"out"}}});
  EXPECT_EQ(ExpandInferenceFusedOps(&plain.program), 0);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
