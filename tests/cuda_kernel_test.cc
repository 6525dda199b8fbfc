// The CUDA kernels against the CPU kernels on the same inputs, forward and grad ops, every
// registered dtype that the test names; the CUDA allocator, transfers and the CPU fallback
// inside a GPU program; a few training steps on the GPU against the CPU. Skips when the build
// has no CUDA or the machine has no device.
#include <functional>

#include "framework/kernel_registry.h"
#include "platform/cuda/cuda_memory.h"
#include "platform/init.h"
#include "tests/cuda_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::DDim;

class CudaKernelTest : public CudaTest {};

// Float32 or float64 random inputs.
DenseTensor Random(DataType dtype, const DDim& dims, double lo, double hi, unsigned seed) {
  return RandomOf(dtype, dims, lo, hi, seed);
}

struct BinaryCase {
  DDim x, y;
  int axis;
};
const std::vector<BinaryCase>& BinaryCases() {
  static const std::vector<BinaryCase> cases = {
      {{3, 4, 5}, {3, 4, 5}, -1},  // same shape
      {{3, 4, 5}, {4, 5}, -1},     // right-aligned
      {{3, 4, 5}, {4}, 1},         // PaddlePaddle's axis
      {{2, 1, 5}, {3, 1}, -1},     // both sides broadcast
      {{4}, {3, 4}, -1},           // X the smaller one
      {{3, 0, 2}, {2}, -1},        // empty
  };
  return cases;
}

TEST_F(CudaKernelTest, ElementwiseOpsMatchCpu) {
  for (const char* type : {"elementwise_add", "elementwise_sub", "elementwise_mul",
                           "elementwise_div", "elementwise_max", "elementwise_min",
                           "elementwise_pow", "elementwise_mod", "elementwise_floordiv"}) {
    for (const BinaryCase& c : BinaryCases()) {
      SCOPED_TRACE(c.x.ToString() + " " + c.y.ToString());
      ExpectGpuMatchesCpu(type,
                          [&](DataType t) {
                            return SlotTensors{{"X", {Random(t, c.x, 0.5, 2, 1)}},
                                               {"Y", {Random(t, c.y, 0.5, 2, 2)}}};
                          },
                          {{"Out", 1}}, {{"axis", c.axis}});
    }
  }
  // Integers, where the CUDA kernels take them.
  ExpectGpuMatchesCpu("elementwise_add",
                      [](DataType) {
                        return SlotTensors{
                            {"X", {MakeTensor<int64_t>({2, 3}, {1, -2, 3, 4, 5, 1LL << 40})}},
                            {"Y", {MakeTensor<int64_t>({3}, {7, 8, -9})}}};
                      },
                      {{"Out", 1}}, {{"axis", -1}}, {DataType::INT64});
}

TEST_F(CudaKernelTest, ElementwiseGradOpsMatchCpu) {
  for (const char* type : {"elementwise_add_grad", "elementwise_sub_grad", "elementwise_mul_grad",
                           "elementwise_div_grad"}) {
    for (const BinaryCase& c : BinaryCases()) {
      SCOPED_TRACE(std::string(type) + " " + c.x.ToString() + " " + c.y.ToString());
      // The output shape, from the forward op on the CPU.
      const DDim out = RunOp("elementwise_add",
                             {{"X", {Random(DataType::FLOAT64, c.x, 1, 2, 1)}},
                              {"Y", {Random(DataType::FLOAT64, c.y, 1, 2, 2)}}},
                             {{"Out", 1}}, {{"axis", c.axis}})
                           .outputs.at("Out")[0]
                           .dims();
      ExpectGpuMatchesCpu(type,
                          [&](DataType t) {
                            SlotTensors in{{"X", {Random(t, c.x, 0.5, 2, 1)}},
                                           {"Y", {Random(t, c.y, 0.5, 2, 2)}},
                                           {"Out@GRAD", {Random(t, out, -1, 1, 3)}}};
                            if (std::string(type) == "elementwise_div_grad")
                              in["Out"] = {Random(t, out, -1, 1, 4)};
                            return in;
                          },
                          {{"X@GRAD", 1}, {"Y@GRAD", 1}}, {{"axis", c.axis}});
    }
  }
}

TEST_F(CudaKernelTest, ActivationsAndTheirGradOpsMatchCpu) {
  const DDim dims{4, 33};
  for (const char* type :
       {"relu", "sigmoid", "tanh", "exp", "log", "sin", "cos", "square", "sign"}) {
    const bool positive = std::string(type) == "log";
    ExpectGpuMatchesCpu(type,
                        [&](DataType t) {
                          return SlotTensors{{"X", {Random(t, dims, positive ? 0.1 : -3, 3, 5)}}};
                        },
                        {{"Out", 1}}, {});
  }
  for (const auto& [type, dep] :
       std::vector<std::pair<std::string, std::string>>{{"relu_grad", "Out"},
                                                        {"sigmoid_grad", "Out"},
                                                        {"tanh_grad", "Out"},
                                                        {"exp_grad", "Out"},
                                                        {"square_grad", "X"}}) {
    ExpectGpuMatchesCpu(type,
                        [&, dep = dep](DataType t) {
                          return SlotTensors{{dep, {Random(t, dims, -1, 1, 6)}},
                                             {"Out@GRAD", {Random(t, dims, -1, 1, 7)}}};
                        },
                        {{"X@GRAD", 1}}, {});
  }
}

