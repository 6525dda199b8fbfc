// cuDNN kernels of conv2d, depthwise_conv2d, pool2d and their grad ops against the plain CPU
// kernels on the same random inputs (the plain kernels are checked against direct loops and
// finite differences in conv2d_op_test.cc and pool2d_op_test.cc): strides, paddings (2 and 4
// values, SAME, VALID), dilations, groups, depthwise, NHWC, the fused epilogue (Bias,
// ResidualData, activations), max / avg pooling (exclusive or not, ceil_mode, global,
// adaptive), one gradient alone, deterministic mode, exhaustive search and refusals. Each
// GPU run runs twice (the second on the cached algorithms) and must have chosen the cuDNN
// kernel. Skips when the build has no CUDA or the machine has no device.
#include <map>
#include <string>
#include <vector>

#include "tests/conv_pool_test_util.h"
#include "tests/cuda_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;

class CudnnKernelTest : public CudaTest {};

template <typename T>
DenseTensor Random(const DDim& dims, unsigned seed) {
  return MakeTensor<T>(dims, RandomValues(dims.numel(), -1, 1, seed));
}

AttributeMap CudnnPoolAttrs(const PoolCase& c) {
  AttributeMap attrs = c.Attrs();
  attrs["use_cudnn"] = true;  // pool2d's default is false.
  return attrs;
}

// ------------------------------------------------------------------------------- conv2d

std::vector<ConvCase> ConvCases() {
  std::vector<ConvCase> cases;
  ConvCase c;
  c.input = {2, 3, 7, 8};
  c.filter = {4, 3, 3, 3};
  cases.push_back(c);  // Plain.
  c.input = {2, 3, 9, 9};
  c.filter = {5, 3, 3, 3};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);  // Stride 2, padding 1.
  c = ConvCase();
  c.input = {1, 4, 10, 9};
  c.filter = {3, 4, 3, 3};
  c.dilations = {2, 2};
  c.paddings = {2, 1};
  cases.push_back(c);  // Dilation 2.
  c = ConvCase();
  c.input = {2, 4, 8, 8};
  c.filter = {6, 2, 3, 3};
  c.groups = 2;
  c.paddings = {1, 1};
  cases.push_back(c);  // Groups 2.
  c = ConvCase();
  c.op = "depthwise_conv2d";
  c.input = {2, 4, 8, 8};
  c.filter = {4, 1, 3, 3};
  c.groups = 4;
  c.paddings = {1, 1};
  cases.push_back(c);  // Depthwise.
  c.filter = {8, 1, 3, 3};
  c.strides = {2, 1};
  cases.push_back(c);  // Depthwise, channel multiplier 2.
  c = ConvCase();
  c.input = {2, 3, 8, 7};
  c.filter = {4, 3, 3, 2};
  c.paddings = {0, 2, 1, 0};
  cases.push_back(c);  // Asymmetric paddings [top, bottom, left, right].
  c = ConvCase();
  c.input = {2, 3, 8, 8};
  c.filter = {4, 3, 3, 3};
  c.strides = {2, 2};
  c.algorithm = "SAME";
  cases.push_back(c);  // SAME with pad_sum 1: top 0, bottom 1.
  c.algorithm = "VALID";
  c.paddings = {3, 3};
  cases.push_back(c);  // VALID ignores paddings.
  c = ConvCase();
  c.data_format = "NHWC";
  c.input = {2, 7, 8, 3};
  c.filter = {4, 3, 3, 3};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);  // NHWC.
  c.paddings = {1, 0, 0, 2};
  cases.push_back(c);  // NHWC with asymmetric paddings.
  c = ConvCase();
  c.input = {3, 8, 5, 5};
  c.filter = {6, 8, 1, 1};
  c.strides = {2, 2};
  cases.push_back(c);  // 1x1, stride 2.
  return cases;
}

TEST_F(CudnnKernelTest, Conv2dMatchesCpu) {
  unsigned seed = 1;
  for (const ConvCase& c : ConvCases()) {
    for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
      const bool f = dtype == DataType::FLOAT32;
      const std::map<std::string, DenseTensor> in = {
          {"Input", f ? Random<float>(c.input, seed) : Random<double>(c.input, seed)},
          {"Filter", f ? Random<float>(c.filter, seed + 1) : Random<double>(c.filter, seed + 1)}};
      ExpectLibraryKernelMatchesCpu(c.op, in, {"Output"}, c.Attrs(), dtype, c.Name());
    }
    seed += 2;
  }
}

