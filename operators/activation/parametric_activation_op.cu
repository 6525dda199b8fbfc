// CUDA kernels of hard_sigmoid, hard_swish, relu6, leaky_relu, swish, gelu, softplus, clip,
// sqrt and rsqrt and of their `<type>_grad` ops, from the functors of parametric_activation.h
// shared with the CPU kernels. clip's Min and Max tensors are read on the host (FromAttrs).
#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise_cuda.cuh"
#include "operators/cuda/cuda_kernel_table.h"

namespace paddle_like {
namespace operators {

namespace {

template <template <typename> class F>
struct UnaryCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const framework::ExecutionContext& ctx) {
      ComputeUnaryCuda<T>(ctx, F<T>::FromAttrs(ctx));
    }
  };
};

template <template <typename> class G>
struct UnaryGradCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const framework::ExecutionContext& ctx) {
      ComputeUnaryGradCuda<T>(ctx, G<T>::kGradDep, G<T>::FromAttrs(ctx));
    }
  };
};

template <template <typename> class F, template <typename> class G>
void AddPair(CudaKernelTable* table, const std::string& type) {
  AddCudaKernels<UnaryCudaKernel<F>::template Kernel, float, double>(table, type);
  AddCudaKernels<UnaryGradCudaKernel<G>::template Kernel, float, double>(table, type + "_grad");
}

}  // namespace

CudaKernelTable ParametricActivationCudaKernels() {
  using namespace activation;  // NOLINT: the functor names.
  CudaKernelTable table;
  AddPair<HardSigmoid, HardSigmoidGrad>(&table, "hard_sigmoid");
  AddPair<HardSwish, HardSwishGrad>(&table, "hard_swish");
  AddPair<Relu6, Relu6Grad>(&table, "relu6");
  AddPair<LeakyRelu, LeakyReluGrad>(&table, "leaky_relu");
  AddPair<Swish, SwishGrad>(&table, "swish");
  AddPair<Gelu, GeluGrad>(&table, "gelu");
  AddPair<Softplus, SoftplusGrad>(&table, "softplus");
  AddPair<Clip, ClipGrad>(&table, "clip");
  AddPair<Sqrt, SqrtGrad>(&table, "sqrt");
  AddPair<Rsqrt, RsqrtGrad>(&table, "rsqrt");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