// The activations without grad op types of their own, each on inputs inside its domain.
TEST_F(CudaKernelTest, MoreActivationsMatchCpu) {
  const DDim dims{3, 37};
  struct Case {
    const char* type;
    double lo, hi;
    AttributeMap attrs;
  };
  const std::vector<Case> cases = {{"abs", -3, 3, {}},
                                   {"floor", -3, 3, {}},
                                   {"ceil", -3, 3, {}},
                                   {"reciprocal", 0.2, 3, {}},
                                   {"erf", -3, 3, {}},
                                   {"silu", -8, 8, {}},
                                   {"logsigmoid", -30, 30, {}},
                                   {"softsign", -5, 5, {}},
                                   {"tan", -1.2, 1.2, {}},
                                   {"atan", -5, 5, {}},
                                   {"asin", -0.95, 0.95, {}},
                                   {"acos", -0.95, 0.95, {}},
                                   {"sinh", -3, 3, {}},
                                   {"cosh", -3, 3, {}},
                                   {"log1p", -0.9, 3, {}},
                                   {"expm1", -3, 3, {}},
                                   {"log2", 0.05, 10, {}},
                                   {"log10", 0.05, 10, {}},
                                   {"tanh_shrink", -4, 4, {}},
                                   {"round", -3, 3, {{"decimals", 0}}},
                                   {"round", -3, 3, {{"decimals", 2}}},
                                   {"round", -300, 300, {{"decimals", -1}}},
                                   {"pow", 0.1, 3, {{"factor", 2.5f}}},
                                   {"pow", -3, 3, {{"factor", 3.0f}}}};
  for (const auto& c : cases) {
    ExpectGpuMatchesCpu(
        c.type,
        [&](DataType t) {
          return SlotTensors{{"X", {Random(t, dims, c.lo, c.hi, 9)}}};
        },
        {{"Out", 1}}, c.attrs);
  }
}

TEST_F(CudaKernelTest, ParametricActivationsAndTheirGradOpsMatchCpu) {
  const DDim dims{5, 41};
  struct Case {
    std::string type, grad_dep;
    AttributeMap attrs;
    double lo;  // Inputs in [lo, 4).
  };
  const std::vector<Case> cases = {
      {"hard_sigmoid", "Out", {{"slope", 0.2f}, {"offset", 0.5f}}, -4},
      {"hard_swish", "X", {{"threshold", 6.0f}, {"scale", 6.0f}, {"offset", 3.0f}}, -4},
      {"hard_swish", "X", {{"threshold", 4.0f}, {"scale", 5.0f}, {"offset", 2.0f}}, -4},
      {"relu6", "Out", {{"threshold", 3.0f}}, -4},
      {"leaky_relu", "X", {{"alpha", 0.1f}}, -4},
      {"swish", "X", {{"beta", 1.5f}}, -4},
      {"gelu", "X", {{"approximate", false}}, -4},
      {"gelu", "X", {{"approximate", true}}, -4},
      // softplus: inputs beyond the threshold (beta X > threshold) in all but the first.
      {"softplus", "X", {{"beta", 1.0f}, {"threshold", 20.0f}}, -4},
      {"softplus", "X", {{"beta", 2.0f}, {"threshold", 3.0f}}, -4},
      {"softplus", "X", {{"beta", 0.5f}, {"threshold", 1.0f}}, -4},
      {"softplus", "X", {{"beta", -1.0f}, {"threshold", 2.0f}}, -4},
      {"clip", "X", {{"min", -1.5f}, {"max", 2.0f}}, -4},
      {"sqrt", "Out", {}, 0.01},
      {"rsqrt", "Out", {}, 0.01},
      {"elu", "X", {{"alpha", 0.7f}}, -4},
      {"selu", "Out", {}, -4},
      {"celu", "X", {{"alpha", -1.5f}}, -4},
      {"mish", "X", {}, -4},
      {"mish", "X", {{"threshold", 1.0f}}, -4},
      {"stanh", "X", {}, -4},
      {"hard_shrink", "X", {}, -4},
      {"softshrink", "X", {{"lambda", 0.8f}}, -4},
      {"thresholded_relu", "X", {{"value", -0.5f}}, -4},
      {"brelu", "X", {{"t_min", -1.0f}, {"t_max", 2.5f}}, -4}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    ExpectGpuMatchesCpu(
        c.type,
        [&](DataType t) {
          return SlotTensors{{"X", {Random(t, dims, c.lo, 4, 50)}}};
        },
        {{"Out", 1}}, c.attrs);
    ExpectGpuMatchesCpu(
        c.type + "_grad",
        [&](DataType t) {
          return SlotTensors{{c.grad_dep, {Random(t, dims, c.lo, 4, 51)}},
                             {"Out@GRAD", {Random(t, dims, -1, 1, 52)}}};
        },
        {{"X@GRAD", 1}}, c.attrs);
  }
}

// clip's bounds as one-element tensors Min and Max (on the device in the GPU run, read back
// on the host), alone or with the other bound from its attribute.
TEST_F(CudaKernelTest, ClipWithBoundTensorsMatchesCpu) {
  const DDim dims{6, 7};
  const auto scalar = [](DataType t, double v) {
    return t == DataType::FLOAT32 ? MakeTensor<float>({1}, {v}) : MakeTensor<double>({1}, {v});
  };
  const AttributeMap attrs{{"min", -3.0f}, {"max", 3.0f}};
  for (const auto& [with_min, with_max] :
       std::vector<std::pair<bool, bool>>{{true, true}, {true, false}, {false, true}}) {
    SCOPED_TRACE(std::string("Min ") + (with_min ? "tensor" : "attribute") + ", Max " +
                 (with_max ? "tensor" : "attribute"));
    const auto bounds = [&, with_min = with_min, with_max = with_max](DataType t) {
      SlotTensors in;
      if (with_min) in["Min"] = {scalar(t, -0.75)};
      if (with_max) in["Max"] = {scalar(t, 1.25)};
      return in;
    };
    ExpectGpuMatchesCpu(
        "clip",
        [&](DataType t) {
          SlotTensors in = bounds(t);
          in["X"] = {Random(t, dims, -4, 4, 60)};
          return in;
        },
        {{"Out", 1}}, attrs);
    ExpectGpuMatchesCpu(
        "clip_grad",
        [&](DataType t) {
          SlotTensors in = bounds(t);
          in["X"] = {Random(t, dims, -4, 4, 61)};
          in["Out@GRAD"] = {Random(t, dims, -1, 1, 62)};
          return in;
        },
        {{"X@GRAD", 1}}, attrs);
  }
}

