// Numerically stable softmax and log-softmax on the CPU along the middle dim of x viewed as
// [outer, n, inner] (row-major), and their gradients. Sums accumulate in double; the results
// do not depend on the number of threads.
#pragma once

#include <cstdint>

#include "platform/device_context.h"

namespace paddle_like {
namespace operators {
namespace math {

// out = exp(x - max) / sum(exp(x - max)).
template <typename T>
void SoftmaxForward(const platform::CPUDeviceContext& ctx, const T* x, T* out, int64_t outer,
                    int64_t n, int64_t inner);

// The gradient of softmax from its output: dx = out * (dout - sum_j(dout_j * out_j)), the sum
// along the middle dim of [outer, n, inner]. dx may be out or dout (each element is read
// before it is written).
template <typename T>
void SoftmaxBackward(const platform::CPUDeviceContext& ctx, const T* out, const T* dout, T* dx,
                     int64_t outer, int64_t n, int64_t inner);

// out = x - max - log(sum(exp(x - max))): the log of SoftmaxForward's result, without the
// underflow of exp to 0 for values far below the maximum. out may be x.
template <typename T>
void LogSoftmaxForward(const platform::CPUDeviceContext& ctx, const T* x, T* out, int64_t outer,
                       int64_t n, int64_t inner);

// The gradient of log-softmax from its output: dx = dout - exp(out) * sum_j(dout_j), the sum
// along the middle dim. dx may be out or dout (each element is read before it is written).
template <typename T>
void LogSoftmaxBackward(const platform::CPUDeviceContext& ctx, const T* out, const T* dout, T* dx,
                        int64_t outer, int64_t n, int64_t inner);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
