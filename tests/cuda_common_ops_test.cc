// The CUDA kernels of the common ops against their CPU kernels on the same inputs: assign,
// size, fill_any_like, sum, the comparison and logical ops with broadcasting, where,
// expand_v2, tile, gather, index_select, layer_norm, top_k, prelu (the last six with their
// grads), arg_max, accuracy, cumsum and range, for every dtype each registers. Copies, fills,
// comparisons, searches, counts and the sums done in the CPU's order match exactly;
// layer_norm's row sums (a tree in double) within rounding. An index out of range gives the
// CPU kernel's error. Skips when the build has no CUDA or the machine no device.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/cuda_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::DDim;

class CudaCommonOpsTest : public CudaTest {};

const GpuTolerance kExact{0, 0, 0, 0};

const std::vector<DataType> kNumeric = {DataType::FLOAT32, DataType::FLOAT64, DataType::INT32,
                                        DataType::INT64};
const std::vector<DataType> kNumericAndBool = {DataType::FLOAT32, DataType::FLOAT64,
                                               DataType::INT32, DataType::INT64, DataType::BOOL};

// A tensor of `dtype` from double values.
DenseTensor Of(DataType dtype, const DDim& dims, const std::vector<double>& v) {
  switch (dtype) {
    case DataType::FLOAT32:
      return MakeTensor<float>(dims, v);
    case DataType::FLOAT64:
      return MakeTensor<double>(dims, v);
    case DataType::INT32:
      return MakeTensor<int32_t>(dims, v);
    case DataType::INT64:
      return MakeTensor<int64_t>(dims, v);
    default:
      return MakeTensor<bool>(dims, v);
  }
}

// Small whole numbers in [-3, 3) (0 or 1 for bool), so that comparisons meet ties and the
// logical ops meet zeros; reproducible by seed.
DenseTensor SmallInts(DataType dtype, const DDim& dims, unsigned seed) {
  std::vector<double> v = RandomValues(dims.numel(), -3, 3, seed);
  for (double& x : v) x = dtype == DataType::BOOL ? (x > 0 ? 1 : 0) : std::floor(x);
  return Of(dtype, dims, v);
}

// Values for sums and copies: fractions in float types, whole numbers in integer ones.
DenseTensor Values(DataType dtype, const DDim& dims, unsigned seed) {
  if (dtype == DataType::FLOAT32 || dtype == DataType::FLOAT64) {
    return RandomOf(dtype, dims, -2, 2, seed);
  }
  std::vector<double> v = RandomValues(dims.numel(), -100, 100, seed);
  for (double& x : v) x = dtype == DataType::BOOL ? (x > 0 ? 1 : 0) : std::floor(x);
  return Of(dtype, dims, v);
}

TEST_F(CudaCommonOpsTest, AssignCopiesEveryDtype) {
  for (const DDim& dims : {DDim({2, 3, 4}), DDim({0, 3}), DDim()}) {
    SCOPED_TRACE(dims.ToString());
    ExpectGpuMatchesCpu(
        "assign",
        [&](DataType t) {
          return SlotTensors{{"X", {Values(t, dims, 1)}}};
        },
        {{"Out", 1}}, {}, kNumericAndBool, kExact);
  }
}

TEST_F(CudaCommonOpsTest, SizeCountsElements) {
  for (const DDim& dims : {DDim({2, 3, 4}), DDim({0, 3}), DDim(), DDim({7})}) {
    SCOPED_TRACE(dims.ToString());
    ExpectGpuMatchesCpu(
        "size",
        [&](DataType t) {
          return SlotTensors{{"Input", {Values(t, dims, 2)}}};
        },
        {{"Out", 1}}, {}, kNumericAndBool, kExact);
  }
}

