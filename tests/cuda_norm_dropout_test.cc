// The CUDA kernels of batch_norm, batch_norm_grad, dropout and dropout_grad
// (operators/nn/batch_norm_op.cu, dropout_op.cu) against the CPU kernels, and the dropout
// mask's generator (operators/nn/dropout_mask.h). The device tests skip when the build has no
// CUDA or the machine has no device; the generator's tests run everywhere.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/nn/dropout_mask.h"
#include "platform/init.h"
#include "tests/cuda_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::DDim;

class CudaNormDropoutTest : public CudaTest {};

DenseTensor Random(DataType dtype, const DDim& dims, double lo, double hi, unsigned seed) {
  return RandomOf(dtype, dims, lo, hi, seed);
}

DenseTensor Scalar(DataType dtype, double value) {
  return dtype == DataType::FLOAT32 ? MakeTensor<float>(DDim{1}, {value})
                                    : MakeTensor<double>(DDim{1}, {value});
}

// The batch_norm kernels compute the CPU's formulas in double, only their per-channel sums
// in another order: in double, outputs agree within the rounding of sums of some 10^4
// terms. In float the reference is the CPU's oneDNN kernel, which sums each channel in
// float: on a GPU, its Scale@GRAD over 16k terms differed by 7e-5 relative, and outputs
// near 0 that cancel terms of size 1 by 4e-6 absolute.
constexpr GpuTolerance kNormTol{2e-4, 2e-5, 1e-10, 1e-10, true};
constexpr GpuTolerance kExact{0, 0, 0, 0, true};

// ---- batch_norm ----

struct NormCase {
  DDim x;
  std::string layout;
};

// Ranks 2 to 5 in both layouts, and shapes large enough for several chunks per channel.
const std::vector<NormCase>& NormCases() {
  static const std::vector<NormCase> cases = {
      {{6, 5}, "NCHW"},          {{6, 5}, "NHWC"},          {{4, 3, 7}, "NCHW"},
      {{4, 7, 3}, "NHWC"},       {{4, 3, 5, 6}, "NCHW"},    {{4, 5, 6, 3}, "NHWC"},
      {{2, 3, 2, 3, 4}, "NCHW"}, {{2, 2, 3, 4, 3}, "NHWC"}, {{8, 4, 32, 32}, "NCHW"},
      {{16, 32, 32, 3}, "NHWC"}, {{300, 70}, "NCHW"},       {{3, 2, 1, 1}, "NCHW"},
  };
  return cases;
}

int64_t ChannelsOf(const NormCase& c) { return c.layout == "NHWC" ? c.x[c.x.size() - 1] : c.x[1]; }

// X with a mean far from 0 (the two-pass variance matters), and [C] parameters.
SlotTensors NormInputs(DataType t, const NormCase& c) {
  const DDim ch{ChannelsOf(c)};
  return SlotTensors{{"X", {Random(t, c.x, 1, 3, 11)}},
                     {"Scale", {Random(t, ch, 0.5, 1.5, 12)}},
                     {"Bias", {Random(t, ch, -1, 1, 13)}},
                     {"Mean", {Random(t, ch, -0.5, 0.5, 14)}},
                     {"Variance", {Random(t, ch, 0.5, 2, 15)}}};
}

const std::map<std::string, int> kNormOutputs = {
    {"Y", 1}, {"MeanOut", 1}, {"VarianceOut", 1}, {"SavedMean", 1}, {"SavedVariance", 1}};

AttributeMap NormAttrs(const std::string& layout, bool is_test, bool use_global_stats) {
  return AttributeMap{{"data_layout", layout},
                      {"is_test", is_test},
                      {"use_global_stats", use_global_stats},
                      {"momentum", 0.8f},
                      {"epsilon", 1e-4f}};
}

TEST_F(CudaNormDropoutTest, BatchNormTrainingMatchesCpu) {
  for (const NormCase& c : NormCases()) {
    SCOPED_TRACE(c.x.ToString() + " " + c.layout);
    ExpectGpuMatchesCpu(
        "batch_norm", [&](DataType t) { return NormInputs(t, c); }, kNormOutputs,
        NormAttrs(c.layout, false, false), kNormTol);
  }
}