TEST_F(CudnnKernelTest, Conv2dGradMatchesCpu) {
  unsigned seed = 100;
  for (const ConvCase& c : ConvCases()) {
    for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
      const bool f = dtype == DataType::FLOAT32;
      std::map<std::string, DenseTensor> in = {
          {"Input", f ? Random<float>(c.input, seed) : Random<double>(c.input, seed)},
          {"Filter", f ? Random<float>(c.filter, seed + 1) : Random<double>(c.filter, seed + 1)}};
      const DDim out =
          RunOn(platform::CPUPlace(), c.op, in, {"Output"}, c.Attrs()).outputs["Output"].dims();
      in["Output@GRAD"] = f ? Random<float>(out, seed + 2) : Random<double>(out, seed + 2);
      const std::string type = c.op + "_grad";
      ExpectLibraryKernelMatchesCpu(type, in, {"Input@GRAD", "Filter@GRAD"}, c.Attrs(), dtype,
                                    c.Name());
      // Each gradient alone.
      ExpectLibraryKernelMatchesCpu(type, in, {"Input@GRAD"}, c.Attrs(), dtype,
                                    c.Name() + " dInput");
      ExpectLibraryKernelMatchesCpu(type, in, {"Filter@GRAD"}, c.Attrs(), dtype,
                                    c.Name() + " dFilter");
    }
    seed += 3;
  }
}

// Network-sized layers, for which cuDNN's heuristics pick other algorithms (Winograd, FFT,
// larger workspaces) than for the small cases.
TEST_F(CudnnKernelTest, Conv2dNetworkLayersMatchCpu) {
  std::vector<ConvCase> cases;
  ConvCase c;
  c.input = {4, 32, 28, 28};
  c.filter = {32, 32, 3, 3};
  c.paddings = {1, 1};
  cases.push_back(c);  // A ResNet block's 3x3.
  c.input = {2, 3, 32, 32};
  c.filter = {16, 3, 7, 7};
  c.strides = {2, 2};
  c.paddings = {3, 3};
  cases.push_back(c);  // A 7x7 stem.
  c = ConvCase();
  c.op = "depthwise_conv2d";
  c.input = {4, 32, 28, 28};
  c.filter = {32, 1, 3, 3};
  c.groups = 32;
  c.strides = {2, 2};
  c.algorithm = "SAME";
  cases.push_back(c);  // A MobileNet depthwise layer.
  unsigned seed = 400;
  for (const ConvCase& cc : cases) {
    std::map<std::string, DenseTensor> in = {{"Input", Random<float>(cc.input, seed)},
                                             {"Filter", Random<float>(cc.filter, seed + 1)}};
    ExpectLibraryKernelMatchesCpu(cc.op, in, {"Output"}, cc.Attrs(), DataType::FLOAT32, cc.Name());
    // Float math, not TF32 (CUDNN_FMA_MATH): within 2e-5 of the largest value of a double
    // reference, where TF32's 10-bit mantissa would be ~1e-3 off.
    const std::vector<double> f32 = ToDoubles(
        RunOn(platform::CUDAPlace(0), cc.op, in, {"Output"}, cc.Attrs()).outputs["Output"]);
    const std::vector<double> f64 =
        ToDoubles(RunOn(platform::CPUPlace(), cc.op,
                        {{"Input", Random<double>(cc.input, seed)},
                         {"Filter", Random<double>(cc.filter, seed + 1)}},
                        {"Output"}, cc.Attrs())
                      .outputs["Output"]);
    ExpectNear(f32, f64, 0.0, 2e-5 * MaxAbs(f64), cc.Name() + " float against double");
    const DDim out =
        RunOn(platform::CPUPlace(), cc.op, in, {"Output"}, cc.Attrs()).outputs["Output"].dims();
    in["Output@GRAD"] = Random<float>(out, seed + 2);
    ExpectLibraryKernelMatchesCpu(cc.op + "_grad", in, {"Input@GRAD", "Filter@GRAD"}, cc.Attrs(),
                                  DataType::FLOAT32, cc.Name());
    seed += 3;
  }
}