TEST_F(CudaCommonOpsTest, FillAnyLikeFillsEveryDtype) {
  const DDim dims({3, 5});
  // dtype -1: X's dtype.
  for (const float value : {0.0f, 1.0f, -2.75f}) {
    SCOPED_TRACE(value);
    AttributeMap attrs = {{"value", value}, {"dtype", -1}};
    ExpectGpuMatchesCpu(
        "fill_any_like",
        [&](DataType t) {
          return SlotTensors{{"X", {Values(t, dims, 3)}}};
        },
        {{"Out", 1}}, attrs, kNumericAndBool, kExact);
    // An explicit dtype (bool, int32, int64, float32, float64) from a float X.
    for (const int dtype : {0, 2, 3, 5, 6}) {
      SCOPED_TRACE(dtype);
      attrs["dtype"] = dtype;
      ExpectGpuMatchesCpu(
          "fill_any_like",
          [&](DataType t) {
            return SlotTensors{{"X", {Values(t, dims, 3)}}};
          },
          {{"Out", 1}}, attrs, {DataType::FLOAT32}, kExact);
    }
  }
  // An empty X.
  ExpectGpuMatchesCpu(
      "fill_any_like",
      [&](DataType t) {
        return SlotTensors{{"X", {Values(t, DDim({0, 2}), 3)}}};
      },
      {{"Out", 1}}, {{"value", 1.0f}, {"dtype", -1}}, kNumericAndBool, kExact);
}

TEST_F(CudaCommonOpsTest, SumAddsInTheCpuOrder) {
  for (const int count : {1, 2, 3, 5}) {
    for (const DDim& dims : {DDim({4, 7}), DDim({0, 3})}) {
      SCOPED_TRACE(std::to_string(count) + " inputs of " + dims.ToString());
      ExpectGpuMatchesCpu(
          "sum",
          [&](DataType t) {
            SlotTensors in;
            for (int i = 0; i < count; ++i) in["X"].push_back(Values(t, dims, 10 + i));
            return in;
          },
          {{"Out", 1}}, {}, kNumeric, kExact);
    }
  }
}

// X and Y dims with the `axis` that aligns them.
struct BroadcastCase {
  DDim x, y;
  int axis;
};

const std::vector<BroadcastCase>& BroadcastCases() {
  static const std::vector<BroadcastCase> cases = {
      {DDim({3, 4}), DDim({3, 4}), -1},    {DDim({2, 3, 4}), DDim({4}), -1},
      {DDim({2, 3, 4}), DDim({3, 1}), -1}, {DDim({2, 3, 4}), DDim({3}), 1},
      {DDim({2, 3, 4}), DDim({2, 3}), 0},  {DDim({4}), DDim({2, 3, 4}), -1},
      {DDim({1, 4}), DDim({3, 1}), -1},    {DDim({2, 3}), DDim(), -1},
      {DDim({0, 3}), DDim({3}), -1},
  };
  return cases;
}

TEST_F(CudaCommonOpsTest, ComparisonsMatchCpuWithBroadcasting) {
  for (const char* type :
       {"less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal"}) {
    for (const BroadcastCase& c : BroadcastCases()) {
      SCOPED_TRACE(std::string(type) + " X " + c.x.ToString() + " Y " + c.y.ToString() + " axis " +
                   std::to_string(c.axis));
      ExpectGpuMatchesCpu(
          type,
          [&](DataType t) {
            return SlotTensors{{"X", {SmallInts(t, c.x, 1)}}, {"Y", {SmallInts(t, c.y, 2)}}};
          },
          {{"Out", 1}}, {{"axis", c.axis}}, kNumericAndBool, kExact);
    }
  }
}

TEST_F(CudaCommonOpsTest, ComparisonsOfNanMatchCpu) {
  const double nan = std::nan("");
  const DDim dims({4});
  for (const char* type :
       {"less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal"}) {
    SCOPED_TRACE(type);
    ExpectGpuMatchesCpu(
        type,
        [&](DataType t) {
          return SlotTensors{{"X", {Of(t, dims, {nan, 1, nan, 2})}},
                             {"Y", {Of(t, dims, {nan, nan, 1, 2})}}};
        },
        {{"Out", 1}}, {{"axis", -1}}, kExact);
  }
}

TEST_F(CudaCommonOpsTest, LogicalOpsMatchCpuWithBroadcasting) {
  for (const char* type : {"logical_and", "logical_or", "logical_xor"}) {
    for (const BroadcastCase& c : BroadcastCases()) {
      if (c.axis != -1) continue;  // The logical ops align the trailing dims.
      SCOPED_TRACE(std::string(type) + " X " + c.x.ToString() + " Y " + c.y.ToString());
      ExpectGpuMatchesCpu(
          type,
          [&](DataType t) {
            return SlotTensors{{"X", {SmallInts(t, c.x, 3)}}, {"Y", {SmallInts(t, c.y, 4)}}};
          },
          {{"Out", 1}}, {}, kNumericAndBool, kExact);
    }
  }
  for (const DDim& dims : {DDim({3, 5}), DDim({0}), DDim()}) {
    SCOPED_TRACE("logical_not " + dims.ToString());
    ExpectGpuMatchesCpu(
        "logical_not",
        [&](DataType t) {
          return SlotTensors{{"X", {SmallInts(t, dims, 5)}}};
        },
        {{"Out", 1}}, {}, kNumericAndBool, kExact);
  }
}

