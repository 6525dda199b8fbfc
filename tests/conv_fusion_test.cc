// A fused conv2d (Bias, ResidualData, fuse_activation: what the inference passes produce)
// against the unfused convolution followed by the epilogue computed here in double with each
// activation's closed form; plain and oneDNN kernels, NCHW and NHWC, grouped and depthwise;
// Winograd's algorithm where the oneDNN kernel takes it; the errors for a bad Bias, a missing
// ResidualData, an unknown activation and a gradient.
#include <cmath>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/program_desc.h"
#include "operators/activation/fused_activation.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "platform/device_context_pool.h"
#include "platform/flags.h"
#include "tests/conv_pool_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Activation {
  std::string name;
  float alpha, beta;
};

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Closed forms of the activations of operators/activation/fused_activation.h.
double Activate(const Activation& a, double x) {
  const std::string& f = a.name;
  if (f.empty()) return x;
  if (f == "relu") return x > 0 ? x : 0;
  if (f == "leaky_relu") return x >= 0 ? x : a.alpha * x;
  if (f == "relu6") return std::min(std::max(x, 0.0), static_cast<double>(a.beta));
  if (f == "clip") return std::min(std::max(x, static_cast<double>(a.alpha)), static_cast<double>(a.beta));
  if (f == "swish") return x * Sigmoid(a.alpha * x);
  if (f == "hard_swish") return x * std::min(std::max(a.alpha * x + a.beta, 0.0), 1.0);
  if (f == "hard_sigmoid") return std::min(std::max(a.alpha * x + a.beta, 0.0), 1.0);
  if (f == "sigmoid") return Sigmoid(x);
  if (f == "tanh") return std::tanh(x);
  if (f == "gelu") return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  if (f == "gelu_tanh") {
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  }
  ADD_FAILURE() << "no closed form for " << f;
  return 0;
}

const std::vector<Activation>& Activations() {
  static const std::vector<Activation> all = {
      {"", 0, 0},          {"relu", 0, 0},       {"leaky_relu", 0.1f, 0},
      {"relu6", 0, 6},     {"relu6", 0, 1.5f},   {"clip", -0.5f, 0.75f},
      {"swish", 1, 0},     {"swish", 1.7f, 0},   {"hard_swish", 1.0f / 6.0f, 0.5f},
      {"hard_swish", 0.25f, 0.4f},  // No oneDNN post-op: the plain code computes it.
      {"hard_sigmoid", 0.2f, 0.5f}, {"sigmoid", 0, 0}, {"tanh", 0, 0},
      {"gelu", 0, 0},      {"gelu_tanh", 0, 0}};
  return all;
}

struct Fusion {
  bool bias = false, residual = false;
  Activation act{"", 0, 0};
};

AttributeMap FusedAttrs(const ConvCase& c, const Fusion& f) {
  AttributeMap attrs = c.Attrs();
  attrs["fuse_activation"] = f.act.name;
  attrs["fuse_alpha"] = f.act.alpha;
  attrs["fuse_beta"] = f.act.beta;
  attrs["fuse_residual_connection"] = f.residual;
  return attrs;
}

