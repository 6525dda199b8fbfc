// cuDNN kernels of conv2d_transpose, depthwise_conv2d_transpose and their grad ops against the
// plain CPU kernels on the same random inputs (the plain kernels are checked against direct
// loops and finite differences in conv2d_transpose_op_test.cc): strides, paddings (2 and 4
// values, SAME, VALID), output_padding (also of a stride or more, which leaves output rows no
// tap reaches), output_size, dilations, groups, depthwise, NHWC, Bias, each gradient alone,
// float and double, deterministic mode, exhaustive search, the plain CUDA registration
// (use_cudnn = false) and errors. Each GPU run runs twice (the second on the cached
// algorithms) and must have chosen the expected CUDA kernel. Skips when the build has no CUDA
// or the machine has no device.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/conv_pool_test_util.h"
#include "tests/cuda_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;

class CudnnConvTransposeTest : public CudaTest {};

DenseTensor Random(DataType dtype, const DDim& dims, unsigned seed) {
  return RandomOf(dtype, dims, -1, 1, seed);
}

// The op's output dims, from the CPU kernel.
DDim OutputDims(const ConvTransposeCase& c, const std::map<std::string, DenseTensor>& in) {
  return RunOn(platform::CPUPlace(), c.op, in, {"Output"}, c.Attrs()).outputs["Output"].dims();
}

std::vector<ConvTransposeCase> Cases() {
  std::vector<ConvTransposeCase> cases;
  ConvTransposeCase c;
  c.input = {2, 3, 5, 6};
  c.filter = {3, 4, 3, 3};
  cases.push_back(c);  // Plain.
  c.input = {2, 3, 4, 5};
  c.filter = {3, 2, 3, 3};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);  // Stride 2, padding 1: Output [2, 2, 7, 9].
  c.strides = {2, 1};
  c.paddings = {1, 0, 0, 2};
  cases.push_back(c);  // Asymmetric paddings [top, bottom, left, right].
  c = ConvTransposeCase();
  c.input = {2, 3, 4, 5};
  c.filter = {3, 2, 3, 3};
  c.strides = {2, 2};
  c.algorithm = "SAME";
  cases.push_back(c);  // SAME: pad_sum 1 on H (top 0, bottom 1), 2 on W.
  c.algorithm = "VALID";
  c.paddings = {2, 2};
  cases.push_back(c);  // VALID ignores paddings.
  c = ConvTransposeCase();
  c.input = {1, 2, 3, 4};
  c.filter = {2, 3, 3, 3};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  c.output_padding = {1, 0};
  cases.push_back(c);  // output_padding below the stride: cuDNN's own padding.
  c.output_padding = {};
  c.strides = {3, 3};
  c.output_size = {8, 12};  // Natural sizes 7 and 10.
  cases.push_back(c);
  c = ConvTransposeCase();
  c.input = {1, 3, 5, 5};
  c.filter = {3, 2, 3, 3};
  c.dilations = {2, 2};
  c.paddings = {1, 2};
  cases.push_back(c);  // Dilation 2.
  c.paddings = {1, 1};
  c.output_padding = {1, 1};
  cases.push_back(c);  // output_padding of a stride with dilation 2: a padded buffer.
  c.paddings = {0, 0};
  c.output_padding = {1, 0};
  cases.push_back(c);  // ... without bottom padding: the last row lies past every tap.
  c = ConvTransposeCase();
  c.input = {2, 4, 5, 5};
  c.filter = {4, 3, 3, 3};
  c.groups = 2;
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);  // Groups 2: Output channels 6.
  c = ConvTransposeCase();
  c.op = "depthwise_conv2d_transpose";
  c.input = {2, 4, 5, 5};
  c.filter = {4, 1, 3, 3};
  c.groups = 4;
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);  // Depthwise.
  c.filter = {4, 2, 3, 3};
  c.strides = {1, 2};
  cases.push_back(c);  // Depthwise, channel multiplier 2.
  c = ConvTransposeCase();
  c.data_format = "NHWC";
  c.input = {2, 5, 6, 3};
  c.filter = {3, 4, 3, 3};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);  // NHWC.
  c.paddings = {1, 0, 0, 2};
  c.output_padding = {1, 1};
  cases.push_back(c);  // NHWC, asymmetric paddings, output_padding.
  c = ConvTransposeCase();
  c.data_format = "NHWC";
  c.input = {1, 4, 5, 4};
  c.filter = {4, 2, 3, 3};
  c.groups = 2;
  c.dilations = {2, 2};
  c.output_padding = {1, 1};
  cases.push_back(c);  // NHWC, groups, rows and columns past every tap.
  c = ConvTransposeCase();
  c.input = {3, 8, 4, 4};
  c.filter = {8, 6, 1, 1};
  c.strides = {2, 2};
  cases.push_back(c);  // 1x1, stride 2: every other output pixel is 0.
  return cases;
}