TEST_F(CudaCommonOpsTest, WhereSelectsElementwise) {
  for (const DDim& dims : {DDim({3, 5}), DDim({0, 2})}) {
    SCOPED_TRACE(dims.ToString());
    ExpectGpuMatchesCpu(
        "where",
        [&](DataType t) {
          return SlotTensors{{"Condition", {SmallInts(DataType::BOOL, dims, 6)}},
                             {"X", {Values(t, dims, 7)}},
                             {"Y", {Values(t, dims, 8)}}};
        },
        {{"Out", 1}}, {}, kNumeric, kExact);
  }
}

TEST_F(CudaCommonOpsTest, ExpandV2MatchesCpuForEveryShapeSource) {
  struct Case {
    DDim x;
    std::vector<int> shape;
  };
  const std::vector<Case> cases = {
      {DDim({3, 1}), {2, 3, 4}}, {DDim({3, 1}), {-1, 5}}, {DDim({1}), {4}},
      {DDim({2, 3}), {2, 3}},    {DDim({1, 3}), {0, 3}},  {DDim(), {2, 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.ToString() + " to " + ::testing::PrintToString(c.shape));
    ExpectGpuMatchesCpu(
        "expand_v2",
        [&](DataType t) {
          return SlotTensors{{"X", {Values(t, c.x, 9)}}};
        },
        {{"Out", 1}}, {{"shape", c.shape}}, kNumericAndBool, kExact);
  }
  // The shape from an int32 tensor and from a list of one-element int64 tensors.
  const std::vector<double> shape = {2, 3, 4};
  ExpectGpuMatchesCpu(
      "expand_v2",
      [&](DataType t) {
        return SlotTensors{{"X", {Values(t, DDim({3, 1}), 9)}},
                           {"Shape", {MakeTensor<int32_t>(DDim({3}), shape)}}};
      },
      {{"Out", 1}}, {}, kNumericAndBool, kExact);
  ExpectGpuMatchesCpu(
      "expand_v2",
      [&](DataType t) {
        SlotTensors in = {{"X", {Values(t, DDim({3, 1}), 9)}}};
        for (double s : shape) {
          in["expand_shapes_tensor"].push_back(MakeTensor<int64_t>(DDim({1}), {s}));
        }
        return in;
      },
      {{"Out", 1}}, {}, kNumericAndBool, kExact);
}

TEST_F(CudaCommonOpsTest, TileAndItsGradMatchCpu) {
  struct Case {
    DDim x;
    std::vector<int> repeats;
  };
  const std::vector<Case> cases = {
      {DDim({2, 3}), {2, 1, 3}}, {DDim({2, 3}), {2}}, {DDim({2, 3}), {1, 1}},
      {DDim({2, 3}), {3, 2}},    {DDim({4}), {0}},    {DDim({2, 1, 3}), {1, 4, 2}},
      {DDim({0, 3}), {2, 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.ToString() + " repeated " + ::testing::PrintToString(c.repeats));
    const AttributeMap attrs = {{"repeat_times", c.repeats}};
    ExpectGpuMatchesCpu(
        "tile",
        [&](DataType t) {
          return SlotTensors{{"X", {Values(t, c.x, 11)}}};
        },
        {{"Out", 1}}, attrs, kNumericAndBool, kExact);
    const DDim out =
        RunOp("tile", {{"X", {Values(DataType::FLOAT64, c.x, 11)}}}, {{"Out", 1}}, attrs)
            .outputs.at("Out")[0]
            .dims();
    GpuTolerance grad_tol = kExact;  // Added in the CPU's order.
    grad_tol.check_repeat = true;
    ExpectGpuMatchesCpu(
        "tile_grad",
        [&](DataType t) {
          return SlotTensors{{"X", {Values(t, c.x, 11)}}, {"Out@GRAD", {Values(t, out, 12)}}};
        },
        {{"X@GRAD", 1}}, attrs, grad_tol);
  }
  // expand (1.x): the same kernels under its own slot names.
  ExpectGpuMatchesCpu(
      "expand",
      [&](DataType t) {
        return SlotTensors{{"X", {Values(t, DDim({2, 1, 3}), 14)}}};
      },
      {{"Out", 1}}, {{"expand_times", std::vector<int>{2, 3, 1}}}, kNumericAndBool, kExact);
  // Repeats from an int64 tensor.
  ExpectGpuMatchesCpu(
      "tile",
      [&](DataType t) {
        return SlotTensors{{"X", {Values(t, DDim({2, 3}), 13)}},
                           {"RepeatTimes", {MakeTensor<int64_t>(DDim({2}), {3, 2})}}};
      },
      {{"Out", 1}}, {}, kNumericAndBool, kExact);
}

// An index tensor of `dtype` (int32 or int64) with `dims` and `values`.
DenseTensor IndexOf(DataType dtype, const DDim& dims, const std::vector<double>& values) {
  return dtype == DataType::INT32 ? MakeTensor<int32_t>(dims, values)
                                  : MakeTensor<int64_t>(dims, values);
}

// Runs gather-like `type` and its grad op on both devices for X of `x` and the given index;
// the grad's Out@GRAD has the forward output's dims. Repeated indices exercise the sums.
void CheckSelection(const std::string& type, const DDim& x, const DenseTensor& index,
                    const AttributeMap& attrs, const SlotTensors& extra = {}) {
  SlotTensors cpu_in = extra;
  cpu_in["X"] = {Values(DataType::FLOAT64, x, 21)};
  cpu_in["Index"] = {index};
  const DDim out = RunOp(type, cpu_in, {{"Out", 1}}, attrs).outputs.at("Out")[0].dims();
  ExpectGpuMatchesCpu(
      type,
      [&](DataType t) {
        SlotTensors in = extra;
        in["X"] = {Values(t, x, 21)};
        in["Index"] = {index};
        return in;
      },
      {{"Out", 1}}, attrs, kNumericAndBool, kExact);
  GpuTolerance grad_tol = kExact;  // Each slice's uses are added in the CPU's order.
  grad_tol.check_repeat = true;
  ExpectGpuMatchesCpu(
      type + "_grad",
      [&](DataType t) {
        SlotTensors in = extra;
        in["X"] = {Values(t, x, 21)};
        in["Index"] = {index};
        in["Out@GRAD"] = {Values(t, out, 22)};
        return in;
      },
      {{"X@GRAD", 1}}, attrs, grad_tol);
}

TEST_F(CudaCommonOpsTest, GatherAndItsGradMatchCpuForEveryAxisAndIndexDtype) {
  const DDim x({4, 3, 5});
  for (const DataType index_dtype : {DataType::INT32, DataType::INT64}) {
    for (int axis = -3; axis < 3; ++axis) {
      const int64_t bound = x[(axis + 3) % 3];
      SCOPED_TRACE("axis " + std::to_string(axis) + " index " +
                   platform::DataTypeName(index_dtype));
      // Repeats and a skipped slice; [N, 1] and 0-D indices too.
      const std::vector<double> idx = {static_cast<double>(bound - 1), 0, 0, 1,
                                       static_cast<double>(bound - 1)};
      CheckSelection("gather", x, IndexOf(index_dtype, DDim({5}), idx), {{"axis", axis}});
      CheckSelection("gather", x, IndexOf(index_dtype, DDim({5, 1}), idx), {{"axis", axis}});
      CheckSelection("gather", x, IndexOf(index_dtype, DDim(), {1}), {{"axis", axis}});
      CheckSelection("gather", x, IndexOf(index_dtype, DDim({0}), {}), {{"axis", axis}});
    }
    // The axis from an input tensor (overrides the attribute).
    CheckSelection("gather", x, IndexOf(index_dtype, DDim({3}), {2, 2, 0}), {{"axis", 0}},
                   {{"Axis", {IndexOf(index_dtype, DDim({1}), {2})}}});
  }
}

TEST_F(CudaCommonOpsTest, IndexSelectAndItsGradMatchCpuForEveryDimAndIndexDtype) {
  const DDim x({4, 3, 5});
  for (const DataType index_dtype : {DataType::INT32, DataType::INT64}) {
    for (int dim = -3; dim < 3; ++dim) {
      const int64_t bound = x[(dim + 3) % 3];
      SCOPED_TRACE("dim " + std::to_string(dim) + " index " + platform::DataTypeName(index_dtype));
      // Negative indices count from the end; repeats add up in the gradient.
      const std::vector<double> idx = {static_cast<double>(-bound),    0, 0, -1,
                                       static_cast<double>(bound - 1), 1};
      CheckSelection("index_select", x, IndexOf(index_dtype, DDim({6}), idx), {{"dim", dim}});
    }
  }
}

TEST_F(CudaCommonOpsTest, AnIndexOutOfRangeIsTheCpuError) {
  const DenseTensor x = Values(DataType::FLOAT32, DDim({3, 2}), 1);
  for (const platform::Place& place :
       {platform::Place(platform::CPUPlace()), platform::Place(platform::CUDAPlace(0))}) {
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp("gather", {{"X", {x}}, {"Index", {MakeTensor<int64_t>({2}, {1, 3})}}}, {{"Out", 1}},
                {}, place);
        },
        {"op `gather` input `Index`: index 3 at element 1 is outside [0, 3)"});
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp("index_select", {{"X", {x}}, {"Index", {MakeTensor<int32_t>({2}, {-4, 0})}}},
                {{"Out", 1}}, {}, place);
        },
        {"op `index_select` input `Index`: index -4 at element 0 is outside [-3, 3)"});
  }
}