// Runs the fused op and compares it with conv2d (unfused, plain: checked against direct
// loops by conv2d_op_test) followed by the epilogue in double.
void CheckFusedConv(const ConvCase& c, const Fusion& f, bool onednn, unsigned seed) {
  const std::vector<double> input = RandomValues(c.input.numel(), -1, 1, seed);
  const std::vector<double> filter = RandomValues(c.filter.numel(), -1, 1, seed + 1);
  DenseTensor plain_out;
  {
    ScopedFlag flag(&FLAGS_use_onednn, false);
    plain_out = RunOp(c.op, {{"Input", {MakeTensor<float>(c.input, input)}},
                             {"Filter", {MakeTensor<float>(c.filter, filter)}}},
                      {{"Output", 1}}, c.Attrs())
                    .outputs["Output"][0];
  }
  const DDim out_dims = plain_out.dims();
  const std::vector<double> conv = ToDoubles(plain_out);
  const int64_t channels = c.filter[0];
  const std::vector<double> bias = RandomValues(channels, -2, 2, seed + 2);
  const std::vector<double> residual = RandomValues(out_dims.numel(), -2, 2, seed + 3);
  const bool nhwc = c.data_format == "NHWC";
  const int64_t plane = nhwc ? 1 : out_dims[2] * out_dims[3];
  std::vector<double> want(conv.size());
  for (size_t i = 0; i < conv.size(); ++i) {
    double v = conv[i];
    if (f.bias) v += bias[(static_cast<int64_t>(i) / plane) % channels];
    if (f.residual) v += residual[i];
    want[i] = Activate(f.act, v);
  }
  SlotTensors inputs = {{"Input", {MakeTensor<float>(c.input, input)}},
                        {"Filter", {MakeTensor<float>(c.filter, filter)}}};
  if (f.bias) inputs["Bias"] = {MakeTensor<float>(DDim{channels}, bias)};
  if (f.residual) inputs["ResidualData"] = {MakeTensor<float>(out_dims, residual)};
  ScopedFlag flag(&FLAGS_use_onednn, onednn);
  OpRunResult r = RunOp(c.op, inputs, {{"Output", 1}}, FusedAttrs(c, f));
  const std::string what = c.Name() + " act `" + f.act.name + "` bias " +
                           std::to_string(f.bias) + " residual " + std::to_string(f.residual) +
                           (onednn ? " oneDNN" : " plain");
  ASSERT_EQ(r.outputs["Output"][0].dims(), out_dims) << what;
  EXPECT_EQ(r.kernel->key.backend,
            onednn ? framework::LibraryType::kOneDNN : framework::LibraryType::kPlain)
      << what;
  const double terms = static_cast<double>(c.filter[1] * c.filter[2] * c.filter[3]);
  ExpectNear(ToDoubles(r.outputs["Output"][0]), want, 1e-5, 2e-6 * terms, what);
}

