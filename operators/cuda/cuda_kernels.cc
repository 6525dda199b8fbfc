// Registers every CUDA kernel. Each `.cu` file defines one function that returns its ops'
// kernels (declared in cuda_kernel_table.h); this file hands them to RegisterKernel, so nvcc
// never compiles the registry's headers.
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
    for (const CudaKernelSpec& entry : table) {
      framework::RegisterKernel(entry.op_type, framework::DeviceType::kCUDA, entry.dtype,
                                entry.library, entry.fn);
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
