// CUDA kernels of hard_sigmoid, hard_swish, relu6, leaky_relu, swish, sqrt and rsqrt and of
// their `<type>_grad` ops, from the functors of parametric_activation.h shared with the CPU
// kernels.
#include "operators/activation/parametric_activation.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DenseTensor;
using framework::ExecutionContext;

template <typename T, typename F>
__global__ void MapElements(const T* x, T* out, int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = f(x[i]);
  }
}

template <typename T, typename G>
__global__ void MapGradElements(const T* v, const T* dout, T* dx, int64_t n, G g) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    dx[i] = g(v[i], dout[i]);
  }
}

template <template <typename> class F>
struct UnaryCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor x = *ctx.Input("X");
      DenseTensor* out = ctx.Output("Out");
      out->Resize(x.dims());
      out->set_lod(x.lod());
      T* o = out->mutable_data<T>(ctx.GetPlace());
      const int64_t n = x.numel();
      if (n == 0) return;
      MapElements<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          x.data<T>(), o, n, F<T>::FromAttrs(ctx));
      cuda::CheckLaunch(ctx);
    }
  };
};

template <template <typename> class G>
struct UnaryGradCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const char* dep = G<T>::kGradDep;
      const DenseTensor v = *ctx.Input(dep);
      const DenseTensor dout = *ctx.Input("Out@GRAD");
      PL_ENFORCE(v.dims() == dout.dims(),
                 errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of `%s` "
                                         "%s, received %s",
                                         ctx.Type(), dep, v.dims().ToString(),
                                         dout.dims().ToString()));
      DenseTensor* dx = ctx.Output("X@GRAD");
      dx->Resize(v.dims());
      dx->set_lod(v.lod());
      T* o = dx->mutable_data<T>(ctx.GetPlace());
      const int64_t n = v.numel();
      if (n == 0) return;
      MapGradElements<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          v.data<T>(), dout.data<T>(), o, n, G<T>::FromAttrs(ctx));
      cuda::CheckLaunch(ctx);
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
  AddPair<Sqrt, SqrtGrad>(&table, "sqrt");
  AddPair<Rsqrt, RsqrtGrad>(&table, "rsqrt");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
