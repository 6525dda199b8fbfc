// fused_rms_norm_quant, fused_bias_residual_layernorm, fused_softmax_mask and
// fused_softmax_mask_upper_triangle against references written here in double: the int8
// quantisation and the causal softmax (which PaddlePaddle's CPU build does not run, so no
// fixture covers them), double inputs, the masked softmaxes' gradients by finite differences
// to the second order, and the typed errors of bad shapes. The float32 cases PaddlePaddle's
// CPU build runs are also checked against its outputs (fixture pir_fused_transformer_ops_tiny).
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// Rows of `cols` values: t = x + alpha * residual + bias (residual given), normalised.
std::vector<double> RmsReference(const std::vector<double>& t, int64_t cols,
                                 const std::vector<double>& w, const std::vector<double>& b,
                                 double eps) {
  std::vector<double> y(t.size());
  for (size_t r = 0; r < t.size() / cols; ++r) {
    double ms = 0;
    for (int64_t c = 0; c < cols; ++c) ms += t[r * cols + c] * t[r * cols + c] / cols;
    const double inv = 1 / std::sqrt(ms + eps);
    for (int64_t c = 0; c < cols; ++c) {
      y[r * cols + c] = t[r * cols + c] * inv * w[c] + (b.empty() ? 0.0 : b[c]);
    }
  }
  return y;
}

TEST(FusedRmsNormQuant, ResidualBiasAndDoubleInputs) {
  const std::vector<double> x = RandomValues(24, -2, 2, 1), res = RandomValues(24, -1, 1, 2),
                            bias = RandomValues(4, -1, 1, 3), w = RandomValues(4, 0.5, 1.5, 4),
                            nb = RandomValues(4, -1, 1, 5);
  const float eps = 1e-3f;
  auto r = RunOp("fused_rms_norm_quant",
                 {{"x", {MakeTensor<double>({2, 3, 4}, x)}},
                  {"bias", {MakeTensor<double>({4}, bias)}},
                  {"residual", {MakeTensor<double>({2, 3, 4}, res)}},
                  {"norm_weight", {MakeTensor<double>({4}, w)}},
                  {"norm_bias", {MakeTensor<double>({4}, nb)}}},
                 {{"out", 1}, {"residual_out", 1}, {"inv_var", 1}},
                 {{"epsilon", eps}, {"begin_norm_axis", 2}});
  std::vector<double> t(24);
  for (int i = 0; i < 24; ++i) t[i] = x[i] + res[i] + bias[i % 4];
  ExpectNear(ToDoubles(r.outputs.at("out")[0]), RmsReference(t, 4, w, nb, eps), 1e-13, 1e-14,
             "out");
  ExpectNear(ToDoubles(r.outputs.at("residual_out")[0]), t, 1e-15, 0, "residual_out");
  EXPECT_EQ(r.outputs.at("inv_var")[0].dims(), DDim({6}));

  // No residual: the bias is not added (PaddlePaddle's kernels); begin_norm_axis -2 takes
  // rows of 12.
  const std::vector<double> w12 = RandomValues(12, 0.5, 1.5, 6);
  r = RunOp("fused_rms_norm_quant",
            {{"x", {MakeTensor<double>({2, 3, 4}, x)}},
             {"bias", {MakeTensor<double>({12}, RandomValues(12, -1, 1, 7))}},
             {"norm_weight", {MakeTensor<double>({12}, w12)}}},
            {{"out", 1}, {"inv_var", 1}}, {{"epsilon", eps}, {"begin_norm_axis", -2}});
  ExpectNear(ToDoubles(r.outputs.at("out")[0]), RmsReference(x, 12, w12, {}, eps), 1e-13, 1e-14,
             "out over the last two dims");
}

