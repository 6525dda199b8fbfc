// The CUDA kernels of quadratic (quadratic_op.cu).
#include "framework/op_registry.h"
#include "operators/op_family.h"
#include "operators/quadratic/quadratic_op_cuda.h"

namespace paddle_like {
namespace operators {

PL_REGISTER_BACKEND_KERNELS(RegisterQuadraticCudaKernels) {
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
