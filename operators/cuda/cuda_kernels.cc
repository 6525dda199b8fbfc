// Registers the CUDA kernels of every op family with the KernelRegistry: each family's `.cu`
// file lists its kernels (cuda_kernel_table.h), so no `.cu` file includes the registry.
#include "framework/op_registry.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

PL_REGISTER_BACKEND_KERNELS(RegisterCudaKernelTables) {
  for (const auto& family :
       {ElementwiseCudaKernels(), ActivationCudaKernels(),  ParametricActivationCudaKernels(),
        TensorCudaKernels(),      ReduceCudaKernels(),      LossCudaKernels(),
        OptimizerCudaKernels(),   MatmulCudaKernels(),      SoftmaxCudaKernels(),
        BatchNormCudaKernels(),   DropoutCudaKernels(),     QuadraticCudaKernels(),
        InterpolateCudaKernels(), LookupTableCudaKernels(), CompareLogicalCudaKernels(),
        IndexingCudaKernels(),    LayerNormCudaKernels(),   SearchCudaKernels(),
        MetricsCudaKernels(),     PreluCudaKernels(),       DetectionCudaKernels()}) {
    for (const auto& kernel : family) {
      framework::RegisterKernel(kernel.op_type, framework::DeviceType::kCUDA, kernel.dtype,
                                kernel.library, kernel.fn);
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