// An empty batch: empty outputs and input gradients, a zero filter gradient.
TEST_F(CudnnKernelTest, EmptyBatch) {
  ConvCase c;
  c.input = {0, 3, 5, 5};
  c.filter = {4, 3, 3, 3};
  std::map<std::string, DenseTensor> in = {{"Input", Random<float>(c.input, 41)},
                                           {"Filter", Random<float>(c.filter, 42)}};
  ExpectLibraryKernelMatchesCpu("conv2d", in, {"Output"}, c.Attrs(), DataType::FLOAT32, c.Name());
  in["Output@GRAD"] = Random<float>({0, 4, 3, 3}, 43);
  ExpectLibraryKernelMatchesCpu("conv2d_grad", in, {"Input@GRAD", "Filter@GRAD"}, c.Attrs(),
                                DataType::FLOAT32, c.Name());
  PoolCase p;
  p.x = {0, 3, 4, 4};
  p.type = "max";
  p.ksize = {2, 2};
  ExpectLibraryKernelMatchesCpu("pool2d", {{"X", Random<float>(p.x, 44)}}, {"Out"},
                                CudnnPoolAttrs(p), DataType::FLOAT32, p.Name());
}

TEST_F(CudnnKernelTest, Conv2dFusedEpilogueMatchesCpu) {
  for (const std::string format : {"NCHW", "NHWC"}) {
    ConvCase c;
    c.data_format = format;
    c.input = format == "NHWC" ? DDim{2, 6, 7, 3} : DDim{2, 3, 6, 7};
    c.filter = {5, 3, 3, 3};
    c.paddings = {1, 1};
    const DDim out = format == "NHWC" ? DDim{2, 6, 7, 5} : DDim{2, 5, 6, 7};
    for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
      const bool f = dtype == DataType::FLOAT32;
      std::map<std::string, DenseTensor> in = {
          {"Input", f ? Random<float>(c.input, 11) : Random<double>(c.input, 11)},
          {"Filter", f ? Random<float>(c.filter, 12) : Random<double>(c.filter, 12)},
          {"Bias", f ? Random<float>({5}, 13) : Random<double>({5}, 13)}};
      ExpectLibraryKernelMatchesCpu("conv2d", in, {"Output"}, c.Attrs(), dtype, c.Name() + " Bias");
      in["ResidualData"] = f ? Random<float>(out, 14) : Random<double>(out, 14);
      // relu, relu6 and sigmoid run in cuDNN; leaky_relu and swish on the host.
      for (const std::string act : {"relu", "relu6", "sigmoid", "leaky_relu", "swish"}) {
        AttributeMap attrs = c.Attrs();
        attrs["fuse_residual_connection"] = true;
        attrs["fuse_activation"] = act;
        attrs["fuse_alpha"] = 0.2f;
        attrs["fuse_beta"] = act == "relu6" ? 0.5f : 0.0f;
        ExpectLibraryKernelMatchesCpu("conv2d", in, {"Output"}, attrs, dtype,
                                      c.Name() + " Bias + ResidualData + " + act);
      }
    }
  }
}

TEST_F(CudnnKernelTest, Conv2dGradDeterministicModeIsBitwiseReproducible) {
  ScopedFlag deterministic(&FLAGS_cudnn_deterministic, true);
  ConvCase c;
  c.input = {4, 8, 16, 16};
  c.filter = {8, 8, 3, 3};
  c.paddings = {1, 1};
  std::map<std::string, DenseTensor> in = {{"Input", Random<float>(c.input, 21)},
                                           {"Filter", Random<float>(c.filter, 22)},
                                           {"Output@GRAD", Random<float>({4, 8, 16, 16}, 23)}};
  const std::vector<std::string> outs = {"Input@GRAD", "Filter@GRAD"};
  const PlaceRun a = RunOn(platform::CUDAPlace(0), "conv2d_grad", in, outs, c.Attrs());
  const PlaceRun b = RunOn(platform::CUDAPlace(0), "conv2d_grad", in, outs, c.Attrs());
  EXPECT_EQ(a.key.backend, LibraryType::kCUDNN);
  for (const auto& slot : outs) {
    EXPECT_EQ(ToDoubles(a.outputs.at(slot)), ToDoubles(b.outputs.at(slot))) << slot;
  }
  ExpectLibraryKernelMatchesCpu("conv2d_grad", in, outs, c.Attrs(), DataType::FLOAT32,
                                "deterministic");
}