std::vector<ConvCase> Cases() {
  std::vector<ConvCase> cases;
  cases.push_back({{2, 3, 7, 7}, {4, 3, 3, 3}, {2, 2}, {1, 1}});
  cases.push_back({{1, 16, 6, 6}, {24, 16, 1, 1}});  // Blocked formats in oneDNN.
  // An image's 3 channels to a multiple of 8 (not of 16): 8-channel blocks on AVX-512.
  cases.push_back({{2, 3, 9, 9}, {8, 3, 3, 3}, {2, 2}, {1, 1}});
  cases.push_back({{1, 3, 10, 10}, {24, 3, 3, 3}});
  cases.push_back({{2, 6, 5, 5}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3});
  cases.push_back({{1, 5, 6, 4}, {6, 4, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, "EXPLICIT", "NHWC"});
  // Winograd in the oneDNN kernel (WinogradForwardDesc): F(4x4, 3x3) at batch 4, F(2x2, 3x3)
  // at batch 1 (oneDNN's choice on AVX-512), channel-last, no padding.
  cases.push_back({{4, 32, 16, 16}, {32, 32, 3, 3}, {1, 1}, {1, 1}});
  cases.push_back({{1, 48, 32, 32}, {48, 48, 3, 3}, {1, 1}, {1, 1}});
  cases.push_back({{2, 18, 18, 32}, {64, 32, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, "EXPLICIT", "NHWC"});
  ConvCase dw{{1, 8, 9, 9}, {8, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 8};
  dw.op = "depthwise_conv2d";
  cases.push_back(dw);
  return cases;
}

class ConvFusionTest : public OneDNNKernelTestBase {};

TEST_F(ConvFusionTest, EpilogueMatchesConvThenBiasResidualActivation) {
  unsigned seed = 300;
  for (const ConvCase& c : Cases()) {
    for (bool onednn : {false, true}) {
      CheckFusedConv(c, Fusion{true, false, {"", 0, 0}}, onednn, seed++);
      CheckFusedConv(c, Fusion{false, true, {"", 0, 0}}, onednn, seed++);
      for (const Activation& a : Activations()) {
        CheckFusedConv(c, Fusion{true, true, a}, onednn, seed++);
      }
      CheckFusedConv(c, Fusion{false, false, {"relu6", 0, 6}}, onednn, seed++);
    }
  }
}

// The convolutions the oneDNN kernel runs by Winograd's algorithm (their values are checked
// by the cases above): 3x3, stride 1, ungrouped, 32 channels or more on both sides and an
// output of 32768 values or more; the direct kernel for the rest.
TEST_F(ConvFusionTest, WinogradTakesLargeThreeByThreeConvolutionsOnly) {
  if (dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core) {
    GTEST_SKIP() << "oneDNN's Winograd kernels need AVX-512";
  }
  const auto& dev =
      *platform::DeviceContextPool::Instance().GetAs<platform::OneDNNContext>(platform::CPUPlace());
  const auto winograd = [&](const ConvCase& c) {
    const operators::Conv2dGeometry g =
        operators::ResolveConv2d(c.op, c.input, c.filter, c.Attrs());
    const auto pd = operators::WinogradForwardDesc(g, operators::MakeOneDNNConvDescs(g), nullptr,
                                                   dnnl::primitive_attr(), dev.engine());
    return pd.has_value();
  };
  EXPECT_TRUE(winograd({{4, 32, 16, 16}, {32, 32, 3, 3}, {1, 1}, {1, 1}}));
  EXPECT_TRUE(winograd({{1, 64, 56, 56}, {64, 64, 3, 3}, {1, 1}, {1, 1}}));
  EXPECT_TRUE(
      winograd({{2, 18, 18, 32}, {64, 32, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, "EXPLICIT", "NHWC"}));
  // 16 input or output channels, a 16384-value output, stride 2, 5x5, dilation 2, groups 2.
  EXPECT_FALSE(winograd({{16, 16, 32, 32}, {16, 16, 3, 3}, {1, 1}, {1, 1}}));
  EXPECT_FALSE(winograd({{16, 32, 32, 32}, {16, 32, 3, 3}, {1, 1}, {1, 1}}));
  EXPECT_FALSE(winograd({{4, 64, 8, 8}, {64, 64, 3, 3}, {1, 1}, {1, 1}}));
  EXPECT_FALSE(winograd({{4, 32, 32, 32}, {32, 32, 3, 3}, {2, 2}, {1, 1}}));
  EXPECT_FALSE(winograd({{4, 32, 16, 16}, {32, 32, 5, 5}, {1, 1}, {2, 2}}));
  EXPECT_FALSE(winograd({{4, 32, 16, 16}, {32, 32, 3, 3}, {1, 1}, {2, 2}, {2, 2}}));
  EXPECT_FALSE(winograd({{4, 64, 16, 16}, {64, 32, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2}));
}

TEST_F(ConvFusionTest, FusedActivationsOfActivationOps) {
  using operators::FusedActivationOfOp;
  framework::OpDesc hs("hard_swish", {{"X", {"x"}}}, {{"Out", {"y"}}},
                       {{"threshold", 6.0f}, {"scale", 6.0f}, {"offset", 3.0f}});
  const auto a = FusedActivationOfOp(hs);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->name, "hard_swish");
  EXPECT_FLOAT_EQ(a->alpha, 1.0f / 6.0f);
  EXPECT_FLOAT_EQ(a->beta, 0.5f);
  hs.SetAttr("threshold", 5.0f);  // Not expressible: the clip would not be at 1.
  EXPECT_FALSE(FusedActivationOfOp(hs).has_value());
  framework::OpDesc gelu("gelu", {{"X", {"x"}}}, {{"Out", {"y"}}}, {{"approximate", true}});
  EXPECT_EQ(FusedActivationOfOp(gelu)->name, "gelu_tanh");
  framework::OpDesc clip("clip", {{"X", {"x"}}, {"Min", {"lo"}}}, {{"Out", {"y"}}},
                         {{"min", 0.0f}, {"max", 1.0f}});
  EXPECT_FALSE(FusedActivationOfOp(clip).has_value());
  framework::OpDesc relu6("relu6", {{"X", {"x"}}}, {{"Out", {"y"}}}, {{"threshold", 4.0f}});
  EXPECT_FLOAT_EQ(FusedActivationOfOp(relu6)->beta, 4.0f);
  EXPECT_FALSE(FusedActivationOfOp(framework::OpDesc("softmax", {}, {}, {})).has_value());
}

TEST_F(ConvFusionTest, LegacyFuseReluAttribute) {
  const ConvCase c{{1, 2, 5, 5}, {3, 2, 3, 3}};
  const std::vector<double> input = RandomValues(c.input.numel(), -1, 1, 1);
  const std::vector<double> filter = RandomValues(c.filter.numel(), -1, 1, 2);
  AttributeMap attrs = c.Attrs();
  const auto plain = RunOp("conv2d", {{"Input", {MakeTensor<float>(c.input, input)}},
                                      {"Filter", {MakeTensor<float>(c.filter, filter)}}},
                           {{"Output", 1}}, attrs);
  attrs["fuse_relu"] = true;
  const auto fused = RunOp("conv2d", {{"Input", {MakeTensor<float>(c.input, input)}},
                                      {"Filter", {MakeTensor<float>(c.filter, filter)}}},
                           {{"Output", 1}}, attrs);
  std::vector<double> want = ToDoubles(plain.outputs.at("Output")[0]);
  for (double& v : want) v = std::max(v, 0.0);
  ExpectNear(ToDoubles(fused.outputs.at("Output")[0]), want, 1e-6, 1e-6, "fuse_relu");
}

TEST_F(ConvFusionTest, ErrorsNameTheSlotAndTheShapes) {
  const ConvCase c{{1, 2, 5, 5}, {3, 2, 3, 3}};
  const SlotTensors base = {{"Input", {MakeTensor<float>(c.input, RandomValues(50, -1, 1))}},
                            {"Filter", {MakeTensor<float>(c.filter, RandomValues(54, -1, 1))}}};
  SlotTensors bad_bias = base;
  bad_bias["Bias"] = {MakeTensor<float>(DDim{4}, RandomValues(4, -1, 1))};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("conv2d", bad_bias, {{"Output", 1}}, c.Attrs()); },
      {"conv2d", "Bias", "[3]", "[4]"});
  AttributeMap residual = c.Attrs();
  residual["fuse_residual_connection"] = true;
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("conv2d", base, {{"Output", 1}}, residual); },
      {"conv2d", "ResidualData", "absent"});
  SlotTensors bad_residual = base;
  bad_residual["ResidualData"] = {MakeTensor<float>(DDim{1, 3, 2, 2}, RandomValues(12, -1, 1))};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("conv2d", bad_residual, {{"Output", 1}}, residual); },
      {"ResidualData", "[1, 3, 3, 3]", "[1, 3, 2, 2]"});
  AttributeMap unknown = c.Attrs();
  unknown["fuse_activation"] = std::string("softsign");
  ExpectError<platform::UnimplementedError>(
      [&] { RunOp("conv2d", base, {{"Output", 1}}, unknown); },
      {"conv2d", "fuse_activation", "softsign"});
}

TEST_F(ConvFusionTest, FusedConvHasNoGradient) {
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  for (const char* v : {"x", "w", "bias", "y"}) b.Var(v);
  b.Var("w")->SetPersistable(true);
  framework::OpDesc* conv = b.AppendOp();
  conv->SetType("conv2d");
  conv->SetInput("Input", {"x"});
  conv->SetInput("Filter", {"w"});
  conv->SetInput("Bias", {"bias"});
  conv->SetOutput("Output", {"y"});
  ExpectError<platform::UnimplementedError>(
      [&] { framework::AppendBackward(&p, "y"); }, {"conv2d", "no gradient"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
