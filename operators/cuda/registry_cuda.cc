// The CUDA kernel table: every CUDA kernel of this build is registered here.
#include "framework/op_registry.h"
#include "operators/quadratic/quadratic_op_cuda.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {

void RegisterCudaKernels() {
  using framework::DataType;
  using framework::DeviceType;
  using framework::LibraryType;
  framework::RegisterKernel("quadratic", DeviceType::kCUDA, DataType::FLOAT32, LibraryType::kPlain,
                            &QuadraticCudaKernel<float>);
  framework::RegisterKernel("quadratic", DeviceType::kCUDA, DataType::FLOAT64, LibraryType::kPlain,
                            &QuadraticCudaKernel<double>);
}

}  // namespace operators
}  // namespace paddle_like