// Timed algorithms, chosen by the flag (every convolution) or by the op's attribute (what a
// GPU predictor sets), forward and grad.
TEST_F(CudnnKernelTest, Conv2dExhaustiveSearchMatchesCpu) {
  ConvCase c;
  c.input = {2, 8, 12, 12};
  c.filter = {16, 8, 3, 3};
  c.paddings = {1, 1};
  std::map<std::string, DenseTensor> in = {{"Input", Random<float>(c.input, 31)},
                                           {"Filter", Random<float>(c.filter, 32)}};
  for (const bool by_attribute : {false, true}) {
    ScopedFlag exhaustive(&FLAGS_cudnn_exhaustive_search, !by_attribute);
    framework::AttributeMap attrs = c.Attrs();
    attrs["exhaustive_search"] = by_attribute;
    const std::string how = by_attribute ? "exhaustive_search attribute" : "exhaustive flag";
    in.erase("Output@GRAD");
    ExpectLibraryKernelMatchesCpu("conv2d", in, {"Output"}, attrs, DataType::FLOAT32, how);
    in["Output@GRAD"] = Random<float>({2, 16, 12, 12}, 33);
    ExpectLibraryKernelMatchesCpu("conv2d_grad", in, {"Input@GRAD", "Filter@GRAD"}, attrs,
                                  DataType::FLOAT32, how + " grad");
  }
}

// ------------------------------------------------------------------------------- pool2d

std::vector<PoolCase> PoolCases() {
  std::vector<PoolCase> cases;
  PoolCase c;
  c.x = {2, 3, 8, 8};
  c.type = "max";
  c.ksize = {2, 2};
  c.strides = {2, 2};
  cases.push_back(c);
  c.x = {2, 3, 9, 9};
  c.ksize = {3, 3};
  c.paddings = {1, 1};
  cases.push_back(c);  // Max with padding.
  c.type = "avg";
  cases.push_back(c);  // Avg exclusive with padding.
  c.exclusive = false;
  cases.push_back(c);  // Avg inclusive with padding.
  for (const std::string type : {"max", "avg"}) {
    for (bool exclusive : {true, false}) {
      if (type == "max" && !exclusive) continue;
      c = PoolCase();
      c.type = type;
      c.exclusive = exclusive;
      c.x = {2, 3, 8, 8};
      c.ksize = {3, 3};
      c.strides = {2, 2};
      c.algorithm = "SAME";
      cases.push_back(c);  // SAME, top 0 and bottom 1: an explicitly padded buffer.
      c = PoolCase();
      c.type = type;
      c.exclusive = exclusive;
      c.x = {1, 2, 5, 7};
      c.ksize = {2, 2};
      c.strides = {2, 2};
      c.ceil_mode = true;
      cases.push_back(c);  // ceil_mode adds a window.
      c.x = {1, 2, 7, 6};
      c.ksize = {3, 2};
      c.paddings = {1, 0, 0, 1};
      c.strides = {2, 1};
      c.ceil_mode = false;
      cases.push_back(c);  // Asymmetric paddings.
      c = PoolCase();
      c.type = type;
      c.exclusive = exclusive;
      c.x = {2, 3, 5, 6};
      c.ksize = {1, 1};
      c.global = true;
      cases.push_back(c);  // Global.
    }
  }
  c = PoolCase();
  c.type = "avg";
  c.x = {1, 2, 4, 6};
  c.ksize = {2, 3};
  c.adaptive = true;
  cases.push_back(c);  // Adaptive with equal windows.
  c.type = "max";
  cases.push_back(c);
  c = PoolCase();
  c.data_format = "NHWC";
  c.type = "max";
  c.x = {2, 9, 9, 3};
  c.ksize = {3, 3};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);  // NHWC.
  c.type = "avg";
  c.algorithm = "SAME";
  c.x = {2, 8, 8, 3};
  cases.push_back(c);  // NHWC, avg exclusive in a padded buffer.
  return cases;
}

TEST_F(CudnnKernelTest, Pool2dMatchesCpu) {
  unsigned seed = 200;
  for (const PoolCase& c : PoolCases()) {
    for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
      const bool f = dtype == DataType::FLOAT32;
      const std::map<std::string, DenseTensor> in = {
          {"X", f ? Random<float>(c.x, seed) : Random<double>(c.x, seed)}};
      ExpectLibraryKernelMatchesCpu("pool2d", in, {"Out"}, CudnnPoolAttrs(c), dtype, c.Name());
    }
    ++seed;
  }
}

