// CUDA kernels of batch_norm and batch_norm_grad (float, double), with the plain CPU kernels'
// slots, attributes, modes and formulas (batch_norm_op.cc, batch_norm_grad_op.cc): batch
// statistics with the biased variance in training, running statistics when is_test (without
// trainable_statistics) or use_global_stats, SavedVariance the inverse standard deviation,
// running averages weighted by momentum (or MomentumTensor), channels with one value passed
// through, fuse_with_relu, data_layout NCHW / NHWC, X of rank 2 to 5.
//
// Not cuDNN: cudnnBatchNormalizationForwardTraining updates the running variance with the
// unbiased batch variance (times m / (m - 1)) where this op uses the biased one, accumulates
// float data in float, and cannot pass a channel of one value through. These kernels instead
// compute what the CPU kernel computes, in double: the mean, then the sum of squared
// deviations from it (two passes, no cancellation), and the per-channel coefficients with
// __dmul_rn / __dadd_rn so that nvcc fuses nothing into FMAs: the CPU's operations in the
// CPU's order. Only the order of the per-channel sums differs (CPU: batch then position,
// sequentially), so the per-channel doubles differ from the CPU's by double rounding; rounded
// to T they mostly agree bitwise, and within an ulp of T otherwise.
//
// Determinism: no atomics. A channel's m values are cut into `parts` chunks, a function of
// the shape only; one block sums a chunk with a fixed thread assignment and a fixed tree in
// shared memory, and one thread per channel adds the chunks in order. Two runs on the same
// inputs give bitwise equal outputs, whatever the device.
//
// Registered as the plain CUDA kernels only (no cuDNN is called, so a cuDNN key would misname
// them): with no cuDNN kernel of batch_norm, a GPU program picks these whether or not cuDNN
// is allowed for the op.
#include <cstdint>
#include <string>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/nn/batch_norm_util.h"

namespace paddle_like {
namespace operators {

namespace {

// X as [outer, channels, inner]: NCHW gives [N, C, spatial], NHWC [N * spatial, C, 1]. The
// values of channel c are j = o * inner + i for j in [0, outer * inner).
struct ChannelGeometry {
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 1;

