// Shared by the CUDA kernel tests: a fixture that skips without CUDA or a device, random
// inputs per dtype, and the comparison of a one-op program's outputs on gpu:0 with the CPU's.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {

// Registers every op; skips the test in builds without CUDA or on machines without a device.
class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

// A float32 or float64 tensor of uniform values in [lo, hi), reproducible by seed.
DenseTensor RandomOf(DataType dtype, const framework::DDim& dims, double lo, double hi,
                     unsigned seed);

// Allowed differences between the GPU's and the CPU's outputs, per dtype (0 and 0: exactly
// equal). check_repeat: a second GPU run must give the same bits.
struct GpuTolerance {
  double float_rtol = 2e-5, float_atol = 2e-6;
  double double_rtol = 1e-10, double_atol = 1e-10;
  bool check_repeat = false;
};

// The inputs of one case, made for a dtype.
using InputMaker = std::function<SlotTensors(DataType)>;

// Runs `type` on the CPU and on gpu:0 with the same inputs, for each of `dtypes`, and
// expects the same outputs within `tol`; the GPU run must have chosen a CUDA kernel.
void ExpectGpuMatchesCpu(const std::string& type, const InputMaker& inputs,
                         const std::map<std::string, int>& outputs, const AttributeMap& attrs,
                         const std::vector<DataType>& dtypes = {DataType::FLOAT32,
                                                                DataType::FLOAT64},
                         const GpuTolerance& tol = {});
inline void ExpectGpuMatchesCpu(const std::string& type, const InputMaker& inputs,
                                const std::map<std::string, int>& outputs,
                                const AttributeMap& attrs, const GpuTolerance& tol) {
  ExpectGpuMatchesCpu(type, inputs, outputs, attrs, {DataType::FLOAT32, DataType::FLOAT64}, tol);
}

// Runs `type` in float16 on gpu:0 and in float32 on the CPU, on the float32 inputs of
// `inputs(FLOAT32)` rounded to float16 (integer inputs as they are), and expects the GPU's
// outputs within rtol/atol of the CPU's (half precision: about 1e-3 per rounding); the GPU
// run must have chosen a float16 CUDA kernel.
void ExpectGpuHalfNearCpuFloat(const std::string& type, const InputMaker& inputs,
                               const std::map<std::string, int>& outputs,
                               const AttributeMap& attrs, double rtol = 4e-3,
                               double atol = 1e-3);

}  // namespace testing
}  // namespace paddle_like
