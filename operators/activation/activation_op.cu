// CUDA kernels of the activation ops and of PaddlePaddle's `<type>_grad` ops, from the
// functors of activation_op.h shared with the CPU kernels; float16 ones compute in float.
#include "operators/activation/activation_op.h"
#include "operators/activation/unary_elementwise_cuda.cuh"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/half_cuda.cuh"

namespace paddle_like {
namespace operators {

namespace {

template <typename Tag>
struct ActivationCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const framework::ExecutionContext& ctx) {
      ComputeUnaryCuda<T>(ctx, typename cuda::DeviceFunctor<T, Tag::template Functor>::type{});
    }
  };
};

template <typename Tag>
struct ActivationGradCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const framework::ExecutionContext& ctx) {
      ComputeUnaryGradCuda<T>(ctx, Tag::kGradDep,
                              typename cuda::DeviceFunctor<T, Tag::template GradFunctor>::type{});
    }
  };
};

}  // namespace

CudaKernelTable ActivationCudaKernels() {
  CudaKernelTable table;
  ForEachActivation([&](auto tag) {
    using Tag = decltype(tag);
    AddCudaKernels<ActivationCudaKernel<Tag>::template Kernel, float, double,
                   platform::float16>(&table, Tag::kType);
  });
  ForEachActivationWithGradOp([&](auto tag) {
    using Tag = decltype(tag);
    AddCudaKernels<ActivationGradCudaKernel<Tag>::template Kernel, float, double,
                   platform::float16>(&table, std::string(Tag::kType) + "_grad");
  });
  return table;
}

}  // namespace operators
}  // namespace paddle_like