  __host__ __device__ int64_t PerChannel() const { return outer * inner; }
};

ChannelGeometry GeometryOf(const ChannelLayout& l) {
  ChannelGeometry g;
  g.channels = l.c;
  g.outer = l.channels_last ? l.n * l.inner : l.n;
  g.inner = l.channels_last ? 1 : l.inner;
  return g;
}

constexpr int kThreads = cuda::kThreads;  // A power of two: the tree below halves it.
constexpr int kTileChannels = 32;         // Columns kernel: channels per block (a warp) ...
constexpr int kTileRows = kThreads / kTileChannels;  // ... and rows of threads.

// acc[0] += x.
template <typename T>
struct SumOfX {
  const T* x;
  __device__ void operator()(int64_t k, int64_t, double* acc) const {
    acc[0] += static_cast<double>(x[k]);
  }
};

// acc[0] += (x - mu_c)^2.
template <typename T>
struct SumOfSquaredDeviations {
  const T* x;
  const double* mu;
  __device__ void operator()(int64_t k, int64_t c, double* acc) const {
    const double d = __dsub_rn(static_cast<double>(x[k]), mu[c]);
    acc[0] = __dadd_rn(acc[0], __dmul_rn(d, d));
  }
};

// acc[0] += dy, acc[1] += dy (x - mu_c) r_c.
template <typename T>
struct GradSums {
  const T* dy;
  const T* x;
  const double* mu;
  const double* r;
  __device__ void operator()(int64_t k, int64_t c, double* acc) const {
    const double g = static_cast<double>(dy[k]);
    acc[0] += g;
    const double t = __dmul_rn(__dmul_rn(g, __dsub_rn(static_cast<double>(x[k]), mu[c])), r[c]);
    acc[1] = __dadd_rn(acc[1], t);
  }
};

// For inner > 1 (NCHW). Block (c, p) sums chunk p of channel c: thread t takes values
// begin + t, begin + t + kThreads, ...; a tree adds the threads' sums. Writes
// partial[(c * parts + p) * K + q].
template <int K, typename Term>
__global__ void ChunkSumsStrided(ChannelGeometry g, int64_t chunk, Term term, double* partial) {
  __shared__ double shared[K][kThreads];
  const int64_t parts = gridDim.y;
  const int64_t p = blockIdx.y;
  const int64_t m = g.PerChannel();
  const int64_t begin = p * chunk;
  const int64_t end = begin + chunk < m ? begin + chunk : m;
  const int tid = threadIdx.x;
  // j advances by kThreads: (o, i) by whole rows and the remainder.
  const int64_t step_o = kThreads / g.inner;
  const int64_t step_i = kThreads % g.inner;
  for (int64_t c = blockIdx.x; c < g.channels; c += gridDim.x) {
    double acc[K];
    for (int q = 0; q < K; ++q) acc[q] = 0;
    int64_t j = begin + tid;
    int64_t o = j / g.inner;
    int64_t i = j % g.inner;
    for (; j < end; j += kThreads) {
      term((o * g.channels + c) * g.inner + i, c, acc);
      o += step_o;
      i += step_i;
      if (i >= g.inner) {
        i -= g.inner;
        ++o;
      }
    }
    for (int q = 0; q < K; ++q) shared[q][tid] = acc[q];
    __syncthreads();
    for (int width = kThreads / 2; width > 0; width /= 2) {
      if (tid < width) {
        for (int q = 0; q < K; ++q) shared[q][tid] += shared[q][tid + width];
      }
      __syncthreads();
    }
    if (tid == 0) {
      for (int q = 0; q < K; ++q) partial[(c * parts + p) * K + q] = shared[q][0];
    }
    __syncthreads();  // shared[.][0] is read before the next channel overwrites it.
  }
}

// For inner == 1 (NHWC, and [N, C]): channel c's values are rows r at r * channels + c. A
// block (kTileChannels x kTileRows threads) sums chunk p of a tile of consecutive channels,
// reading each row's channels together; thread (x, y) takes rows begin + y, + kTileRows, ...,
// and thread (x, 0) adds the kTileRows sums of its channel in order.
template <int K, typename Term>
__global__ void ChunkSumsColumns(ChannelGeometry g, int64_t chunk, Term term, double* partial) {
  __shared__ double shared[K][kTileRows][kTileChannels];
  const int64_t parts = gridDim.y;
  const int64_t p = blockIdx.y;
  const int64_t m = g.outer;
  const int64_t begin = p * chunk;
  const int64_t end = begin + chunk < m ? begin + chunk : m;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  for (int64_t tile = blockIdx.x; tile * kTileChannels < g.channels; tile += gridDim.x) {
    const int64_t c = tile * kTileChannels + tx;
    double acc[K];
    for (int q = 0; q < K; ++q) acc[q] = 0;
    if (c < g.channels) {
      for (int64_t r = begin + ty; r < end; r += kTileRows) term(r * g.channels + c, c, acc);
    }
    for (int q = 0; q < K; ++q) shared[q][ty][tx] = acc[q];
    __syncthreads();
    if (ty == 0 && c < g.channels) {
      for (int q = 0; q < K; ++q) {
        double s = 0;
        for (int y = 0; y < kTileRows; ++y) s += shared[q][y][tx];
        partial[(c * parts + p) * K + q] = s;
      }
    }
    __syncthreads();
  }
}

// totals[c * K + q] = the chunks' sums of channel c added in order.
template <int K>
__global__ void AddChunks(const double* partial, int64_t channels, int64_t parts, double* totals) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < channels;
       c += step) {
    for (int q = 0; q < K; ++q) {
      double s = 0;
      for (int64_t p = 0; p < parts; ++p) s += partial[(c * parts + p) * K + q];
      totals[c * K + q] = s;
    }
  }
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Grid dims stay within CUDA's limits; the kernels loop over the rest.
constexpr int64_t kMaxGridX = 65535;
// Chunks per channel: enough blocks to fill a device (about kTargetBlocks), each chunk at
// least `min_chunk` values. A function of the shape only, so the sums' order is too.
constexpr int64_t kTargetBlocks = 2048;
constexpr int64_t kMaxParts = 1024;

int64_t PartsFor(int64_t m, int64_t blocks_per_part, int64_t min_chunk) {
  const int64_t by_size = CeilDiv(m, min_chunk);
  const int64_t by_device = CeilDiv(kTargetBlocks, blocks_per_part);
  int64_t parts = by_size < by_device ? by_size : by_device;
  if (parts > kMaxParts) parts = kMaxParts;
  return parts < 1 ? 1 : parts;
}

// totals[c * K + q] = sum over the values of channel c of the terms q (term(k, c, acc)
// adds them into acc[0..K)), in a fixed order. `totals` holds channels * K doubles.
template <int K, typename Term>
void ChannelSums(const ExecutionContext& ctx, const ChannelGeometry& g, const Term& term,
                 double* totals) {
  if (g.channels == 0) return;
  const platform::CUDADeviceContext& dev = cuda::Device(ctx);
  const cudaStream_t stream = dev.stream();
  const int64_t m = g.PerChannel();
  const bool columns = g.inner == 1;
  const int64_t blocks_x = columns ? CeilDiv(g.channels, kTileChannels) : g.channels;
  const int64_t parts = PartsFor(m, blocks_x, columns ? kTileRows * 8 : kThreads * 4);
  const int64_t chunk = m > 0 ? CeilDiv(m, parts) : 0;
  platform::AllocationPtr hold =
      dev.Temporary(static_cast<size_t>(g.channels * parts * K) * sizeof(double));
  double* partial = static_cast<double*>(hold->ptr());
  const dim3 grid(static_cast<unsigned>(blocks_x < kMaxGridX ? blocks_x : kMaxGridX),
                  static_cast<unsigned>(parts));
  if (columns) {
    ChunkSumsColumns<K, Term>
        <<<grid, dim3(kTileChannels, kTileRows), 0, stream>>>(g, chunk, term, partial);
  } else {
    ChunkSumsStrided<K, Term><<<grid, kThreads, 0, stream>>>(g, chunk, term, partial);
  }
  cuda::CheckLaunch(ctx);
  AddChunks<K>
      <<<cuda::Blocks(g.channels), kThreads, 0, stream>>>(partial, g.channels, parts, totals);
  cuda::CheckLaunch(ctx);
  // `hold` may be freed now: the allocator reuses it only for work queued behind.
}

// Per-channel device buffers of doubles, kept alive by the holder.
struct ChannelScratch {
  platform::AllocationPtr hold;
  double* base = nullptr;
  double* Row(int i, int64_t channels) const { return base + i * channels; }
};

ChannelScratch MakeScratch(const ExecutionContext& ctx, int rows, int64_t channels) {
  ChannelScratch s;
  const int64_t n = channels > 0 ? rows * channels : 1;
  s.hold = cuda::Device(ctx).Temporary(static_cast<size_t>(n) * sizeof(double));
  s.base = static_cast<double*>(s.hold->ptr());
  return s;
}

// mu[c] = sums[c] / m.
__global__ void DivideBy(const double* sums, int64_t channels, double m, double* mu) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < channels;
       c += step) {
    mu[c] = __ddiv_rn(sums[c], m);
  }
}