// log_softmax and log_softmax_grad (cuDNN's CUDNN_SOFTMAX_LOG) over several axes, the softmax
// dim of size 1 included.
TEST_F(CudaKernelTest, LogSoftmaxAndItsGradMatchCpu) {
  const std::vector<std::pair<DDim, int>> cases = {
      {{3, 10, 4}, -1}, {{3, 10, 4}, 1}, {{3, 10, 4}, 0},  {{3, 10, 4}, -3},
      {{5, 1}, 1},      {{7}, 0},        {{2, 3, 4, 5}, 2}};
  for (const auto& [dims, axis] : cases) {
    SCOPED_TRACE(dims.ToString() + " axis " + std::to_string(axis));
    ExpectGpuMatchesCpu("log_softmax",
                        [&, dims = dims](DataType t) {
                          return SlotTensors{{"X", {Random(t, dims, -5, 5, 63)}}};
                        },
                        {{"Out", 1}}, {{"axis", axis}});
    ExpectGpuMatchesCpu("log_softmax_grad",
                        [&, dims = dims](DataType t) {
                          return SlotTensors{{"Out", {Random(t, dims, -4, 0, 64)}},
                                             {"Out@GRAD", {Random(t, dims, -1, 1, 65)}}};
                        },
                        {{"X@GRAD", 1}}, {{"axis", axis}});
  }
}

// fill_constant for every dtype its CPU kernel takes (chosen by the attribute `dtype`), with
// the value from `value`, `str_value` or ValueTensor and the shape from the attribute,
// ShapeTensor or ShapeTensorList (read back on the host).
TEST_F(CudaKernelTest, FillConstantMatchesCpu) {
  const GpuTolerance exact{0, 0, 0, 0};
  const auto no_inputs = [](DataType) { return SlotTensors{}; };
  for (DataType dtype :
       {DataType::FLOAT32, DataType::FLOAT64, DataType::INT32, DataType::INT64, DataType::BOOL}) {
    const int d = static_cast<int>(dtype);
    ExpectGpuMatchesCpu("fill_constant", no_inputs, {{"Out", 1}},
                        {{"dtype", d}, {"shape", std::vector<int64_t>{3, 4}}, {"value", 2.0f}},
                        {dtype}, exact);
    ExpectGpuMatchesCpu(
        "fill_constant",
        [](DataType) {
          return SlotTensors{{"ShapeTensor", {MakeTensor<int32_t>({3}, {2, 5, 3})}}};
        },
        {{"Out", 1}}, {{"dtype", d}, {"value", -1.0f}}, {dtype}, exact);
    ExpectGpuMatchesCpu(
        "fill_constant",
        [](DataType) {
          return SlotTensors{
              {"ShapeTensorList", {MakeTensor<int64_t>({1}, {4}), MakeTensor<int64_t>({1}, {3})}},
              {"ValueTensor", {MakeTensor<double>({1}, {7})}}};
        },
        {{"Out", 1}}, {{"dtype", d}}, {dtype}, exact);
  }
  const int int64 = static_cast<int>(DataType::INT64);
  ExpectGpuMatchesCpu("fill_constant", no_inputs, {{"Out", 1}},
                      {{"dtype", int64},
                       {"shape", std::vector<int64_t>{1000}},
                       {"str_value", std::string("123456789012345")}},
                      {DataType::INT64}, exact);
  ExpectGpuMatchesCpu("fill_constant", no_inputs, {{"Out", 1}},
                      {{"dtype", static_cast<int>(DataType::FLOAT32)},
                       {"shape", std::vector<int64_t>{0, 3}},
                       {"value", 1.0f}},
                      {DataType::FLOAT32}, exact);
  ExpectGpuMatchesCpu("fill_constant", no_inputs, {{"Out", 1}},
                      {{"dtype", static_cast<int>(DataType::FLOAT64)},
                       {"shape", std::vector<int64_t>{2, 3}},
                       {"str_value", std::string("-inf")}},
                      {DataType::FLOAT64}, exact);
}

// The reshape family copies X on the device; a shape given as a tensor is read back.
TEST_F(CudaKernelTest, ReshapeFamilyRunsOnTheGpu) {
  ExpectGpuMatchesCpu("reshape2",
                      [](DataType t) {
                        return SlotTensors{{"X", {Random(t, {2, 3, 4}, -1, 1, 53)}}};
                      },
                      {{"Out", 1}, {"XShape", 1}}, {{"shape", std::vector<int>{4, -1, 2}}});
  ExpectGpuMatchesCpu("reshape2",
                      [](DataType t) {
                        return SlotTensors{{"X", {Random(t, {2, 3, 4}, -1, 1, 53)}},
                                           {"Shape", {MakeTensor<int32_t>({2}, {6, 4})}}};
                      },
                      {{"Out", 1}}, {{"shape", std::vector<int>{24}}});
  ExpectGpuMatchesCpu("reshape2_grad",
                      [](DataType t) {
                        return SlotTensors{{"XShape", {Random(t, {0, 2, 3, 4}, -1, 1, 54)}},
                                           {"Out@GRAD", {Random(t, {6, 4}, -1, 1, 55)}}};
                      },
                      {{"X@GRAD", 1}}, {});
  ExpectGpuMatchesCpu("unsqueeze2",
                      [](DataType t) {
                        return SlotTensors{{"X", {Random(t, {3, 4}, -1, 1, 56)}}};
                      },
                      {{"Out", 1}}, {{"axes", std::vector<int>{0, 2}}});
  ExpectGpuMatchesCpu("squeeze2",
                      [](DataType t) {
                        return SlotTensors{{"X", {Random(t, {3, 1, 4}, -1, 1, 57)}}};
                      },
                      {{"Out", 1}}, {{"axes", std::vector<int>{1}}});
  ExpectGpuMatchesCpu("flatten_contiguous_range",
                      [](DataType t) {
                        return SlotTensors{{"X", {Random(t, {2, 3, 4, 5}, -1, 1, 58)}}};
                      },
                      {{"Out", 1}}, {{"start_axis", 1}, {"stop_axis", 2}});
  for (const char* type : {"reshape2", "unsqueeze2", "squeeze2", "flatten_contiguous_range"}) {
    const OpRunResult r =
        RunOp(type, {{"X", {Random(DataType::FLOAT32, {3, 1, 4}, -1, 1, 59)}}}, {{"Out", 1}},
              std::string(type) == "reshape2" ? AttributeMap{{"shape", std::vector<int>{12}}}
              : std::string(type) == "flatten_contiguous_range"
                  ? AttributeMap{{"start_axis", 0}, {"stop_axis", -1}}
                  : AttributeMap{{"axes", std::vector<int>{1}}},
              platform::CUDAPlace(0));
    EXPECT_EQ(r.kernel->key.device, framework::DeviceType::kCUDA) << type;
  }
}

