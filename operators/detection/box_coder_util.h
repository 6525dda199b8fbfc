// box_coder's center-size code (box_coder_op.cc), shared by its CPU kernel and its CUDA kernel
// (detection_op.cu): the host resolves the shapes and attributes once, and both devices code
// every output box with the same formulas.
#pragma once

#include <cmath>
#include <cstdint>

#include "operators/common.h"
#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {
namespace box_coder {

// OutputBox is [rows, cols, 4]; the attributes, checked.
struct BoxCoderParams {
  bool encode = true;
  bool normalized = true;
  int axis = 0;
  int64_t rows = 0, cols = 0;
  // The `variance` attribute, or 1s when it is empty (the PriorBoxVar input overrides both).
  float variance[4] = {1.f, 1.f, 1.f, 1.f};

  // The prior that output box (i, j) uses.
  PL_HOSTDEVICE int64_t PriorOf(int64_t i, int64_t j) const { return encode || axis == 0 ? j : i; }
  // The offset of output box (i, j)'s target box (encode) or offsets (decode) in TargetBox.
  PL_HOSTDEVICE int64_t TargetOffset(int64_t i, int64_t j) const {
    return (encode ? i : i * cols + j) * 4;
  }
};

// Checks the shapes of PriorBox, PriorBoxVar (when given) and TargetBox and the attributes;
// errors name the op. Defined in box_coder_op.cc.
BoxCoderParams ResolveBoxCoder(const ExecutionContext& ctx);

// Output box (i, j): `prior` is PriorBox, `prior_var` PriorBoxVar or null, `target` TargetBox;
// writes 4 values to `out`.
template <typename T>
PL_HOSTDEVICE void CodeBox(const BoxCoderParams& c, const T* prior, const T* prior_var,
                           const T* target, int64_t i, int64_t j, T* out) {
  const int64_t k = c.PriorOf(i, j);
  const T norm = c.normalized ? T(0) : T(1);
  const T* pb = prior + k * 4;
  const T pw = pb[2] - pb[0] + norm, ph = pb[3] - pb[1] + norm;
  const T px = pb[0] + pw / 2, py = pb[1] + ph / 2;
  T v[4];
  for (int q = 0; q < 4; ++q) {
    v[q] = prior_var != nullptr ? prior_var[k * 4 + q] : static_cast<T>(c.variance[q]);
  }
  const T* tb = target + c.TargetOffset(i, j);
  if (c.encode) {
    const T tx = (tb[2] + tb[0]) / 2, ty = (tb[3] + tb[1]) / 2;
    const T tw = tb[2] - tb[0] + norm, th = tb[3] - tb[1] + norm;
    // Dividing by a variance of 1 changes no bit.
    out[0] = (tx - px) / pw / v[0];
    out[1] = (ty - py) / ph / v[1];
    out[2] = std::log(std::fabs(tw / pw)) / v[2];
    out[3] = std::log(std::fabs(th / ph)) / v[3];
  } else {
    const T cx = v[0] * tb[0] * pw + px, cy = v[1] * tb[1] * ph + py;
    const T w = std::exp(v[2] * tb[2]) * pw, h = std::exp(v[3] * tb[3]) * ph;
    out[0] = cx - w / 2;
    out[1] = cy - h / 2;
    out[2] = cx + w / 2 - norm;
    out[3] = cy + h / 2 - norm;
  }
}

}  // namespace box_coder
}  // namespace operators
}  // namespace paddle_like