// Where a finalize kernel writes the per-channel outputs (null: not written).
template <typename T>
struct StatOutputs {
  T* mean_out = nullptr;
  T* variance_out = nullptr;
  T* saved_mean = nullptr;
  T* saved_variance = nullptr;
};

// Training: the batch variance, the running averages, the saved statistics and Y's
// coefficients a = gamma / std, b = beta - mu a (batch_norm_op.cc, in the same order).
template <typename T>
__global__ void FinalizeTraining(int64_t channels, double m, double epsilon, double momentum,
                                 const T* momentum_tensor, const double* mu,
                                 const double* squared_sums, const T* old_mean, const T* old_var,
                                 const T* gamma, const T* beta, StatOutputs<T> out, double* a,
                                 double* b) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  const double w = momentum_tensor != nullptr ? static_cast<double>(momentum_tensor[0]) : momentum;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < channels;
       c += step) {
    const double var = __ddiv_rn(squared_sums[c], m);
    const double new_mean = __dadd_rn(__dmul_rn(w, static_cast<double>(old_mean[c])),
                                      __dmul_rn(__dsub_rn(1.0, w), mu[c]));
    const double new_var =
        __dadd_rn(__dmul_rn(w, static_cast<double>(old_var[c])), __dmul_rn(__dsub_rn(1.0, w), var));
    const double inv_std = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(var, epsilon)));
    if (out.mean_out != nullptr) out.mean_out[c] = static_cast<T>(new_mean);
    if (out.variance_out != nullptr) out.variance_out[c] = static_cast<T>(new_var);
    if (out.saved_mean != nullptr) out.saved_mean[c] = static_cast<T>(mu[c]);
    if (out.saved_variance != nullptr) out.saved_variance[c] = static_cast<T>(inv_std);
    a[c] = __dmul_rn(static_cast<double>(gamma[c]), inv_std);
    b[c] = __dsub_rn(static_cast<double>(beta[c]), __dmul_rn(mu[c], a[c]));
  }
}

