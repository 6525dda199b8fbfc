// Numerically stable softmax on the CPU: out = exp(x - max) / sum(exp(x - max)) along the
// middle dim of x viewed as [outer, n, inner] (row-major). Sums accumulate in double; the
// result does not depend on the number of threads.
#pragma once

#include <cstdint>

#include "platform/device_context.h"

namespace paddle_like {
namespace operators {
namespace math {

template <typename T>
void SoftmaxForward(const platform::CPUDeviceContext& ctx, const T* x, T* out, int64_t outer,
                    int64_t n, int64_t inner);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
