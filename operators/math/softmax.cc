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

// Softmax (or log-softmax when kLog) of one contiguous row of n > 0 values.
template <bool kLog, typename T>
void SoftmaxRow(const T* x, T* out, int64_t n) {
  T max = x[0];
  for (int64_t j = 1; j < n; ++j) max = std::max(max, x[j]);
  double sum = 0;
  if constexpr (kLog) {
    for (int64_t j = 0; j < n; ++j) sum += std::exp(static_cast<double>(x[j]) - max);
    const double shift = max + std::log(sum);
    for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(x[j] - shift);
    return;
  }
  for (int64_t j = 0; j < n; ++j) {
    out[j] = std::exp(x[j] - max);
    sum += out[j];
  }
  const double inv = 1.0 / sum;
  for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(out[j] * inv);
}

// Softmax (or log-softmax when kLog) of columns [0, width) of an n x stride block (n > 0,
// width <= kColumnBlock).
template <bool kLog, typename T>
void SoftmaxColumns(const T* x, T* out, int64_t n, int64_t stride, int64_t width) {
  T max[kColumnBlock];
  double sum[kColumnBlock];
  std::copy(x, x + width, max);
  for (int64_t j = 1; j < n; ++j) {
    const T* row = x + j * stride;
    for (int64_t k = 0; k < width; ++k) max[k] = std::max(max[k], row[k]);
  }
  std::fill(sum, sum + width, 0.0);
  if constexpr (kLog) {
    for (int64_t j = 0; j < n; ++j) {
      const T* row = x + j * stride;
      for (int64_t k = 0; k < width; ++k) sum[k] += std::exp(static_cast<double>(row[k]) - max[k]);
    }
    for (int64_t k = 0; k < width; ++k) sum[k] = max[k] + std::log(sum[k]);  // The shift.
    for (int64_t j = 0; j < n; ++j) {
      const T* row = x + j * stride;
      T* o = out + j * stride;
      for (int64_t k = 0; k < width; ++k) o[k] = static_cast<T>(row[k] - sum[k]);
    }
    return;
  }
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

template <bool kLog, typename T>
void Forward(const platform::CPUDeviceContext& ctx, const T* x, T* out, int64_t outer, int64_t n,
             int64_t inner) {
  if (outer == 0 || n == 0 || inner == 0) return;
  if (inner == 1) {
    const int64_t grain = std::max<int64_t>(1, kMinTaskElements / n);
    ctx.ParallelFor(outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) SoftmaxRow<kLog>(x + i * n, out + i * n, n);
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
      SoftmaxColumns<kLog>(x + offset, out + offset, n, inner, std::min(kColumnBlock, inner - k0));
    }
  });
}

}  // namespace

template <typename T>
void SoftmaxForward(const platform::CPUDeviceContext& ctx, const T* x, T* out, int64_t outer,
                    int64_t n, int64_t inner) {
  Forward<false>(ctx, x, out, outer, n, inner);
}

template <typename T>
void LogSoftmaxForward(const platform::CPUDeviceContext& ctx, const T* x, T* out, int64_t outer,
                       int64_t n, int64_t inner) {
  Forward<true>(ctx, x, out, outer, n, inner);
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

template <typename T>
void LogSoftmaxBackward(const platform::CPUDeviceContext& ctx, const T* out, const T* dout, T* dx,
                        int64_t outer, int64_t n, int64_t inner) {
  if (outer == 0 || n == 0 || inner == 0) return;
  const int64_t grain = std::max<int64_t>(1, kMinTaskElements / n);
  ctx.ParallelFor(outer * inner, grain, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t base = (item / inner) * n * inner + item % inner;
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += static_cast<double>(dout[base + j * inner]);
      for (int64_t j = 0; j < n; ++j) {
        const int64_t k = base + j * inner;
        dx[k] = static_cast<T>(static_cast<double>(dout[k]) -
                               std::exp(static_cast<double>(out[k])) * sum);
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
template void LogSoftmaxForward<float>(const platform::CPUDeviceContext&, const float*, float*,
                                       int64_t, int64_t, int64_t);
template void LogSoftmaxForward<double>(const platform::CPUDeviceContext&, const double*, double*,
                                        int64_t, int64_t, int64_t);
template void LogSoftmaxBackward<float>(const platform::CPUDeviceContext&, const float*,
                                        const float*, float*, int64_t, int64_t, int64_t);
template void LogSoftmaxBackward<double>(const platform::CPUDeviceContext&, const double*,
                                         const double*, double*, int64_t, int64_t, int64_t);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