TEST_F(CudnnConvTransposeTest, ForwardMatchesCpu) {
  unsigned seed = 1;
  for (const ConvTransposeCase& c : Cases()) {
    for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
      const std::map<std::string, DenseTensor> in = {{"Input", Random(dtype, c.input, seed)},
                                                     {"Filter", Random(dtype, c.filter, seed + 1)}};
      ExpectLibraryKernelMatchesCpu(c.op, in, {"Output"}, c.Attrs(), dtype, c.Name());
    }
    seed += 2;
  }
}

TEST_F(CudnnConvTransposeTest, GradMatchesCpu) {
  unsigned seed = 100;
  for (const ConvTransposeCase& c : Cases()) {
    for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
      std::map<std::string, DenseTensor> in = {{"Input", Random(dtype, c.input, seed)},
                                               {"Filter", Random(dtype, c.filter, seed + 1)}};
      in["Output@GRAD"] = Random(dtype, OutputDims(c, in), seed + 2);
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

TEST_F(CudnnConvTransposeTest, BiasMatchesCpu) {
  std::vector<ConvTransposeCase> cases;
  ConvTransposeCase c;
  c.input = {2, 3, 4, 5};
  c.filter = {3, 2, 3, 3};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);
  c.data_format = "NHWC";
  c.input = {2, 4, 5, 3};
  c.paddings = {0, 1, 1, 0};
  cases.push_back(c);  // NHWC through a padded buffer.
  c = ConvTransposeCase();
  c.input = {1, 3, 4, 4};
  c.filter = {3, 2, 3, 3};
  c.dilations = {2, 2};
  c.output_padding = {1, 1};
  cases.push_back(c);  // The row and column past every tap hold the bias alone.
  unsigned seed = 500;
  for (const ConvTransposeCase& cc : cases) {
    for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
      const std::map<std::string, DenseTensor> in = {
          {"Input", Random(dtype, cc.input, seed)},
          {"Filter", Random(dtype, cc.filter, seed + 1)},
          {"Bias", Random(dtype, {cc.filter[1] * cc.groups}, seed + 2)}};
      ExpectLibraryKernelMatchesCpu(cc.op, in, {"Output"}, cc.Attrs(), dtype, cc.Name() + " Bias");
    }
    seed += 3;
  }
}

