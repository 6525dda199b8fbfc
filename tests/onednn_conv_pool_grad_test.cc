// oneDNN kernels of conv2d_grad, depthwise_conv2d_grad and pool2d_grad: FLAGS_use_onednn
// decides between the oneDNN and the plain kernel, and both give the same gradients on the
// same inputs (the plain kernels are checked against finite differences in
// conv2d_op_test.cc and pool2d_op_test.cc). Also: one of the two conv gradients alone,
// empty tensors, the plain code inside the oneDNN pool2d_grad kernel (adaptive, windows in
// the padding, max pooling in NCHW), outputs written over inputs, float64 on the plain
// kernels, and errors.
#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/passes/fuse_relu_grad_pass.h"
#include "platform/device_context_pool.h"
#include "platform/init.h"
#include "tests/conv_pool_test_util.h"
#include "tests/onednn_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;

class OneDNNConvPoolGradTest : public OneDNNKernelTestBase {};

OpRunResult RunWith(bool use_onednn, const std::string& type, const SlotTensors& inputs,
                    const std::map<std::string, int>& outputs, const AttributeMap& attrs) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  return RunOp(type, inputs, outputs, attrs);
}

// ---------------------------------------------------------------------------- conv2d_grad

// Input, Filter and a random Output@GRAD of the forward output's shape.
template <typename T>
SlotTensors ConvGradInputs(const ConvCase& c, unsigned seed) {
  const DenseTensor input = MakeTensor<T>(c.input, RandomValues(c.input.numel(), -1, 1, seed));
  const DenseTensor filter =
      MakeTensor<T>(c.filter, RandomValues(c.filter.numel(), -1, 1, seed + 1));
  const DDim out =
      RunWith(false, c.op, {{"Input", {input}}, {"Filter", {filter}}}, {{"Output", 1}}, c.Attrs())
          .outputs["Output"][0]
          .dims();
  return {{"Input", {input}},
          {"Filter", {filter}},
          {"Output@GRAD", {MakeTensor<T>(out, RandomValues(out.numel(), -1, 1, seed + 2))}}};
}

// Runs `c.op`_grad asking for `wanted` with oneDNN on and off; checks the kernel choice and
// that each gradient agrees within float rounding of its reduction length.
void CheckConvGrad(const ConvCase& c, unsigned seed,
                   const std::vector<std::string>& wanted = {"Input@GRAD", "Filter@GRAD"}) {
  SCOPED_TRACE(c.Name());
  const SlotTensors inputs = ConvGradInputs<float>(c, seed);
  std::map<std::string, int> outputs;
  for (const auto& slot : wanted) outputs[slot] = 1;
  const std::string type = c.op + "_grad";
  OpRunResult onednn = RunWith(true, type, inputs, outputs, c.Attrs());
  OpRunResult plain = RunWith(false, type, inputs, outputs, c.Attrs());
  EXPECT_EQ(onednn.kernel->key.backend, LibraryType::kOneDNN);
  EXPECT_EQ(plain.kernel->key.backend, LibraryType::kPlain);
  const DDim& dout = inputs.at("Output@GRAD")[0].dims();
  const bool nhwc = c.data_format == "NHWC";
  // Products summed per element: over output channels of the group and taps for Input@GRAD,
  // over images and output pixels for Filter@GRAD.
  const std::map<std::string, double> terms = {
      {"Input@GRAD", static_cast<double>(c.filter[0] / c.groups * c.filter[2] * c.filter[3])},
      {"Filter@GRAD",
       static_cast<double>(dout[0] * (nhwc ? dout[1] * dout[2] : dout[2] * dout[3]))}};
  for (const auto& slot : wanted) {
    ASSERT_EQ(onednn.outputs[slot].size(), 1u) << slot;
    const DenseTensor& a = onednn.outputs[slot][0];
    const DenseTensor& b = plain.outputs[slot][0];
    EXPECT_EQ(a.dims(), slot == "Input@GRAD" ? c.input : c.filter) << slot;
    EXPECT_EQ(a.dims(), b.dims()) << slot;
    EXPECT_EQ(a.dtype(), DataType::FLOAT32) << slot;
    ExpectNear(ToDoubles(a), ToDoubles(b), 1e-5, 1e-6 * terms.at(slot), slot + " " + c.Name());
  }
  for (const char* slot : {"Input@GRAD", "Filter@GRAD"}) {
    if (outputs.count(slot) == 0) {
      EXPECT_EQ(onednn.outputs.count(slot), 0u) << slot;
    }
  }
}

