// Helpers of the CUDA kernels (host side; usable from `.cc` and `.cu` files).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "framework/dense_tensor.h"
#include "framework/operator.h"
#include "platform/cuda/cuda_device_context.h"

namespace paddle_like {
namespace operators {
namespace cuda {

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n items: enough to fill the device, the loop covers
// the rest.
inline int Blocks(int64_t n) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>((n + kThreads - 1) / kThreads,
                                                                   int64_t{1} << 16)));
}

inline const platform::CUDADeviceContext& Device(const framework::ExecutionContext& ctx) {
  return ctx.device_context<platform::CUDADeviceContext>();
}
inline cudaStream_t Stream(const framework::ExecutionContext& ctx) {
  return Device(ctx).stream();
}

// Throws FatalError naming the op when its last kernel launch failed.
void CheckLaunch(const framework::ExecutionContext& ctx);

}  // namespace cuda
}  // namespace operators
}  // namespace paddle_like