TEST_F(CudaNormDropoutTest, BatchNormTrainingOptionsMatchCpu) {
  const NormCase c{{4, 3, 5, 6}, "NCHW"};
  // MomentumTensor overrides the attribute.
  ExpectGpuMatchesCpu(
      "batch_norm",
      [&](DataType t) {
        SlotTensors in = NormInputs(t, c);
        in["MomentumTensor"] = {Scalar(t, 0.3)};
        return in;
      },
      kNormOutputs, NormAttrs(c.layout, false, false), kNormTol);
  // The fused relu, in training and in inference.
  for (bool is_test : {false, true}) {
    AttributeMap attrs = NormAttrs("NHWC", is_test, false);
    attrs["fuse_with_relu"] = true;
    ExpectGpuMatchesCpu(
        "batch_norm",
        [&](DataType t) {
          return NormInputs(t, NormCase{{4, 5, 6, 3}, "NHWC"});
        },
        kNormOutputs, attrs, kNormTol);
  }
  // trainable_statistics with is_test normalises with batch statistics.
  AttributeMap attrs = NormAttrs("NCHW", true, false);
  attrs["trainable_statistics"] = true;
  ExpectGpuMatchesCpu(
      "batch_norm", [&](DataType t) { return NormInputs(t, c); }, kNormOutputs, attrs, kNormTol);
  // One value per channel: X passes through, the running statistics stay.
  for (const char* layout : {"NCHW", "NHWC"}) {
    ExpectGpuMatchesCpu(
        "batch_norm",
        [&](DataType t) {
          return NormInputs(t, NormCase{{1, 4}, layout});
        },
        kNormOutputs, NormAttrs(layout, false, false), kNormTol);
  }
}

TEST_F(CudaNormDropoutTest, BatchNormInferenceMatchesCpu) {
  for (const NormCase& c : NormCases()) {
    SCOPED_TRACE(c.x.ToString() + " " + c.layout);
    for (const auto& [is_test, global] :
         std::vector<std::pair<bool, bool>>{{true, false}, {false, true}, {true, true}}) {
      ExpectGpuMatchesCpu(
          "batch_norm", [&](DataType t) { return NormInputs(t, c); }, kNormOutputs,
          NormAttrs(c.layout, is_test, global), kNormTol);
    }
  }
}

const std::map<std::string, int> kNormGradOutputs = {
    {"X@GRAD", 1}, {"Scale@GRAD", 1}, {"Bias@GRAD", 1}};

TEST_F(CudaNormDropoutTest, BatchNormGradMatchesCpu) {
  for (const NormCase& c : NormCases()) {
    SCOPED_TRACE(c.x.ToString() + " " + c.layout);
    // Training: the saved statistics of a CPU forward run on the same X.
    const AttributeMap train = NormAttrs(c.layout, false, false);
    ExpectGpuMatchesCpu(
        "batch_norm_grad",
        [&](DataType t) {
          const SlotTensors fwd = NormInputs(t, c);
          const OpRunResult saved = RunOp("batch_norm", fwd, kNormOutputs, train);
          return SlotTensors{{"X", fwd.at("X")},
                             {"Scale", fwd.at("Scale")},
                             {"SavedMean", saved.outputs.at("SavedMean")},
                             {"SavedVariance", saved.outputs.at("SavedVariance")},
                             {"Y@GRAD", {Random(t, c.x, -1, 1, 16)}}};
        },
        kNormGradOutputs, train, kNormTol);
    // Running statistics (is_test, and use_global_stats in training).
    for (const auto& [is_test, global] :
         std::vector<std::pair<bool, bool>>{{true, false}, {false, true}}) {
      ExpectGpuMatchesCpu(
          "batch_norm_grad",
          [&](DataType t) {
            const SlotTensors fwd = NormInputs(t, c);
            return SlotTensors{{"X", fwd.at("X")},
                               {"Scale", fwd.at("Scale")},
                               {"Mean", fwd.at("Mean")},
                               {"Variance", fwd.at("Variance")},
                               {"Y@GRAD", {Random(t, c.x, -1, 1, 17)}}};
          },
          kNormGradOutputs, NormAttrs(c.layout, is_test, global), kNormTol);
    }
  }
}

// ---- dropout ----

