// im2col / col2im (operators/math/im2col.h) against their definitions: Im2Col element by
// element against a naive loop, Col2Im as Im2Col's adjoint, over windows with padding on
// every side, strides, dilations and row lengths that take each copy path (shorter than a
// vector chunk, whole chunks, chunks with a remainder).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "operators/math/im2col.h"

namespace paddle_like {
namespace operators {
namespace math {
namespace {

struct Case {
  int64_t channels, height, width;
  int64_t kernel_h, kernel_w, stride_h, stride_w;
  int64_t pad_top, pad_bottom, pad_left, pad_right;
  int64_t dilation_h, dilation_w;

  Conv2dWindow Window() const {
    Conv2dWindow w;
    w.kernel_h = kernel_h;
    w.kernel_w = kernel_w;
    w.stride_h = stride_h;
    w.stride_w = stride_w;
    w.pad_top = pad_top;
    w.pad_left = pad_left;
    w.dilation_h = dilation_h;
    w.dilation_w = dilation_w;
    w.out_h = (height + pad_top + pad_bottom - dilation_h * (kernel_h - 1) - 1) / stride_h + 1;
    w.out_w = (width + pad_left + pad_right - dilation_w * (kernel_w - 1) - 1) / stride_w + 1;
    return w;
  }
  std::string Name() const {
    return "C" + std::to_string(channels) + " " + std::to_string(height) + "x" +
           std::to_string(width) + " k" + std::to_string(kernel_h) + "x" +
           std::to_string(kernel_w) + " s" + std::to_string(stride_h) + "," +
           std::to_string(stride_w) + " p" + std::to_string(pad_top) + "," +
           std::to_string(pad_bottom) + "," + std::to_string(pad_left) + "," +
           std::to_string(pad_right) + " d" + std::to_string(dilation_h) + "," +
           std::to_string(dilation_w);
  }
};

std::vector<Case> Cases() {
  return {
      {1, 5, 5, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1},     // Rows of 3: shorter than a chunk.
      {2, 12, 12, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1},   // LeNet's second layer: rows of 8.
      {3, 13, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   // Padded on every side: rows of 15.
      {2, 20, 21, 3, 2, 1, 1, 2, 0, 0, 3, 1, 1},   // Asymmetric padding, rows of 23.
      {2, 9, 11, 3, 3, 2, 3, 1, 1, 2, 0, 1, 1},    // Strides.
      {2, 10, 12, 3, 3, 1, 1, 2, 2, 2, 2, 2, 3},   // Dilations.
      {1, 6, 7, 2, 3, 3, 2, 1, 2, 0, 1, 2, 1},     // Everything at once.
      {4, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},     // 1x1.
      {1, 3, 3, 5, 5, 1, 1, 3, 3, 3, 3, 1, 1},     // Windows mostly in the padding.
  };
}

template <typename T>
std::vector<T> Random(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(u(rng));
  return v;
}

// Calls fn(k, pixel) for every entry k of the column matrix, in order, where pixel is the
// index in the image of the element that entry reads by its definition, or -1 where the
// window lies in the padding: col[(c, i, j), (y, x)] = im[c, y * stride_h - pad_top +
// i * dilation_h, x * stride_w - pad_left + j * dilation_w].
template <typename Fn>
void ForEachColumnEntry(const Case& c, Fn&& fn) {
  const Conv2dWindow w = c.Window();
  size_t k = 0;
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    for (int64_t i = 0; i < c.kernel_h; ++i) {
      for (int64_t j = 0; j < c.kernel_w; ++j) {
        for (int64_t y = 0; y < w.out_h; ++y) {
          for (int64_t x = 0; x < w.out_w; ++x, ++k) {
            const int64_t h = y * c.stride_h - c.pad_top + i * c.dilation_h;
            const int64_t v = x * c.stride_w - c.pad_left + j * c.dilation_w;
            const bool inside = h >= 0 && h < c.height && v >= 0 && v < c.width;
            fn(k, inside ? (ch * c.height + h) * c.width + v : int64_t{-1});
          }
        }
      }
    }
  }
}

template <typename T>
std::vector<T> NaiveIm2Col(const std::vector<T>& im, const Case& c) {
  const Conv2dWindow w = c.Window();
  std::vector<T> col(static_cast<size_t>(c.channels * c.kernel_h * c.kernel_w * w.out_h * w.out_w));
  ForEachColumnEntry(c, [&](size_t k, int64_t pixel) { col[k] = pixel >= 0 ? im[pixel] : T(0); });
  return col;
}

template <typename T>
void CheckIm2ColAndCol2Im() {
  unsigned seed = 1;
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.Name());
    const Conv2dWindow w = c.Window();
    ASSERT_GT(w.out_h, 0);
    ASSERT_GT(w.out_w, 0);
    const size_t im_size = static_cast<size_t>(c.channels * c.height * c.width);
    const size_t col_size =
        static_cast<size_t>(c.channels * c.kernel_h * c.kernel_w * w.out_h * w.out_w);
    const std::vector<T> im = Random<T>(im_size, seed++);
    // Garbage first: Im2Col must write every entry, zeros included.
    std::vector<T> col = Random<T>(col_size, seed++);
    Im2Col(im.data(), c.channels, c.height, c.width, w, col.data());
    EXPECT_EQ(col, NaiveIm2Col(im, c));