// Running statistics: saved statistics and Y's coefficients from Mean / Variance.
template <typename T>
__global__ void FinalizeGlobal(int64_t channels, double epsilon, const T* mean, const T* var,
                               const T* gamma, const T* beta, StatOutputs<T> out, double* a,
                               double* b) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < channels;
       c += step) {
    const double mu = static_cast<double>(mean[c]);
    const double inv_std =
        __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(static_cast<double>(var[c]), epsilon)));
    if (out.saved_mean != nullptr) out.saved_mean[c] = static_cast<T>(mu);
    if (out.saved_variance != nullptr) out.saved_variance[c] = static_cast<T>(inv_std);
    a[c] = __dmul_rn(static_cast<double>(gamma[c]), inv_std);
    b[c] = __dsub_rn(static_cast<double>(beta[c]), __dmul_rn(mu, a[c]));
  }
}

// y = x a_c + b_c, then max(y, 0) when `relu`.
template <typename T>
__global__ void Normalize(const T* x, int64_t n, ChannelGeometry g, const double* a,
                          const double* b, bool relu, T* y) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t c = (k / g.inner) % g.channels;
    T v = static_cast<T>(__dadd_rn(__dmul_rn(static_cast<double>(x[k]), a[c]), b[c]));
    if (relu) v = v > T(0) ? v : T(0);
    y[k] = v;
  }
}

// y = max(x, 0) when `relu`, else x (a channel of one value passed through).
template <typename T>
__global__ void PassThrough(const T* x, int64_t n, bool relu, T* y) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    y[k] = relu ? (x[k] > T(0) ? x[k] : T(0)) : x[k];
  }
}

// The grad op's statistics as doubles: mu = mean, r = the inverse standard deviation (from
// Variance in inference mode, SavedVariance as it is in training).
template <typename T>
__global__ void GradStats(int64_t channels, bool global, double epsilon, const T* mean,
                          const T* var, double* mu, double* r) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < channels;
       c += step) {
    mu[c] = static_cast<double>(mean[c]);
    const double v = static_cast<double>(var[c]);
    r[c] = global ? __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(v, epsilon))) : v;
  }
}