TEST_F(CudaKernelTest, CastScaleAndExpandMatchCpu) {
  const DDim dims{3, 7};
  for (DataType to :
       {DataType::FLOAT32, DataType::FLOAT64, DataType::INT32, DataType::INT64, DataType::BOOL}) {
    ExpectGpuMatchesCpu(
        "cast",
        [&](DataType t) {
          return SlotTensors{{"X", {Random(t, dims, -50, 50, 8)}}};
        },
        {{"Out", 1}},
        {{"in_dtype", static_cast<int>(DataType::FLOAT32)}, {"out_dtype", static_cast<int>(to)}});
  }
  for (bool after : {true, false}) {
    ExpectGpuMatchesCpu("scale",
                        [&](DataType t) {
                          return SlotTensors{{"X", {Random(t, dims, -2, 2, 9)}}};
                        },
                        {{"Out", 1}},
                        {{"scale", 1.5f}, {"bias", -0.25f}, {"bias_after_scale", after}});
  }
  ExpectGpuMatchesCpu("scale",
                      [&](DataType t) {
                        return SlotTensors{{"X", {Random(t, dims, -2, 2, 9)}},
                                           {"ScaleTensor", {MakeTensor<float>({1}, {-3})}}};
                      },
                      {{"Out", 1}}, {{"scale", 1.5f}, {"bias", 0.5f}, {"bias_after_scale", true}});
  ExpectGpuMatchesCpu("expand_as_v2",
                      [&](DataType t) {
                        return SlotTensors{{"X", {Random(t, {3, 1}, -2, 2, 10)}}};
                      },
                      {{"Out", 1}}, {{"target_shape", std::vector<int>{2, 3, 4}}});
}

