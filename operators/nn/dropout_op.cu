// CUDA kernels of dropout and dropout_grad (float, double), with the CPU kernels' slots,
// attributes, seed and formulas (dropout_op.cc): Out = X * Mask * s in training, with
// s = 1 (downgrade_in_infer) or 1 / (1 - p) (upscale_in_train, 0 when p = 1), and
// Out = X * (1 - p) or Out = X in inference, Mask all ones; each product rounded in T as on
// the CPU, so for a given mask the outputs equal the CPU's bitwise.
//
// The mask differs from the CPU kernel's for the same seed: the CPU draws it in element order
// from std::mt19937_64, a sequential generator, while these kernels draw element k from a
// counter-based generator, Philox4x32-10 keyed by the seed with counter k (dropout_mask.h).
// The mask then depends only on the seed and the element index: the same seed gives the same
// mask on every run, launch configuration and device. The seed is resolved on the host as the
// CPU kernel resolves it (the Seed input, else `seed` when fix_seed, else the default
// generator through platform::ResolveSeed), one call per training run, so the default
// generator advances as on the CPU.
#include <cstdint>
#include <string>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/nn/dropout_mask.h"
#include "operators/nn/dropout_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DenseTensor;
using framework::ExecutionContext;

constexpr char kOp[] = "dropout";
constexpr char kGradOp[] = "dropout_grad";

// out = x * s everywhere; mask (when given) all ones.
template <typename T>
__global__ void ScaleAll(const T* x, int64_t n, T s, T* out, uint8_t* mask) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    out[k] = x[k] * s;
    if (mask != nullptr) mask[k] = 1;
  }
}

// Draws element k's mask bit from (seed, k) and applies it.
template <typename T>
__global__ void DropoutTrain(const T* x, int64_t n, uint64_t seed, double p, T s, T* out,
                             uint8_t* mask) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const bool keep = dropout::KeepElement(seed, static_cast<uint64_t>(k), p);
    if (mask != nullptr) mask[k] = keep ? 1 : 0;
    out[k] = keep ? x[k] * s : T(0);
  }
}

// dx = dout * s where the mask is set, 0 elsewhere.
template <typename T>
__global__ void MaskedScale(const T* dout, const uint8_t* mask, int64_t n, T s, T* dx) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    dx[k] = mask[k] != 0 ? dout[k] * s : T(0);
  }
}

template <typename T>
struct DropoutCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const double p = ctx.Attr<float>("dropout_prob");
    const bool upscale = dropout::Upscales(ctx);
    const platform::Place place = ctx.GetPlace();
    const int64_t n = x.numel();
    DenseTensor* out = ctx.Output("Out");
    out->Resize(x.dims());
    out->set_lod(x.lod());
    T* o = out->mutable_data<T>(place);
    // Inference programs may have no Mask output: nothing is written for it then.
    uint8_t* m = nullptr;
    if (DenseTensor* mask = ctx.Output("Mask")) {
      m = mask->Resize(x.dims()).mutable_data<uint8_t>(place);
    }
    const cudaStream_t stream = cuda::Stream(ctx);
    if (ctx.Attr<bool>("is_test")) {
      if (n == 0) return;
      const T s = static_cast<T>(dropout::InferScale(p, upscale));
      ScaleAll<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(x.data<T>(), n, s, o, m);
      cuda::CheckLaunch(ctx);
      return;
    }
    // Resolved before the size test, as on the CPU: the default generator advances per run.
    const uint64_t seed = dropout::MaskSeed(ctx);
    if (n == 0) return;
    const T s = static_cast<T>(dropout::TrainScale(p, upscale));
    DropoutTrain<T>
        <<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(x.data<T>(), n, seed, p, s, o, m);
    cuda::CheckLaunch(ctx);
  }
};

template <typename T>
struct DropoutGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    const double p = ctx.Attr<float>("dropout_prob");
    const bool upscale = dropout::Upscales(ctx);
    const bool is_test = ctx.Attr<bool>("is_test");
    const int64_t n = dout.numel();
    // A local copy keeps the mask's buffer alive even if X@GRAD is the Mask variable.
    const DenseTensor mask = is_test ? DenseTensor() : dropout::GradMask(ctx, dout);
    DenseTensor* dx = ctx.Output("X@GRAD");
    dx->Resize(dout.dims());
    dx->set_lod(dout.lod());
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    if (n == 0) return;
    const cudaStream_t stream = cuda::Stream(ctx);
    if (is_test) {
      const T s = static_cast<T>(dropout::InferScale(p, upscale));
      ScaleAll<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(dout.data<T>(), n, s, o, nullptr);
    } else {
      const T s = static_cast<T>(dropout::TrainScale(p, upscale));
      MaskedScale<T><<<cuda::Blocks(n), cuda::kThreads, 0, stream>>>(dout.data<T>(),
                                                                     mask.data<uint8_t>(), n, s, o);
    }
    cuda::CheckLaunch(ctx);
  }
};

}  // namespace

CudaKernelTable DropoutCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<DropoutCudaKernel, float, double>(&table, kOp);
  AddCudaKernels<DropoutGradCudaKernel, float, double>(&table, kGradOp);
  return table;
}

}  // namespace operators
}  // namespace paddle_like