    // Col2Im adds the adjoint into what the image holds: <Im2Col(a), b> = <a, Col2Im(b)>.
    const std::vector<T> b = Random<T>(col_size, seed++);
    const std::vector<T> base = Random<T>(im_size, seed++);
    std::vector<T> adj = base;
    Col2Im(b.data(), c.channels, c.height, c.width, w, adj.data());
    double lhs = 0, rhs = 0, scale = 0;
    for (size_t k = 0; k < col_size; ++k) {
      lhs += static_cast<double>(col[k]) * b[k];
      scale += std::abs(static_cast<double>(col[k]) * b[k]);
    }
    for (size_t k = 0; k < im_size; ++k) {
      rhs += static_cast<double>(im[k]) * (static_cast<double>(adj[k]) - base[k]);
    }
    const double tol = (sizeof(T) == 4 ? 1e-5 : 1e-12) * (scale + 1);
    EXPECT_NEAR(lhs, rhs, tol);
  }
}

TEST(Im2Col, FloatMatchesItsDefinitionAndCol2ImIsItsAdjoint) { CheckIm2ColAndCol2Im<float>(); }

TEST(Im2Col, DoubleMatchesItsDefinitionAndCol2ImIsItsAdjoint) { CheckIm2ColAndCol2Im<double>(); }

// Col2Im against a naive scatter, entry by entry (the adjoint test sums over everything).
TEST(Im2Col, Col2ImScattersEveryEntryToItsPixel) {
  unsigned seed = 100;
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.Name());
    const Conv2dWindow w = c.Window();
    const size_t col_size =
        static_cast<size_t>(c.channels * c.kernel_h * c.kernel_w * w.out_h * w.out_w);
    const std::vector<double> col = Random<double>(col_size, seed++);
    std::vector<double> want(static_cast<size_t>(c.channels * c.height * c.width), 0.0);
    ForEachColumnEntry(c, [&](size_t k, int64_t pixel) {
      if (pixel >= 0) want[pixel] += col[k];
    });
    std::vector<double> got(want.size(), 0.0);
    Col2Im(col.data(), c.channels, c.height, c.width, w, got.data());
    ASSERT_EQ(got.size(), want.size());
    for (size_t n = 0; n < got.size(); ++n) EXPECT_NEAR(got[n], want[n], 1e-12) << n;
  }
}

}  // namespace
}  // namespace math
}  // namespace operators
}  // namespace paddle_like