TEST_F(CudnnKernelTest, Pool2dGradMatchesCpu) {
  unsigned seed = 300;
  for (const PoolCase& c : PoolCases()) {
    for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
      const bool f = dtype == DataType::FLOAT32;
      std::map<std::string, DenseTensor> in = {
          {"X", f ? Random<float>(c.x, seed) : Random<double>(c.x, seed)}};
      const DenseTensor out =
          RunOn(platform::CPUPlace(), "pool2d", in, {"Out"}, c.Attrs()).outputs["Out"];
      in["Out"] = out;
      in["Out@GRAD"] =
          f ? Random<float>(out.dims(), seed + 1000) : Random<double>(out.dims(), seed + 1000);
      ExpectLibraryKernelMatchesCpu("pool2d_grad", in, {"X@GRAD"}, CudnnPoolAttrs(c), dtype,
                                    c.Name());
    }
    ++seed;
  }
}

// pool2d's default use_cudnn = false takes the same kernel through its plain registration:
// no other CUDA pooling exists.
TEST_F(CudnnKernelTest, Pool2dRunsOnTheGpuWithoutUseCudnn) {
  PoolCase c;
  c.x = {1, 2, 4, 4};
  c.type = "max";
  c.ksize = {2, 2};
  c.strides = {2, 2};
  const PlaceRun run =
      RunOn(platform::CUDAPlace(0), "pool2d", {{"X", Random<float>(c.x, 5)}}, {"Out"}, c.Attrs());
  EXPECT_EQ(run.key.device, framework::DeviceType::kCUDA);
  EXPECT_EQ(run.key.backend, LibraryType::kPlain);
}

// ------------------------------------------------------------------------------ float16

TEST_F(CudnnKernelTest, Float16ForwardKernelsMatchCpuInFloat) {
  for (const ConvCase& c : ConvCases()) {
    SCOPED_TRACE(c.Name());
    ExpectGpuHalfNearCpuFloat(
        c.op,
        [&](DataType t) {
          return SlotTensors{{"Input", {RandomOf(t, c.input, -1, 1, 11)}},
                             {"Filter", {RandomOf(t, c.filter, -1, 1, 12)}}};
        },
        {{"Output", 1}}, c.Attrs());
  }
  ConvCase fused;
  fused.input = {2, 3, 6, 7};
  fused.filter = {5, 3, 3, 3};
  fused.paddings = {1, 1};
  AttributeMap attrs = fused.Attrs();
  attrs["fuse_activation"] = std::string("relu");
  ExpectGpuHalfNearCpuFloat(
      "conv2d",
      [&](DataType t) {
        return SlotTensors{{"Input", {RandomOf(t, fused.input, -1, 1, 13)}},
                           {"Filter", {RandomOf(t, fused.filter, -1, 1, 14)}},
                           {"Bias", {RandomOf(t, {5}, -1, 1, 15)}},
                           {"ResidualData", {RandomOf(t, {2, 5, 6, 7}, -1, 1, 16)}}};
      },
      {{"Output", 1}}, attrs);
  for (const PoolCase& c : PoolCases()) {
    SCOPED_TRACE(c.Name());
    ExpectGpuHalfNearCpuFloat(
        "pool2d",
        [&](DataType t) {
          return SlotTensors{{"X", {RandomOf(t, c.x, -1, 1, 17)}}};
        },
        {{"Out", 1}}, CudnnPoolAttrs(c));
  }
  for (const char* type : {"softmax", "log_softmax"}) {
    for (int axis : {-1, 1}) {
      ExpectGpuHalfNearCpuFloat(type,
                                [](DataType t) {
                                  return SlotTensors{{"X", {RandomOf(t, {3, 5, 4}, -4, 4, 18)}}};
                                },
                                {{"Out", 1}}, {{"axis", axis}});
    }
  }
}

// The value float16 holds nearest to each element of t (a float32 tensor).
DenseTensor RoundedToHalf(const DenseTensor& t) {
  DenseTensor half, back;
  framework::CastTensor(t, DataType::FLOAT16, &half);
  framework::CastTensor(half, DataType::FLOAT32, &back);
  return back;
}