TEST_F(CudaCommonOpsTest, LayerNormAndItsGradMatchCpu) {
  struct Case {
    DDim x;
    int begin_norm_axis;
  };
  // Rows shorter and longer than a block of threads, one-element rows and no rows.
  const std::vector<Case> cases = {{DDim({2, 3, 4}), 1},
                                   {DDim({2, 3, 4}), 2},
                                   {DDim({3, 700}), 1},
                                   {DDim({5, 1}), 1},
                                   {DDim({0, 4}), 1}};
  GpuTolerance tol;
  tol.check_repeat = true;  // Fixed orders of summation.
  for (const Case& c : cases) {
    int64_t right = 1;
    for (int d = c.begin_norm_axis; d < c.x.size(); ++d) right *= c.x[d];
    for (const bool with_scale : {false, true}) {
      for (const bool with_bias : {false, true}) {
        SCOPED_TRACE(c.x.ToString() + " begin_norm_axis " + std::to_string(c.begin_norm_axis) +
                     (with_scale ? " Scale" : "") + (with_bias ? " Bias" : ""));
        const AttributeMap attrs = {{"begin_norm_axis", c.begin_norm_axis}, {"epsilon", 1e-5f}};
        const auto forward_inputs = [&](DataType t) {
          SlotTensors in = {{"X", {RandomOf(t, c.x, -2, 2, 31)}}};
          if (with_scale) in["Scale"] = {RandomOf(t, DDim({right}), 0.5, 1.5, 32)};
          if (with_bias) in["Bias"] = {RandomOf(t, DDim({right}), -1, 1, 33)};
          return in;
        };
        ExpectGpuMatchesCpu("layer_norm", forward_inputs, {{"Y", 1}, {"Mean", 1}, {"Variance", 1}},
                            attrs, tol);
        // The grad reads the forward's statistics (from the CPU run).
        const auto grad_inputs = [&](DataType t) {
          SlotTensors in = forward_inputs(t);
          const OpRunResult f =
              RunOp("layer_norm", in, {{"Y", 1}, {"Mean", 1}, {"Variance", 1}}, attrs);
          in.erase("Bias");
          in["Mean"] = f.outputs.at("Mean");
          in["Variance"] = f.outputs.at("Variance");
          in["Y@GRAD"] = {RandomOf(t, c.x, -1, 1, 34)};
          return in;
        };
        ExpectGpuMatchesCpu("layer_norm_grad", grad_inputs,
                            {{"X@GRAD", 1}, {"Scale@GRAD", 1}, {"Bias@GRAD", 1}}, attrs, tol);
        ExpectGpuMatchesCpu("layer_norm_grad", grad_inputs, {{"X@GRAD", 1}}, attrs, tol);
      }
    }
  }
}

