#include "tests/cuda_test_util.h"

#include "framework/kernel_registry.h"
#include "platform/init.h"

namespace paddle_like {
namespace testing {

void CudaTest::SetUp() {
  operators::RegisterAllOps();
  if (!platform::BuiltWithCuda()) GTEST_SKIP() << "built without CUDA";
  if (platform::CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device on this machine";
}

DenseTensor RandomOf(DataType dtype, const framework::DDim& dims, double lo, double hi,
                     unsigned seed) {
  const auto v = RandomValues(dims.numel(), lo, hi, seed);
  return dtype == DataType::FLOAT32 ? MakeTensor<float>(dims, v) : MakeTensor<double>(dims, v);
}

void ExpectGpuMatchesCpu(const std::string& type, const InputMaker& inputs,
                         const std::map<std::string, int>& outputs, const AttributeMap& attrs,
                         const std::vector<DataType>& dtypes, const GpuTolerance& tol) {
  for (DataType dtype : dtypes) {
    SCOPED_TRACE(type + " " + platform::DataTypeName(dtype));
    const SlotTensors in = inputs(dtype);
    const OpRunResult cpu = RunOp(type, in, outputs, attrs);
    const OpRunResult gpu = RunOp(type, in, outputs, attrs, platform::CUDAPlace(0));
    ASSERT_NE(gpu.kernel, nullptr);
    EXPECT_EQ(gpu.kernel->key.device, framework::DeviceType::kCUDA) << gpu.kernel->key.ToString();
    const bool is_double = dtype == DataType::FLOAT64;
    const double rtol = is_double ? tol.double_rtol : tol.float_rtol;
    const double atol = is_double ? tol.double_atol : tol.float_atol;
    for (const auto& [slot, tensors] : cpu.outputs) {
      for (size_t i = 0; i < tensors.size(); ++i) {
        const DenseTensor& want = tensors[i];
        const DenseTensor& got = gpu.outputs.at(slot)[i];
        ASSERT_EQ(got.initialized(), want.initialized()) << slot;
        if (!want.initialized()) continue;
        EXPECT_EQ(got.dims(), want.dims()) << slot;
        EXPECT_EQ(got.dtype(), want.dtype()) << slot;
        if (rtol == 0 && atol == 0) {
          EXPECT_EQ(ToDoubles(got), ToDoubles(want)) << type << " " << slot;
        } else {
          ExpectNear(ToDoubles(got), ToDoubles(want), rtol, atol, type + " " + slot);
        }
      }
    }
    if (!tol.check_repeat) continue;
    // Fixed reduction orders: a second GPU run gives the same bits.
    const OpRunResult again = RunOp(type, in, outputs, attrs, platform::CUDAPlace(0));
    for (const auto& [slot, tensors] : gpu.outputs) {
      for (size_t i = 0; i < tensors.size(); ++i) {
        if (!tensors[i].initialized()) continue;
        EXPECT_EQ(ToDoubles(again.outputs.at(slot)[i]), ToDoubles(tensors[i])) << slot;
      }
    }
  }
}

void ExpectGpuHalfNearCpuFloat(const std::string& type, const InputMaker& inputs,
                               const std::map<std::string, int>& outputs,
                               const AttributeMap& attrs, double rtol, double atol) {
  SCOPED_TRACE(type + " float16");
  SlotTensors as_float = inputs(DataType::FLOAT32), as_half;
  for (auto& [slot, tensors] : as_float) {
    for (DenseTensor& t : tensors) {
      DenseTensor half = t;
      if (t.dtype() == DataType::FLOAT32) {
        framework::CastTensor(t, DataType::FLOAT16, &half);
        framework::CastTensor(half, DataType::FLOAT32, &t);  // The values float16 holds.
      }
      as_half[slot].push_back(half);
    }
  }
  const OpRunResult cpu = RunOp(type, as_float, outputs, attrs);
  const OpRunResult gpu = RunOp(type, as_half, outputs, attrs, platform::CUDAPlace(0));
  ASSERT_NE(gpu.kernel, nullptr);
  EXPECT_EQ(gpu.kernel->key.device, framework::DeviceType::kCUDA) << gpu.kernel->key.ToString();
  EXPECT_EQ(gpu.kernel->key.dtype, DataType::FLOAT16) << gpu.kernel->key.ToString();
  for (const auto& [slot, tensors] : cpu.outputs) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      const DenseTensor& want = tensors[i];
      const DenseTensor& got = gpu.outputs.at(slot)[i];
      ASSERT_EQ(got.initialized(), want.initialized()) << slot;
      if (!want.initialized()) continue;
      EXPECT_EQ(got.dims(), want.dims()) << slot;
      EXPECT_EQ(got.dtype(), want.dtype() == DataType::FLOAT32 ? DataType::FLOAT16 : want.dtype())
          << slot;
      ExpectNear(ToDoubles(got), ToDoubles(want), rtol, atol, type + " " + slot);
    }
  }
}

}  // namespace testing
}  // namespace paddle_like