// dBias, dScale and the coefficients of dX = a dY + b X + d (batch_norm_grad_op.cc, in the
// same order); `sums` holds (sum dY, sum dY xhat) per channel.
template <typename T>
__global__ void FinalizeGrad(int64_t channels, double m, bool global, bool passed_through,
                             const T* gamma, const double* mu, const double* r, const double* sums,
                             T* dbias, T* dscale, double* a, double* b, double* d) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < channels;
       c += step) {
    const double sum_dy = passed_through ? 0.0 : sums[2 * c];
    const double sum_dy_xhat = passed_through ? 0.0 : sums[2 * c + 1];
    if (dbias != nullptr) dbias[c] = static_cast<T>(sum_dy);
    if (dscale != nullptr) dscale[c] = static_cast<T>(sum_dy_xhat);
    const double gm = static_cast<double>(gamma[c]);
    double ac = 0, bc = 0, dc = 0;
    if (passed_through) {
      ac = 1.0;
    } else if (global) {
      ac = __dmul_rn(gm, r[c]);
    } else {
      // gamma r / m (m dY - sum dY - (x - mu) r sum(dY xhat)).
      ac = __dmul_rn(gm, r[c]);
      bc = __ddiv_rn(__dmul_rn(__dmul_rn(__dmul_rn(-gm, r[c]), r[c]), sum_dy_xhat), m);
      dc = __dsub_rn(__ddiv_rn(__dmul_rn(__dmul_rn(-gm, r[c]), sum_dy), m), __dmul_rn(bc, mu[c]));
    }
    a[c] = ac;
    b[c] = bc;
    d[c] = dc;
  }
}

// dx = a_c dy + b_c x + d_c.
template <typename T>
__global__ void GradX(const T* dy, const T* x, int64_t n, ChannelGeometry g, const double* a,
                      const double* b, const double* d, T* dx) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t c = (k / g.inner) % g.channels;
    const double v = __dadd_rn(__dadd_rn(__dmul_rn(a[c], static_cast<double>(dy[k])),
                                         __dmul_rn(b[c], static_cast<double>(x[k]))),
                               d[c]);
    dx[k] = static_cast<T>(v);
  }
}

// InvalidArgumentError naming the op and `slot` unless `t` holds T (the dtype of X).
template <typename T>
void CheckDtype(const char* op, const char* slot, const DenseTensor& t) {
  const DataType want = platform::ToDataType<T>();
  PL_ENFORCE(t.dtype() == want,
             errors::InvalidArgument("op `%s` input `%s`: expected a %s tensor (the dtype of "
                                     "X), received %s",
                                     op, slot, platform::DataTypeName(want),
                                     platform::DataTypeName(t.dtype())));
}

// A [channels] output of T, or null when the op has no such output.
template <typename T>
T* ChannelOutput(const ExecutionContext& ctx, const char* slot, int64_t channels) {
  DenseTensor* t = ctx.Output(slot);
  if (t == nullptr) return nullptr;
  return t->Resize(DDim({channels})).mutable_data<T>(ctx.GetPlace());
}

template <typename T>
void FillZeros(const ExecutionContext& ctx, T* dst, int64_t n) {
  if (n == 0 || dst == nullptr) return;
  platform::CheckCuda(
      cudaMemsetAsync(dst, 0, static_cast<size_t>(n) * sizeof(T), cuda::Stream(ctx)),
      "cudaMemsetAsync");
}

