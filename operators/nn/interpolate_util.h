// Geometry of the interpolation ops (interpolate_op.cc), shared by their CPU kernels and their
// CUDA kernels (interpolate_op.cu): the output size and sampling ratios resolved from the
// inputs and attributes, and the source indices and weights that each output index reads
// along one axis. The CUDA kernels read per-axis tables built on the host by AxisTapsOf, so
// both devices sample exactly the same pixels with the same weights.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "operators/common.h"
#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {
namespace interp {

// Everything a kernel needs, resolved from the inputs and attributes. Spatial axes are
// kept as three, [D, H, W]; an image with fewer has leading axes of size 1.
struct InterpGeometry {
  bool channel_last = false;
  bool nearest = true;
  bool cubic = false;  // bicubic: four taps per axis.
  bool align_corners = true;
  int align_mode = 1;
  int rank = 4;  // X's.
  int64_t n = 0, c = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  float ratio[3] = {0.f, 0.f, 0.f};

  PL_HOSTDEVICE int spatial() const { return rank - 2; }
  PL_HOSTDEVICE int64_t InPixels() const { return in[0] * in[1] * in[2]; }
  PL_HOSTDEVICE int64_t OutPixels() const { return out[0] * out[1] * out[2]; }
  bool SameSize() const { return in[0] == out[0] && in[1] == out[1] && in[2] == out[2]; }
  DDim OutDims() const;
  // Offset of pixel `p` (row-major over the spatial axes, of `pixels`) of image b, channel ch.
  PL_HOSTDEVICE int64_t Offset(int64_t b, int64_t ch, int64_t p, int64_t pixels) const {
    return channel_last ? (b * pixels + p) * c + ch : (b * c + ch) * pixels + p;
  }
};

// The source pixels one output index reads along one axis: one (nearest, or an axis the
// image does not have), two (linear) or four (cubic), with their weights.
struct AxisTaps {
  int count = 1;
  int64_t index[4] = {0, 0, 0, 0};
  float weight[4] = {1.f, 0.f, 0.f, 0.f};
};

// Linear taps of output index o (PaddlePaddle's expressions, in the same float and double
// steps). align_flag: align_mode 0 without align_corners (half-pixel sampling). Indices are
// clamped to [0, in): a ratio from a scale with an OutSize that disagrees with it would
// otherwise read past the image.
PL_HOSTDEVICE inline AxisTaps LinearTap(int64_t in, float ratio, bool align_flag, int64_t o) {
  int64_t lo = align_flag ? static_cast<int64_t>(ratio * (o + 0.5) - 0.5)
                          : static_cast<int64_t>(ratio * static_cast<float>(o));
  lo = lo > 0 ? lo : 0;
  lo = lo < in - 1 ? lo : in - 1;
  const int64_t hi = lo + 1 < in - 1 ? lo + 1 : in - 1;
  float src = static_cast<float>(ratio * (o + 0.5) - 0.5);
  src = src > 0 ? src : 0;
  const float w = align_flag ? src - static_cast<float>(lo)
                             : ratio * static_cast<float>(o) - static_cast<float>(lo);
  AxisTaps t;
  t.count = 2;
  t.index[0] = lo;
  t.index[1] = hi;
  t.weight[0] = 1 - w;
  t.weight[1] = w;
  return t;
}

// Keys' cubic convolution weights with a = -0.75, for a tap at distance d <= 1 (near) and
// 1 < d < 2 (far), as PaddlePaddle's bicubic_interp.
PL_HOSTDEVICE inline float CubicNearWeight(float d) {
  const float a = -0.75f;
  return ((a + 2) * d - (a + 3)) * d * d + 1;
}
PL_HOSTDEVICE inline float CubicFarWeight(float d) {
  const float a = -0.75f;
  return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
}

// Cubic taps of output index o: the four pixels around s = r o (align_corners) or
// r (o + 0.5) - 0.5 (not clamped at 0), indices clamped to [0, in).
PL_HOSTDEVICE inline AxisTaps CubicTap(int64_t in, float ratio, bool align_corners, int64_t o) {
  const float s =
      align_corners ? ratio * static_cast<float>(o) : static_cast<float>(ratio * (o + 0.5) - 0.5);
  const float fl = floorf(s);
  const float t = s - fl;
  const float w[4] = {CubicFarWeight(t + 1), CubicNearWeight(t), CubicNearWeight(1 - t),
                      CubicFarWeight(2 - t)};
  AxisTaps taps;
  taps.count = 4;
  for (int k = 0; k < 4; ++k) {
    int64_t i = static_cast<int64_t>(fl) - 1 + k;
    i = i < in - 1 ? i : in - 1;
    taps.index[k] = i > 0 ? i : 0;
    taps.weight[k] = w[k];
  }
  return taps;
}

PL_HOSTDEVICE inline AxisTaps NearestTap(int64_t in, float ratio, bool align_corners, int64_t o) {
  int64_t i = align_corners ? static_cast<int64_t>(ratio * static_cast<float>(o) + 0.5)
                            : static_cast<int64_t>(ratio * static_cast<float>(o));
  AxisTaps t;
  t.index[0] = i < in - 1 ? i : in - 1;
  return t;
}

// The geometry of ctx's op (a forward op or its grad op) for an X of dims `x`: output size
// and ratios from SizeTensor, OutSize, Scale (tensors read on the host wherever they live)
// and the attributes. InvalidArgumentError naming the op for a bad rank, method or size.
InterpGeometry ResolveInterp(const ExecutionContext& ctx, const DDim& x);

// The taps of every output index along `axis` (0: depth, 1: height, 2: width): one default
// tap per index for an axis the image does not have.
std::vector<AxisTaps> AxisTapsOf(const InterpGeometry& g, int axis);

// For each input index i along an axis of `in` indices, the output indices [first, end)
// from the first to the last output index that reads i (first == end when none does):
// 2 * in values. Sampling is monotone, so the readers of i are contiguous; a kernel still
// checks each one's taps.
std::vector<int64_t> ReaderRanges(const std::vector<AxisTaps>& taps, int64_t in);

}  // namespace interp
}  // namespace operators
}  // namespace paddle_like
