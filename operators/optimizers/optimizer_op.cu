// CUDA kernels of sgd, momentum and adam for dense gradients, one fused pass per parameter
// with the CPU kernels' formulas and rounding. The learning rate and the beta powers are read
// by the kernels from device memory (a copy there when they live on the host): reading them
// on the host would wait for the whole backward pass at every optimizer op. Sparse gradients,
// master parameters, amsgrad and SkipUpdate run on the CPU kernels only: on the GPU they are
// typed errors naming the op and the slot or attribute.
#include <cmath>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

// Param and a dense Grad of Param's dims and dtype T; refuses what the CUDA kernels lack.
template <typename T>
void CheckDenseUpdate(const ExecutionContext& ctx, const DenseTensor& param) {
  const framework::Variable* grad = ctx.InputVar("Grad");
  PL_ENFORCE(grad != nullptr && grad->IsType<DenseTensor>(),
             errors::Unimplemented("op `%s` input `Grad` (variable `%s`): the CUDA kernel takes "
                                   "a dense gradient; sparse (SelectedRows) gradients run on "
                                   "the CPU",
                                   ctx.Type(), ctx.InputName("Grad")));
  const DenseTensor& g = grad->Get<DenseTensor>();
  PL_ENFORCE(g.dims() == param.dims() && g.dtype() == param.dtype(),
             errors::InvalidArgument("op `%s` input `Grad`: expected %s %s (Param's), received "
                                     "%s %s",
                                     ctx.Type(), platform::DataTypeName(param.dtype()),
                                     param.dims().ToString(), platform::DataTypeName(g.dtype()),
                                     g.dims().ToString()));
  PL_ENFORCE(!(ctx.HasAttr("multi_precision") && ctx.Attr<bool>("multi_precision")),
             errors::Unimplemented("op `%s` attribute `multi_precision`: not supported by the "
                                   "CUDA kernel",
                                   ctx.Type()));
}

// A state input of Param's dims and dtype (Velocity, Moment1, Moment2).
void CheckState(const ExecutionContext& ctx, const char* slot, const DenseTensor& param) {
  const DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(t != nullptr && t->dims() == param.dims() && t->dtype() == param.dtype(),
             errors::InvalidArgument("op `%s` input `%s`: expected %s %s (Param's), received %s",
                                     ctx.Type(), slot, platform::DataTypeName(param.dtype()),
                                     param.dims().ToString(),
                                     t == nullptr ? std::string("none")
                                                  : platform::DataTypeName(t->dtype()) + " " +
                                                        t->dims().ToString()));
}

template <typename T>
T* OutputLike(const ExecutionContext& ctx, const char* slot, const DDim& dims) {
  return ctx.Output(slot)->Resize(dims).mutable_data<T>(ctx.GetPlace());
}

// A 1-element float32 or float64 tensor in device memory, read by the kernels.
struct DeviceScalar {
  const void* ptr = nullptr;
  bool is_double = false;
  __device__ double Load() const {
    return is_double ? *static_cast<const double*>(ptr)
                     : static_cast<double>(*static_cast<const float*>(ptr));
  }
};

// Input `slot` as a DeviceScalar; `keep` holds the tensor (or its device copy) alive while
// the kernels that read it are queued.
DeviceScalar ScalarInput(const ExecutionContext& ctx, const char* slot, DenseTensor* keep) {
  const DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(t != nullptr && t->numel() == 1,
             errors::InvalidArgument("op `%s` input `%s`: expected a 1-element tensor, "
                                     "received %s",
                                     ctx.Type(), slot,
                                     t == nullptr ? std::string("none") : t->dims().ToString()));
  const DataType dtype = t->dtype();
  PL_ENFORCE(dtype == DataType::FLOAT32 || dtype == DataType::FLOAT64,
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected float32 or "
                                     "float64, received %s",
                                     ctx.Type(), slot, ctx.InputName(slot),
                                     platform::DataTypeName(dtype)));
  if (t->place() == ctx.GetPlace()) {
    *keep = *t;
  } else {
    framework::CopyTensor(*t, ctx.GetPlace(), keep);
  }
  return DeviceScalar{static_cast<const DenseTensor*>(keep)->raw_data(),
                      dtype == DataType::FLOAT64};
}