TEST_F(CudaCommonOpsTest, ArgMaxAndArgMinMatchCpuWithTiesAndNan) {
  for (const char* op : {"arg_max", "arg_min"}) {
    SCOPED_TRACE(op);
    const DDim x({3, 4, 5});
    for (int64_t axis = -3; axis < 3; ++axis) {
      for (const bool keepdims : {false, true}) {
        for (const int dtype : {-1, 2, 3}) {
          SCOPED_TRACE("axis " + std::to_string(axis) + (keepdims ? " keepdims" : "") + " dtype " +
                       std::to_string(dtype));
          ExpectGpuMatchesCpu(
              op,
              [&](DataType t) {
                return SlotTensors{{"X", {SmallInts(t, x, 41)}}};
              },
              {{"Out", 1}}, {{"axis", axis}, {"keepdims", keepdims}, {"dtype", dtype}}, kNumeric,
              kExact);
        }
      }
    }
    for (const bool keepdims : {false, true}) {
      SCOPED_TRACE(keepdims ? "flatten keepdims" : "flatten");
      ExpectGpuMatchesCpu(
          op,
          [&](DataType t) {
            return SlotTensors{{"X", {SmallInts(t, x, 42)}}};
          },
          {{"Out", 1}}, {{"axis", int64_t{0}}, {"keepdims", keepdims}, {"flatten", true}}, kNumeric,
          kExact);
    }
    // NaN first, NaN later, none; and a 0-D X and an empty one.
    const double nan = std::nan("");
    ExpectGpuMatchesCpu(
        op,
        [&](DataType t) {
          return SlotTensors{{"X", {Of(t, DDim({3, 3}), {nan, 5, 1, 1, nan, 7, 2, 9, 9})}}};
        },
        {{"Out", 1}}, {{"axis", int64_t{1}}}, kExact);
    ExpectGpuMatchesCpu(
        op,
        [&](DataType t) {
          return SlotTensors{{"X", {Of(t, DDim(), {4})}}};
        },
        {{"Out", 1}}, {}, kNumeric, kExact);
    ExpectGpuMatchesCpu(
        op,
        [&](DataType t) {
          return SlotTensors{{"X", {Of(t, DDim({0, 3}), {})}}};
        },
        {{"Out", 1}}, {{"axis", int64_t{1}}}, kNumeric, kExact);
  }
}

