// CUDA kernels of layer_norm and layer_norm_grad (float, double): the CPU kernels' formulas
// (layer_norm_op.cc) and checks (layer_norm_util.h), with every sum in double and in a fixed
// order, so that runs are reproducible bit for bit. A row's sums are a block's tree reduction
// (they differ from the CPU's sequential sums by rounding only); the Scale and Bias gradients
// sum each column over the rows in the CPU's order, one thread per column.
#include <cmath>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/nn/layer_norm_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

constexpr int kBlock = 256;  // Threads per row; a power of two for the tree reduction.

// The sum of every thread's `v` in a fixed order; every thread of the block receives it. All
// threads must call it.
__device__ double BlockSum(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int width = kBlock / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) shared[threadIdx.x] += shared[threadIdx.x + width];
    __syncthreads();
  }
  const double sum = shared[0];
  __syncthreads();  // shared[0] is read before the next call overwrites it.
  return sum;
}

// One block per row of [left, h]: the mean, the biased variance (two passes, as on the CPU)
// and y = (x - mean) / sqrt(var + epsilon) * scale + bias.
template <typename T>
__global__ void LayerNormRows(const T* x, const T* scale, const T* bias, int64_t left, int64_t h,
                              double epsilon, T* y, T* mean, T* var) {
  __shared__ double shared[kBlock];
  for (int64_t i = blockIdx.x; i < left; i += gridDim.x) {
    const T* row = x + i * h;
    double s = 0;
    for (int64_t j = threadIdx.x; j < h; j += kBlock) s += static_cast<double>(row[j]);
    s = BlockSum(s, shared);
    const double mu = h > 0 ? s / static_cast<double>(h) : 0.0;
    double ss = 0;
    for (int64_t j = threadIdx.x; j < h; j += kBlock) {
      const double d = static_cast<double>(row[j]) - mu;
      ss += d * d;
    }
    ss = BlockSum(ss, shared);
    const double sigma2 = h > 0 ? ss / static_cast<double>(h) : 0.0;
    const double r = 1.0 / sqrt(sigma2 + epsilon);
    for (int64_t j = threadIdx.x; j < h; j += kBlock) {
      const double gamma = scale ? static_cast<double>(scale[j]) : 1.0;
      const double beta = bias ? static_cast<double>(bias[j]) : 0.0;
      y[i * h + j] = static_cast<T>((static_cast<double>(row[j]) - mu) * r * gamma + beta);
    }
    if (threadIdx.x == 0) {
      mean[i] = static_cast<T>(mu);
      var[i] = static_cast<T>(sigma2);
    }
  }
}

// x normalised with its row's statistics, as the CPU's grad kernel computes it.
template <typename T>
__device__ double XHat(const T* x, const T* mean, double r, int64_t i, int64_t h, int64_t j) {
  return (static_cast<double>(x[i * h + j]) - static_cast<double>(mean[i])) * r;
}

// One thread per column j: dScale[j] = sum_i dy * xhat, dBias[j] = sum_i dy, over the rows
// in increasing order.
template <typename T>
__global__ void LayerNormParamGrads(const T* x, const T* dy, const T* mean, const T* var,
                                    int64_t left, int64_t h, double epsilon, T* dscale, T* dbias) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < h; j += step) {
    double a = 0, b = 0;
    for (int64_t i = 0; i < left; ++i) {
      const double r = 1.0 / sqrt(static_cast<double>(var[i]) + epsilon);
      const double d = static_cast<double>(dy[i * h + j]);
      a += d;
      b += d * XHat(x, mean, r, i, h, j);
    }
    if (dscale) dscale[j] = static_cast<T>(b);
    if (dbias) dbias[j] = static_cast<T>(a);
  }
}

// One block per row: dx = r * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * scale.
template <typename T>
__global__ void LayerNormXGrad(const T* x, const T* dy, const T* scale, const T* mean, const T* var,
                               int64_t left, int64_t h, double epsilon, T* dx) {
  __shared__ double shared[kBlock];
  for (int64_t i = blockIdx.x; i < left; i += gridDim.x) {
    const double r = 1.0 / sqrt(static_cast<double>(var[i]) + epsilon);
    double mean_g = 0, mean_gx = 0;
    for (int64_t j = threadIdx.x; j < h; j += kBlock) {
      const double gamma = scale ? static_cast<double>(scale[j]) : 1.0;
      const double gj = static_cast<double>(dy[i * h + j]) * gamma;
      mean_g += gj;
      mean_gx += gj * XHat(x, mean, r, i, h, j);
    }
    mean_g = BlockSum(mean_g, shared) / static_cast<double>(h);
    mean_gx = BlockSum(mean_gx, shared) / static_cast<double>(h);
    for (int64_t j = threadIdx.x; j < h; j += kBlock) {
      const double gamma = scale ? static_cast<double>(scale[j]) : 1.0;
      const double gj = static_cast<double>(dy[i * h + j]) * gamma;
      dx[i * h + j] = static_cast<T>(r * (gj - mean_g - XHat(x, mean, r, i, h, j) * mean_gx));
    }
  }
}