TEST_F(CudaKernelTest, ConcatSplitAndTransposeMatchCpu) {
  for (int axis : {0, 1, 2, -1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    const int a = axis < 0 ? axis + 3 : axis;
    auto piece = [&](int64_t n) {
      std::vector<int64_t> d{2, 3, 4};
      d[a] = n;
      return DDim(d);
    };
    ExpectGpuMatchesCpu(
        "concat",
        [&](DataType t) {
          return SlotTensors{{"X",
                              {Random(t, piece(1), -1, 1, 41), Random(t, piece(3), -1, 1, 42),
                               Random(t, piece(0), -1, 1, 43), Random(t, piece(2), -1, 1, 44)}}};
        },
        {{"Out", 1}}, {{"axis", axis}});
    ExpectGpuMatchesCpu(
        "concat_grad",
        [&](DataType t) {
          return SlotTensors{
              {"X", {Random(t, piece(1), -1, 1, 41), Random(t, piece(3), -1, 1, 42)}},
              {"Out@GRAD", {Random(t, piece(4), -1, 1, 45)}}};
        },
        {{"X@GRAD", 2}}, {{"axis", axis}});
    ExpectGpuMatchesCpu("split",
                        [&](DataType t) {
                          return SlotTensors{{"X", {Random(t, piece(6), -1, 1, 46)}}};
                        },
                        {{"Out", 3}},
                        {{"axis", axis}, {"num", 0}, {"sections", std::vector<int>{1, -1, 2}}});
  }
  // The axis from a tensor; an int64 concat.
  ExpectGpuMatchesCpu("concat",
                      [&](DataType t) {
                        return SlotTensors{
                            {"X", {Random(t, {2, 3}, -1, 1, 47), Random(t, {2, 5}, -1, 1, 48)}},
                            {"AxisTensor", {MakeTensor<int64_t>({1}, {1})}}};
                      },
                      {{"Out", 1}}, {{"axis", 0}});
  ExpectGpuMatchesCpu("concat",
                      [&](DataType) {
                        return SlotTensors{{"X",
                                            {MakeTensor<int64_t>({2, 1}, {1, 2}),
                                             MakeTensor<int64_t>({2, 2}, {3, 4, 5, 1LL << 50})}}};
                      },
                      {{"Out", 1}}, {{"axis", 1}}, {DataType::INT64});
  // slice (with decreased axes and negative bounds) and its grad; stack and unstack.
  const AttributeMap slice_attrs{{"axes", std::vector<int>{0, 2}},
                                 {"starts", std::vector<int>{1, -3}},
                                 {"ends", std::vector<int>{2, 100}},
                                 {"decrease_axis", std::vector<int>{0}}};
  ExpectGpuMatchesCpu(
      "slice",
      [](DataType t) {
        return SlotTensors{{"Input", {Random(t, {3, 4, 5}, -1, 1, 60)}}};
      },
      {{"Out", 1}}, slice_attrs);
  ExpectGpuMatchesCpu(
      "slice_grad",
      [](DataType t) {
        return SlotTensors{{"Input", {Random(t, {3, 4, 5}, -1, 1, 60)}},
                           {"Out@GRAD", {Random(t, {4, 3}, -1, 1, 61)}}};
      },
      {{"Input@GRAD", 1}}, slice_attrs);
  for (int axis : {0, 1, -1}) {
    ExpectGpuMatchesCpu(
        "stack",
        [](DataType t) {
          return SlotTensors{{"X",
                              {Random(t, {2, 3}, -1, 1, 62), Random(t, {2, 3}, -1, 1, 63),
                               Random(t, {2, 3}, -1, 1, 64)}}};
        },
        {{"Y", 1}}, {{"axis", axis}});
    const int64_t n = axis == 0 ? 2 : (axis == 1 ? 3 : 4);
    ExpectGpuMatchesCpu("unstack",
                        [](DataType t) {
                          return SlotTensors{{"X", {Random(t, {2, 3, 4}, -1, 1, 65)}}};
                        },
                        {{"Y", static_cast<int>(n)}},
                        {{"axis", axis}, {"num", static_cast<int>(n)}});
  }
  for (const std::vector<int>& perm :
       std::vector<std::vector<int>>{{1, 0}, {0, 2, 1}, {2, 0, 1}, {3, 1, 0, 2}}) {
    std::vector<int64_t> dims{3, 4, 5, 6};
    dims.resize(perm.size());
    ExpectGpuMatchesCpu("transpose2",
                        [&](DataType t) {
                          return SlotTensors{{"X", {Random(t, DDim(dims), -1, 1, 49)}}};
                        },
                        {{"Out", 1}}, {{"axis", perm}});
  }
}

TEST_F(CudaKernelTest, ReductionsAndTheirGradOpsMatchCpu) {
  const DDim dims{4, 5, 300};  // Long rows take the block-per-output path.
  struct Case {
    std::vector<int> dim;
    bool keep_dim, reduce_all;
  };
  for (const Case& c : std::vector<Case>{
           {{1}, false, false}, {{0, 2}, true, false}, {{-1}, false, false}, {{}, false, true}}) {
    const AttributeMap attrs{
        {"dim", c.dim}, {"keep_dim", c.keep_dim}, {"reduce_all", c.reduce_all}};
    for (const char* type : {"reduce_sum", "reduce_mean"}) {
      ExpectGpuMatchesCpu(
          type,
          [&](DataType t) {
            return SlotTensors{{"X", {Random(t, dims, -1, 1, 11)}}};
          },
          {{"Out", 1}}, attrs);
      const DDim out =
          RunOp(type, {{"X", {Random(DataType::FLOAT64, dims, -1, 1, 11)}}}, {{"Out", 1}}, attrs)
              .outputs.at("Out")[0]
              .dims();
      ExpectGpuMatchesCpu(
          std::string(type) + "_grad",
          [&](DataType t) {
            return SlotTensors{{"X", {Random(t, dims, -1, 1, 11)}},
                               {"Out@GRAD", {Random(t, out, -1, 1, 12)}}};
          },
          {{"X@GRAD", 1}}, attrs);
    }
  }
  ExpectGpuMatchesCpu("mean",
                      [&](DataType t) {
                        return SlotTensors{{"X", {Random(t, dims, -1, 1, 13)}}};
                      },
                      {{"Out", 1}}, {});
  ExpectGpuMatchesCpu("mean_grad",
                      [&](DataType t) {
                        return SlotTensors{
                            {"X", {Random(t, dims, -1, 1, 13)}},
                            {"Out@GRAD", {Random(t, DDim(std::vector<int64_t>{}), -1, 1, 14)}}};
                      },
                      {{"X@GRAD", 1}}, {});
  for (const DDim& target : {DDim{5, 300}, DDim{5, 1}, DDim{4, 5, 300}}) {
    ExpectGpuMatchesCpu("reduce_as",
                        [&](DataType t) {
                          return SlotTensors{{"X", {Random(t, dims, -1, 1, 15)}},
                                             {"Target", {Random(t, target, -1, 1, 16)}}};
                        },
                        {{"Out", 1}}, {{"axis", -1}});
  }
}

TEST_F(CudaKernelTest, MatrixProductsAndTheirGradsMatchCpu) {
  ExpectGpuMatchesCpu("mul",
                      [](DataType t) {
                        return SlotTensors{{"X", {Random(t, {2, 3, 4}, -1, 1, 17)}},
                                           {"Y", {Random(t, {4, 5}, -1, 1, 18)}}};
                      },
                      {{"Out", 1}}, {{"x_num_col_dims", 2}, {"y_num_col_dims", 1}});
  ExpectGpuMatchesCpu("mul_grad",
                      [](DataType t) {
                        return SlotTensors{{"X", {Random(t, {6, 4}, -1, 1, 17)}},
                                           {"Y", {Random(t, {4, 5}, -1, 1, 18)}},
                                           {"Out@GRAD", {Random(t, {6, 5}, -1, 1, 19)}}};
                      },
                      {{"X@GRAD", 1}, {"Y@GRAD", 1}},
                      {{"x_num_col_dims", 1}, {"y_num_col_dims", 1}});
  struct Case {
    DDim x, y;
  };
  for (const Case& c : std::vector<Case>{{{3, 4}, {4, 5}},
                                         {{2, 3, 4}, {4, 5}},
                                         {{2, 1, 3, 4}, {3, 4, 5}},
                                         {{4}, {2, 4, 5}},
                                         {{2, 3, 4}, {4}}}) {
    for (bool tx : {false, true}) {
      for (bool ty : {false, true}) {
        // The trans flags swap the last two dims of the operands given above.
        auto swap = [](DDim d, bool t) {
          if (!t || d.size() < 2) return d;
          auto v = d.ToVector();
          std::swap(v[v.size() - 1], v[v.size() - 2]);
          return DDim(v);
        };
        const DDim x = swap(c.x, tx), y = swap(c.y, ty);
        SCOPED_TRACE(x.ToString() + " " + y.ToString());
        const AttributeMap attrs{{"trans_x", tx}, {"trans_y", ty}};
        ExpectGpuMatchesCpu(
            "matmul_v2",
            [&](DataType t) {
              return SlotTensors{{"X", {Random(t, x, -1, 1, 20)}},
                                 {"Y", {Random(t, y, -1, 1, 21)}}};
            },
            {{"Out", 1}}, attrs);
        const DDim out = RunOp("matmul_v2",
                               {{"X", {Random(DataType::FLOAT64, x, -1, 1, 20)}},
                                {"Y", {Random(DataType::FLOAT64, y, -1, 1, 21)}}},
                               {{"Out", 1}}, attrs)
                             .outputs.at("Out")[0]
                             .dims();
        ExpectGpuMatchesCpu(
            "matmul_v2_grad",
            [&](DataType t) {
              return SlotTensors{{"X", {Random(t, x, -1, 1, 20)}},
                                 {"Y", {Random(t, y, -1, 1, 21)}},
                                 {"Out@GRAD", {Random(t, out, -1, 1, 22)}}};
            },
            {{"X@GRAD", 1}, {"Y@GRAD", 1}}, attrs);
      }
    }
  }
}

TEST_F(CudaKernelTest, MatmulV1AndItsGradMatchCpu) {
  struct Case {
    DDim x, y;
    bool tx, ty;
  };
  // Operands as given (the flags apply to them as they are): 1-D X is [1, K] and may be
  // transposed, batches on either side or both.
  for (const Case& c : std::vector<Case>{{{3, 4}, {4, 5}, false, false},
                                         {{4, 3}, {5, 4}, true, true},
                                         {{2, 3, 4}, {4, 5}, false, false},
                                         {{3, 4}, {2, 5, 4}, false, true},
                                         {{2, 4, 3}, {2, 4, 5}, true, false},
                                         {{2, 2, 3, 4}, {2, 2, 4, 5}, false, false},
                                         {{4}, {4, 5}, false, false},
                                         {{4}, {4}, false, false},
                                         {{3, 4}, {4}, false, false},
                                         {{1, 4}, {4}, true, true}}) {
    for (float alpha : {1.0f, -0.5f}) {
      SCOPED_TRACE(c.x.ToString() + " " + c.y.ToString() + " alpha " + std::to_string(alpha));
      const AttributeMap attrs{{"transpose_X", c.tx}, {"transpose_Y", c.ty}, {"alpha", alpha}};
      const auto operands = [&](DataType t) {
        return SlotTensors{{"X", {Random(t, c.x, -1, 1, 23)}},
                           {"Y", {Random(t, c.y, -1, 1, 24)}}};
      };
      ExpectGpuMatchesCpu("matmul", operands, {{"Out", 1}}, attrs);
      const DDim out = RunOp("matmul", operands(DataType::FLOAT64), {{"Out", 1}}, attrs)
                           .outputs.at("Out")[0]
                           .dims();
      ExpectGpuMatchesCpu(
          "matmul_grad",
          [&](DataType t) {
            SlotTensors in = operands(t);
            in["Out@GRAD"] = {Random(t, out, -1, 1, 25)};
            return in;
          },
          {{"X@GRAD", 1}, {"Y@GRAD", 1}}, attrs);
    }
  }
}

TEST_F(CudaKernelTest, ShapeRunsOnTheGpuWithoutReadingItsInput) {
  ExpectGpuMatchesCpu("shape",
                      [](DataType t) {
                        return SlotTensors{{"Input", {Random(t, {2, 3, 4}, -1, 1, 26)}}};
                      },
                      {{"Out", 1}}, {});
  const uint64_t before = platform::GetCudaTransferStats().host_to_device_bytes;
  const OpRunResult r =
      RunOp("shape", {{"Input", {Random(DataType::FLOAT32, {64, 1024}, 0, 1, 27)}}}, {{"Out", 1}},
            {}, platform::CUDAPlace(0));
  EXPECT_EQ(r.kernel->key.device, framework::DeviceType::kCUDA);
  // The dims go up (8 bytes), the 256 KiB input does not.
  EXPECT_LT(platform::GetCudaTransferStats().host_to_device_bytes - before, 1024u);
}

TEST_F(CudaKernelTest, Float16KernelsMatchCpuInFloat) {
  // cast both ways: float16 rounding to nearest even, as on the CPU (exactly equal).
  const auto half_of = [](const DenseTensor& t) {
    DenseTensor h;
    framework::CastTensor(t, DataType::FLOAT16, &h);
    return h;
  };
  ExpectGpuMatchesCpu(
      "cast",
      [](DataType) {
        return SlotTensors{{"X", {Random(DataType::FLOAT32, {7, 9}, -70000, 70000, 81)}}};
      },
      {{"Out", 1}}, {{"in_dtype", 5}, {"out_dtype", 4}}, {DataType::FLOAT32}, GpuTolerance{0, 0});
  for (int to : {5, 6, 2, 3, 0}) {  // float32, float64, int32, int64, bool
    ExpectGpuMatchesCpu(
        "cast",
        [&](DataType) {
          return SlotTensors{{"X", {half_of(Random(DataType::FLOAT32, {5, 6}, -300, 300, 82))}}};
        },
        {{"Out", 1}}, {{"in_dtype", 4}, {"out_dtype", to}}, {DataType::FLOAT16},
        GpuTolerance{0, 0, 0, 0});
  }
  // Arithmetic in float, rounded once to float16.
  ExpectGpuHalfNearCpuFloat("elementwise_add",
                            [](DataType t) {
                              return SlotTensors{{"X", {Random(t, {2, 3, 4}, -4, 4, 83)}},
                                                 {"Y", {Random(t, {3, 1}, -4, 4, 84)}}};
                            },
                            {{"Out", 1}}, {{"axis", 1}});
  for (const char* type : {"elementwise_sub", "elementwise_mul", "elementwise_div",
                           "elementwise_max", "elementwise_min"}) {
    ExpectGpuHalfNearCpuFloat(type,
                              [](DataType t) {
                                return SlotTensors{{"X", {Random(t, {4, 5}, -4, 4, 85)}},
                                                   {"Y", {Random(t, {4, 5}, 0.5, 4, 86)}}};
                              },
                              {{"Out", 1}}, {{"axis", -1}});
  }
  for (const char* type : {"relu", "sigmoid", "tanh", "exp", "square", "hard_swish", "hard_sigmoid",
                           "relu6", "leaky_relu", "swish", "gelu", "softplus"}) {
    ExpectGpuHalfNearCpuFloat(type,
                              [](DataType t) {
                                return SlotTensors{{"X", {Random(t, {6, 7}, -3, 3, 87)}}};
                              },
                              {{"Out", 1}}, {});
  }
  ExpectGpuHalfNearCpuFloat("hard_swish_grad",
                            [](DataType t) {
                              return SlotTensors{{"X", {Random(t, {6, 7}, -5, 5, 96)}},
                                                 {"Out@GRAD", {Random(t, {6, 7}, -1, 1, 97)}}};
                            },
                            {{"X@GRAD", 1}}, {});
  ExpectGpuHalfNearCpuFloat("relu_grad",
                            [](DataType t) {
                              return SlotTensors{{"Out", {Random(t, {6, 7}, -1, 1, 88)}},
                                                 {"Out@GRAD", {Random(t, {6, 7}, -1, 1, 89)}}};
                            },
                            {{"X@GRAD", 1}}, {});
  // Products accumulate in float: the error is the inputs' and the output's rounding.
  ExpectGpuHalfNearCpuFloat("mul",
                            [](DataType t) {
                              return SlotTensors{{"X", {Random(t, {6, 32}, -1, 1, 90)}},
                                                 {"Y", {Random(t, {32, 5}, -1, 1, 91)}}};
                            },
                            {{"Out", 1}}, {{"x_num_col_dims", 1}, {"y_num_col_dims", 1}});
  ExpectGpuHalfNearCpuFloat("matmul_v2",
                            [](DataType t) {
                              return SlotTensors{{"X", {Random(t, {3, 6, 16}, -1, 1, 92)}},
                                                 {"Y", {Random(t, {5, 16}, -1, 1, 93)}}};
                            },
                            {{"Out", 1}}, {{"trans_x", false}, {"trans_y", true}});
  ExpectGpuHalfNearCpuFloat("matmul",
                            [](DataType t) {
                              return SlotTensors{{"X", {Random(t, {2, 4, 16}, -1, 1, 94)}},
                                                 {"Y", {Random(t, {2, 16, 3}, -1, 1, 95)}}};
                            },
                            {{"Out", 1}},
                            {{"transpose_X", false}, {"transpose_Y", false}, {"alpha", 0.5f}});
  // Grad ops: products and broadcast sums accumulate in float or double, rounded once.
  for (const char* type : {"elementwise_add_grad", "elementwise_sub_grad", "elementwise_mul_grad",
                           "elementwise_div_grad"}) {
    ExpectGpuHalfNearCpuFloat(type,
                              [&](DataType t) {
                                SlotTensors in{{"X", {Random(t, {3, 4, 5}, -2, 2, 98)}},
                                               {"Y", {Random(t, {4, 1}, 0.5, 2, 99)}},
                                               {"Out@GRAD", {Random(t, {3, 4, 5}, -1, 1, 101)}}};
                                // Only div's gradient reads Out.
                                if (std::string(type) == "elementwise_div_grad") {
                                  in["Out"] = {Random(t, {3, 4, 5}, -2, 2, 100)};
                                }
                                return in;
                              },
                              {{"X@GRAD", 1}, {"Y@GRAD", 1}}, {{"axis", 1}});
  }
  ExpectGpuHalfNearCpuFloat("mul_grad",
                            [](DataType t) {
                              return SlotTensors{{"X", {Random(t, {6, 32}, -1, 1, 102)}},
                                                 {"Y", {Random(t, {32, 5}, -1, 1, 103)}},
                                                 {"Out@GRAD", {Random(t, {6, 5}, -1, 1, 104)}}};
                            },
                            {{"X@GRAD", 1}, {"Y@GRAD", 1}},
                            {{"x_num_col_dims", 1}, {"y_num_col_dims", 1}});
  // Y broadcast over X's batches: its gradient sums the batches.
  ExpectGpuHalfNearCpuFloat("matmul_v2_grad",
                            [](DataType t) {
                              return SlotTensors{{"X", {Random(t, {3, 6, 16}, -1, 1, 105)}},
                                                 {"Y", {Random(t, {5, 16}, -1, 1, 106)}},
                                                 {"Out@GRAD", {Random(t, {3, 6, 5}, -1, 1, 107)}}};
                            },
                            {{"X@GRAD", 1}, {"Y@GRAD", 1}},
                            {{"trans_x", false}, {"trans_y", true}});
  ExpectGpuHalfNearCpuFloat("matmul_grad",
                            [](DataType t) {
                              return SlotTensors{{"X", {Random(t, {2, 4, 16}, -1, 1, 108)}},
                                                 {"Y", {Random(t, {2, 16, 3}, -1, 1, 109)}},
                                                 {"Out@GRAD", {Random(t, {2, 4, 3}, -1, 1, 110)}}};
                            },
                            {{"X@GRAD", 1}, {"Y@GRAD", 1}},
                            {{"transpose_X", false}, {"transpose_Y", false}, {"alpha", 0.5f}});
}

TEST_F(CudaKernelTest, SoftmaxAndCrossEntropyMatchCpu) {
  for (int axis : {-1, 1}) {
    const DDim dims{3, 10, 4};
    ExpectGpuMatchesCpu("softmax",
                        [&](DataType t) {
                          return SlotTensors{{"X", {Random(t, dims, -5, 5, 23)}}};
                        },
                        {{"Out", 1}}, {{"axis", axis}});
    ExpectGpuMatchesCpu("softmax_grad",
                        [&](DataType t) {
                          return SlotTensors{{"Out", {Random(t, dims, 0, 1, 24)}},
                                             {"Out@GRAD", {Random(t, dims, -1, 1, 25)}}};
                        },
                        {{"X@GRAD", 1}}, {{"axis", axis}});
  }
  // Hard labels (with an ignored one), class dim last and in the middle; soft labels.
  const DDim logits{6, 10};
  const DenseTensor hard = MakeTensor<int64_t>({6, 1}, {3, 0, 9, -100, 5, 5});
  for (bool use_softmax : {true, false}) {
    const AttributeMap attrs{
        {"soft_label", false}, {"use_softmax", use_softmax}, {"ignore_index", -100}, {"axis", -1}};
    ExpectGpuMatchesCpu(
        "softmax_with_cross_entropy",
        [&](DataType t) {
          return SlotTensors{
              {"Logits", {Random(t, logits, use_softmax ? -5 : 0.01, use_softmax ? 5 : 1, 26)}},
              {"Label", {hard}}};
        },
        {{"Softmax", 1}, {"Loss", 1}}, attrs);
    ExpectGpuMatchesCpu(
        "softmax_with_cross_entropy_grad",
        [&](DataType t) {
          return SlotTensors{{"Softmax", {Random(t, logits, 0.01, 1, 27)}},
                             {"Label", {hard}},
                             {"Loss@GRAD", {Random(t, {6, 1}, -1, 1, 28)}}};
        },
        {{"Logits@GRAD", 1}}, attrs);
  }
  const AttributeMap soft{
      {"soft_label", true}, {"use_softmax", true}, {"ignore_index", -100}, {"axis", 1}};
  ExpectGpuMatchesCpu(
      "softmax_with_cross_entropy",
      [&](DataType t) {
        return SlotTensors{{"Logits", {Random(t, {2, 5, 3}, -3, 3, 29)}},
                           {"Label", {Random(t, {2, 5, 3}, 0, 1, 30)}}};
      },
      {{"Softmax", 1}, {"Loss", 1}}, soft);
  ExpectGpuMatchesCpu(
      "softmax_with_cross_entropy_grad",
      [&](DataType t) {
        return SlotTensors{{"Softmax", {Random(t, {2, 5, 3}, 0.01, 1, 31)}},
                           {"Label", {Random(t, {2, 5, 3}, 0, 1, 30)}},
                           {"Loss@GRAD", {Random(t, {2, 1, 3}, -1, 1, 32)}}};
      },
      {{"Logits@GRAD", 1}}, soft);
}

TEST_F(CudaKernelTest, AnOutOfRangeLabelIsATypedErrorOnTheGpu) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("softmax_with_cross_entropy",
              {{"Logits", {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}},
               {"Label", {MakeTensor<int64_t>({2, 1}, {1, 7})}}},
              {{"Softmax", 1}, {"Loss", 1}}, {}, platform::CUDAPlace(0));
      },
      {"softmax_with_cross_entropy", "Label"});
}

