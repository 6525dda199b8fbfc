// CUDA kernels of hard_sigmoid, hard_swish, relu6, leaky_relu, swish, gelu, softplus, clip,
// round, pow, sqrt and rsqrt, of elu, selu, celu, mish, stanh, hard_shrink, softshrink,
// thresholded_relu and brelu, and of their `<type>_grad` ops, from the functors of
// parametric_activation.h and piecewise_activation.h shared with the CPU kernels (float16 ones compute in float). clip's Min
// and Max tensors are read on the host (FromAttrs).
#include "operators/activation/parametric_activation.h"
#include "operators/activation/piecewise_activation.h"
#include "operators/activation/unary_elementwise_cuda.cuh"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/half_cuda.cuh"

namespace paddle_like {
namespace operators {

namespace {

template <template <typename> class F>
struct UnaryCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const framework::ExecutionContext& ctx) {
      if constexpr (std::is_same_v<T, platform::float16>) {
        ComputeUnaryCuda<T>(ctx, cuda::HalfViaFloat<F<float>>{F<float>::FromAttrs(ctx)});
      } else {
        ComputeUnaryCuda<T>(ctx, F<T>::FromAttrs(ctx));
      }
    }
  };
};

template <template <typename> class G>
struct UnaryGradCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const framework::ExecutionContext& ctx) {
      if constexpr (std::is_same_v<T, platform::float16>) {
        ComputeUnaryGradCuda<T>(ctx, G<float>::kGradDep,
                                cuda::HalfViaFloat<G<float>>{G<float>::FromAttrs(ctx)});
      } else {
        ComputeUnaryGradCuda<T>(ctx, G<T>::kGradDep, G<T>::FromAttrs(ctx));
      }
    }
  };
};

// float, double and (computed in float) float16.
template <template <typename> class F, template <typename> class G>
void AddPair(CudaKernelTable* table, const std::string& type) {
  AddCudaKernels<UnaryCudaKernel<F>::template Kernel, float, double, platform::float16>(table,
                                                                                      type);
  AddCudaKernels<UnaryGradCudaKernel<G>::template Kernel, float, double, platform::float16>(
      table, type + "_grad");
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
  // clip: float and double only (its Min and Max tensors have X's dtype).
  AddCudaKernels<UnaryCudaKernel<Clip>::template Kernel, float, double>(&table, "clip");
  AddCudaKernels<UnaryGradCudaKernel<ClipGrad>::template Kernel, float, double>(&table,
                                                                                "clip_grad");
  AddPair<Sqrt, SqrtGrad>(&table, "sqrt");
  AddPair<Rsqrt, RsqrtGrad>(&table, "rsqrt");
  AddCudaKernels<UnaryCudaKernel<Pow>::template Kernel, float, double, platform::float16>(&table,
                                                                                          "pow");
  AddPair<Elu, EluGrad>(&table, "elu");
  AddPair<Selu, SeluGrad>(&table, "selu");
  AddPair<Celu, CeluGrad>(&table, "celu");
  AddPair<Mish, MishGrad>(&table, "mish");
  AddPair<Stanh, StanhGrad>(&table, "stanh");
  AddPair<HardShrink, HardShrinkGrad>(&table, "hard_shrink");
  AddPair<Softshrink, SoftshrinkGrad>(&table, "softshrink");
  AddPair<ThresholdedRelu, ThresholdedReluGrad>(&table, "thresholded_relu");
  AddPair<Brelu, BreluGrad>(&table, "brelu");
  // round passes no gradient: no grad op.
  AddCudaKernels<UnaryCudaKernel<Round>::template Kernel, float, double, platform::float16>(
      &table, "round");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