TEST_F(CudnnKernelTest, Float16GradKernelsMatchCpuInFloat) {
  for (const ConvCase& c : ConvCases()) {
    SCOPED_TRACE(c.Name());
    const DDim out = RunOp(c.op,
                           {{"Input", {RandomOf(DataType::FLOAT32, c.input, -1, 1, 21)}},
                            {"Filter", {RandomOf(DataType::FLOAT32, c.filter, -1, 1, 22)}}},
                           {{"Output", 1}}, c.Attrs())
                         .outputs.at("Output")[0]
                         .dims();
    ExpectGpuHalfNearCpuFloat(
        c.op + "_grad",
        [&](DataType t) {
          return SlotTensors{{"Input", {RandomOf(t, c.input, -1, 1, 21)}},
                             {"Filter", {RandomOf(t, c.filter, -1, 1, 22)}},
                             {"Output@GRAD", {RandomOf(t, out, -1, 1, 23)}}};
        },
        {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, c.Attrs());
  }
  // conv2d_transpose, forward and grad.
  ConvTransposeCase tc;
  tc.input = {2, 4, 5, 6};
  tc.filter = {4, 3, 3, 3};
  tc.strides = {2, 2};
  tc.paddings = {1, 1};
  const AttributeMap t_attrs = tc.Attrs();
  const auto t_inputs = [&](DataType t) {
    return SlotTensors{{"Input", {RandomOf(t, tc.input, -1, 1, 24)}},
                       {"Filter", {RandomOf(t, tc.filter, -1, 1, 25)}}};
  };
  ExpectGpuHalfNearCpuFloat("conv2d_transpose", t_inputs, {{"Output", 1}}, t_attrs);
  const DDim t_out =
      RunOp("conv2d_transpose", t_inputs(DataType::FLOAT32), {{"Output", 1}}, t_attrs)
          .outputs.at("Output")[0]
          .dims();
  ExpectGpuHalfNearCpuFloat(
      "conv2d_transpose_grad",
      [&](DataType t) {
        SlotTensors in = t_inputs(t);
        in["Output@GRAD"] = {RandomOf(t, t_out, -1, 1, 26)};
        return in;
      },
      {{"Input@GRAD", 1}, {"Filter@GRAD", 1}}, t_attrs);
  // pool2d_grad: Out is the CPU's pooling of the float16-rounded X (max pooling's backward
  // finds the maxima by comparing X with Out).
  for (const PoolCase& c : PoolCases()) {
    SCOPED_TRACE(c.Name());
    const DenseTensor x = RoundedToHalf(RandomOf(DataType::FLOAT32, c.x, -1, 1, 27));
    const DenseTensor out =
        RunOp("pool2d", {{"X", {x}}}, {{"Out", 1}}, CudnnPoolAttrs(c)).outputs.at("Out")[0];
    ExpectGpuHalfNearCpuFloat(
        "pool2d_grad",
        [&](DataType) {
          return SlotTensors{{"X", {x}},
                             {"Out", {out}},
                             {"Out@GRAD", {RandomOf(DataType::FLOAT32, out.dims(), -1, 1, 28)}}};
        },
        {{"X@GRAD", 1}}, CudnnPoolAttrs(c));
  }
  for (const char* type : {"softmax", "log_softmax"}) {
    const DenseTensor out =
        RunOp(type, {{"X", {RandomOf(DataType::FLOAT32, {3, 5, 4}, -4, 4, 29)}}}, {{"Out", 1}},
              {{"axis", -1}})
            .outputs.at("Out")[0];
    ExpectGpuHalfNearCpuFloat(
        std::string(type) + "_grad",
        [&](DataType t) {
          return SlotTensors{{"Out", {out}}, {"Out@GRAD", {RandomOf(t, {3, 5, 4}, -1, 1, 30)}}};
        },
        {{"X@GRAD", 1}}, {{"axis", -1}});
  }
}

TEST_F(CudnnKernelTest, RefusalsNameTheOp) {
  PoolCase c;
  c.x = {1, 2, 5, 7};
  c.type = "avg";
  c.ksize = {2, 3};
  c.adaptive = true;  // 5 / 2 and 7 / 3: windows of unequal sizes.
  ExpectError<platform::UnimplementedError>(
      [&] {
        RunOn(platform::CUDAPlace(0), "pool2d", {{"X", Random<float>(c.x, 6)}}, {"Out"},
              CudnnPoolAttrs(c));
      },
      {"pool2d", "adaptive", "on the CPU"});
  c = PoolCase();
  c.x = {1, 2, 4, 4};
  c.type = "max";
  c.ksize = {2, 2};
  c.paddings = {2, 2};  // The first window lies in the padding.
  ExpectError<platform::UnimplementedError>(
      [&] {
        RunOn(platform::CUDAPlace(0), "pool2d", {{"X", Random<float>(c.x, 7)}}, {"Out"},
              CudnnPoolAttrs(c));
      },
      {"pool2d", "paddings", "on the CPU"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