TEST_F(CudaKernelTest, OptimizersMatchCpu) {
  const DDim dims{7, 9};
  const auto state = [&](DataType t) {
    return SlotTensors{{"Param", {Random(t, dims, -1, 1, 33)}},
                       {"Grad", {Random(t, dims, -1, 1, 34)}},
                       {"LearningRate", {MakeTensor<float>({1}, {0.1})}}};
  };
  ExpectGpuMatchesCpu("sgd", state, {{"ParamOut", 1}}, {});
  for (bool nesterov : {false, true}) {
    ExpectGpuMatchesCpu("momentum",
                        [&](DataType t) {
                          SlotTensors in = state(t);
                          in["Velocity"] = {Random(t, dims, -1, 1, 35)};
                          return in;
                        },
                        {{"ParamOut", 1}, {"VelocityOut", 1}},
                        {{"mu", 0.9f},
                         {"use_nesterov", nesterov},
                         {"regularization_method", std::string("l2_decay")},
                         {"regularization_coeff", 0.01f}});
  }
  ExpectGpuMatchesCpu("adam",
                      [&](DataType t) {
                        SlotTensors in = state(t);
                        in["Moment1"] = {Random(t, dims, -1, 1, 36)};
                        in["Moment2"] = {Random(t, dims, 0, 1, 37)};
                        in["Beta1Pow"] = {MakeTensor<float>({1}, {0.9 * 0.9})};
                        in["Beta2Pow"] = {MakeTensor<float>({1}, {0.999 * 0.999})};
                        return in;
                      },
                      {{"ParamOut", 1},
                       {"Moment1Out", 1},
                       {"Moment2Out", 1},
                       {"Beta1PowOut", 1},
                       {"Beta2PowOut", 1}},
                      {});
}