std::vector<ConvCase> ConvCases() {
  std::vector<ConvCase> cases;
  auto add = [&cases](ConvCase c) { cases.push_back(std::move(c)); };
  add({{1, 1, 5, 5}, {1, 1, 3, 3}});
  add({{2, 3, 7, 7}, {4, 3, 3, 3}, {2, 2}, {1, 1}});
  add({{1, 2, 6, 7}, {3, 2, 3, 2}, {2, 1}, {1, 0, 2, 1}});  // Asymmetric explicit padding.
  add({{3, 2, 8, 9}, {4, 2, 2, 3}, {1, 2}, {0, 2, 1, 0}});
  add({{2, 2, 7, 6}, {3, 2, 3, 3}, {2, 2}, {0, 0}, {2, 2}, 1, "SAME"});  // SAME drops dilations.
  add({{1, 2, 8, 5}, {2, 2, 4, 2}, {3, 2}, {0, 0}, {1, 1}, 1, "SAME"});
  add({{1, 2, 6, 6}, {2, 2, 3, 3}, {1, 1}, {2, 2}, {1, 1}, 1, "VALID"});
  add({{1, 2, 9, 8}, {3, 2, 3, 2}, {1, 2}, {1, 2}, {2, 3}});  // Dilations.
  add({{2, 3, 10, 10}, {2, 3, 3, 3}, {2, 2}, {2, 2}, {2, 2}});
  // Groups.
  add({{2, 4, 6, 6}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2});
  add({{2, 6, 5, 5}, {6, 2, 2, 2}, {2, 2}, {1, 0, 0, 1}, {1, 1}, 3});
  // Depthwise (multiplier 1 and 2), also as depthwise_conv2d.
  add({{2, 3, 6, 5}, {3, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3});
  add({{2, 3, 7, 6}, {6, 1, 3, 3}, {2, 1}, {1, 2, 0, 1}, {1, 2}, 3});
  ConvCase dw{{1, 4, 9, 9}, {4, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1}, 4};
  dw.op = "depthwise_conv2d";
  add(dw);
  dw.algorithm = "SAME";
  add(dw);
  add({{2, 32, 14, 14}, {32, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 32});
  // NHWC: plain, grouped, depthwise, with dilations.
  add({{2, 6, 5, 4}, {6, 2, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 2, "EXPLICIT", "NHWC"});
  add({{1, 5, 6, 3}, {4, 3, 2, 3}, {1, 1}, {0, 1, 1, 0}, {2, 1}, 1, "EXPLICIT", "NHWC"});
  add({{2, 5, 5, 3}, {3, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3, "EXPLICIT", "NHWC"});
  add({{2, 7, 6, 4}, {4, 4, 3, 3}, {2, 2}, {0, 0}, {1, 1}, 1, "SAME", "NHWC"});
  add({{1, 3, 5, 5}, {2, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, "EXPLICIT", "AnyLayout"});
  // 1x1 filters: plain, strided, padded, grouped.
  add({{2, 8, 4, 4}, {5, 8, 1, 1}});
  add({{2, 8, 5, 5}, {5, 8, 1, 1}, {2, 2}});
  add({{1, 4, 3, 3}, {2, 4, 1, 1}, {1, 1}, {1, 1}});
  add({{2, 4, 3, 3}, {4, 2, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 2});
  add({{2, 24, 10, 10}, {48, 24, 1, 1}});
  // Filter larger than the input, padding wider than the filter reach, size-1 dims.
  add({{1, 1, 2, 2}, {1, 1, 3, 3}, {1, 1}, {1, 1}});
  add({{1, 2, 3, 3}, {2, 2, 2, 2}, {1, 1}, {3, 3}});
  add({{1, 1, 1, 1}, {1, 1, 1, 1}});
  // Larger batches and LeNet's shapes.
  add({{9, 2, 4, 5}, {3, 2, 3, 3}, {1, 1}, {1, 1}});
  add({{8, 1, 28, 28}, {20, 1, 5, 5}});
  add({{8, 20, 12, 12}, {50, 20, 5, 5}});
  return cases;
}

TEST_F(OneDNNConvPoolGradTest, ConvGradMatchesPlainKernel) {
  unsigned seed = 100;
  for (const ConvCase& c : ConvCases()) CheckConvGrad(c, seed += 3);
}

// Input@GRAD of ungrouped NCHW convolutions whose channels oneDNN's blocks would pad runs as
// a GEMM per image; with Input channel-last (a channel-last pooling's output) it reads
// dOutput and writes dInput channel-last. Against the plain kernel, dOutput row-major and
// channel-last, and the output kept channel-last or not.
TEST_F(OneDNNConvPoolGradTest, ConvInputGradOfChannelLastInputMatchesPlainKernel) {
  using Tag = dnnl::memory::format_tag;
  const std::vector<ConvCase> cases = {
      {{8, 20, 12, 12}, {50, 20, 5, 5}},
      {{2, 12, 9, 11}, {16, 12, 3, 3}, {2, 2}, {1, 1}},
      {{2, 20, 10, 9}, {8, 20, 3, 3}, {1, 2}, {2, 1}, {2, 2}},
  };
  unsigned seed = 500;
  for (const ConvCase& c : cases) {
    const SlotTensors plain_inputs = ConvGradInputs<float>(c, seed += 3);
    OpRunResult plain = RunWith(false, "conv2d_grad", plain_inputs,
                                {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, c.Attrs());
    for (const bool dout_channel_last : {false, true}) {
      SCOPED_TRACE(c.Name() + (dout_channel_last ? ", Output@GRAD channel-last" : ""));
      SlotTensors inputs = plain_inputs;
      inputs["Input"] = {OneDNNTensor(c.input, ToDoubles(plain_inputs.at("Input")[0]), Tag::acdb)};
      if (dout_channel_last) {
        const DenseTensor& dout = plain_inputs.at("Output@GRAD")[0];
        inputs["Output@GRAD"] = {OneDNNTensor(dout.dims(), ToDoubles(dout), Tag::acdb)};
      }
      OpRunResult r =
          RunWith(true, "conv2d_grad", inputs, {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, c.Attrs());
      EXPECT_EQ(r.kernel->key.backend, LibraryType::kOneDNN);
      const double taps = static_cast<double>(c.filter[0] * c.filter[2] * c.filter[3]);
      ExpectNear(ToDoubles(r.outputs["Input@GRAD"][0]), ToDoubles(plain.outputs["Input@GRAD"][0]),
                 1e-5, 1e-6 * taps, "Input@GRAD");
      ExpectNear(ToDoubles(r.outputs["Filter@GRAD"][0]), ToDoubles(plain.outputs["Filter@GRAD"][0]),
                 1e-5, 1e-4, "Filter@GRAD");
    }
  }
}

TEST_F(OneDNNConvPoolGradTest, ConvGradComputesOnlyTheRequestedGradient) {
  unsigned seed = 400;
  for (const ConvCase& c :
       {ConvCase{{2, 3, 7, 7}, {4, 3, 3, 3}, {2, 2}, {1, 1}},
        ConvCase{{2, 4, 6, 6}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2},
        ConvCase{{2, 5, 5, 3}, {3, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3, "EXPLICIT", "NHWC"},
        ConvCase{{8, 1, 28, 28}, {20, 1, 5, 5}}}) {
    CheckConvGrad(c, seed += 3, {"Input@GRAD"});
    CheckConvGrad(c, seed += 3, {"Filter@GRAD"});
  }
}

TEST_F(OneDNNConvPoolGradTest, ConvGradOfEmptyTensors) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  // No images: Filter@GRAD is an empty sum.
  ConvCase no_images{{0, 3, 5, 5}, {2, 3, 3, 3}, {1, 1}, {1, 1}};
  auto r = RunOp("conv2d_grad", ConvGradInputs<float>(no_images, 1),
                 {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, no_images.Attrs());
  EXPECT_EQ(r.kernel->key.backend, LibraryType::kOneDNN);
  EXPECT_EQ(r.outputs["Input@GRAD"][0].dims(), (DDim{0, 3, 5, 5}));
  EXPECT_EQ(r.outputs["Filter@GRAD"][0].dims(), (DDim{2, 3, 3, 3}));
  ExpectNear(ToDoubles(r.outputs["Filter@GRAD"][0]), std::vector<double>(54, 0), 0, 0,
             "Filter@GRAD without images");
  // No output channels: Input@GRAD is an empty sum.
  ConvCase no_outputs{{2, 3, 4, 4}, {0, 3, 3, 3}, {1, 1}, {1, 1}};
  r = RunOp("conv2d_grad", ConvGradInputs<float>(no_outputs, 2),
            {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, no_outputs.Attrs());
  EXPECT_EQ(r.outputs["Filter@GRAD"][0].dims(), (DDim{0, 3, 3, 3}));
  ExpectNear(ToDoubles(r.outputs["Input@GRAD"][0]), std::vector<double>(96, 0), 0, 0,
             "Input@GRAD without output channels");
}

TEST_F(OneDNNConvPoolGradTest, ConvGradRepeatsBitwiseWithSeveralThreads) {
  // Registered as deterministic: with a fixed thread count, two runs agree bit for bit.
  const int old = FLAGS_paddle_num_threads;
  FLAGS_paddle_num_threads = 2;
  platform::DeviceContextPool::Instance().Clear();
  ScopedFlag flag(&FLAGS_use_onednn, true);
  // The second and third: channels that oneDNN's blocks pad, whose Input@GRAD is a GEMM per
  // image, split over the threads (batch 16) or with both threads in one GEMM (batch 1).
  for (const ConvCase& c : {ConvCase{{16, 8, 12, 12}, {16, 8, 3, 3}, {1, 1}, {1, 1}},
                            ConvCase{{16, 20, 12, 12}, {50, 20, 5, 5}},
                            ConvCase{{1, 20, 12, 12}, {50, 20, 5, 5}}}) {
    const SlotTensors inputs = ConvGradInputs<float>(c, 21);
    auto run = [&] {
      return RunOp("conv2d_grad", inputs, {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, c.Attrs());
    };
    OpRunResult a = run(), b = run();
    EXPECT_EQ(a.kernel->key.backend, LibraryType::kOneDNN);
    for (const char* slot : {"Input@GRAD", "Filter@GRAD"}) {
      EXPECT_EQ(ToDoubles(a.outputs[slot][0]), ToDoubles(b.outputs[slot][0]))
          << slot << " " << c.Name();
    }
  }
  FLAGS_paddle_num_threads = old;
  platform::DeviceContextPool::Instance().Clear();
}

// ---------------------------------------------------------------------------- pool2d_grad

// n distinct values in [-1, 1) in random order: no window has two equal maxima, where the
// kernels may route the gradient to different positions.
std::vector<double> DistinctValues(int64_t n, unsigned seed) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0);
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  for (double& x : v) x = 2 * x / static_cast<double>(n) - 1;
  return v;
}

// X (tie-free), Out from the plain forward kernel and a random Out@GRAD.
template <typename T>
SlotTensors PoolGradInputs(const PoolCase& c, unsigned seed) {
  const DenseTensor x = MakeTensor<T>(c.x, DistinctValues(c.x.numel(), seed));
  const DenseTensor out =
      RunWith(false, "pool2d", {{"X", {x}}}, {{"Out", 1}}, c.Attrs()).outputs["Out"][0];
  return {{"X", {x}},
          {"Out", {out}},
          {"Out@GRAD", {MakeTensor<T>(out.dims(), RandomValues(out.numel(), -1, 1, seed + 1))}}};
}

// X@GRAD from oneDNN and from the plain kernel; checks the kernel choice and the shapes.
std::pair<DenseTensor, DenseTensor> PoolGradBoth(const PoolCase& c, const SlotTensors& inputs) {
  OpRunResult onednn = RunWith(true, "pool2d_grad", inputs, {{"X@GRAD", 1}}, c.Attrs());
  OpRunResult plain = RunWith(false, "pool2d_grad", inputs, {{"X@GRAD", 1}}, c.Attrs());
  EXPECT_EQ(onednn.kernel->key.backend, LibraryType::kOneDNN);
  EXPECT_EQ(plain.kernel->key.backend, LibraryType::kPlain);
  EXPECT_EQ(onednn.outputs["X@GRAD"][0].dims(), c.x);
  EXPECT_EQ(plain.outputs["X@GRAD"][0].dims(), c.x);
  return {onednn.outputs["X@GRAD"][0], plain.outputs["X@GRAD"][0]};
}

// The same geometry in NHWC: X [N, C, H, W] becomes [N, H, W, C].
PoolCase Nhwc(PoolCase c) {
  c.x = {c.x[0], c.x[2], c.x[3], c.x[1]};
  c.data_format = "NHWC";
  return c;
}

// Max pooling in NCHW runs the plain code inside the oneDNN kernel; the NHWC copies of the
// cases take oneDNN's max pooling.
std::vector<PoolCase> PoolCases() {
  std::vector<PoolCase> cases;
  for (const char* type : {"max", "avg"}) {
    const std::string t = type;
    std::vector<PoolCase> nchw;
    nchw.push_back({{1, 1, 4, 4}, t, {2, 2}, {2, 2}});
    nchw.push_back({{2, 3, 7, 6}, t, {3, 3}, {2, 2}, {1, 1}});
    nchw.push_back({{2, 3, 7, 6}, t, {3, 3}, {2, 2}, {1, 1}, false});
    nchw.push_back({{1, 2, 6, 7}, t, {3, 2}, {2, 1}, {1, 0, 2, 1}});  // Asymmetric padding.
    nchw.push_back({{1, 2, 6, 7}, t, {3, 2}, {2, 1}, {1, 0, 2, 1}, false});
    nchw.push_back({{2, 2, 5, 5}, t, {3, 3}, {1, 1}, {1, 1}});              // Overlapping windows.
    nchw.push_back({{1, 2, 7, 7}, t, {2, 2}, {2, 2}, {0, 0}, true, true});  // ceil_mode.
    nchw.push_back({{1, 2, 7, 8}, t, {3, 3}, {2, 3}, {1, 1}, false, true});
    nchw.push_back({{2, 3, 5, 6}, t, {2, 2}, {1, 1}, {0, 0}, true, false, true});  // global.
    nchw.push_back({{2, 3, 5, 6}, t, {1, 1}, {1, 1}, {0, 0}, false, false, true});
    PoolCase same{{1, 2, 7, 5}, t, {3, 2}, {2, 2}};
    same.algorithm = "SAME";
    nchw.push_back(same);
    same.exclusive = false;
    nchw.push_back(same);
    PoolCase valid{{1, 2, 6, 6}, t, {2, 2}, {2, 2}, {1, 1}};
    valid.algorithm = "VALID";
    nchw.push_back(valid);
    // Enough channels for oneDNN's vectorized implementations, overlapping windows.
    nchw.push_back({{2, 16, 8, 8}, t, {3, 3}, {2, 2}});
    nchw.push_back({{1, 64, 9, 9}, t, {3, 3}, {2, 2}, {1, 1}, false, true});
    nchw.push_back({{8, 20, 24, 24}, t, {2, 2}, {2, 2}});  // LeNet's shapes.
    nchw.push_back({{8, 50, 8, 8}, t, {2, 2}, {2, 2}});
    for (const PoolCase& c : nchw) {
      cases.push_back(c);
      cases.push_back(Nhwc(c));
    }
  }
  return cases;
}

TEST_F(OneDNNConvPoolGradTest, PoolGradMatchesPlainKernel) {
  unsigned seed = 700;
  for (const PoolCase& c : PoolCases()) {
    SCOPED_TRACE(c.Name());
    const auto [onednn, plain] = PoolGradBoth(c, PoolGradInputs<float>(c, seed += 2));
    // An element of X@GRAD adds at most one share per window covering it.
    const double windows =
        std::max(1.0, std::ceil(static_cast<double>(c.ksize[0]) / c.strides[0])) *
        std::max(1.0, std::ceil(static_cast<double>(c.ksize[1]) / c.strides[1]));
    ExpectNear(ToDoubles(onednn), ToDoubles(plain), 1e-5, 1e-6 * windows, c.Name());
  }
}

TEST_F(OneDNNConvPoolGradTest, PoolGradClosedForm) {
  // avg 2x2, stride 2: every element receives a quarter of its window's gradient; max: the
  // whole gradient goes to the window's maximum. One channel: NCHW and NHWC data coincide.
  const PoolCase avg{{1, 1, 2, 4}, "avg", {2, 2}, {2, 2}};
  const PoolCase max{{1, 1, 2, 4}, "max", {2, 2}, {2, 2}};
  for (const PoolCase& c : {avg, Nhwc(avg), max, Nhwc(max)}) {
    SCOPED_TRACE(c.Name());
    const DDim out = c.data_format == "NHWC" ? DDim{1, 1, 2, 1} : DDim{1, 1, 1, 2};
    const SlotTensors inputs = {
        {"X", {MakeTensor<float>(c.x, {1, 5, 2, 0, 3, 4, 8, 6})}},
        {"Out",
         {MakeTensor<float>(
             out, c.type == "avg" ? std::vector<double>{3.25, 4} : std::vector<double>{5, 8})}},
        {"Out@GRAD", {MakeTensor<float>(out, {4, -8})}}};
    ExpectNear(ToDoubles(PoolGradBoth(c, inputs).first),
               c.type == "avg" ? std::vector<double>{1, 1, -2, -2, 1, 1, -2, -2}
                               : std::vector<double>{0, 4, 0, 0, 0, 0, -8, 0},
               0, 0, c.Name());
  }
}

TEST_F(OneDNNConvPoolGradTest, PoolGradFallsBackToPlainCode) {
  // Adaptive windows and windows lying wholly in the padding are not oneDNN poolings, and
  // max pooling in NCHW is faster in the plain code: the oneDNN kernel runs the plain code,
  // bitwise the same.
  std::vector<PoolCase> cases = {{{2, 20, 8, 8}, "max", {2, 2}, {2, 2}}};
  for (const char* type : {"max", "avg"}) {
    PoolCase adaptive{{2, 3, 7, 5}, type, {3, 2}};
    adaptive.adaptive = true;
    cases.push_back(adaptive);
    adaptive.data_format = "NHWC";
    cases.push_back(adaptive);
    cases.push_back({{1, 2, 3, 3}, type, {1, 1}, {2, 2}, {1, 1}});  // Corner windows empty.
  }
  unsigned seed = 800;
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(c.Name());
    const auto [onednn, plain] = PoolGradBoth(c, PoolGradInputs<float>(c, seed += 2));
    EXPECT_EQ(ToDoubles(onednn), ToDoubles(plain));
  }
}

// Max pooling over disjoint windows of X in a oneDNN layout (a convolution's output kept
// blocked or channel-last) runs a loop over X's channel runs: bitwise the plain kernel's
// result, the gradient going to each window's first maximum (values on a grid of 0.25, so
// windows hold ties), with rows and columns past the last window, and with Out given
// row-major or in X's layout. 20 channels pad 8- and 16-channel blocks and take two passes
// of 16 lanes channel-last.
TEST_F(OneDNNConvPoolGradTest, DisjointMaxPoolGradOverChannelRunsMatchesPlainKernel) {
  using Tag = dnnl::memory::format_tag;
  const std::vector<PoolCase> cases = {{{2, 20, 9, 8}, "max", {2, 2}, {2, 2}},
                                       {{2, 20, 9, 8}, "max", {3, 3}, {3, 3}},
                                       {{1, 24, 6, 7}, "max", {2, 3}, {2, 3}}};
  unsigned seed = 900;
  for (const PoolCase& c : cases) {
    std::vector<double> values = RandomValues(c.x.numel(), -1, 1, seed += 2);
    for (double& v : values) v = std::round(v * 4) / 4;
    const SlotTensors plain_inputs = {
        {"X", {MakeTensor<float>(c.x, values)}},
        {"Out",
         {RunWith(false, "pool2d", {{"X", {MakeTensor<float>(c.x, values)}}}, {{"Out", 1}},
                  c.Attrs())
              .outputs["Out"][0]}}};
    const DenseTensor& out = plain_inputs.at("Out")[0];
    const DenseTensor dout = MakeTensor<float>(out.dims(), RandomValues(out.numel(), -1, 1, seed));
    SlotTensors inputs = plain_inputs;
    inputs["Out@GRAD"] = {dout};
    const std::vector<double> expected = ToDoubles(
        RunWith(false, "pool2d_grad", inputs, {{"X@GRAD", 1}}, c.Attrs()).outputs["X@GRAD"][0]);
    for (const Tag format : {Tag::acdb, Tag::aBcd8b, Tag::aBcd16b}) {
      for (const bool out_in_x_format : {false, true}) {
        SCOPED_TRACE(c.Name() + ", X in " + std::to_string(static_cast<int>(format)) +
                     (out_in_x_format ? ", Out too" : ""));
        SlotTensors onednn_inputs = inputs;
        onednn_inputs["X"] = {OneDNNTensor(c.x, values, format)};
        if (out_in_x_format) {
          onednn_inputs["Out"] = {OneDNNTensor(out.dims(), ToDoubles(out), format)};
        }
        OpRunResult r = RunWith(true, "pool2d_grad", onednn_inputs, {{"X@GRAD", 1}}, c.Attrs());
        EXPECT_EQ(r.kernel->key.backend, LibraryType::kOneDNN);
        EXPECT_EQ(ToDoubles(r.outputs["X@GRAD"][0]), expected);
        // The fused relu gradient's ChannelSum, summed from the windows: X@GRAD's sum per
        // channel (padding lanes of the blocks left out).
        OpRunResult fused = RunWith(true, framework::kFusedReluPool2dGrad, onednn_inputs,
                                    {{"X@GRAD", 1}, {"ChannelSum", 1}}, c.Attrs());
        const std::vector<double> dx = ToDoubles(fused.outputs["X@GRAD"][0]);
        const int64_t plane = c.x[2] * c.x[3];
        std::vector<double> sums(static_cast<size_t>(c.x[1]), 0.0);
        for (size_t i = 0; i < dx.size(); ++i) sums[i / plane % c.x[1]] += dx[i];
        EXPECT_EQ(fused.outputs["ChannelSum"][0].dims(), DDim({c.x[1]}));
        ExpectNear(ToDoubles(fused.outputs["ChannelSum"][0]), sums, 1e-6, 1e-6, "ChannelSum");
      }
    }
  }
}

TEST_F(OneDNNConvPoolGradTest, PoolGradOfEmptyBatch) {
  for (const PoolCase& c : {PoolCase{{0, 3, 4, 4}, "avg", {2, 2}, {2, 2}},
                            Nhwc(PoolCase{{0, 3, 4, 4}, "max", {2, 2}, {2, 2}})}) {
    SCOPED_TRACE(c.Name());
    const DDim out = c.data_format == "NHWC" ? DDim{0, 2, 2, 3} : DDim{0, 3, 2, 2};
    const SlotTensors inputs = {{"X", {MakeTensor<float>(c.x, {})}},
                                {"Out", {MakeTensor<float>(out, {})}},
                                {"Out@GRAD", {MakeTensor<float>(out, {})}}};
    PoolGradBoth(c, inputs);
  }
}

// ---------------------------------------------------------------------------- in place

// Runs one op with each input slot bound to a variable of the slot's name and each output
// slot to the variable `outputs` names (possibly an input's); returns every variable.
std::map<std::string, DenseTensor> RunNamed(const std::string& type, const SlotTensors& inputs,
                                            const std::map<std::string, std::string>& outputs,
                                            const AttributeMap& attrs) {
  framework::VariableNameMap in_names, out_names;
  std::map<std::string, DenseTensor> feeds;
  for (const auto& [slot, tensors] : inputs) {
    in_names[slot] = {slot};
    feeds[slot] = tensors[0];
  }
  for (const auto& [slot, var] : outputs) out_names[slot] = {var};
  return RunNamedOp(type, in_names, out_names, feeds, attrs).vars;
}

// Runs one op whose output `out_slot` is the variable of input `in_slot`; returns it.
DenseTensor RunInPlace(const std::string& type, const SlotTensors& inputs,
                       const std::string& in_slot, const std::string& out_slot,
                       const AttributeMap& attrs) {
  return RunNamed(type, inputs, {{out_slot, in_slot}}, attrs).at(in_slot);
}

TEST_F(OneDNNConvPoolGradTest, GradientWrittenOverItsIncomingGradient) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  // Shapes where X@GRAD (Input@GRAD) has the shape of Out@GRAD (Output@GRAD).
  const PoolCase pool{{2, 3, 5, 5}, "avg", {3, 3}, {1, 1}, {1, 1}};
  const SlotTensors pool_inputs = PoolGradInputs<float>(pool, 31);
  const DenseTensor pool_expected =
      RunOp("pool2d_grad", pool_inputs, {{"X@GRAD", 1}}, pool.Attrs()).outputs["X@GRAD"][0];
  ExpectNear(ToDoubles(RunInPlace("pool2d_grad", pool_inputs, "Out@GRAD", "X@GRAD", pool.Attrs())),
             ToDoubles(pool_expected), 0, 0, "pool2d_grad in place");
  const ConvCase conv{{2, 4, 6, 6}, {4, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2};
  const SlotTensors conv_inputs = ConvGradInputs<float>(conv, 33);
  const DenseTensor conv_expected =
      RunOp("conv2d_grad", conv_inputs, {{"Input@GRAD", 1}}, conv.Attrs()).outputs["Input@GRAD"][0];
  ExpectNear(
      ToDoubles(RunInPlace("conv2d_grad", conv_inputs, "Output@GRAD", "Input@GRAD", conv.Attrs())),
      ToDoubles(conv_expected), 0, 0, "conv2d_grad in place");
}

// Input@GRAD written over Input while Filter@GRAD, which reads Input, is computed too: both
// kernels (plain and oneDNN, float and double) keep Input readable until both are done.
TEST_F(OneDNNConvPoolGradTest, InputGradientWrittenOverInput) {
  const ConvCase conv{{2, 4, 6, 6}, {4, 4, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1};
  for (bool use_onednn : {true, false}) {
    ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
    const std::string what = use_onednn ? "oneDNN" : "plain";
    const SlotTensors inputs = ConvGradInputs<float>(conv, 41);
    const auto expected = RunOp("conv2d_grad", inputs, {{"Input@GRAD", 1}, {"Filter@GRAD", 1}},
                                conv.Attrs());
    const auto vars = RunNamed("conv2d_grad", inputs,
                               {{"Input@GRAD", "Input"}, {"Filter@GRAD", "filter_grad"}},
                               conv.Attrs());
    ExpectNear(ToDoubles(vars.at("Input")), ToDoubles(expected.outputs.at("Input@GRAD")[0]), 0,
               0, what + " Input@GRAD over Input");
    ExpectNear(ToDoubles(vars.at("filter_grad")),
               ToDoubles(expected.outputs.at("Filter@GRAD")[0]), 0, 0,
               what + " Filter@GRAD beside it");
  }
}

// ---------------------------------------------------------------------------- float64, errors

TEST_F(OneDNNConvPoolGradTest, Float64StaysOnThePlainKernels) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  for (const char* op : {"conv2d", "depthwise_conv2d"}) {
    ConvCase c{{1, 2, 5, 5}, {2, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2};
    c.op = op;
    auto r = RunOp(c.op + "_grad", ConvGradInputs<double>(c, 5),
                   {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, c.Attrs());
    EXPECT_EQ(r.kernel->key.backend, LibraryType::kPlain) << op;
    EXPECT_EQ(r.outputs["Filter@GRAD"][0].dtype(), DataType::FLOAT64) << op;
  }
  const PoolCase p{{1, 2, 4, 4}, "avg", {2, 2}, {2, 2}};
  auto r = RunOp("pool2d_grad", PoolGradInputs<double>(p, 7), {{"X@GRAD", 1}}, p.Attrs());
  EXPECT_EQ(r.kernel->key.backend, LibraryType::kPlain);
  EXPECT_EQ(r.outputs["X@GRAD"][0].dtype(), DataType::FLOAT64);
}

TEST_F(OneDNNConvPoolGradTest, MismatchedIncomingGradientIsAnError) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  const ConvCase c{{1, 2, 5, 5}, {3, 2, 3, 3}};
  SlotTensors conv = ConvGradInputs<float>(c, 9);
  conv["Output@GRAD"] = {MakeTensor<float>({1, 3, 4, 3}, RandomValues(36, -1, 1))};
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("conv2d_grad", conv, {{"Input@GRAD", 1}}, c.Attrs());
      },
      {"op `conv2d_grad` input `Output@GRAD`: expected shape [1, 3, 3, 3], received [1, 3, 4, 3]"});
  const PoolCase p{{1, 1, 4, 4}, "max", {2, 2}, {2, 2}};
  SlotTensors pool = PoolGradInputs<float>(p, 11);
  pool["Out@GRAD"] = {MakeTensor<float>({1, 1, 3, 2}, RandomValues(6, -1, 1))};
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("pool2d_grad", pool, {{"X@GRAD", 1}}, p.Attrs());
      },
      {"op `pool2d_grad` input `Out@GRAD`: expected shape [1, 1, 2, 2], received [1, 1, 3, 2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
