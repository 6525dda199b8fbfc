#include "operators/math/im2col.h"

#include <algorithm>
#include <cstring>
#include <vector>

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

namespace {

// The valid output range [lo, hi) of every filter tap along one axis: the ranges depend on
// the tap but not on the channel, so they are computed once per call, not once per row.
struct TapRange {
  int64_t offset;  // The input index of output 0 (may be negative: in the padding).
  int64_t lo, hi;
};

std::vector<TapRange> TapRanges(int64_t size, int64_t kernel, int64_t stride, int64_t pad,
                                int64_t dilation, int64_t out) {
  std::vector<TapRange> taps(static_cast<size_t>(kernel));
  for (int64_t i = 0; i < kernel; ++i) {
    taps[i].offset = i * dilation - pad;
    ValidOutputRange(size, stride, pad, i * dilation, out, &taps[i].lo, &taps[i].hi);
  }
  return taps;
}

// Short rows (a few to a few dozen elements) in loops of their own: inside the callers'
// nests the compiler spilled its registers on every element. A copy loop would become a
// call to memmove, which costs more than the copy of a short row; copies of a fixed size
// are inlined as vector moves instead.
template <typename T>
void CopyRow(const T* __restrict__ src, int64_t stride, int64_t n, T* __restrict__ dst) {
  if (stride != 1) {
    for (int64_t x = 0; x < n; ++x) dst[x] = src[x * stride];
    return;
  }
  constexpr int64_t kChunk = 32 / sizeof(T);
  if (n < kChunk) {
    for (int64_t x = 0; x < n; ++x) dst[x] = src[x];
    return;
  }
  int64_t x = 0;
  for (; x + kChunk <= n; x += kChunk) std::memcpy(dst + x, src + x, sizeof(T) * kChunk);
  // The rest as one more chunk that ends at n (it overlaps what was copied: same values).
  if (x < n) std::memcpy(dst + n - kChunk, src + n - kChunk, sizeof(T) * kChunk);
}

template <typename T>
void AddRow(const T* __restrict__ src, int64_t n, int64_t stride, T* __restrict__ dst) {
  if (stride == 1) {
    for (int64_t x = 0; x < n; ++x) dst[x] += src[x];
  } else {
    for (int64_t x = 0; x < n; ++x) dst[x * stride] += src[x];
  }
}

}  // namespace

template <typename T>
void Im2Col(const T* im, int64_t channels, int64_t height, int64_t width, const Conv2dWindow& w,
            T* col) {
  const int64_t out_size = w.out_h * w.out_w;
  const std::vector<TapRange> rows =
      TapRanges(height, w.kernel_h, w.stride_h, w.pad_top, w.dilation_h, w.out_h);
  const std::vector<TapRange> cols =
      TapRanges(width, w.kernel_w, w.stride_w, w.pad_left, w.dilation_w, w.out_w);
  // Whether some window reaches into the padding: only then do rows need zeros.
  bool padded = false;
  for (const TapRange& r : rows) padded = padded || r.lo > 0 || r.hi < w.out_h;
  for (const TapRange& q : cols) padded = padded || q.lo > 0 || q.hi < w.out_w;
  const int64_t row_step = w.stride_h * width;
  for (int64_t c = 0; c < channels; ++c) {
    const T* plane = im + c * height * width;
    for (int64_t i = 0; i < w.kernel_h; ++i) {
      const TapRange& r = rows[i];
      for (int64_t j = 0; j < w.kernel_w; ++j) {
        const TapRange& q = cols[j];
        T* row = col + ((c * w.kernel_h + i) * w.kernel_w + j) * out_size;
        T* dst = row + r.lo * w.out_w;
        const T* src = plane + (r.lo * w.stride_h + r.offset) * width + q.offset;
        if (!padded) {
          for (int64_t y = r.lo; y < r.hi; ++y, src += row_step, dst += w.out_w) {
            CopyRow(src, w.stride_w, w.out_w, dst);
          }
          continue;
        }
        // Output rows and columns whose window reads the padding get zeros.
        std::fill(row, row + r.lo * w.out_w, T(0));
        std::fill(row + r.hi * w.out_w, row + out_size, T(0));
        for (int64_t y = r.lo; y < r.hi; ++y, src += row_step, dst += w.out_w) {
          std::fill(dst, dst + q.lo, T(0));
          CopyRow(src + q.lo * w.stride_w, w.stride_w, q.hi - q.lo, dst + q.lo);
          std::fill(dst + q.hi, dst + w.out_w, T(0));
        }
      }
    }
  }
}

template <typename T>
void Col2Im(const T* col, int64_t channels, int64_t height, int64_t width, const Conv2dWindow& w,
            T* im) {
  const int64_t out_size = w.out_h * w.out_w;
  const std::vector<TapRange> rows =
      TapRanges(height, w.kernel_h, w.stride_h, w.pad_top, w.dilation_h, w.out_h);
  const std::vector<TapRange> cols =
      TapRanges(width, w.kernel_w, w.stride_w, w.pad_left, w.dilation_w, w.out_w);
  // Column taps outermost: the rows one tap adds into start at the same column, so a row
  // written again soon after is read back from the same addresses. With the tap innermost,
  // each row would be read back shifted by one element while its last stores are still in
  // flight, which the processor cannot forward (2.5x slower on LeNet's 5x5 filters).
  for (int64_t c = 0; c < channels; ++c) {
    T* plane = im + c * height * width;
    for (int64_t j = 0; j < w.kernel_w; ++j) {
      const TapRange& q = cols[j];
      for (int64_t i = 0; i < w.kernel_h; ++i) {
        const TapRange& r = rows[i];
        const T* row = col + ((c * w.kernel_h + i) * w.kernel_w + j) * out_size;
        for (int64_t y = r.lo; y < r.hi; ++y) {
          const T* src = row + y * w.out_w;
          T* dst = plane + (y * w.stride_h + r.offset) * width + q.offset;
          AddRow(src + q.lo, q.hi - q.lo, w.stride_w, dst + q.lo * w.stride_w);
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
