// A device fill callable from code that nvcc does not compile (the cuDNN kernels' .cc files).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace paddle_like {
namespace operators {
namespace cuda {

// out[i] = value for i < n, queued on `stream`; T is float, double or platform::float16.
template <typename T>
void FillOnStream(cudaStream_t stream, T* out, int64_t n, T value);

}  // namespace cuda
}  // namespace operators
}  // namespace paddle_like