// top_k on gpu:0 against the CPU for each numeric dtype: the same values, and indices that
// hold them. Equal values may come in another order: the CUDA kernel breaks ties by index
// (top_k_op.h), the CPU kernel as PaddlePaddle's CPU kernel does (paddle_line_order.h).
void ExpectGpuTopKMatchesCpu(const InputMaker& inputs, const AttributeMap& attrs,
                             const std::vector<DataType>& dtypes = kNumeric) {
  for (DataType t : dtypes) {
    SCOPED_TRACE(platform::DataTypeName(t));
    std::map<std::string, DenseTensor> in;
    for (const auto& [slot, tensors] : inputs(t)) in[slot] = tensors.at(0);
    const PlaceRun cpu = RunOn(platform::CPUPlace(), "top_k", in, {"Out", "Indices"}, attrs);
    const PlaceRun gpu = RunOn(platform::CUDAPlace(0), "top_k", in, {"Out", "Indices"}, attrs);
    EXPECT_EQ(gpu.key.device, framework::DeviceType::kCUDA) << gpu.key.ToString();
    const std::vector<double> values = ToDoubles(cpu.outputs.at("Out"));
    ExpectNear(ToDoubles(gpu.outputs.at("Out")), values, 0, 0, "values");
    const DDim& x_dims = in.at("X").dims();
    const DDim& out_dims = cpu.outputs.at("Out").dims();
    ExpectIndicesHoldValues(ToDoubles(in.at("X")), x_dims[x_dims.size() - 1],
                            gpu.outputs.at("Indices"), values, out_dims[out_dims.size() - 1],
                            "GPU indices");
  }
}

