#include "operators/cuda/fill_cuda.h"

#include "operators/cuda/map_kernels.cuh"
#include "platform/float16.h"

namespace paddle_like {
namespace operators {
namespace cuda {

template <typename T>
void FillOnStream(cudaStream_t stream, T* out, int64_t n, T value) {
  if (n <= 0) return;
  FillKernel<T><<<Blocks(n), kThreads, 0, stream>>>(out, n, value);
  platform::CheckCuda(cudaGetLastError(), "fill kernel launch");
}

template void FillOnStream<float>(cudaStream_t, float*, int64_t, float);
template void FillOnStream<double>(cudaStream_t, double*, int64_t, double);
template void FillOnStream<platform::float16>(cudaStream_t, platform::float16*, int64_t,
                                              platform::float16);

}  // namespace cuda
}  // namespace operators
}  // namespace paddle_like
