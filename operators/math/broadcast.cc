#include "operators/math/broadcast.h"

#include <complex>
#include <cstring>
#include <vector>

#include "platform/enforce.h"

namespace paddle_like {
namespace operators {
namespace math {

namespace {

// The broadcast of one aligned dim pair; -1 = unknown, false if incompatible.
bool BroadcastDim(int64_t a, int64_t b, int64_t* out) {
  if (a == b || b == 1) {
    *out = a;
  } else if (a == 1 || a == -1) {
    *out = b;
  } else if (b == -1) {
    *out = a;
  } else {
    return false;
  }
  return true;
}

// `small` placed at dims [axis, axis + small.size()) of a rank-`rank` shape of 1s.
DDim Align(const DDim& small, int axis, int rank) {
  std::vector<int64_t> d(static_cast<size_t>(rank), 1);
  for (int i = 0; i < small.size(); ++i) d[axis + i] = small[i];
  return DDim(d);
}

// Where `small` starts inside a shape of rank `rank` for `axis`, with trailing 1s of `small`
// dropped when they would run past the end; -1 when `axis` does not fit.
// Comparisons are written as `axis > rank - size` so that no axis (INT_MAX included) can
// overflow them.
int StartOf(DDim* small, int axis, int rank, bool equal_ranks) {
  if (axis == -1 || (axis == 0 && equal_ranks)) return rank - small->size();
  if (axis < 0 || axis > rank) return -1;
  while (small->size() > 0 && axis > rank - small->size() && (*small)[small->size() - 1] == 1) {
    *small = Slice(*small, 0, small->size() - 1);
  }
  return axis <= rank - small->size() ? axis : -1;
}

}  // namespace

DDim AlignInside(const std::string& op_type, const std::string& big_slot, const DDim& big,
                 const std::string& small_slot, const DDim& small, int axis) {
  if (big == small) return small;
  const int rank = big.size();
  PL_ENFORCE(small.size() <= rank,
             errors::InvalidArgument("op `%s`: input `%s` shape %s has a higher rank than input "
                                     "`%s` shape %s, so it cannot be broadcast to it",
                                     op_type, small_slot, small.ToString(), big_slot,
                                     big.ToString()));
  DDim trimmed = small;
  const int start = StartOf(&trimmed, axis, rank, small.size() == rank);
  PL_ENFORCE(start >= 0,
             errors::InvalidArgument(
                 "op `%s` attribute `axis`: expected -1 or a value in [0, %d] for input `%s` "
                 "shape %s inside input `%s` shape %s, received %d",
                 op_type, rank - trimmed.size(), small_slot, small.ToString(), big_slot,
                 big.ToString(), axis));
  const DDim aligned = Align(trimmed, start, rank);
  for (int i = 0; i < rank; ++i) {
    const int64_t s = aligned[i];
    const int64_t b = big[i];
    PL_ENFORCE(s == b || s == 1 || s == -1 || b == -1,
               errors::InvalidArgument(
                   "op `%s`: input `%s` shape %s does not broadcast to input `%s` shape %s with "
                   "axis=%d (aligned dim %d: %lld vs %lld; expected equal or 1)",
                   op_type, small_slot, small.ToString(), big_slot, big.ToString(), axis, i,
                   static_cast<long long>(s), static_cast<long long>(b)));
  }
  return aligned;
}

BroadcastDims ComputeBroadcastDims(const std::string& op_type, const DDim& x, const DDim& y,
                                   int axis) {
  if (x == y) return {x, y, x};
  const int attr_axis = axis;
  const bool x_is_big = x.size() >= y.size();
  const DDim& big = x_is_big ? x : y;
  DDim small = x_is_big ? y : x;
  const int rank = big.size();
  // Trailing 1s of the smaller input do not count when they would run past the end (so
  // X [2, 3] and Y [3, 1] fit with axis = 1).
  axis = StartOf(&small, axis, rank, x.size() == y.size());
  PL_ENFORCE(axis >= 0,
             errors::InvalidArgument(
                 "op `%s` attribute `axis`: expected -1 or a value in [0, %d] for input `X` "
                 "shape %s and input `Y` shape %s, received %d",
                 op_type, rank - small.size(), x.ToString(), y.ToString(), attr_axis));
  const DDim aligned = Align(small, axis, rank);
  BroadcastDims r{x_is_big ? big : aligned, x_is_big ? aligned : big, DDim()};
  std::vector<int64_t> out(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    PL_ENFORCE(BroadcastDim(r.x[i], r.y[i], &out[i]),
               errors::InvalidArgument(
                   "op `%s`: input `X` shape %s and input `Y` shape %s cannot be broadcast "
                   "with axis=%d (aligned dim %d: %lld vs %lld)",
                   op_type, x.ToString(), y.ToString(), attr_axis, i,
                   static_cast<long long>(r.x[i]), static_cast<long long>(r.y[i])));
  }
  r.out = DDim(out);
  return r;
}

BroadcastPlan MakeBroadcastPlan(const BroadcastDims& dims) {
  BroadcastPlan plan;
  plan.numel = dims.out.numel();
  if (plan.numel == 0) return plan;
  const int rank = dims.out.size();
  int64_t xs[DDim::kMaxRank], ys[DDim::kMaxRank];
  int64_t x_step = 1, y_step = 1;
  for (int i = rank - 1; i >= 0; --i) {
    xs[i] = dims.x[i] == 1 ? 0 : x_step;
    ys[i] = dims.y[i] == 1 ? 0 : y_step;
    x_step *= dims.x[i];
    y_step *= dims.y[i];
  }
  for (int i = 0; i < rank; ++i) {
    const int64_t n = dims.out[i];
    if (n == 1) continue;
    const int last = plan.rank - 1;
    if (last >= 0 && plan.x_strides[last] == xs[i] * n && plan.y_strides[last] == ys[i] * n) {
      // Both inputs continue contiguously (or both stay broadcast) across the boundary.
      plan.dims[last] *= n;
      plan.x_strides[last] = xs[i];
      plan.y_strides[last] = ys[i];
    } else {
      plan.dims[plan.rank] = n;
      plan.x_strides[plan.rank] = xs[i];
      plan.y_strides[plan.rank] = ys[i];
      ++plan.rank;
    }
  }
  if (plan.rank == 0) {  // A single element.
    plan.dims[0] = 1;
    plan.rank = 1;
  }
  return plan;
}

BroadcastCursor::BroadcastCursor(const BroadcastPlan& plan, int64_t row) : plan_(plan) {
  for (int d = plan.rank - 2; d >= 0; --d) {
    index_[d] = row % plan.dims[d];
    row /= plan.dims[d];
    x_offset_ += index_[d] * plan.x_strides[d];
    y_offset_ += index_[d] * plan.y_strides[d];
  }
}

template <typename T>
void BroadcastTo(const platform::CPUDeviceContext& ctx, const T* x, const DDim& x_aligned,
                 const DDim& target, T* out) {
  const int64_t n = target.numel();
  if (n == 0) return;
  if (n == x_aligned.numel()) {  // Only size-1 dims differ: a copy.
    if (out != x) std::memcpy(out, x, n * sizeof(T));
    return;
  }
  // Plan over (target, aligned X): the "y" side of the plan is X.
  const BroadcastPlan plan = MakeBroadcastPlan(BroadcastDims{target, x_aligned, target});
  const int64_t xs = plan.y_inner_stride();
  ctx.ParallelFor(n, 1 << 14, [&](int64_t begin, int64_t end) {
    ForEachBroadcastRun(plan, begin, end, [&](int64_t oo, int64_t, int64_t xo, int64_t len) {
      T* dst = out + oo;
      const T* src = x + xo;
      if (xs == 1) {
        std::memcpy(dst, src, len * sizeof(T));
      } else {
        const T v = *src;
        for (int64_t k = 0; k < len; ++k) dst[k] = v;
      }
    });
  });
}

#define PL_INSTANTIATE_BROADCAST_TO(T)                                                    \
  template void BroadcastTo<T>(const platform::CPUDeviceContext&, const T*, const DDim&, \
                               const DDim&, T*)
PL_INSTANTIATE_BROADCAST_TO(float);
PL_INSTANTIATE_BROADCAST_TO(double);
PL_INSTANTIATE_BROADCAST_TO(int32_t);
PL_INSTANTIATE_BROADCAST_TO(int64_t);
PL_INSTANTIATE_BROADCAST_TO(bool);
PL_INSTANTIATE_BROADCAST_TO(uint8_t);
PL_INSTANTIATE_BROADCAST_TO(int8_t);
PL_INSTANTIATE_BROADCAST_TO(int16_t);
PL_INSTANTIATE_BROADCAST_TO(std::complex<float>);
PL_INSTANTIATE_BROADCAST_TO(std::complex<double>);
#undef PL_INSTANTIATE_BROADCAST_TO

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
