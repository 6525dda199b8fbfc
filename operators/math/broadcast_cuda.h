// Broadcasting and its reverse on a CUDA stream, for the CUDA kernels of the elementwise,
// expand and reduce families (the CPU versions are in broadcast.h and reduce.h).
//
// Both take the big tensor's dims and the small one's dims aligned to the same rank (size 1
// where it broadcasts), as math::ComputeBroadcastDims / AlignInside / ComputeReduceShape
// give them. Sums accumulate in double, in a fixed order: results do not depend on the
// launch and are reproducible run to run.
#pragma once

#include <cuda_runtime.h>

#include "framework/ddim.h"

namespace paddle_like {
namespace operators {
namespace math {

// out[small] = scale * sum of x[big] over the dims where `small` is 1.
template <typename T>
void SumToShapeCuda(cudaStream_t stream, const T* x, const framework::DDim& big,
                    const framework::DDim& small, double scale, T* out);

// out[big] = x[small] broadcast along the dims where `small` is 1, times `scale`.
template <typename T>
void BroadcastToCuda(cudaStream_t stream, const T* x, const framework::DDim& small,
                     const framework::DDim& big, double scale, T* out);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
