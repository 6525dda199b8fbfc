// CUDA kernels of the activation ops and of PaddlePaddle's `<type>_grad` ops, from the
// functors of activation_op.h shared with the CPU kernels.
#include "operators/activation/activation_op.h"
#include "operators/activation/unary_elementwise_cuda.cuh"
#include "operators/cuda/cuda_kernel_table.h"

namespace paddle_like {
namespace operators {

namespace {

template <typename Tag>
struct ActivationCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const framework::ExecutionContext& ctx) {
      ComputeUnaryCuda<T>(ctx, typename Tag::template Functor<T>{});
    }
  };
};

template <typename Tag>
struct ActivationGradCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const framework::ExecutionContext& ctx) {
      ComputeUnaryGradCuda<T>(ctx, Tag::kGradDep, typename Tag::template GradFunctor<T>{});
    }
  };
};

}  // namespace

CudaKernelTable ActivationCudaKernels() {
  CudaKernelTable table;
  ForEachActivation([&](auto tag) {
    using Tag = decltype(tag);
    AddCudaKernels<ActivationCudaKernel<Tag>::template Kernel, float, double>(&table,
                                                                              Tag::kType);
  });
  ForEachActivationWithGradOp([&](auto tag) {
    using Tag = decltype(tag);
    AddCudaKernels<ActivationGradCudaKernel<Tag>::template Kernel, float, double>(
        &table, std::string(Tag::kType) + "_grad");
  });
  return table;
}

}  // namespace operators
}  // namespace paddle_like
