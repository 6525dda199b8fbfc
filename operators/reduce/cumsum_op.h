// cumsum's host-side shape resolution and its scan of one line, shared by the CPU kernel
// (cumsum_op.cc) and the CUDA kernel (reduce_op.cu).
#pragma once

#include <cstdint>

#include "operators/common.h"
#include "operators/indexing/index_util.h"
#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {

// X seen as [outer, axis, inner] around the scanned dim, and Out's dims and LoD.
struct CumsumPlan {
  AxisSplit split;
  DDim out_dims;
  framework::LoD out_lod;
  bool exclusive = false;
  bool reverse = false;
};

// The plan of a cumsum kernel from its attributes (flatten scans X as 1-D, as does a 0-D X);
// InvalidArgumentError for an axis outside X's rank.
CumsumPlan PlanCumsum(const ExecutionContext& ctx);

// Scans the line of `in` that starts at `base` (axis_len elements, `inner` apart) into `out`,
// summing in T from the line's start (its end when `reverse`); with `exclusive` each element
// receives the sum of those before it.
template <typename T>
PL_HOSTDEVICE void CumsumLine(const T* in, T* out, int64_t base, int64_t axis_len, int64_t inner,
                              bool exclusive, bool reverse) {
  T sum = T(0);
  for (int64_t step = 0; step < axis_len; ++step) {
    const int64_t k = reverse ? axis_len - 1 - step : step;
    const int64_t at = base + k * inner;
    if (exclusive) {
      out[at] = sum;
      sum += in[at];
    } else {
      sum += in[at];
      out[at] = sum;
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
