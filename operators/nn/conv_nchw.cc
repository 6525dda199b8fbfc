#include "operators/nn/conv_nchw.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "operators/math/blas.h"
#include "operators/math/im2col.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DDim;
using platform::CPUDeviceContext;

// Runs fn(begin, end, gemm_ctx) over the items [0, count). With at least as many items as
// threads, the items are split over the threads and every GEMM runs on its calling thread;
// otherwise the items run in order and every GEMM uses all threads. Either way the split
// depends only on the sizes and the thread count.
void SplitWork(const CPUDeviceContext& dev, int64_t count,
               const std::function<void(int64_t, int64_t, const CPUDeviceContext&)>& fn) {
  static const CPUDeviceContext* const kInline = new CPUDeviceContext(1);
  if (dev.num_threads() > 1 && count >= dev.num_threads()) {
    dev.ParallelFor(count, 1, [&](int64_t begin, int64_t end) { fn(begin, end, *kInline); });
  } else {
    fn(0, count, dev);
  }
}

// A 1x1 filter with stride 1 and no padding reads the image itself as its column matrix.
bool IsPointwise(const Conv2dGeometry& g) {
  return g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 && g.stride_w == 1 &&
         g.pad_top == 0 && g.pad_left == 0 && g.out_h == g.in_h && g.out_w == g.in_w;
}

// Output planes of a convolution whose groups each have one input channel, by direct loops.
template <typename T>
void DepthwiseForwardNchw(const CPUDeviceContext& dev, const Conv2dGeometry& g, const T* in,
                          const T* filter, T* out) {
  const int64_t multiplier = g.out_c / g.groups;
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  const int64_t taps = g.kernel_h * g.kernel_w;
  auto plane = [&](int64_t p) {
    const int64_t n = p / g.out_c, m = p % g.out_c;
    const T* x = in + (n * g.in_c + m / multiplier) * in_plane;
    const T* w = filter + m * taps;
    T* y = out + p * out_plane;
    std::fill(y, y + out_plane, T(0));
    for (int64_t i = 0; i < g.kernel_h; ++i) {
      int64_t y0, y1;
      math::ValidOutputRange(g.in_h, g.stride_h, g.pad_top, i * g.dilation_h, g.out_h, &y0, &y1);
      for (int64_t j = 0; j < g.kernel_w; ++j) {
        int64_t x0, x1;
        math::ValidOutputRange(g.in_w, g.stride_w, g.pad_left, j * g.dilation_w, g.out_w, &x0,
                               &x1);
        const T wv = w[i * g.kernel_w + j];
        const int64_t dx = j * g.dilation_w - g.pad_left;
        for (int64_t oy = y0; oy < y1; ++oy) {
          const T* row = x + (oy * g.stride_h - g.pad_top + i * g.dilation_h) * g.in_w;
          T* dst = y + oy * g.out_w;
          for (int64_t ox = x0; ox < x1; ++ox) dst[ox] += wv * row[ox * g.stride_w + dx];
        }
      }
    }
  };
  dev.ParallelFor(g.batch * g.out_c, std::max<int64_t>(1, 4096 / (out_plane * taps + 1)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t p = begin; p < end; ++p) plane(p);
                  });
}

}  // namespace

template <typename T>
void ConvForwardNchw(const CPUDeviceContext& dev, const Conv2dGeometry& g, const T* in,
                     const T* filter, T* out, math::GemmFn<T> gemm_fn) {
  const int64_t cg = g.in_c / g.groups, mg = g.out_c / g.groups;
  if (cg == 1 && g.groups > 1) return DepthwiseForwardNchw(dev, g, in, filter, out);
  const int64_t k = cg * g.kernel_h * g.kernel_w;
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  const bool pointwise = IsPointwise(g);
  const math::Conv2dWindow window = g.Window();
  SplitWork(dev, g.batch, [&](int64_t begin, int64_t end, const CPUDeviceContext& gemm_ctx) {
    std::vector<T> col(pointwise ? 0 : k * out_plane);
    for (int64_t n = begin; n < end; ++n) {
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        const T* x = in + (n * g.in_c + gi * cg) * in_plane;
        if (!pointwise) math::Im2Col(x, cg, g.in_h, g.in_w, window, col.data());
        gemm_fn(gemm_ctx, false, false, mg, out_plane, k, T(1), filter + gi * mg * k, k,
                      pointwise ? x : col.data(), out_plane, T(0),
                      out + (n * g.out_c + gi * mg) * out_plane, out_plane);
      }
    }
  });
}

