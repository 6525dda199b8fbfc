// Gathers of slices by index and their deterministic gradient on a CUDA stream (nvcc only),
// shared by gather, index_select and lookup_table. Tensors are seen as [outer, rows, inner]:
// the indices pick rows. Indices come checked from the host (index_util.h) as int64 on the
// device (UploadInt64 below).
#pragma once

#include <cstdint>
#include <vector>

#include "operators/cuda/cuda_util.h"

namespace paddle_like {
namespace operators {
namespace cuda {

// `values` copied into a new 1-D int64 tensor on ctx's device.
inline framework::DenseTensor UploadInt64(const framework::ExecutionContext& ctx,
                                          const std::vector<int64_t>& values) {
  framework::DenseTensor t(framework::DDim({static_cast<int64_t>(values.size())}),
                           framework::DataType::INT64);
  int64_t* p = t.mutable_data<int64_t>(ctx.GetPlace());
  if (!values.empty()) {
    platform::Copy(ctx.GetPlace(), p, platform::CPUPlace(), values.data(),
                   values.size() * sizeof(int64_t));
  }
  return t;
}

template <typename T>
__global__ void GatherSlicesKernel(const T* in, const int64_t* index, int64_t rows, int64_t n,
                                   int64_t inner, int64_t total, T* out) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const int64_t c = k % inner, i = (k / inner) % n, o = k / (inner * n);
    out[k] = in[(o * rows + index[i]) * inner + c];
  }
}

// out[o, i, c] = in[o, index[i], c]: `in` is [outer, rows, inner], out [outer, n, inner].
template <typename T>
void GatherSlices(const framework::ExecutionContext& ctx, const T* in, int64_t outer, int64_t rows,
                  int64_t inner, const int64_t* index, int64_t n, T* out) {
  const int64_t total = outer * n * inner;
  if (total == 0) return;
  GatherSlicesKernel<T>
      <<<Blocks(total), kThreads, 0, Stream(ctx)>>>(in, index, rows, n, inner, total, out);
  CheckLaunch(ctx);
}

template <typename T>
__global__ void SumBucketsKernel(const T* g, const int64_t* offsets, const int64_t* positions,
                                 int64_t rows, int64_t n, int64_t inner, int64_t total, T* dx) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const int64_t c = k % inner, r = (k / inner) % rows, o = k / (inner * rows);
    T sum = T(0);
    for (int64_t j = offsets[r]; j < offsets[r + 1]; ++j) {
      sum += g[(o * n + positions[j]) * inner + c];
    }
    dx[k] = sum;
  }
}

// dx[o, r, c] = the sum over the positions p of bucket r (BucketPositions, in increasing
// order) of g[o, p, c]: one thread per element of dx, no atomics, the CPU's order of
// additions. g is [outer, n, inner], dx [outer, rows, inner]; offsets and positions are on
// the device.
template <typename T>
void SumBuckets(const framework::ExecutionContext& ctx, const T* g, int64_t outer, int64_t n,
                int64_t inner, const int64_t* offsets, const int64_t* positions, int64_t rows,
                T* dx) {
  const int64_t total = outer * rows * inner;
  if (total == 0) return;
  SumBucketsKernel<T><<<Blocks(total), kThreads, 0, Stream(ctx)>>>(g, offsets, positions, rows, n,
                                                                   inner, total, dx);
  CheckLaunch(ctx);
}

}  // namespace cuda
}  // namespace operators
}  // namespace paddle_like
