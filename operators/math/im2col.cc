#include "operators/math/im2col.h"

#include <algorithm>

namespace paddle_like {
namespace operators {
namespace math {

void ValidOutputRange(int64_t size, int64_t stride, int64_t pad, int64_t tap, int64_t out,
                      int64_t* lo, int64_t* hi) {
  // o * stride >= pad - tap  and  o * stride < size + pad - tap.
  const int64_t first = pad - tap;
  *lo = first <= 0 ? 0 : (first + stride - 1) / stride;
  const int64_t limit = size + pad - tap;  // Exclusive bound on o * stride.
  *hi = limit <= 0 ? 0 : (limit + stride - 1) / stride;
  *lo = std::min(*lo, out);
  *hi = std::max(std::min(*hi, out), *lo);
}

template <typename T>
void Im2Col(const T* im, int64_t channels, int64_t height, int64_t width, const Conv2dWindow& w,
            T* col) {
  const int64_t out_size = w.out_h * w.out_w;
  for (int64_t c = 0; c < channels; ++c) {
    const T* plane = im + c * height * width;
    for (int64_t i = 0; i < w.kernel_h; ++i) {
      const int64_t tap_h = i * w.dilation_h;
      int64_t y0, y1;
      ValidOutputRange(height, w.stride_h, w.pad_top, tap_h, w.out_h, &y0, &y1);
      for (int64_t j = 0; j < w.kernel_w; ++j) {
        const int64_t tap_w = j * w.dilation_w;
        int64_t x0, x1;
        ValidOutputRange(width, w.stride_w, w.pad_left, tap_w, w.out_w, &x0, &x1);
        T* row = col + ((c * w.kernel_h + i) * w.kernel_w + j) * out_size;
        std::fill(row, row + y0 * w.out_w, T(0));
        for (int64_t y = y0; y < y1; ++y) {
          T* dst = row + y * w.out_w;
          const T* src = plane + (y * w.stride_h - w.pad_top + tap_h) * width;
          std::fill(dst, dst + x0, T(0));
          if (w.stride_w == 1) {
            const int64_t base = x0 - w.pad_left + tap_w;
            std::copy(src + base, src + base + (x1 - x0), dst + x0);
          } else {
            for (int64_t x = x0; x < x1; ++x) dst[x] = src[x * w.stride_w - w.pad_left + tap_w];
          }
          std::fill(dst + x1, dst + w.out_w, T(0));
        }
        std::fill(row + y1 * w.out_w, row + out_size, T(0));
      }
    }
  }
}

template <typename T>
void Col2Im(const T* col, int64_t channels, int64_t height, int64_t width, const Conv2dWindow& w,
            T* im) {
  const int64_t out_size = w.out_h * w.out_w;
  for (int64_t c = 0; c < channels; ++c) {
    T* plane = im + c * height * width;
    for (int64_t i = 0; i < w.kernel_h; ++i) {
      const int64_t tap_h = i * w.dilation_h;
      int64_t y0, y1;
      ValidOutputRange(height, w.stride_h, w.pad_top, tap_h, w.out_h, &y0, &y1);
      for (int64_t j = 0; j < w.kernel_w; ++j) {
        const int64_t tap_w = j * w.dilation_w;
        int64_t x0, x1;
        ValidOutputRange(width, w.stride_w, w.pad_left, tap_w, w.out_w, &x0, &x1);
        const T* row = col + ((c * w.kernel_h + i) * w.kernel_w + j) * out_size;
        for (int64_t y = y0; y < y1; ++y) {
          const T* src = row + y * w.out_w;
          T* dst = plane + (y * w.stride_h - w.pad_top + tap_h) * width;
          for (int64_t x = x0; x < x1; ++x) dst[x * w.stride_w - w.pad_left + tap_w] += src[x];
        }
      }
    }
  }
}

template <typename T>
void NhwcToNchw(const T* src, int64_t batch, int64_t height, int64_t width, int64_t channels,
                T* dst) {
  const int64_t hw = height * width;
  for (int64_t n = 0; n < batch; ++n) {
    const T* s = src + n * hw * channels;
    T* d = dst + n * hw * channels;
    for (int64_t p = 0; p < hw; ++p) {
      for (int64_t c = 0; c < channels; ++c) d[c * hw + p] = s[p * channels + c];
    }
  }
}

template <typename T>
void NchwToNhwc(const T* src, int64_t batch, int64_t channels, int64_t height, int64_t width,
                T* dst) {
  const int64_t hw = height * width;
  for (int64_t n = 0; n < batch; ++n) {
    const T* s = src + n * hw * channels;
    T* d = dst + n * hw * channels;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t p = 0; p < hw; ++p) d[p * channels + c] = s[c * hw + p];
    }
  }
}

#define PL_INSTANTIATE_IM2COL(T)                                                              \
  template void Im2Col<T>(const T*, int64_t, int64_t, int64_t, const Conv2dWindow&, T*);     \
  template void Col2Im<T>(const T*, int64_t, int64_t, int64_t, const Conv2dWindow&, T*);     \
  template void NhwcToNchw<T>(const T*, int64_t, int64_t, int64_t, int64_t, T*);             \
  template void NchwToNhwc<T>(const T*, int64_t, int64_t, int64_t, int64_t, T*);
PL_INSTANTIATE_IM2COL(float)
PL_INSTANTIATE_IM2COL(double)
#undef PL_INSTANTIATE_IM2COL

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