// int8 output: round(max_bound * scale * y), half to even (type 0) or away from zero (1),
// clipped to the bounds.
TEST(FusedRmsNormQuant, QuantisesToInt8) {
  // One row whose normalised values are x / rms(x): rms of {3, -4, 0, 5} is sqrt(12.5).
  const std::vector<double> x = {3, -4, 0, 5};
  const std::vector<double> w = {1, 1, 1, 1};
  const double rms = std::sqrt(12.5);
  for (int round_type : {0, 1}) {
    auto r =
        RunOp("fused_rms_norm_quant",
              {{"x", {MakeTensor<float>({1, 4}, x)}}, {"norm_weight", {MakeTensor<float>({4}, w)}}},
              {{"out", 1}, {"inv_var", 1}},
              {{"epsilon", 0.0f},
               {"begin_norm_axis", 1},
               {"quant_scale", 0.5f},
               {"quant_round_type", round_type},
               {"quant_max_bound", 127.0f},
               {"quant_min_bound", -100.0f}});
    const DenseTensor& out = r.outputs.at("out")[0];
    ASSERT_EQ(out.dtype(), DataType::INT8);
    std::vector<double> expected;
    for (double v : x) {
      const double q = 127.0 * 0.5 * v / rms;
      double rounded = round_type == 0 ? std::nearbyint(q) : std::round(q);
      expected.push_back(std::min(127.0, std::max(-100.0, rounded)));
    }
    EXPECT_EQ(ToDoubles(out), expected) << "round type " << round_type;
  }
  // Exactly halfway, 2.5: to 2 (half to even) or 3 (away from zero).
  auto half = [](int round_type) {
    return ToDoubles(RunOp("fused_rms_norm_quant",
                           {{"x", {MakeTensor<float>({1, 1}, {1.0f})}},
                            {"norm_weight", {MakeTensor<float>({1}, {2.5f})}}},
                           {{"out", 1}, {"inv_var", 1}},
                           {{"epsilon", 0.0f},
                            {"begin_norm_axis", 1},
                            {"quant_scale", 0.1f},
                            {"quant_round_type", round_type},
                            {"quant_max_bound", 10.0f},
                            {"quant_min_bound", -10.0f}})
                         .outputs.at("out")[0]);
  };
  EXPECT_EQ(half(0), std::vector<double>{2});
  EXPECT_EQ(half(1), std::vector<double>{3});
}

TEST(FusedBiasResidualLayerNorm, NormalisesTheWeightedSum) {
  const std::vector<double> x = RandomValues(24, -2, 2, 11), res = RandomValues(24, -1, 1, 12),
                            bias = RandomValues(8, -1, 1, 13), w = RandomValues(8, 0.5, 1.5, 14),
                            nb = RandomValues(8, -1, 1, 15);
  const float eps = 1e-4f, alpha = 0.25f;
  auto r = RunOp("fused_bias_residual_layernorm",
                 {{"x", {MakeTensor<double>({3, 8}, x)}},
                  {"bias", {MakeTensor<double>({8}, bias)}},
                  {"residual", {MakeTensor<double>({3, 8}, res)}},
                  {"norm_weight", {MakeTensor<double>({8}, w)}},
                  {"norm_bias", {MakeTensor<double>({8}, nb)}}},
                 {{"out", 1}, {"residual_out", 1}, {"mean", 1}, {"variance", 1}},
                 {{"epsilon", eps}, {"begin_norm_axis", 1}, {"residual_alpha", alpha}});
  std::vector<double> t(24), y(24), mean(3), rstd(3);
  for (int i = 0; i < 24; ++i) t[i] = x[i] + alpha * res[i] + bias[i % 8];
  for (int row = 0; row < 3; ++row) {
    double m = 0, v = 0;
    for (int c = 0; c < 8; ++c) m += t[row * 8 + c] / 8;
    for (int c = 0; c < 8; ++c) v += (t[row * 8 + c] - m) * (t[row * 8 + c] - m) / 8;
    mean[row] = m;
    rstd[row] = 1 / std::sqrt(v + eps);
    for (int c = 0; c < 8; ++c) y[row * 8 + c] = (t[row * 8 + c] - m) * rstd[row] * w[c] + nb[c];
  }
  ExpectNear(ToDoubles(r.outputs.at("out")[0]), y, 1e-13, 1e-14, "out");
  ExpectNear(ToDoubles(r.outputs.at("residual_out")[0]), t, 1e-15, 0, "residual_out");
  ASSERT_EQ(r.outputs.at("mean")[0].dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(r.outputs.at("mean")[0]), mean, 1e-6, 1e-7, "mean");
  ExpectNear(ToDoubles(r.outputs.at("variance")[0]), rstd, 1e-6, 0, "variance (1 / std)");

  // Neither weight nor bias: the sum alone, the bias added without a residual too.
  r = RunOp("fused_bias_residual_layernorm",
            {{"x", {MakeTensor<double>({3, 8}, x)}}, {"bias", {MakeTensor<double>({8}, bias)}}},
            {{"out", 1}, {"mean", 1}, {"variance", 1}}, {{"epsilon", eps}, {"begin_norm_axis", 1}});
  std::vector<double> sum(24);
  for (int i = 0; i < 24; ++i) sum[i] = x[i] + bias[i % 8];
  ExpectNear(ToDoubles(r.outputs.at("out")[0]), sum, 1e-15, 0, "sum only");
}