template <typename T>
struct BatchNormCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    // Local copies share the buffers: an output that is the same variable as an input then
    // gets a fresh buffer from mutable_data, and the input values stay readable.
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor scale = *ctx.Input("Scale");
    const DenseTensor bias = *ctx.Input("Bias");
    const DenseTensor mean = *ctx.Input("Mean");
    const DenseTensor variance = *ctx.Input("Variance");
    const ChannelLayout l =
        MakeChannelLayout(kBatchNormOp, x.dims(), ctx.Attr<std::string>("data_layout"));
    for (const char* slot : {"Scale", "Bias", "Mean", "Variance"}) {
      CheckChannelTensor(kBatchNormOp, slot, *ctx.Input(slot), l);
      CheckDtype<T>(kBatchNormOp, slot, *ctx.Input(slot));
    }
    const ChannelGeometry g = GeometryOf(l);
    const int64_t channels = g.channels;
    const double epsilon = ctx.Attr<float>("epsilon");
    const bool global =
        UsesGlobalStats(ctx.Attr<bool>("is_test"), ctx.Attr<bool>("use_global_stats"),
                        ctx.Attr<bool>("trainable_statistics"));
    const bool relu = ctx.HasAttr("fuse_with_relu") && ctx.Attr<bool>("fuse_with_relu");
    const cudaStream_t stream = cuda::Stream(ctx);
    DenseTensor* y = ctx.Output("Y");
    y->Resize(x.dims());
    y->set_lod(x.lod());

    if (!global && g.PerChannel() <= 1) {
      // One value (or none) per channel: pass X through, keep the running statistics.
      KeepRunningStat(ctx, "Mean", "MeanOut");
      KeepRunningStat(ctx, "Variance", "VarianceOut");
      FillZeros(ctx, ChannelOutput<T>(ctx, "SavedMean", channels), channels);
      FillZeros(ctx, ChannelOutput<T>(ctx, "SavedVariance", channels), channels);
      T* yd = y->mutable_data<T>(ctx.GetPlace());
      const int64_t n = x.numel();
      if (n == 0) return;
      // The CPU kernel applies the fused relu here too.
      PassThrough<T><<<cuda::Blocks(n), kThreads, 0, stream>>>(x.data<T>(), n, relu, yd);
      cuda::CheckLaunch(ctx);
      return;
    }

    StatOutputs<T> out;
    const T* momentum_tensor = nullptr;
    double momentum = 0;
    if (global) {
      KeepRunningStat(ctx, "Mean", "MeanOut");
      KeepRunningStat(ctx, "Variance", "VarianceOut");
    } else {
      momentum = ctx.Attr<float>("momentum");
      if (const DenseTensor* mt = ctx.Input("MomentumTensor")) {
        PL_ENFORCE(mt->numel() == 1,
                   errors::InvalidArgument("op `%s` input `MomentumTensor`: expected one "
                                           "element, received shape %s",
                                           kBatchNormOp, mt->dims().ToString()));
        CheckDtype<T>(kBatchNormOp, "MomentumTensor", *mt);
        // Read on the device where it lives there: no wait for the queued work.
        if (mt->place().is_gpu()) {
          momentum_tensor = mt->data<T>();
        } else {
          momentum = static_cast<double>(mt->data<T>()[0]);
        }
      }
      out.mean_out = ChannelOutput<T>(ctx, "MeanOut", channels);
      out.variance_out = ChannelOutput<T>(ctx, "VarianceOut", channels);
    }
    out.saved_mean = ChannelOutput<T>(ctx, "SavedMean", channels);
    out.saved_variance = ChannelOutput<T>(ctx, "SavedVariance", channels);
    T* yd = y->mutable_data<T>(ctx.GetPlace());
    if (channels == 0) return;

    // Rows: sums, mu, a, b.
    const ChannelScratch s = MakeScratch(ctx, 4, channels);
    double* sums = s.Row(0, channels);
    double* mu = s.Row(1, channels);
    double* a = s.Row(2, channels);
    double* b = s.Row(3, channels);
    const int blocks = cuda::Blocks(channels);
    if (global) {
      FinalizeGlobal<T><<<blocks, kThreads, 0, stream>>>(channels, epsilon, mean.data<T>(),
                                                         variance.data<T>(), scale.data<T>(),
                                                         bias.data<T>(), out, a, b);
      cuda::CheckLaunch(ctx);
    } else {
      const double m = static_cast<double>(g.PerChannel());
      ChannelSums<1>(ctx, g, SumOfX<T>{x.data<T>()}, sums);
      DivideBy<<<blocks, kThreads, 0, stream>>>(sums, channels, m, mu);
      cuda::CheckLaunch(ctx);
      ChannelSums<1>(ctx, g, SumOfSquaredDeviations<T>{x.data<T>(), mu}, sums);
      FinalizeTraining<T><<<blocks, kThreads, 0, stream>>>(
          channels, m, epsilon, momentum, momentum_tensor, mu, sums, mean.data<T>(),
          variance.data<T>(), scale.data<T>(), bias.data<T>(), out, a, b);
      cuda::CheckLaunch(ctx);
    }
    const int64_t n = x.numel();
    if (n == 0) return;
    Normalize<T><<<cuda::Blocks(n), kThreads, 0, stream>>>(x.data<T>(), n, g, a, b, relu, yd);
    cuda::CheckLaunch(ctx);
  }
};