TEST_F(CudaKernelTest, AllocatorReusesFreedBlocksAndCountsPeak) {
  const platform::Place gpu = platform::CUDAPlace(0);
  platform::ReleaseCachedCudaMemory();
  const auto before = platform::GetCudaMemoryStats(0);
  {
    auto a = platform::Alloc(gpu, 3 << 20);
    auto b = platform::Alloc(gpu, 1000);
    const auto during = platform::GetCudaMemoryStats(0);
    EXPECT_GE(during.bytes_in_use, before.bytes_in_use + (3 << 20) + 1000);
    EXPECT_GE(during.peak_bytes_in_use, during.bytes_in_use);
  }
  const auto freed = platform::GetCudaMemoryStats(0);
  EXPECT_EQ(freed.bytes_in_use, before.bytes_in_use);
  EXPECT_GE(freed.bytes_cached, size_t{3} << 20);
  { auto again = platform::Alloc(gpu, 3 << 20); }  // Served from the cache.
  EXPECT_EQ(platform::GetCudaMemoryStats(0).device_mallocs, freed.device_mallocs);
  platform::ReleaseCachedCudaMemory();
  EXPECT_EQ(platform::GetCudaMemoryStats(0).bytes_cached, 0u);
}

TEST_F(CudaKernelTest, TransfersAreCountedAndRoundTripExactly) {
  const DenseTensor host = Random(DataType::FLOAT64, {1000}, -1, 1, 38);
  const auto before = platform::GetCudaTransferStats();
  DenseTensor device, back;
  framework::CopyTensor(host, platform::CUDAPlace(0), &device);
  framework::CopyTensor(device, platform::CPUPlace(), &back);
  const auto after = platform::GetCudaTransferStats();
  EXPECT_EQ(after.host_to_device, before.host_to_device + 1);
  EXPECT_EQ(after.device_to_host, before.device_to_host + 1);
  EXPECT_EQ(after.host_to_device_bytes, before.host_to_device_bytes + 8000);
  EXPECT_EQ(ToDoubles(back), ToDoubles(host));
}

