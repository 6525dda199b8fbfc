// The CUDA kernels of the common ops against their CPU kernels on the same inputs, exactly
// (copies, fills, comparisons and sums in the CPU's order): assign, size, fill_any_like, sum,
// the comparison and logical ops with broadcasting, where, expand_v2 and tile (+ grad), for
// every dtype each registers. Skips when the build has no CUDA or the machine no device.
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
  // Repeats from an int64 tensor.
  ExpectGpuMatchesCpu(
      "tile",
      [&](DataType t) {
        return SlotTensors{{"X", {Values(t, DDim({2, 3}), 13)}},
                           {"RepeatTimes", {MakeTensor<int64_t>(DDim({2}), {3, 2})}}};
      },
      {{"Out", 1}}, {}, kNumericAndBool, kExact);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