// dInput [N, C_in, H, W] from dOutput [N, C_out, H_out, W_out].
template <typename T>
void ConvInputGradNchw(const CPUDeviceContext& dev, const Conv2dGeometry& g, const T* filter,
                       const T* dout, T* din, math::GemmFn<T> gemm_fn) {
  const int64_t cg = g.in_c / g.groups, mg = g.out_c / g.groups;
  const int64_t k = cg * g.kernel_h * g.kernel_w;
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  const bool pointwise = IsPointwise(g);
  const math::Conv2dWindow window = g.Window();
  SplitWork(dev, g.batch, [&](int64_t begin, int64_t end, const CPUDeviceContext& gemm_ctx) {
    std::vector<T> col(pointwise ? 0 : k * out_plane);
    for (int64_t n = begin; n < end; ++n) {
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        T* dx = din + (n * g.in_c + gi * cg) * in_plane;
        // dcol [k, out_plane] = Filter_g^T (stored [mg, k]) * dOutput_g [mg, out_plane].
        gemm_fn(gemm_ctx, true, false, k, out_plane, mg, T(1), filter + gi * mg * k, k,
                      dout + (n * g.out_c + gi * mg) * out_plane, out_plane, T(0),
                      pointwise ? dx : col.data(), out_plane);
        if (!pointwise) {
          std::fill(dx, dx + cg * in_plane, T(0));
          math::Col2Im(col.data(), cg, g.in_h, g.in_w, window, dx);
        }
      }
    }
  });
}

namespace {
template <typename T>
void AddTo(const T* __restrict__ src, int64_t n, T* __restrict__ dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
}
}  // namespace

template <typename T>
void ConvInputGradNhwc(const CPUDeviceContext& dev, const Conv2dGeometry& g, const T* filter,
                       const T* dout, T* din, math::GemmFn<T> gemm_fn) {
  PL_ENFORCE(g.groups == 1, errors::Unimplemented("ConvInputGradNhwc: %lld groups, expected 1",
                                                  static_cast<long long>(g.groups)));
  const int64_t c = g.in_c, taps = g.kernel_h * g.kernel_w, k = taps * c;
  const int64_t out_plane = g.out_h * g.out_w, in_image = g.in_h * g.in_w * c;
  // Filter [C_out, C_in, kh, kw] as [C_out, kh, kw, C_in]: dcol's columns in din's order.
  std::vector<T> w(static_cast<size_t>(g.out_c * k));
  for (int64_t o = 0; o < g.out_c; ++o) {
    for (int64_t ci = 0; ci < c; ++ci) {
      for (int64_t t = 0; t < taps; ++t)
        w[(o * taps + t) * c + ci] = filter[(o * c + ci) * taps + t];
    }
  }
  SplitWork(dev, g.batch, [&](int64_t begin, int64_t end, const CPUDeviceContext& gemm_ctx) {
    std::vector<T> col(static_cast<size_t>(out_plane * k));
    for (int64_t n = begin; n < end; ++n) {
      gemm_fn(gemm_ctx, false, false, out_plane, k, g.out_c, T(1), dout + n * out_plane * g.out_c,
              g.out_c, w.data(), k, T(0), col.data(), k);
      T* image = din + n * in_image;
      std::fill(image, image + in_image, T(0));
      for (int64_t oy = 0; oy < g.out_h; ++oy) {
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          const T* row = col.data() + (oy * g.out_w + ox) * k;
          // The window's columns inside the image: taps [kx0, kx1).
          const int64_t x0 = ox * g.stride_w - g.pad_left;
          int64_t kx0 = 0, kx1 = g.kernel_w;
          while (kx0 < kx1 && x0 + kx0 * g.dilation_w < 0) ++kx0;
          while (kx1 > kx0 && x0 + (kx1 - 1) * g.dilation_w >= g.in_w) --kx1;
          if (kx0 == kx1) continue;
          for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
            const int64_t y = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
            if (y < 0 || y >= g.in_h) continue;
            const T* src = row + (ky * g.kernel_w + kx0) * c;
            T* dst = image + (y * g.in_w + x0 + kx0 * g.dilation_w) * c;
            if (g.dilation_w == 1) {
              AddTo(src, (kx1 - kx0) * c, dst);
            } else {
              for (int64_t kx = kx0; kx < kx1; ++kx, src += c, dst += g.dilation_w * c) {
                AddTo(src, c, dst);
              }
            }
          }
        }
      }
    }
  });
}

