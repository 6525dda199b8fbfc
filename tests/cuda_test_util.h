// Shared by the CUDA kernel tests: a fixture that skips without CUDA or a device, random
// inputs per dtype, the comparison of a one-op program's outputs on gpu:0 with the CPU's, and
// for the cuDNN tests a runner that reports the kernel an op ran.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "framework/kernel_key.h"
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

struct PlaceRun {
  std::map<std::string, DenseTensor> outputs;  // Output slot -> CPU tensor.
  framework::KernelKey key;                    // The kernel the op ran.
};

// Runs one op of `type` on `place` (`repeat` times): `inputs` maps slots to tensors, and
// every slot of `outputs` is fetched. The CPU runs the plain kernels (oneDNN off).
PlaceRun RunOn(const platform::Place& place, const std::string& type,
               const std::map<std::string, DenseTensor>& inputs,
               const std::vector<std::string>& outputs, const AttributeMap& attrs, int repeat = 1);

// Runs `type` on gpu:0 (twice: the second run takes the kernel's cached algorithms) and on
// the CPU; expects the kernel of library `library` on the GPU and every output of `outputs`
// within 1e-4 relative of the CPU's in float (1e-10 in double), plus an absolute error
// relative to the largest value (an element that a long sum cancels to near 0 keeps the
// sum's rounding error). `what` names the case in failures.
void ExpectLibraryKernelMatchesCpu(const std::string& type,
                                   const std::map<std::string, DenseTensor>& in,
                                   const std::vector<std::string>& outputs,
                                   const AttributeMap& attrs, DataType dtype,
                                   const std::string& what,
                                   framework::LibraryType library = framework::LibraryType::kCUDNN);

// The largest magnitude of `v` (0 when empty).
double MaxAbs(const std::vector<double>& v);

}  // namespace testing
}  // namespace paddle_like