TEST_F(CudaCommonOpsTest, TopKAndItsGradMatchCpuWithTiesAndNan) {
  struct Case {
    DDim x;
    int k;
  };
  const std::vector<Case> cases = {{DDim({3, 7}), 1},    {DDim({3, 7}), 3}, {DDim({3, 7}), 7},
                                   {DDim({2, 3, 5}), 2}, {DDim({9}), 4},    {DDim({0, 4}), 2}};
  GpuTolerance grad_tol = kExact;  // Added in the CPU's order.
  grad_tol.check_repeat = true;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.ToString() + " k " + std::to_string(c.k));
    const AttributeMap attrs = {{"k", c.k}};
    // Small whole numbers: many ties.
    ExpectGpuTopKMatchesCpu(
        [&](DataType t) {
          return SlotTensors{{"X", {SmallInts(t, c.x, 51)}}};
        },
        attrs);
    ExpectGpuMatchesCpu(
        "top_k_grad",
        [&](DataType t) {
          SlotTensors in = {{"X", {SmallInts(t, c.x, 51)}}};
          const OpRunResult f = RunOp("top_k", in, {{"Out", 1}, {"Indices", 1}}, attrs);
          in["Indices"] = f.outputs.at("Indices");
          in["Out@GRAD"] = {Values(t, f.outputs.at("Out")[0].dims(), 52)};
          return in;
        },
        {{"X@GRAD", 1}}, attrs, grad_tol);
  }
  // k from a tensor; NaNs above every number.
  const double nan = std::nan("");
  ExpectGpuTopKMatchesCpu(
      [&](DataType t) {
        return SlotTensors{{"X", {Of(t, DDim({2, 4}), {1, nan, 3, nan, 2, 2, nan, 0})}},
                           {"K", {MakeTensor<int32_t>(DDim({1}), {3})}}};
      },
      {{"k", 1}}, {DataType::FLOAT32, DataType::FLOAT64});
  // Indices that repeat (a grad op may receive any): their gradients add up.
  ExpectGpuMatchesCpu(
      "top_k_grad",
      [&](DataType t) {
        return SlotTensors{{"X", {Values(t, DDim({2, 4}), 53)}},
                           {"Indices", {MakeTensor<int64_t>(DDim({2, 3}), {1, 1, 3, 0, 2, 0})}},
                           {"Out@GRAD", {Values(t, DDim({2, 3}), 54)}}};
      },
      {{"X@GRAD", 1}}, {{"k", 3}}, grad_tol);
  for (const platform::Place& place :
       {platform::Place(platform::CPUPlace()), platform::Place(platform::CUDAPlace(0))}) {
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp("top_k_grad",
                {{"X", {Values(DataType::FLOAT32, DDim({2, 4}), 53)}},
                 {"Indices", {MakeTensor<int64_t>(DDim({2, 1}), {1, 4})}},
                 {"Out@GRAD", {Values(DataType::FLOAT32, DDim({2, 1}), 54)}}},
                {{"X@GRAD", 1}}, {{"k", 1}}, place);
        },
        {"op `top_k_grad` input `Indices`: expected values in [0, 4), received 4"});
  }
}

TEST_F(CudaCommonOpsTest, AccuracyMatchesCpuForEveryIndexDtype) {
  for (const DataType index_dtype : {DataType::INT32, DataType::INT64}) {
    for (const DataType label_dtype : {DataType::INT32, DataType::INT64}) {
      for (const DDim& dims : {DDim({300, 3}), DDim({5, 1}), DDim({0, 2})}) {
        SCOPED_TRACE(dims.ToString() + " " + platform::DataTypeName(index_dtype) + " " +
                     platform::DataTypeName(label_dtype));
        ExpectGpuMatchesCpu(
            "accuracy",
            [&](DataType t) {
              std::vector<double> idx = RandomValues(dims.numel(), 0, 4, 61);
              std::vector<double> lab = RandomValues(dims[0], 0, 4, 62);
              for (double& v : idx) v = std::floor(v);
              for (double& v : lab) v = std::floor(v);
              return SlotTensors{{"Out", {RandomOf(t, dims, 0, 1, 63)}},
                                 {"Indices", {IndexOf(index_dtype, dims, idx)}},
                                 {"Label", {IndexOf(label_dtype, DDim({dims[0], 1}), lab)}}};
            },
            {{"Accuracy", 1}, {"Correct", 1}, {"Total", 1}}, {}, kExact);
      }
    }
  }
}

