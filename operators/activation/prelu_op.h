// prelu's map from elements of X to elements of Alpha, and the formulas, shared by its CPU
// kernels (prelu_op.cc) and its CUDA kernels (prelu_op.cu).
#pragma once

#include <cstdint>
#include <string>

#include "operators/common.h"
#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {

// For element i of X: the index into Alpha. X is [outer, channels, inner] in mode channel
// (channels last: inner = 1), [samples, per_sample] in mode element.
struct AlphaIndex {
  enum Mode { kAll, kChannel, kElement };
  Mode mode = kAll;
  int64_t channels = 1, inner = 1, per_sample = 1;
  bool channel_last = false;
  PL_HOSTDEVICE int64_t operator()(int64_t i) const {
    if (mode == kAll) return 0;
    if (mode == kElement) return i % per_sample;
    return channel_last ? i % channels : (i / inner) % channels;
  }
};

// Checks Alpha against X for `mode` (all, channel, element) and `format` (NCHW, NHWC, ...);
// InvalidArgumentError naming `op` for a mismatch.
AlphaIndex MakeAlphaIndex(const std::string& op, const std::string& mode, const std::string& format,
                          const DDim& x, const DDim& alpha);

// Out = x > 0 ? x : alpha * x.
template <typename T>
PL_HOSTDEVICE T PreluValue(T x, T alpha) {
  return x > T(0) ? x : alpha * x;
}
// dX = x > 0 ? dOut : alpha * dOut.
template <typename T>
PL_HOSTDEVICE T PreluInputGrad(T x, T alpha, T dout) {
  return x > T(0) ? dout : alpha * dout;
}
// The term element x adds to dAlpha: dOut * x where x <= 0 (NaN included), else nothing.
template <typename T>
PL_HOSTDEVICE bool PreluAlphaGradTerm(T x, T dout, T* term) {
  if (x > T(0)) return false;
  *term = dout * x;
  return true;
}

}  // namespace operators
}  // namespace paddle_like
