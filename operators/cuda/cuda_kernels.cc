// Registration of every plain CUDA kernel: each op family's `.cu` file names its kernels in
// a CudaKernelTable (cuda_kernel_table.h), and this file registers them all with the
// KernelRegistry for DeviceType::kCUDA.
#include "framework/op_registry.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

PL_REGISTER_BACKEND_KERNELS(RegisterCudaKernelTables) {
  for (const auto& table :
       {ElementwiseCudaKernels(), ActivationCudaKernels(),  ParametricActivationCudaKernels(),
        TensorCudaKernels(),      ReduceCudaKernels(),      LossCudaKernels(),
        OptimizerCudaKernels(),   MatmulCudaKernels(),      SoftmaxCudaKernels(),
        BatchNormCudaKernels(),   DropoutCudaKernels(),     QuadraticCudaKernels(),
        InterpolateCudaKernels(), LookupTableCudaKernels(), CompareLogicalCudaKernels(),
        IndexingCudaKernels(),    LayerNormCudaKernels(),   SearchCudaKernels(),
        MetricsCudaKernels(),     PreluCudaKernels(),       DetectionCudaKernels()}) {
    for (const CudaKernelEntry& k : table) {
      framework::RegisterKernel(k.op_type, framework::DeviceType::kCUDA, k.dtype, k.library,
                                k.fn);
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
