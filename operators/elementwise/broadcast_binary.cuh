// The loop of the binary elementwise ops with broadcasting on a CUDA stream (arithmetic,
// comparisons, logical ops; nvcc only): out = f(x, y) over the broadcast shape of
// math/broadcast.h, the CUDA side of broadcast_binary.h.
#pragma once

#include <cstdint>

#include "operators/cuda/map_kernels.cuh"
#include "operators/math/broadcast.h"

namespace paddle_like {
namespace operators {
namespace cuda {

// Offsets of X and Y for output element i of a broadcast plan.
struct PlanOffsets {
  int64_t x = 0, y = 0;
};
inline __device__ PlanOffsets OffsetsOf(int64_t i, const math::BroadcastPlan& plan) {
  PlanOffsets o;
  for (int d = plan.rank - 1; d >= 0; --d) {
    const int64_t index = i % plan.dims[d];
    i /= plan.dims[d];
    o.x += index * plan.x_strides[d];
    o.y += index * plan.y_strides[d];
  }
  return o;
}

template <typename In, typename Out, typename F>
__global__ void BinaryBroadcast(const In* x, const In* y, Out* out, math::BroadcastPlan plan, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < plan.numel;
       i += step) {
    const PlanOffsets o = OffsetsOf(i, plan);
    out[i] = f(x[o.x], y[o.y]);
  }
}

// out = f(x, y) over the broadcast dims; x and y are read through `dims`. Out may differ from
// In (a comparison writes bool).
template <typename In, typename Out, typename F>
void LaunchBinary(const framework::ExecutionContext& ctx, const In* x, const In* y,
                  const math::BroadcastDims& dims, Out* out, F f) {
  const int64_t n = dims.out.numel();
  if (n == 0) return;
  if (dims.x == dims.out && dims.y == dims.out) {
    MapPair(ctx, x, y, out, n, f);
    return;
  }
  const math::BroadcastPlan plan = math::MakeBroadcastPlan(dims);
  BinaryBroadcast<In, Out, F><<<Blocks(n), kThreads, 0, Stream(ctx)>>>(x, y, out, plan, f);
  CheckLaunch(ctx);
}

}  // namespace cuda
}  // namespace operators
}  // namespace paddle_like