// dFilter [C_out, C_in / groups, kh, kw]; images are added in order n = 0, 1, ...
template <typename T>
void ConvFilterGradNchw(const CPUDeviceContext& dev, const Conv2dGeometry& g, const T* in,
                        const T* dout, T* dfilter, math::GemmFn<T> gemm_fn) {
  const int64_t cg = g.in_c / g.groups, mg = g.out_c / g.groups;
  const int64_t k = cg * g.kernel_h * g.kernel_w;
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  const bool pointwise = IsPointwise(g);
  const math::Conv2dWindow window = g.Window();
  std::fill(dfilter, dfilter + g.out_c * k, T(0));
  SplitWork(dev, g.groups, [&](int64_t begin, int64_t end, const CPUDeviceContext& gemm_ctx) {
    std::vector<T> col(pointwise ? 0 : k * out_plane);
    for (int64_t gi = begin; gi < end; ++gi) {
      for (int64_t n = 0; n < g.batch; ++n) {
        const T* x = in + (n * g.in_c + gi * cg) * in_plane;
        if (!pointwise) math::Im2Col(x, cg, g.in_h, g.in_w, window, col.data());
        // dFilter_g [mg, k] += dOutput_g [mg, out_plane] * col^T (col stored [k, out_plane]).
        gemm_fn(gemm_ctx, false, true, mg, k, out_plane, T(1),
                      dout + (n * g.out_c + gi * mg) * out_plane, out_plane,
                      pointwise ? x : col.data(), out_plane, T(1), dfilter + gi * mg * k, k);
      }
    }
  });
}

// Writes `nchw` (logical dims [N, C, H, W]) into `dst` of dims `dims` (NCHW or NHWC).
template <typename T>
void StoreFromNchw(const std::vector<T>& nchw, bool channel_last, const DDim& dims, T* dst) {
  if (channel_last) {
    math::NchwToNhwc(nchw.data(), dims[0], dims[3], dims[1], dims[2], dst);
  } else {
    std::copy(nchw.begin(), nchw.end(), dst);
  }
}

#define PL_INSTANTIATE_CONV_NCHW(T)                                                             \
  template void ConvForwardNchw<T>(const CPUDeviceContext&, const Conv2dGeometry&, const T*,    \
                                   const T*, T*, math::GemmFn<T>);                              \
  template void ConvInputGradNchw<T>(const CPUDeviceContext&, const Conv2dGeometry&, const T*,  \
                                     const T*, T*, math::GemmFn<T>);                            \
  template void ConvInputGradNhwc<T>(const CPUDeviceContext&, const Conv2dGeometry&, const T*,  \
                                     const T*, T*, math::GemmFn<T>);                            \
  template void ConvFilterGradNchw<T>(const CPUDeviceContext&, const Conv2dGeometry&, const T*, \
                                      const T*, T*, math::GemmFn<T>);                           \
  template void StoreFromNchw<T>(const std::vector<T>&, bool, const framework::DDim&, T*);
PL_INSTANTIATE_CONV_NCHW(float)
PL_INSTANTIATE_CONV_NCHW(double)
#undef PL_INSTANTIATE_CONV_NCHW

}  // namespace operators
}  // namespace paddle_like