TEST(FusedNormOps, BadShapesAreTypedErrors) {
  const DenseTensor x = MakeTensor<float>({2, 4}, RandomValues(8, -1, 1, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fused_rms_norm_quant",
              {{"x", {x}}, {"norm_weight", {MakeTensor<float>({3}, {1, 1, 1})}}},
              {{"out", 1}, {"inv_var", 1}}, {{"epsilon", 1e-5f}, {"begin_norm_axis", 1}});
      },
      {"fused_rms_norm_quant", "norm_weight", "expected 4 values", "[3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fused_bias_residual_layernorm", {{"x", {x}}},
              {{"out", 1}, {"mean", 1}, {"variance", 1}},
              {{"epsilon", 1e-5f}, {"begin_norm_axis", 2}});
      },
      {"fused_bias_residual_layernorm", "begin_norm_axis", "rank 2", "received 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fused_bias_residual_layernorm",
              {{"x", {x}}, {"residual", {MakeTensor<float>({4, 2}, RandomValues(8, -1, 1, 2))}}},
              {{"out", 1}, {"mean", 1}, {"variance", 1}},
              {{"epsilon", 1e-5f}, {"begin_norm_axis", 1}});
      },
      {"fused_bias_residual_layernorm", "residual", "[4, 2]"});
}

// Softmax of each row of `v` (rows of n), entries marked false left out (probability 0).
std::vector<double> MaskedSoftmax(const std::vector<double>& v, int64_t n,
                                  const std::vector<bool>& seen) {
  std::vector<double> out(v.size(), 0.0);
  for (size_t r = 0; r < v.size() / n; ++r) {
    double m = -1e300, sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      if (seen[r * n + j]) m = std::max(m, v[r * n + j]);
    }
    for (int64_t j = 0; j < n; ++j) {
      if (seen[r * n + j]) sum += std::exp(v[r * n + j] - m);
    }
    for (int64_t j = 0; j < n; ++j) {
      if (seen[r * n + j]) out[r * n + j] = std::exp(v[r * n + j] - m) / sum;
    }
  }
  return out;
}

TEST(FusedSoftmaxMask, AddsTheMaskToEveryHead) {
  const std::vector<double> x = RandomValues(48, -3, 3, 21), mask = RandomValues(24, -2, 0, 22);
  auto r = RunOp("fused_softmax_mask",
                 {{"X", {MakeTensor<double>({2, 2, 3, 4}, x)}},
                  {"Mask", {MakeTensor<double>({2, 1, 3, 4}, mask)}}},
                 {{"Out", 1}});
  std::vector<double> sum(48);
  for (int b = 0; b < 2; ++b) {
    for (int h = 0; h < 2; ++h) {
      for (int k = 0; k < 12; ++k)
        sum[(b * 2 + h) * 12 + k] = x[(b * 2 + h) * 12 + k] + mask[b * 12 + k];
    }
  }
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), MaskedSoftmax(sum, 4, std::vector<bool>(48, true)),
             1e-14, 1e-15, "Out");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fused_softmax_mask",
              {{"X", {MakeTensor<double>({2, 2, 3, 4}, x)}},
               {"Mask", {MakeTensor<double>({2, 2, 3, 2}, RandomValues(24, -1, 0, 1))}}},
              {{"Out", 1}});
      },
      {"fused_softmax_mask", "Mask", "expected [2, 1, 3, 4]", "[2, 2, 3, 2]"});
}

TEST(FusedSoftmaxMaskUpperTriangle, QueryISeesKeysUpToI) {
  const std::vector<double> x = RandomValues(36, -3, 3, 31);
  auto r = RunOp("fused_softmax_mask_upper_triangle",
                 {{"X", {MakeTensor<double>({1, 4, 3, 3}, x)}}}, {{"Out", 1}});
  std::vector<bool> seen(36);
  for (int i = 0; i < 36; ++i) seen[i] = i % 3 <= (i / 3) % 3;
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), MaskedSoftmax(x, 3, seen), 1e-14, 1e-15, "Out");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fused_softmax_mask_upper_triangle",
              {{"X", {MakeTensor<double>({1, 1, 2, 3}, RandomValues(6, -1, 1, 2))}}}, {{"Out", 1}});
      },
      {"fused_softmax_mask_upper_triangle", "as many queries as keys", "[1, 1, 2, 3]"});
}

TEST(FusedSoftmaxMask, GradientsToTheSecondOrder) {
  GradCheck mask;
  mask.op_type = "fused_softmax_mask";
  mask.inputs = {{"X", {MakeTensor<double>({2, 2, 2, 3}, RandomValues(24, -2, 2, 41))}},
                 {"Mask", {MakeTensor<double>({2, 1, 2, 3}, RandomValues(12, -1, 0, 42))}}};
  mask.outputs = {{"Out", 1}};
  mask.max_order = 2;
  mask.rtol = 1e-5;
  CheckGradients(mask);

  GradCheck causal;
  causal.op_type = "fused_softmax_mask_upper_triangle";
  causal.inputs = {{"X", {MakeTensor<double>({1, 2, 3, 3}, RandomValues(18, -2, 2, 43))}}};
  causal.outputs = {{"Out", 1}};
  causal.max_order = 2;
  CheckGradients(causal);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
