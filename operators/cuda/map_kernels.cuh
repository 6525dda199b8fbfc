// Grid-stride elementwise loops shared by the CUDA kernels (nvcc only): out[i] = f(a[i]),
// f(a[i], b[i]) or a constant over n elements, launched on the op's stream.
#pragma once

#include <cstdint>

#include "operators/cuda/cuda_util.h"

namespace paddle_like {
namespace operators {
namespace cuda {

template <typename A, typename Out, typename F>
__global__ void MapKernel(const A* a, Out* out, int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = f(a[i]);
  }
}

template <typename A, typename B, typename Out, typename F>
__global__ void MapPairKernel(const A* a, const B* b, Out* out, int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = f(a[i], b[i]);
  }
}

template <typename T>
__global__ void FillKernel(T* out, int64_t n, T value) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    out[i] = value;
  }
}

// out[i] = value.
template <typename T>
void Fill(const framework::ExecutionContext& ctx, T* out, int64_t n, T value) {
  if (n == 0) return;
  FillKernel<T><<<Blocks(n), kThreads, 0, Stream(ctx)>>>(out, n, value);
  CheckLaunch(ctx);
}

// out[i] = f(a[i]); nothing for n == 0 (a launch of zero blocks is an error).
template <typename A, typename Out, typename F>
void Map(const framework::ExecutionContext& ctx, const A* a, Out* out, int64_t n, F f) {
  if (n == 0) return;
  MapKernel<A, Out, F><<<Blocks(n), kThreads, 0, Stream(ctx)>>>(a, out, n, f);
  CheckLaunch(ctx);
}

// out[i] = f(a[i], b[i]).
template <typename A, typename B, typename Out, typename F>
void MapPair(const framework::ExecutionContext& ctx, const A* a, const B* b, Out* out, int64_t n,
             F f) {
  if (n == 0) return;
  MapPairKernel<A, B, Out, F><<<Blocks(n), kThreads, 0, Stream(ctx)>>>(a, b, out, n, f);
  CheckLaunch(ctx);
}

}  // namespace cuda
}  // namespace operators
}  // namespace paddle_like