template <typename T>
__global__ void SgdUpdate(const T* param, const T* grad, DeviceScalar lr_ref, int64_t n,
                          T* out) {
  const T lr = static_cast<T>(lr_ref.Load());
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = param[i] - lr * grad[i];
  }
}

template <typename T>
struct SgdCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor param = *ctx.Input("Param");
    CheckDenseUpdate<T>(ctx, param);
    const DenseTensor grad = *ctx.Input("Grad");
    DenseTensor lr_keep;
    const DeviceScalar lr = ScalarInput(ctx, "LearningRate", &lr_keep);
    T* out = OutputLike<T>(ctx, "ParamOut", param.dims());
    const int64_t n = param.numel();
    if (n == 0) return;
    SgdUpdate<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
        param.data<T>(), grad.data<T>(), lr, n, out);
    cuda::CheckLaunch(ctx);
  }
};

template <typename T>
struct MomentumStep {
  DeviceScalar lr_ref;
  T mu, rescale, decay;
  bool nesterov;
};

template <typename T>
__global__ void MomentumUpdate(const T* param, const T* grad, const T* velocity,
                               MomentumStep<T> s, int64_t n, T* param_out, T* velocity_out) {
  const T lr = static_cast<T>(s.lr_ref.Load());
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    const T g = s.rescale * grad[i] + s.decay * param[i];
    const T v = s.mu * velocity[i] + g;
    velocity_out[i] = v;
    param_out[i] = s.nesterov ? param[i] - lr * (g + s.mu * v) : param[i] - lr * v;
  }
}

template <typename T>
struct MomentumCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor param = *ctx.Input("Param");
    CheckDenseUpdate<T>(ctx, param);
    CheckState(ctx, "Velocity", param);
    const DenseTensor grad = *ctx.Input("Grad");
    const DenseTensor velocity = *ctx.Input("Velocity");
    const std::string& method = ctx.Attr<std::string>("regularization_method");
    const double decay = method == "l2_decay" ? ctx.Attr<float>("regularization_coeff") : 0.0;
    DenseTensor lr_keep;
    const MomentumStep<T> s{ScalarInput(ctx, "LearningRate", &lr_keep),
                            static_cast<T>(ctx.Attr<float>("mu")),
                            static_cast<T>(ctx.Attr<float>("rescale_grad")),
                            static_cast<T>(decay), ctx.Attr<bool>("use_nesterov")};
    T* p_out = OutputLike<T>(ctx, "ParamOut", param.dims());
    T* v_out = OutputLike<T>(ctx, "VelocityOut", param.dims());
    const int64_t n = param.numel();
    if (n == 0) return;
    MomentumUpdate<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
        param.data<T>(), grad.data<T>(), velocity.data<T>(), s, n, p_out, v_out);
    cuda::CheckLaunch(ctx);
  }
};

template <typename T>
struct AdamStep {
  DeviceScalar lr, beta1_pow, beta2_pow;
  T b1, b2, epsilon;
};

template <typename T>
__global__ void AdamUpdate(const T* param, const T* grad, const T* m1, const T* m2,
                           AdamStep<T> s, int64_t n, T* param_out, T* m1_out, T* m2_out) {
  // The step size as the CPU kernel rounds it: in T, from the powers converted to T.
  const T b1p = static_cast<T>(s.beta1_pow.Load()), b2p = static_cast<T>(s.beta2_pow.Load());
  const T lr_t = static_cast<T>(s.lr.Load()) * (sqrt(T(1) - b2p) / (T(1) - b1p));
  const T eps_t = s.epsilon * sqrt(T(1) - b2p);
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    const T g = grad[i];
    const T mom1 = s.b1 * m1[i] + (T(1) - s.b1) * g;
    const T mom2 = s.b2 * m2[i] + (T(1) - s.b2) * g * g;
    m1_out[i] = mom1;
    m2_out[i] = mom2;
    param_out[i] = param[i] - lr_t * (mom1 / (sqrt(mom2) + eps_t));
  }
}

