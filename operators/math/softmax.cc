#include "operators/math/softmax.h"

#include <algorithm>
#include <cmath>

namespace paddle_like {
namespace operators {
namespace math {

namespace {

// Work a parallel task should at least get, in elements.
constexpr int64_t kMinTaskElements = 1 << 14;
// Columns handled together when the softmax dim is not the innermost one.
constexpr int64_t kColumnBlock = 256;

// Softmax of one contiguous row of n > 0 values.
template <typename T>
void SoftmaxRow(const T* x, T* out, int64_t n) {
  T max = x[0];
  for (int64_t j = 1; j < n; ++j) max = std::max(max, x[j]);
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    out[j] = std::exp(x[j] - max);
    sum += out[j];
  }
  const double inv = 1.0 / sum;
  for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(out[j] * inv);
}

// Softmax of columns [0, width) of an n x stride block (n > 0, width <= kColumnBlock).
template <typename T>
void SoftmaxColumns(const T* x, T* out, int64_t n, int64_t stride, int64_t width) {
  T max[kColumnBlock];
  double sum[kColumnBlock];
  std::copy(x, x + width, max);
  for (int64_t j = 1; j < n; ++j) {
    const T* row = x + j * stride;
    for (int64_t k = 0; k < width; ++k) max[k] = std::max(max[k], row[k]);
  }
  std::fill(sum, sum + width, 0.0);
  for (int64_t j = 0; j < n; ++j) {
    const T* row = x + j * stride;
    T* o = out + j * stride;
    for (int64_t k = 0; k < width; ++k) {
      o[k] = std::exp(row[k] - max[k]);
      sum[k] += o[k];
    }
  }
  for (int64_t k = 0; k < width; ++k) sum[k] = 1.0 / sum[k];
  for (int64_t j = 0; j < n; ++j) {
    T* o = out + j * stride;
    for (int64_t k = 0; k < width; ++k) o[k] = static_cast<T>(o[k] * sum[k]);
  }
}

}  // namespace

template <typename T>
void SoftmaxForward(const platform::CPUDeviceContext& ctx, const T* x, T* out, int64_t outer,
                    int64_t n, int64_t inner) {
  if (outer == 0 || n == 0 || inner == 0) return;
  if (inner == 1) {
    const int64_t grain = std::max<int64_t>(1, kMinTaskElements / n);
    ctx.ParallelFor(outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) SoftmaxRow(x + i * n, out + i * n, n);
    });
    return;
  }
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t grain =
      std::max<int64_t>(1, kMinTaskElements / (n * std::min(inner, kColumnBlock)));
  ctx.ParallelFor(outer * blocks, grain, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t k0 = (item % blocks) * kColumnBlock;
      const int64_t offset = (item / blocks) * n * inner + k0;
      SoftmaxColumns(x + offset, out + offset, n, inner, std::min(kColumnBlock, inner - k0));
    }
  });
}

template <typename T>
void SoftmaxBackward(const platform::CPUDeviceContext& ctx, const T* out, const T* dout, T* dx,
                     int64_t outer, int64_t n, int64_t inner) {
  if (outer == 0 || n == 0 || inner == 0) return;
  // One task item per (outer, inner) position: a strided run of n values.
  const int64_t grain = std::max<int64_t>(1, kMinTaskElements / n);
  ctx.ParallelFor(outer * inner, grain, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t base = (item / inner) * n * inner + item % inner;
      double dot = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t k = base + j * inner;
        dot += static_cast<double>(dout[k]) * static_cast<double>(out[k]);
      }
      for (int64_t j = 0; j < n; ++j) {
        const int64_t k = base + j * inner;
        dx[k] = static_cast<T>(static_cast<double>(out[k]) * (static_cast<double>(dout[k]) - dot));
      }
    }
  });
}

template void SoftmaxForward<float>(const platform::CPUDeviceContext&, const float*, float*,
                                    int64_t, int64_t, int64_t);
template void SoftmaxForward<double>(const platform::CPUDeviceContext&, const double*, double*,
                                     int64_t, int64_t, int64_t);
template void SoftmaxBackward<float>(const platform::CPUDeviceContext&, const float*, const float*,
                                     float*, int64_t, int64_t, int64_t);
template void SoftmaxBackward<double>(const platform::CPUDeviceContext&, const double*,
                                      const double*, double*, int64_t, int64_t, int64_t);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
