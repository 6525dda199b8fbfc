// The CUDA kernels of each op family, listed by the family's `.cu` file and registered in one
// place (operators/cuda/cuda_kernels.cc), so that no `.cu` file needs the registry's headers
// and no kernel needs a declaration of its own.
#pragma once

#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "platform/data_type.h"

namespace paddle_like {
namespace operators {

struct CudaKernelEntry {
  std::string op_type;
  framework::DataType dtype;
  framework::KernelFn fn;
  framework::LibraryType backend = framework::LibraryType::kPlain;
};
using CudaKernelTable = std::vector<CudaKernelEntry>;

// Adds Kernel<T>::Compute for every T in Ts as the plain CUDA kernel of `op_type`.
template <template <typename> class KernelT, typename... Ts>
void AddCudaKernels(CudaKernelTable* table, const std::string& op_type) {
  (table->push_back({op_type, platform::ToDataType<Ts>(), &KernelT<Ts>::Compute}), ...);
}

// One function per family, defined in its `.cu` file.
CudaKernelTable ElementwiseCudaKernels();   // operators/elementwise/elementwise_op.cu
CudaKernelTable ActivationCudaKernels();    // operators/activation/activation_op.cu
CudaKernelTable ParametricActivationCudaKernels();  // .../parametric_activation_op.cu
CudaKernelTable TensorCudaKernels();        // operators/tensor/tensor_op.cu
CudaKernelTable ReduceCudaKernels();        // operators/reduce/reduce_op.cu
CudaKernelTable LossCudaKernels();          // operators/loss/softmax_with_cross_entropy_op.cu
CudaKernelTable OptimizerCudaKernels();     // operators/optimizers/optimizer_op.cu
CudaKernelTable MatmulCudaKernels();        // operators/cuda/matmul_cublas.cc
CudaKernelTable SoftmaxCudaKernels();       // operators/cuda/softmax_cudnn.cc
CudaKernelTable BatchNormCudaKernels();     // operators/nn/batch_norm_op.cu
CudaKernelTable DropoutCudaKernels();       // operators/nn/dropout_op.cu
CudaKernelTable QuadraticCudaKernels();     // operators/quadratic/quadratic_op.cu
CudaKernelTable InterpolateCudaKernels();   // operators/nn/interpolate_op.cu
CudaKernelTable LookupTableCudaKernels();   // operators/nn/lookup_table_op.cu
CudaKernelTable DetectionCudaKernels();     // operators/detection/detection_op.cu
CudaKernelTable LayerNormCudaKernels();     // operators/nn/layer_norm_op.cu
CudaKernelTable PreluCudaKernels();         // operators/activation/prelu_op.cu
CudaKernelTable MetricsCudaKernels();       // operators/metrics/accuracy_op.cu
CudaKernelTable SearchCudaKernels();        // operators/search/search_op.cu
CudaKernelTable IndexingCudaKernels();      // operators/indexing/indexing_op.cu
CudaKernelTable CompareLogicalCudaKernels();  // operators/elementwise/compare_logical_op.cu

}  // namespace operators
}  // namespace paddle_like
