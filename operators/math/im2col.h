// im2col / col2im for 2-D convolution on the CPU, and NCHW <-> NHWC copies.
//
// One image is [C, H, W] (row-major). Its column matrix is [C * kh * kw, out_h * out_w]:
// row (c, i, j) and column (y, x) hold the input pixel that filter tap (i, j) of channel c
// sees at output position (y, x),
//   col[(c, i, j), (y, x)] = im[c, y * stride_h - pad_top + i * dil_h,
//                                  x * stride_w - pad_left + j * dil_w]
// and 0 where that position lies in the padding. A convolution is then a GEMM of the
// filter [M, C * kh * kw] with the column matrix.
//
// All functions run on the calling thread; callers split work over images or channels.
// Instantiated for float and double.
#pragma once

#include <cstdint>

namespace paddle_like {
namespace operators {
namespace math {

// The sliding window of a 2-D convolution or pooling over one image.
struct Conv2dWindow {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // Bottom and right padding only shape out_h / out_w.
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t out_h = 0, out_w = 0;
};

// Along one axis of `size` input elements, output index o with filter tap offset `tap`
// (tap index * dilation) reads input index o * stride - pad + tap. Sets [lo, hi) to the
// output indices in [0, out) whose input index lies inside [0, size).
void ValidOutputRange(int64_t size, int64_t stride, int64_t pad, int64_t tap, int64_t out,
                      int64_t* lo, int64_t* hi);

// Fills `col` [channels * kh * kw, out_h * out_w] from `im` [channels, height, width].
template <typename T>
void Im2Col(const T* im, int64_t channels, int64_t height, int64_t width, const Conv2dWindow& w,
            T* col);

// The adjoint of Im2Col: adds every entry of `col` into the pixel of `im` it was read from
// (entries that fall in the padding are dropped). `im` is not cleared first. The order of
// the additions is fixed, so results are reproducible.
template <typename T>
void Col2Im(const T* col, int64_t channels, int64_t height, int64_t width, const Conv2dWindow& w,
            T* im);

// dst[n, c, h, w] = src[n, h, w, c] for `batch` images of [height, width, channels].
template <typename T>
void NhwcToNchw(const T* src, int64_t batch, int64_t height, int64_t width, int64_t channels,
                T* dst);

// dst[n, h, w, c] = src[n, c, h, w].
template <typename T>
void NchwToNhwc(const T* src, int64_t batch, int64_t channels, int64_t height, int64_t width,
                T* dst);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