// Decoder-sized layers, for which cuDNN's heuristics pick other algorithms than for the
// small cases.
TEST_F(CudnnConvTransposeTest, NetworkLayersMatchCpu) {
  std::vector<ConvTransposeCase> cases;
  ConvTransposeCase c;
  c.input = {2, 64, 16, 16};
  c.filter = {64, 32, 4, 4};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);  // A 2x upsampling layer.
  c = ConvTransposeCase();
  c.input = {2, 32, 20, 20};
  c.filter = {32, 16, 2, 2};
  c.strides = {2, 2};
  cases.push_back(c);  // A segmentation head's 2x2, stride 2.
  unsigned seed = 400;
  for (const ConvTransposeCase& cc : cases) {
    std::map<std::string, DenseTensor> in = {
        {"Input", Random(DataType::FLOAT32, cc.input, seed)},
        {"Filter", Random(DataType::FLOAT32, cc.filter, seed + 1)}};
    ExpectLibraryKernelMatchesCpu(cc.op, in, {"Output"}, cc.Attrs(), DataType::FLOAT32, cc.Name());
    // Float math, not TF32 (CUDNN_FMA_MATH): within 2e-5 of the largest value of a double
    // reference, where TF32's 10-bit mantissa would be ~1e-3 off.
    const std::vector<double> f32 = ToDoubles(
        RunOn(platform::CUDAPlace(0), cc.op, in, {"Output"}, cc.Attrs()).outputs["Output"]);
    const std::vector<double> f64 =
        ToDoubles(RunOn(platform::CPUPlace(), cc.op,
                        {{"Input", Random(DataType::FLOAT64, cc.input, seed)},
                         {"Filter", Random(DataType::FLOAT64, cc.filter, seed + 1)}},
                        {"Output"}, cc.Attrs())
                      .outputs["Output"]);
    ExpectNear(f32, f64, 0.0, 2e-5 * MaxAbs(f64), cc.Name() + " float against double");
    in["Output@GRAD"] = Random(DataType::FLOAT32, OutputDims(cc, in), seed + 2);
    ExpectLibraryKernelMatchesCpu(cc.op + "_grad", in, {"Input@GRAD", "Filter@GRAD"}, cc.Attrs(),
                                  DataType::FLOAT32, cc.Name());
    seed += 3;
  }
}

// An empty batch: an empty output and input gradient, a zero filter gradient.
TEST_F(CudnnConvTransposeTest, EmptyBatch) {
  ConvTransposeCase c;
  c.input = {0, 3, 4, 4};
  c.filter = {3, 2, 3, 3};
  std::map<std::string, DenseTensor> in = {{"Input", Random(DataType::FLOAT32, c.input, 41)},
                                           {"Filter", Random(DataType::FLOAT32, c.filter, 42)}};
  ExpectLibraryKernelMatchesCpu(c.op, in, {"Output"}, c.Attrs(), DataType::FLOAT32, c.Name());
  in["Output@GRAD"] = Random(DataType::FLOAT32, {0, 2, 6, 6}, 43);
  ExpectLibraryKernelMatchesCpu(c.op + "_grad", in, {"Input@GRAD", "Filter@GRAD"}, c.Attrs(),
                                DataType::FLOAT32, c.Name());
}

TEST_F(CudnnConvTransposeTest, DeterministicModeIsBitwiseReproducible) {
  ScopedFlag deterministic(&FLAGS_cudnn_deterministic, true);
  std::vector<ConvTransposeCase> cases;
  ConvTransposeCase c;
  c.input = {4, 8, 8, 8};
  c.filter = {8, 8, 4, 4};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  cases.push_back(c);
  c.data_format = "NHWC";
  c.paddings = {1, 2, 2, 1};
  cases.push_back(c);  // NHWC through a padded buffer.
  unsigned seed = 21;
  for (const ConvTransposeCase& cc : cases) {
    SCOPED_TRACE(cc.Name());
    std::map<std::string, DenseTensor> in = {
        {"Input", Random(DataType::FLOAT32, cc.input, seed)},
        {"Filter", Random(DataType::FLOAT32, cc.filter, seed + 1)}};
    in["Output@GRAD"] = Random(DataType::FLOAT32, OutputDims(cc, in), seed + 2);
    for (const auto& [type, outs] : std::vector<std::pair<std::string, std::vector<std::string>>>{
             {cc.op, {"Output"}}, {cc.op + "_grad", {"Input@GRAD", "Filter@GRAD"}}}) {
      std::map<std::string, DenseTensor> ins = in;
      if (type == cc.op) ins.erase("Output@GRAD");
      const PlaceRun a = RunOn(platform::CUDAPlace(0), type, ins, outs, cc.Attrs());
      const PlaceRun b = RunOn(platform::CUDAPlace(0), type, ins, outs, cc.Attrs());
      EXPECT_EQ(a.key.backend, LibraryType::kCUDNN) << a.key.ToString();
      for (const auto& slot : outs) {
        EXPECT_EQ(ToDoubles(a.outputs.at(slot)), ToDoubles(b.outputs.at(slot))) << type << slot;
      }
      ExpectLibraryKernelMatchesCpu(type, ins, outs, cc.Attrs(), DataType::FLOAT32,
                                    "deterministic " + type);
    }
    seed += 3;
  }
}