// The Random123 known-answer vectors of Philox4x32-10 (its tests/kat_vectors).
TEST(DropoutMaskTest, PhiloxMatchesKnownAnswers) {
  struct Kat {
    operators::dropout::PhiloxBlock counter;
    uint32_t key0, key1;
    uint32_t want[4];
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    const operators::dropout::PhiloxBlock r =
        operators::dropout::Philox4x32x10(k.counter, k.key0, k.key1);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r.v[i], k.want[i]) << "word " << i;
  }
}

// |kept - n (1 - p)| within 5 standard deviations of the binomial count.
void ExpectKeptFraction(int64_t kept, int64_t n, double p) {
  const double expected = static_cast<double>(n) * (1 - p);
  const double sd = std::sqrt(static_cast<double>(n) * p * (1 - p));
  EXPECT_LE(std::abs(static_cast<double>(kept) - expected), 5 * sd + 1)
      << kept << " of " << n << " kept, p = " << p;
}

TEST(DropoutMaskTest, DrawIsUniformAndSeedDependent) {
  const int64_t n = 100000;
  for (double p : {0.1, 0.5, 0.9}) {
    int64_t kept = 0;
    for (int64_t k = 0; k < n; ++k) kept += operators::dropout::KeepElement(42, k, p) ? 1 : 0;
    ExpectKeptFraction(kept, n, p);
  }
  int64_t same = 0;
  for (int64_t k = 0; k < 1000; ++k) {
    const double u = operators::dropout::MaskUniform(1, k);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    same += u == operators::dropout::MaskUniform(2, k) ? 1 : 0;
  }
  EXPECT_EQ(same, 0);
  EXPECT_TRUE(operators::dropout::KeepElement(7, 3, 0.0));
  EXPECT_FALSE(operators::dropout::KeepElement(7, 3, 1.0));
}

TEST_F(CudaNormDropoutTest, DropoutInferenceMatchesCpuExactly) {
  for (const char* impl : {"downgrade_in_infer", "upscale_in_train"}) {
    const AttributeMap attrs{
        {"dropout_prob", 0.35f}, {"is_test", true}, {"dropout_implementation", std::string(impl)}};
    ExpectGpuMatchesCpu(
        "dropout",
        [](DataType t) {
          return SlotTensors{{"X", {Random(t, {7, 33}, -2, 2, 21)}}};
        },
        {{"Out", 1}, {"Mask", 1}}, attrs, kExact);
    ExpectGpuMatchesCpu(
        "dropout_grad",
        [](DataType t) {
          return SlotTensors{{"Out@GRAD", {Random(t, {7, 33}, -2, 2, 22)}}};
        },
        {{"X@GRAD", 1}}, attrs, kExact);
  }
}

template <typename T>
std::vector<T> Values(const DenseTensor& t) {
  const T* p = t.data<T>();
  return std::vector<T>(p, p + t.numel());
}

// Runs dropout in training on gpu:0; returns Out and Mask.
OpRunResult GpuDropout(const SlotTensors& in, double p, const std::string& impl, int seed) {
  const AttributeMap attrs{{"dropout_prob", static_cast<float>(p)},
                           {"is_test", false},
                           {"dropout_implementation", impl},
                           {"fix_seed", true},
                           {"seed", seed}};
  OpRunResult r = RunOp("dropout", in, {{"Out", 1}, {"Mask", 1}}, attrs, platform::CUDAPlace(0));
  EXPECT_NE(r.kernel, nullptr);
  if (r.kernel != nullptr) {
    EXPECT_EQ(r.kernel->key.device, framework::DeviceType::kCUDA);
  }
  return r;
}

