#include <cstdint>
#include <stdexcept>

#include "operators/math/broadcast_cuda.h"
#include "operators/cuda/half_cuda.cuh"
#include "platform/cuda/cuda_device_context.h"

namespace paddle_like {
namespace operators {
namespace math {

namespace {

constexpr int kMaxRank = framework::DDim::kMaxRank;
constexpr int kThreads = 256;

// Dims split into the kept ones (the small tensor's) and the summed ones, each with its
// stride in the big tensor. Passed to kernels by value.
struct SplitDims {
  int kept_rank = 0;
  int64_t kept[kMaxRank] = {};
  int64_t kept_stride[kMaxRank] = {};
  int summed_rank = 0;
  int64_t summed[kMaxRank] = {};
  int64_t summed_stride[kMaxRank] = {};
  int64_t kept_numel = 1;
  int64_t summed_numel = 1;
};

SplitDims Split(const framework::DDim& big, const framework::DDim& small) {
  SplitDims s;
  int64_t stride = 1;
  int64_t kept_stride[kMaxRank], summed_stride[kMaxRank];
  int64_t kept[kMaxRank], summed[kMaxRank];
  int nk = 0, ns = 0;
  // Walk from the innermost dim, so strides are known; reversed into place below.
  for (int d = big.size() - 1; d >= 0; --d) {
    const int64_t n = big[d];
    if (small[d] == 1 && n != 1) {
      summed[ns] = n;
      summed_stride[ns++] = stride;
    } else if (n != 1) {
      kept[nk] = n;
      kept_stride[nk++] = stride;
    }
    stride *= n;
  }
  s.kept_rank = nk;
  s.summed_rank = ns;
  for (int i = 0; i < nk; ++i) {
    s.kept[i] = kept[nk - 1 - i];
    s.kept_stride[i] = kept_stride[nk - 1 - i];
    s.kept_numel *= s.kept[i];
  }
  for (int i = 0; i < ns; ++i) {
    s.summed[i] = summed[ns - 1 - i];
    s.summed_stride[i] = summed_stride[ns - 1 - i];
    s.summed_numel *= s.summed[i];
  }
  return s;
}

__device__ int64_t Offset(int64_t index, int rank, const int64_t* dims, const int64_t* strides) {
  int64_t offset = 0;
  for (int d = rank - 1; d >= 0; --d) {
    offset += (index % dims[d]) * strides[d];
    index /= dims[d];
  }
  return offset;
}

// One thread per output element: for short sums.
template <typename T>
__global__ void SumPerThread(const T* x, SplitDims s, double scale, T* out) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < s.kept_numel;
       o += step) {
    const int64_t base = Offset(o, s.kept_rank, s.kept, s.kept_stride);
    double sum = 0;
    for (int64_t r = 0; r < s.summed_numel; ++r) {
      sum += cuda::ToDouble(x[base + Offset(r, s.summed_rank, s.summed, s.summed_stride)]);
    }
    out[o] = cuda::FromDouble<T>(sum * scale);
  }
}

// One block per output element: for long sums. Each thread sums a strided share, then a
// tree in shared memory adds the shares in a fixed order.
template <typename T>
__global__ void SumPerBlock(const T* x, SplitDims s, double scale, T* out) {
  __shared__ double partial[kThreads];
  for (int64_t o = blockIdx.x; o < s.kept_numel; o += gridDim.x) {
    const int64_t base = Offset(o, s.kept_rank, s.kept, s.kept_stride);
    double sum = 0;
    for (int64_t r = threadIdx.x; r < s.summed_numel; r += blockDim.x) {
      sum += cuda::ToDouble(x[base + Offset(r, s.summed_rank, s.summed, s.summed_stride)]);
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int width = blockDim.x / 2; width > 0; width /= 2) {
      if (threadIdx.x < width) partial[threadIdx.x] += partial[threadIdx.x + width];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[o] = cuda::FromDouble<T>(partial[0] * scale);
    __syncthreads();  // partial[0] is read before the next output overwrites it.
  }
}

template <typename T>
__global__ void Broadcast(const T* x, SplitDims s, int64_t big_numel, double scale, T* out) {
  // big index -> small index: the kept coordinates, read through their big strides.
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < big_numel;
       i += step) {
    int64_t small_index = 0;
    for (int d = 0; d < s.kept_rank; ++d) {
      small_index = small_index * s.kept[d] + (i / s.kept_stride[d]) % s.kept[d];
    }
    // Integers are copied exactly when not scaled (a double holds only 53 bits).
    out[i] = scale == 1.0 ? x[small_index]
                          : cuda::FromDouble<T>(cuda::ToDouble(x[small_index]) * scale);
  }
}

int GridFor(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > 65536 ? 65536 : blocks));
}

}  // namespace

template <typename T>
void SumToShapeCuda(cudaStream_t stream, const T* x, const framework::DDim& big,
                    const framework::DDim& small, double scale, T* out) {
  const SplitDims s = Split(big, small);
  if (s.kept_numel == 0) return;
  if (s.summed_numel == 0) {
    platform::CheckCuda(cudaMemsetAsync(out, 0, sizeof(T) * s.kept_numel, stream),
                        "cudaMemsetAsync");
    return;
  }
  // Long sums with few outputs get a block each; otherwise a thread each.
  if (s.summed_numel >= 256 && s.kept_numel < 8192) {
    SumPerBlock<T><<<static_cast<int>(s.kept_numel < 65536 ? s.kept_numel : 65536), kThreads, 0,
                     stream>>>(x, s, scale, out);
  } else {
    SumPerThread<T><<<GridFor(s.kept_numel), kThreads, 0, stream>>>(x, s, scale, out);
  }
  platform::CheckCuda(cudaGetLastError(), "SumToShapeCuda launch");
}

template <typename T>
void BroadcastToCuda(cudaStream_t stream, const T* x, const framework::DDim& small,
                     const framework::DDim& big, double scale, T* out) {
  const int64_t n = big.numel();
  if (n == 0) return;
  SplitDims s = Split(big, small);
  // Broadcast reads the kept coordinates as (i / stride) % size over the big index.
  Broadcast<T><<<GridFor(n), kThreads, 0, stream>>>(x, s, n, scale, out);
  platform::CheckCuda(cudaGetLastError(), "BroadcastToCuda launch");
}

#define PL_INSTANTIATE(T)                                                                   \
  template void SumToShapeCuda<T>(cudaStream_t, const T*, const framework::DDim&,            \
                                  const framework::DDim&, double, T*);                       \
  template void BroadcastToCuda<T>(cudaStream_t, const T*, const framework::DDim&,           \
                                   const framework::DDim&, double, T*);
PL_INSTANTIATE(float)
PL_INSTANTIATE(double)
PL_INSTANTIATE(int32_t)
PL_INSTANTIATE(int64_t)
PL_INSTANTIATE(platform::float16)  // Summed in double like the rest.
#undef PL_INSTANTIATE
// expand_v2 broadcasts bool tensors too (nothing sums them).
template void BroadcastToCuda<bool>(cudaStream_t, const bool*, const framework::DDim&,
                                    const framework::DDim&, double, bool*);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