// out = pow * beta in the power's own dtype (float32 rounds the product to float, as the CPU
// kernel does). Queued after AdamUpdate, which reads the old power: out may be its buffer.
__global__ void AdvanceBetaPow(DeviceScalar pow, double beta, void* out) {
  if (pow.is_double) {
    *static_cast<double*>(out) = pow.Load() * beta;
  } else {
    *static_cast<float*>(out) =
        static_cast<float>(pow.Load()) * static_cast<float>(beta);
  }
}

// Beta<k>PowOut = Beta<k>Pow * beta, on the device.
void WriteBetaPowOut(const ExecutionContext& ctx, const char* in, const char* out,
                     DeviceScalar pow, double beta) {
  const DenseTensor* t = ctx.Input(in);
  DenseTensor* o = ctx.Output(out);
  void* dst = o->Resize(t->dims()).mutable_data(ctx.GetPlace(), t->dtype());
  AdvanceBetaPow<<<1, 1, 0, cuda::Stream(ctx)>>>(pow, beta, dst);
  cuda::CheckLaunch(ctx);
}

template <typename T>
struct AdamCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor param = *ctx.Input("Param");
    CheckDenseUpdate<T>(ctx, param);
    CheckState(ctx, "Moment1", param);
    CheckState(ctx, "Moment2", param);
    PL_ENFORCE(!ctx.Attr<bool>("amsgrad"),
               errors::Unimplemented("op `%s` attribute `amsgrad`: not supported by the CUDA "
                                     "kernel",
                                     ctx.Type()));
    PL_ENFORCE(!ctx.HasInput("SkipUpdate"),
               errors::Unimplemented("op `%s` input `SkipUpdate`: not supported by the CUDA "
                                     "kernel",
                                     ctx.Type()));
    const auto scalar_or_attr = [&](const char* slot, const char* attr) {
      return ctx.HasInput(slot) ? ReadScalarInput(ctx, slot) : ctx.Attr<float>(attr);
    };
    const double beta1 = scalar_or_attr("Beta1Tensor", "beta1");
    const double beta2 = scalar_or_attr("Beta2Tensor", "beta2");
    const double epsilon = scalar_or_attr("EpsilonTensor", "epsilon");
    DenseTensor lr_keep, b1p_keep, b2p_keep;
    const AdamStep<T> s{ScalarInput(ctx, "LearningRate", &lr_keep),
                        ScalarInput(ctx, "Beta1Pow", &b1p_keep),
                        ScalarInput(ctx, "Beta2Pow", &b2p_keep), static_cast<T>(beta1),
                        static_cast<T>(beta2), static_cast<T>(epsilon)};
    const DenseTensor grad = *ctx.Input("Grad");
    const DenseTensor m1 = *ctx.Input("Moment1");
    const DenseTensor m2 = *ctx.Input("Moment2");
    T* p_out = OutputLike<T>(ctx, "ParamOut", param.dims());
    T* m1_out = OutputLike<T>(ctx, "Moment1Out", param.dims());
    T* m2_out = OutputLike<T>(ctx, "Moment2Out", param.dims());
    const int64_t n = param.numel();
    if (n > 0) {
      AdamUpdate<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          param.data<T>(), grad.data<T>(), m1.data<T>(), m2.data<T>(), s, n, p_out, m1_out,
          m2_out);
      cuda::CheckLaunch(ctx);
    }
    if (ctx.HasAttr("use_global_beta_pow") && ctx.Attr<bool>("use_global_beta_pow")) return;
    WriteBetaPowOut(ctx, "Beta1Pow", "Beta1PowOut", s.beta1_pow, beta1);
    WriteBetaPowOut(ctx, "Beta2Pow", "Beta2PowOut", s.beta2_pow, beta2);
  }
};

}  // namespace

CudaKernelTable OptimizerCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<SgdCudaKernel, float, double>(&table, "sgd");
  AddCudaKernels<MomentumCudaKernel, float, double>(&table, "momentum");
  AddCudaKernels<AdamCudaKernel, float, double>(&table, "adam");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
