// RegisterCudaKernels: where the CUDA kernels of every op family join the kernel registry.
// Each family lists them in a function of its `.cu` file (cuda_kernel_table.h), so the
// registry's headers stay out of the files nvcc compiles.
#include "framework/op_registry.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

PL_REGISTER_BACKEND_KERNELS(RegisterCudaKernels) {
  for (const CudaKernelTable& table :
       {ElementwiseCudaKernels(), ActivationCudaKernels(),  ParametricActivationCudaKernels(),
        TensorCudaKernels(),      ReduceCudaKernels(),      LossCudaKernels(),
        OptimizerCudaKernels(),   MatmulCudaKernels(),      SoftmaxCudaKernels(),
        BatchNormCudaKernels(),   DropoutCudaKernels(),     QuadraticCudaKernels(),
        InterpolateCudaKernels(), LookupTableCudaKernels(), CompareLogicalCudaKernels(),
        IndexingCudaKernels(),    LayerNormCudaKernels(),   SearchCudaKernels(),
        MetricsCudaKernels(),     PreluCudaKernels(),       DetectionCudaKernels()}) {
    for (const CudaKernelEntry& kernel : table) {
      framework::RegisterKernel(kernel.op_type, framework::DeviceType::kCUDA, kernel.dtype,
                                kernel.backend, kernel.fn);
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