// Out and Mask of a training run: the mask is the counter-based draw of `seed`, its fraction
// of zeros near p, and Out = X * Mask * s exactly.
template <typename T>
void CheckTrainingRun(const OpRunResult& r, const DenseTensor& x, double p, bool upscale,
                      uint64_t seed) {
  const DenseTensor& out = r.outputs.at("Out")[0];
  const DenseTensor& mask = r.outputs.at("Mask")[0];
  ASSERT_EQ(mask.dtype(), DataType::UINT8);
  ASSERT_EQ(mask.dims(), x.dims());
  ASSERT_EQ(out.dims(), x.dims());
  const std::vector<uint8_t> m = Values<uint8_t>(mask);
  const std::vector<T> o = Values<T>(out);
  const std::vector<T> xs = Values<T>(x);
  // The scale as the kernels compute it: in double, then rounded to T.
  const double p_attr = static_cast<float>(p);
  const T s = static_cast<T>(upscale ? (p_attr >= 1 ? 0.0 : 1.0 / (1.0 - p_attr)) : 1.0);
  int64_t kept = 0, mismatched_draws = 0, wrong_values = 0;
  for (size_t k = 0; k < m.size(); ++k) {
    ASSERT_LE(m[k], 1) << k;
    kept += m[k];
    mismatched_draws += (m[k] != 0) != operators::dropout::KeepElement(seed, k, p_attr) ? 1 : 0;
    const T want = m[k] != 0 ? static_cast<T>(xs[k] * s) : T(0);
    wrong_values += o[k] == want ? 0 : 1;
  }
  EXPECT_EQ(mismatched_draws, 0);
  EXPECT_EQ(wrong_values, 0);
  ExpectKeptFraction(kept, static_cast<int64_t>(m.size()), p_attr);
}

template <typename T>
void CheckDropoutTraining() {
  const DataType t = platform::ToDataType<T>();
  const DDim dims{100, 1000};
  // Values away from 0, so a kept element never looks dropped.
  const DenseTensor x = Random(t, dims, 0.5, 2, 23);
  const double p = 0.3;
  for (const std::string impl : {"upscale_in_train", "downgrade_in_infer"}) {
    SCOPED_TRACE(impl);
    const bool upscale = impl == "upscale_in_train";
    const OpRunResult first = GpuDropout({{"X", {x}}}, p, impl, 17);
    CheckTrainingRun<T>(first, x, p, upscale, 17);
    // The same seed gives the same mask bit for bit; another seed another mask.
    const OpRunResult second = GpuDropout({{"X", {x}}}, p, impl, 17);
    EXPECT_EQ(Values<uint8_t>(second.outputs.at("Mask")[0]),
              Values<uint8_t>(first.outputs.at("Mask")[0]));
    const OpRunResult other = GpuDropout({{"X", {x}}}, p, impl, 18);
    EXPECT_NE(Values<uint8_t>(other.outputs.at("Mask")[0]),
              Values<uint8_t>(first.outputs.at("Mask")[0]));
    CheckTrainingRun<T>(other, x, p, upscale, 18);
    // The Seed input overrides the attributes.
    const OpRunResult seeded =
        GpuDropout({{"X", {x}}, {"Seed", {MakeTensor<int32_t>(DDim{1}, {99})}}}, p, impl, 17);
    CheckTrainingRun<T>(seeded, x, p, upscale, 99);

    // dropout_grad: dX = dOut * Mask * s, as the CPU kernel computes it from the same mask.
    const SlotTensors grad_in{{"Mask", first.outputs.at("Mask")},
                              {"Out@GRAD", {Random(t, dims, -1, 1, 24)}}};
    const AttributeMap grad_attrs{{"dropout_prob", static_cast<float>(p)},
                                  {"is_test", false},
                                  {"dropout_implementation", impl}};
    const OpRunResult cpu = RunOp("dropout_grad", grad_in, {{"X@GRAD", 1}}, grad_attrs);
    const OpRunResult gpu =
        RunOp("dropout_grad", grad_in, {{"X@GRAD", 1}}, grad_attrs, platform::CUDAPlace(0));
    ASSERT_NE(gpu.kernel, nullptr);
    EXPECT_EQ(gpu.kernel->key.device, framework::DeviceType::kCUDA);
    EXPECT_EQ(Values<T>(gpu.outputs.at("X@GRAD")[0]), Values<T>(cpu.outputs.at("X@GRAD")[0]));
  }
  // p = 0 keeps everything; p = 1 drops everything (upscale's factor is then 0).
  for (double edge : {0.0, 1.0}) {
    const OpRunResult r = GpuDropout({{"X", {x}}}, edge, "upscale_in_train", 5);
    CheckTrainingRun<T>(r, x, edge, true, 5);
    const std::vector<uint8_t> m = Values<uint8_t>(r.outputs.at("Mask")[0]);
    for (uint8_t v : m) ASSERT_EQ(v, edge == 0.0 ? 1 : 0);
  }
}

TEST_F(CudaNormDropoutTest, DropoutTrainingMaskAndScaling) {
  CheckDropoutTraining<float>();
  CheckDropoutTraining<double>();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