// A GPU program whose middle op (top_k) has no CUDA kernel: it runs on the CPU between
// transfers, and the results match the CPU program.
TEST_F(CudaKernelTest, AnOpWithoutACudaKernelRunsOnTheCpuInsideAGpuProgram) {
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  b.Var("x");
  auto add_op = [&](const std::string& type, framework::VariableNameMap in,
                    framework::VariableNameMap out, AttributeMap attrs) {
    framework::OpDesc* op = b.AppendOp();
    op->SetType(type);
    for (auto& [slot, names] : in) op->SetInput(slot, names);
    for (auto& [slot, names] : out) {
      op->SetOutput(slot, names);
      for (auto& n : names) b.Var(n);
    }
    for (auto& [name, value] : attrs) op->SetAttr(name, value);
  };
  add_op("relu", {{"X", {"x"}}}, {{"Out", {"r"}}}, {});
  add_op("top_k", {{"X", {"r"}}}, {{"Out", {"k"}}, {"Indices", {"i"}}}, {{"k", 3}});
  add_op("scale", {{"X", {"k"}}}, {{"Out", {"y"}}}, {{"scale", 2.0f}});
  const DenseTensor x = Random(DataType::FLOAT32, {5, 8}, -1, 1, 39);
  framework::Scope gpu_scope, cpu_scope;
  auto gpu = framework::Executor(platform::CUDAPlace(0)).Run(p, &gpu_scope, {{"x", x}}, {"y"});
  auto cpu = framework::Executor(platform::CPUPlace()).Run(p, &cpu_scope, {{"x", x}}, {"y"});
  DenseTensor gpu_y = gpu[0];
  if (!gpu_y.place().is_cpu()) {
    DenseTensor host;
    framework::CopyTensor(gpu_y, platform::CPUPlace(), &host);
    gpu_y = host;
  }
  EXPECT_EQ(ToDoubles(gpu_y), ToDoubles(cpu[0]));
}

TEST_F(CudaKernelTest, QuadraticMatchesCpu) {
  ExpectGpuMatchesCpu("quadratic",
                      [](DataType t) {
                        return SlotTensors{{"X", {Random(t, {100, 100}, -2, 2, 40)}}};
                      },
                      {{"Out", 1}}, {{"a", 1.0f}, {"b", 2.0f}, {"c", 3.0f}});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