TEST_F(CudaCommonOpsTest, CumsumMatchesCpuForEveryAxisAndFlag) {
  const DDim x({3, 4, 5});
  for (const bool exclusive : {false, true}) {
    for (const bool reverse : {false, true}) {
      for (int axis = -3; axis < 3; ++axis) {
        SCOPED_TRACE("axis " + std::to_string(axis) + (exclusive ? " exclusive" : "") +
                     (reverse ? " reverse" : ""));
        ExpectGpuMatchesCpu(
            "cumsum",
            [&](DataType t) {
              return SlotTensors{{"X", {Values(t, x, 71)}}};
            },
            {{"Out", 1}}, {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}},
            kNumeric, kExact);
      }
      SCOPED_TRACE(std::string("flatten") + (exclusive ? " exclusive" : "") +
                   (reverse ? " reverse" : ""));
      for (const DDim& dims : {x, DDim(), DDim({0, 3})}) {
        ExpectGpuMatchesCpu(
            "cumsum",
            [&](DataType t) {
              return SlotTensors{{"X", {Values(t, dims, 72)}}};
            },
            {{"Out", 1}}, {{"flatten", true}, {"exclusive", exclusive}, {"reverse", reverse}},
            kNumeric, kExact);
      }
    }
  }
}

TEST_F(CudaCommonOpsTest, PreluAndItsGradMatchCpuForEveryMode) {
  struct Case {
    std::string mode, format;
    DDim x, alpha;
  };
  const std::vector<Case> cases = {
      {"all", "NCHW", DDim({2, 3, 4, 5}), DDim({1})},
      {"channel", "NCHW", DDim({2, 3, 4, 5}), DDim({3})},
      {"channel", "NHWC", DDim({2, 3, 4, 5}), DDim({5})},
      {"channel", "NCHW", DDim({6, 3}), DDim({3})},
      {"element", "NCHW", DDim({2, 3, 4}), DDim({3, 4})},
      {"all", "NCHW", DDim({0, 3}), DDim({1})},
  };
  GpuTolerance grad_tol = kExact;  // Whole numbers: every product and sum is exact.
  grad_tol.check_repeat = true;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mode + " " + c.format + " " + c.x.ToString());
    const AttributeMap attrs = {{"mode", c.mode}, {"data_format", c.format}};
    ExpectGpuMatchesCpu(
        "prelu",
        [&](DataType t) {
          return SlotTensors{{"X", {Values(t, c.x, 81)}},
                             {"Alpha", {RandomOf(t, c.alpha, 0, 0.5, 82)}}};
        },
        {{"Out", 1}}, attrs, kExact);
    ExpectGpuMatchesCpu(
        "prelu_grad",
        [&](DataType t) {
          return SlotTensors{{"X", {SmallInts(t, c.x, 83)}},
                             {"Alpha", {SmallInts(t, c.alpha, 84)}},
                             {"Out@GRAD", {SmallInts(t, c.x, 85)}}};
        },
        {{"X@GRAD", 1}, {"Alpha@GRAD", 1}}, attrs, grad_tol);
  }
}

TEST_F(CudaCommonOpsTest, RangeMatchesCpu) {
  struct Case {
    double start, end, step;
  };
  for (const Case& c : {Case{0, 10, 1}, Case{10, 0, -3}, Case{5, 5, 1}, Case{-4, 7, 2}}) {
    SCOPED_TRACE(std::to_string(c.start) + " " + std::to_string(c.end) + " " +
                 std::to_string(c.step));
    ExpectGpuMatchesCpu(
        "range",
        [&](DataType t) {
          return SlotTensors{{"Start", {Of(t, DDim({1}), {c.start})}},
                             {"End", {Of(t, DDim({1}), {c.end})}},
                             {"Step", {Of(t, DDim({1}), {c.step})}}};
        },
        {{"Out", 1}}, {}, kNumeric, kExact);
  }
  // Fractional steps (float types): the CPU's sequence of additions.
  ExpectGpuMatchesCpu(
      "range",
      [&](DataType t) {
        return SlotTensors{{"Start", {Of(t, DDim({1}), {0.1})}},
                           {"End", {Of(t, DDim({1}), {2.0})}},
                           {"Step", {Of(t, DDim({1}), {0.3})}}};
      },
      {{"Out", 1}}, {}, kExact);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