template <typename T>
struct BatchNormGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const BatchNormGradInputs in = CheckBatchNormGradInputs(ctx);
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor dy = *ctx.Input("Y@GRAD");
    const DenseTensor scale = *ctx.Input("Scale");
    const DenseTensor mean = *ctx.Input(in.mean_slot);
    const DenseTensor var = *ctx.Input(in.var_slot);
    CheckDtype<T>(kBatchNormGradOp, "Y@GRAD", dy);
    CheckDtype<T>(kBatchNormGradOp, "Scale", scale);
    CheckDtype<T>(kBatchNormGradOp, in.mean_slot, mean);
    CheckDtype<T>(kBatchNormGradOp, in.var_slot, var);
    const ChannelGeometry g = GeometryOf(in.layout);
    const int64_t channels = g.channels;
    const bool passed_through = !in.global && g.PerChannel() <= 1;
    const cudaStream_t stream = cuda::Stream(ctx);

    T* dbias = ChannelOutput<T>(ctx, "Bias@GRAD", channels);
    T* dscale = ChannelOutput<T>(ctx, "Scale@GRAD", channels);
    T* dx = nullptr;
    if (DenseTensor* t = ctx.Output("X@GRAD")) {
      t->Resize(x.dims());
      t->set_lod(x.lod());
      dx = t->mutable_data<T>(ctx.GetPlace());
    }
    if (channels == 0) return;

    // Rows: mu, r, a, b, d, then (sum dY, sum dY xhat) interleaved over two rows.
    const ChannelScratch s = MakeScratch(ctx, 7, channels);
    double* mu = s.Row(0, channels);
    double* r = s.Row(1, channels);
    double* a = s.Row(2, channels);
    double* b = s.Row(3, channels);
    double* d = s.Row(4, channels);
    double* sums = s.Row(5, channels);
    const int blocks = cuda::Blocks(channels);
    const double epsilon = ctx.Attr<float>("epsilon");
    GradStats<T><<<blocks, kThreads, 0, stream>>>(channels, in.global, epsilon, mean.data<T>(),
                                                  var.data<T>(), mu, r);
    cuda::CheckLaunch(ctx);
    if (g.PerChannel() == 0) {
      FillZeros(ctx, sums, 2 * channels);  // Sums over no values (FinalizeGrad reads them).
    } else if (!passed_through) {
      ChannelSums<2>(ctx, g, GradSums<T>{dy.data<T>(), x.data<T>(), mu, r}, sums);
    }
    FinalizeGrad<T><<<blocks, kThreads, 0, stream>>>(channels, static_cast<double>(g.PerChannel()),
                                                     in.global, passed_through, scale.data<T>(), mu,
                                                     r, sums, dbias, dscale, a, b, d);
    cuda::CheckLaunch(ctx);
    const int64_t n = x.numel();
    if (dx == nullptr || n == 0) return;
    GradX<T>
        <<<cuda::Blocks(n), kThreads, 0, stream>>>(dy.data<T>(), x.data<T>(), n, g, a, b, d, dx);
    cuda::CheckLaunch(ctx);
  }
};

}  // namespace

CudaKernelTable BatchNormCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<BatchNormCudaKernel, float, double>(&table, kBatchNormOp);
  AddCudaKernels<BatchNormGradCudaKernel, float, double>(&table, kBatchNormGradOp);
  return table;
}

}  // namespace operators
}  // namespace paddle_like