int RowBlocks(int64_t rows) { return static_cast<int>(rows < 65536 ? rows : 65536); }

template <typename T>
const T* OptionalData(const ExecutionContext& ctx, const char* slot) {
  const DenseTensor* t = ctx.Input(slot);
  return t != nullptr && t->numel() > 0 ? t->data<T>() : nullptr;
}

template <typename T>
struct LayerNormCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const RowLayout rows = CheckLayerNormInputs(ctx);
    const DenseTensor x = *ctx.Input("X");
    const T* scale = OptionalData<T>(ctx, "Scale");
    const T* bias = OptionalData<T>(ctx, "Bias");
    const double epsilon = ctx.Attr<float>("epsilon");
    DenseTensor* y = ctx.Output("Y");
    DenseTensor* mean = ctx.Output("Mean");
    DenseTensor* var = ctx.Output("Variance");
    y->Resize(x.dims());
    y->set_lod(x.lod());
    mean->Resize(DDim({rows.left}));
    var->Resize(DDim({rows.left}));
    T* o = y->mutable_data<T>(ctx.GetPlace());
    T* mo = mean->mutable_data<T>(ctx.GetPlace());
    T* vo = var->mutable_data<T>(ctx.GetPlace());
    if (rows.left == 0) return;
    LayerNormRows<T><<<RowBlocks(rows.left), kBlock, 0, cuda::Stream(ctx)>>>(
        rows.right > 0 ? x.data<T>() : nullptr, scale, bias, rows.left, rows.right, epsilon, o, mo,
        vo);
    cuda::CheckLaunch(ctx);
  }
};

template <typename T>
struct LayerNormGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const RowLayout rows = CheckLayerNormGradInputs(ctx);
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor dy = *ctx.Input("Y@GRAD");
    const bool empty = rows.left * rows.right == 0;
    const T* xd = empty ? nullptr : x.data<T>();
    const T* g = empty ? nullptr : dy.data<T>();
    const T* scale = OptionalData<T>(ctx, "Scale");
    const T* mean = rows.left > 0 ? ctx.Input("Mean")->data<T>() : nullptr;
    const T* var = rows.left > 0 ? ctx.Input("Variance")->data<T>() : nullptr;
    const double epsilon = ctx.Attr<float>("epsilon");
    const cudaStream_t stream = cuda::Stream(ctx);
    DenseTensor* dscale = ctx.Output("Scale@GRAD");
    DenseTensor* dbias = ctx.Output("Bias@GRAD");
    T* ds = nullptr;
    T* db = nullptr;
    if (dscale != nullptr) {
      dscale->Resize(DDim({rows.right}));
      ds = dscale->mutable_data<T>(ctx.GetPlace());
    }
    if (dbias != nullptr) {
      dbias->Resize(DDim({rows.right}));
      db = dbias->mutable_data<T>(ctx.GetPlace());
    }
    if ((ds || db) && rows.right > 0) {
      // With no rows the sums are 0: the kernel's loop over rows is empty.
      LayerNormParamGrads<T><<<cuda::Blocks(rows.right), cuda::kThreads, 0, stream>>>(
          xd, g, mean, var, rows.left, rows.right, epsilon, ds, db);
      cuda::CheckLaunch(ctx);
    }
    DenseTensor* dx = ctx.Output("X@GRAD");
    if (dx == nullptr) return;
    dx->Resize(x.dims());
    dx->set_lod(x.lod());
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    if (empty) return;
    LayerNormXGrad<T><<<RowBlocks(rows.left), kBlock, 0, stream>>>(
        xd, g, scale, mean, var, rows.left, rows.right, epsilon, o);
    cuda::CheckLaunch(ctx);
  }
};

}  // namespace

CudaKernelTable LayerNormCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<LayerNormCudaKernel, float, double>(&table, kLayerNormOp);
  AddCudaKernels<LayerNormGradCudaKernel, float, double>(&table, kLayerNormGradOp);
  return table;
}

}  // namespace operators
}  // namespace paddle_like