TEST_F(CudnnConvTransposeTest, ExhaustiveSearchMatchesCpu) {
  ScopedFlag exhaustive(&FLAGS_cudnn_exhaustive_search, true);
  ConvTransposeCase c;
  c.input = {2, 16, 8, 8};
  c.filter = {16, 8, 3, 3};
  c.strides = {2, 2};
  c.paddings = {1, 1};
  c.output_padding = {1, 1};
  std::map<std::string, DenseTensor> in = {{"Input", Random(DataType::FLOAT32, c.input, 31)},
                                           {"Filter", Random(DataType::FLOAT32, c.filter, 32)}};
  ExpectLibraryKernelMatchesCpu(c.op, in, {"Output"}, c.Attrs(), DataType::FLOAT32, "exhaustive");
  in["Output@GRAD"] = Random(DataType::FLOAT32, OutputDims(c, in), 33);
  ExpectLibraryKernelMatchesCpu(c.op + "_grad", in, {"Input@GRAD", "Filter@GRAD"}, c.Attrs(),
                                DataType::FLOAT32, "exhaustive grad");
}

// use_cudnn = false (common in PaddlePaddle's saved programs) takes the same kernels through
// their plain CUDA registration: no other CUDA transposed convolution exists.
TEST_F(CudnnConvTransposeTest, RunsOnTheGpuWithoutUseCudnn) {
  ConvTransposeCase c;
  c.input = {1, 4, 5, 5};
  c.filter = {4, 1, 3, 3};
  c.groups = 4;
  c.strides = {2, 2};
  c.op = "depthwise_conv2d_transpose";
  AttributeMap attrs = c.Attrs();
  attrs["use_cudnn"] = false;
  for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
    std::map<std::string, DenseTensor> in = {{"Input", Random(dtype, c.input, 51)},
                                             {"Filter", Random(dtype, c.filter, 52)}};
    ExpectLibraryKernelMatchesCpu(c.op, in, {"Output"}, attrs, dtype, c.Name(),
                                  LibraryType::kPlain);
    in["Output@GRAD"] = Random(dtype, OutputDims(c, in), 53);
    ExpectLibraryKernelMatchesCpu(c.op + "_grad", in, {"Input@GRAD", "Filter@GRAD"}, attrs, dtype,
                                  c.Name(), LibraryType::kPlain);
  }
}

TEST_F(CudnnConvTransposeTest, ErrorsNameTheOp) {
  ConvTransposeCase c;
  c.input = {1, 2, 3, 3};
  c.filter = {2, 3, 3, 3};
  const std::map<std::string, DenseTensor> in = {
      {"Input", Random(DataType::FLOAT32, c.input, 61)},
      {"Filter", Random(DataType::FLOAT32, c.filter, 62)},
      {"Bias", Random(DataType::FLOAT32, {2}, 63)}};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOn(platform::CUDAPlace(0), c.op, in, {"Output"}, c.Attrs()); },
      {"conv2d_transpose", "Bias", "[3]"});
  c.strides = {2, 2};
  c.output_size = {9, 7};  // Natural size 7: 9 is a stride too far.
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOn(platform::CUDAPlace(0), c.op,
              {{"Input", in.at("Input")}, {"Filter", in.at("Filter")}}, {"Output"}, c.Attrs());
      },
      {"conv2d_transpose", "output_size", "9"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
