#include "operators/math/reduce.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "platform/enforce.h"

namespace paddle_like {
namespace operators {
namespace math {

namespace {

// Elements per partial sum of SumAll, and the work a parallel task should at least get.
constexpr int64_t kSumBlock = 1 << 14;
// Output columns summed together when the innermost dim is kept.
constexpr int64_t kColumnBlock = 256;

// Four interleaved accumulators: a fixed order that still lets the adds overlap.
template <typename T>
double SumRun(const T* x, int64_t n) {
  double s[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s[0] += x[i];
    s[1] += x[i + 1];
    s[2] += x[i + 2];
    s[3] += x[i + 3];
  }
  for (; i < n; ++i) s[0] += x[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

}  // namespace

ReduceShape ComputeReduceShape(const std::string& op_type, const DDim& x,
                               const std::vector<int>& dim, bool keep_dim, bool reduce_all) {
  const int rank = x.size();
  ReduceShape r;
  r.reduced.assign(static_cast<size_t>(rank), reduce_all || dim.empty());
  // A 0-D input has one "dim" to name: 0 or -1.
  const int lo = rank == 0 ? -1 : -rank;
  const int hi = rank == 0 ? 1 : rank;
  for (int d : dim) {
    PL_ENFORCE(d >= lo && d < hi,
               errors::InvalidArgument(
                   "op `%s` attribute `dim`: expected values in [%d, %d) for input `X` of shape "
                   "%s, received %d",
                   op_type, lo, hi, x.ToString(), d));
    if (rank > 0) r.reduced[d < 0 ? d + rank : d] = true;
  }
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    if (!r.reduced[i]) {
      out.push_back(x[i]);
    } else if (keep_dim) {
      out.push_back(1);
    }
  }
  r.out = DDim(out);
  return r;
}

template <typename T>
double SumAll(const platform::CPUDeviceContext& ctx, const T* x, int64_t n) {
  if (n <= kSumBlock) return SumRun(x, n);
  // Partial sums over fixed blocks, added in block order: independent of the thread count.
  const int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<double> partial(static_cast<size_t>(blocks));
  ctx.ParallelFor(blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      partial[b] = SumRun(x + b * kSumBlock, std::min(kSumBlock, n - b * kSumBlock));
    }
  });
  double s = 0;
  for (double p : partial) s += p;
  return s;
}

template <typename T>
void SumOverDims(const platform::CPUDeviceContext& ctx, const T* x, const DDim& dims,
                 const std::vector<bool>& reduced, double* out) {
  int64_t out_numel = 1;
  for (int i = 0; i < dims.size(); ++i) {
    if (!reduced[i]) out_numel *= dims[i];
  }
  if (out_numel == 0) return;
  if (dims.numel() == 0) {  // A reduced dim is empty: every sum is 0.
    std::fill(out, out + out_numel, 0.0);
    return;
  }
  // Canonical shape: size-1 dims dropped, neighbours of the same kind merged, so kept and
  // reduced dims alternate.
  std::vector<int64_t> size;
  std::vector<bool> red;
  for (int i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (!size.empty() && red.back() == reduced[i]) {
      size.back() *= dims[i];
    } else {
      size.push_back(dims[i]);
      red.push_back(reduced[i]);
    }
  }
  if (size.empty()) {  // One element.
    out[0] = static_cast<double>(x[0]);
    return;
  }
  const int m = static_cast<int>(size.size());
  if (m == 1 && red[0]) {
    out[0] = SumAll(ctx, x, size[0]);
    return;
  }
  if (m == 1) {
    for (int64_t i = 0; i < size[0]; ++i) out[i] = static_cast<double>(x[i]);
    return;
  }
  std::vector<int64_t> stride(static_cast<size_t>(m));
  stride[m - 1] = 1;
  for (int i = m - 2; i >= 0; --i) stride[i] = stride[i + 1] * size[i + 1];
  // If the innermost dim is kept, each task sums a block of contiguous columns; otherwise
  // each output sums contiguous runs of the innermost (reduced) dim.
  const bool last_kept = !red[m - 1];
  const int64_t inner = last_kept ? size[m - 1] : 1;
  const int64_t run = last_kept ? 1 : size[m - 1];
  std::vector<int> kept_axes, red_axes;
  int64_t groups = 1, reduced_count = 1;
  for (int i = 0; i < m - 1; ++i) {
    if (red[i]) {
      red_axes.push_back(i);
      reduced_count *= size[i];
    } else {
      kept_axes.push_back(i);
      groups *= size[i];
    }
  }
  const int64_t column_blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t work = reduced_count * run * std::min(inner, kColumnBlock);
  const int64_t grain = std::max<int64_t>(1, kSumBlock / std::max<int64_t>(1, work));
  ctx.ParallelFor(groups * column_blocks, grain, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> index(red_axes.size());
    double acc[kColumnBlock];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t group = item / column_blocks;
      const int64_t k0 = (item % column_blocks) * kColumnBlock;
      const int64_t k1 = std::min(inner, k0 + kColumnBlock);
      int64_t offset = 0;
      int64_t rest = group;
      for (int j = static_cast<int>(kept_axes.size()) - 1; j >= 0; --j) {
        const int a = kept_axes[j];
        offset += (rest % size[a]) * stride[a];
        rest /= size[a];
      }
      std::fill(acc, acc + (k1 - k0), 0.0);
      std::fill(index.begin(), index.end(), 0);
      for (int64_t p = 0; p < reduced_count; ++p) {
        if (last_kept) {
          for (int64_t k = k0; k < k1; ++k) acc[k - k0] += x[offset + k];
        } else {
          acc[0] += SumRun(x + offset, run);
        }
        for (int j = static_cast<int>(red_axes.size()) - 1; j >= 0; --j) {
          const int a = red_axes[j];
          offset += stride[a];
          if (++index[j] < size[a]) break;
          offset -= stride[a] * size[a];
          index[j] = 0;
        }
      }
      for (int64_t k = k0; k < k1; ++k) out[group * inner + k] = acc[k - k0];
    }
  });
}

template <typename T>
void SumToShape(const platform::CPUDeviceContext& ctx, const T* x, const DDim& x_dims,
                const DDim& target, T* out) {
  const int64_t n = target.numel();
  if (n == x_dims.numel()) {  // Nothing to sum: a copy.
    if (n > 0 && out != x) std::memcpy(out, x, n * sizeof(T));
    return;
  }
  std::vector<bool> reduced(static_cast<size_t>(target.size()));
  for (int i = 0; i < target.size(); ++i) reduced[i] = target[i] == 1;
  if constexpr (std::is_same_v<T, double>) {
    SumOverDims(ctx, x, x_dims, reduced, out);
  } else {
    std::vector<double> sums(static_cast<size_t>(n));
    SumOverDims(ctx, x, x_dims, reduced, sums.data());
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(sums[i]);
  }
}

template double SumAll<float>(const platform::CPUDeviceContext&, const float*, int64_t);
template double SumAll<double>(const platform::CPUDeviceContext&, const double*, int64_t);
template void SumOverDims<float>(const platform::CPUDeviceContext&, const float*, const DDim&,
                                 const std::vector<bool>&, double*);
template void SumOverDims<double>(const platform::CPUDeviceContext&, const double*, const DDim&,
                                  const std::vector<bool>&, double*);
template void SumToShape<float>(const platform::CPUDeviceContext&, const float*, const DDim&,
                                const DDim&, float*);
template void SumToShape<double>(const platform::CPUDeviceContext&, const double*, const DDim&,
                                 const DDim&, double*);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
