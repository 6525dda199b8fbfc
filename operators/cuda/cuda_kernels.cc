// Puts the CUDA kernels of all ops into the KernelRegistry. The kernels come from functions
// defined next to them in the `.cu` files (declared in cuda_kernel_table.h), so that no `.cu`
// file includes the registry's headers.
#include "framework/op_registry.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

PL_REGISTER_BACKEND_KERNELS(RegisterCudaKernels) {
  for (const auto& group :
       {ElementwiseCudaKernels(), ActivationCudaKernels(),  ParametricActivationCudaKernels(),
        TensorCudaKernels(),      ReduceCudaKernels(),      LossCudaKernels(),
        OptimizerCudaKernels(),   MatmulCudaKernels(),      SoftmaxCudaKernels(),
        BatchNormCudaKernels(),   DropoutCudaKernels(),     QuadraticCudaKernels(),
        InterpolateCudaKernels(), LookupTableCudaKernels(), CompareLogicalCudaKernels(),
        IndexingCudaKernels(),    LayerNormCudaKernels(),   SearchCudaKernels(),
        MetricsCudaKernels(),     PreluCudaKernels(),       DetectionCudaKernels()}) {
    for (const auto& kernel : group) {
      framework::RegisterKernel(kernel.op_type, framework::DeviceType::kCUDA, kernel.dtype,
                                kernel.library, kernel.fn);
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
