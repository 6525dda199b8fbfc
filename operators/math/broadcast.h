// Broadcasting for binary elementwise ops, with PaddlePaddle's `axis` rule.
//
// ComputeBroadcastDims aligns X and Y to one rank and computes the output dims:
//  - equal shapes: elementwise;
//  - otherwise the lower-rank input (Y for equal ranks) is aligned to the other one
//    starting at dim `axis`; axis = -1 means the difference of the ranks (right alignment,
//    as in NumPy); trailing size-1 dims of the aligned input are dropped when they would
//    run past the end (X [2, 3], Y [3, 1], axis 1 -> Y as [3]);
//  - dims of size 1 broadcast on either side.
//
// MakeBroadcastPlan turns aligned dims into an iteration plan: size-1 output dims dropped
// and adjacent dims merged where both inputs are contiguous across them, so the innermost
// dim is as long as possible. ForEachBroadcastRun walks an output range of a plan as runs
// along that innermost dim. BroadcastTo copies one input out to a broadcast shape.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "framework/ddim.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace operators {
namespace math {

using framework::DDim;

struct BroadcastDims {
  DDim x;    // X's dims aligned to the output rank.
  DDim y;    // Y's dims aligned to the output rank.
  DDim out;  // The output dims.
};

// Aligns `x` and `y` for a binary op of type `op_type`. Unknown dims (-1, program-build
// time) stay unknown unless the other side fixes them. Throws InvalidArgumentError naming
// the op when `axis` is invalid or the shapes cannot be broadcast.
BroadcastDims ComputeBroadcastDims(const std::string& op_type, const DDim& x, const DDim& y,
                                   int axis);

// One-sided broadcasting (reduce_as, expand_as_v2): `small` (input `small_slot`) aligned
// inside `big` (input `big_slot`) by the rule above with `small` as the lower-rank input,
// returned with big's rank. Every aligned dim of `small` must equal big's or be 1, so
// `small` broadcasts to exactly `big` (unknown dims, -1, match anything). Throws
// InvalidArgumentError naming the op, both slots and shapes otherwise.
DDim AlignInside(const std::string& op_type, const std::string& big_slot, const DDim& big,
                 const std::string& small_slot, const DDim& small, int axis);

struct BroadcastPlan {
  int64_t numel = 0;  // Output elements.
  int rank = 0;       // >= 1 when numel > 0.
  int64_t dims[DDim::kMaxRank] = {};
  int64_t x_strides[DDim::kMaxRank] = {};  // 0 along dims where X broadcasts.
  int64_t y_strides[DDim::kMaxRank] = {};
  // The innermost strides are 0 (the input broadcasts along the run) or 1 (contiguous).
  int64_t inner() const { return dims[rank - 1]; }
  int64_t x_inner_stride() const { return x_strides[rank - 1]; }
  int64_t y_inner_stride() const { return y_strides[rank - 1]; }
};

// `dims` must be known (run time) and come from ComputeBroadcastDims.
BroadcastPlan MakeBroadcastPlan(const BroadcastDims& dims);

// Offsets of X and Y at the start of one row (one run of the innermost dim), advanced row
// by row like an odometer.
class BroadcastCursor {
 public:
  BroadcastCursor(const BroadcastPlan& plan, int64_t row);

  int64_t x_offset() const { return x_offset_; }
  int64_t y_offset() const { return y_offset_; }

  void NextRow() {
    for (int d = plan_.rank - 2; d >= 0; --d) {
      x_offset_ += plan_.x_strides[d];
      y_offset_ += plan_.y_strides[d];
      if (++index_[d] < plan_.dims[d]) return;
      x_offset_ -= plan_.x_strides[d] * plan_.dims[d];
      y_offset_ -= plan_.y_strides[d] * plan_.dims[d];
      index_[d] = 0;
    }
  }

 private:
  const BroadcastPlan& plan_;
  int64_t index_[DDim::kMaxRank] = {};
  int64_t x_offset_ = 0;
  int64_t y_offset_ = 0;
};

// Calls fn(out_offset, x_offset, y_offset, length) for the runs covering output elements
// [begin, end); within a run, element k is at out_offset + k, x_offset + k *
// plan.x_inner_stride() and y_offset + k * plan.y_inner_stride().
template <typename Fn>
void ForEachBroadcastRun(const BroadcastPlan& plan, int64_t begin, int64_t end, Fn&& fn) {
  if (begin >= end) return;
  const int64_t inner = plan.inner();
  int64_t col = begin % inner;
  BroadcastCursor cursor(plan, begin / inner);
  for (int64_t i = begin; i < end;) {
    const int64_t length = std::min(inner - col, end - i);
    fn(i, cursor.x_offset() + col * plan.x_inner_stride(),
       cursor.y_offset() + col * plan.y_inner_stride(), length);
    i += length;
    col = 0;
    cursor.NextRow();
  }
}

// Writes `x` broadcast to `target` into `out` (target.numel() elements): `x_aligned` is x's
// shape aligned to target's rank (AlignInside), each dim equal to target's or 1. Equal
// element counts give a copy (none when out == x); otherwise `out` must not overlap `x`.
// Instantiated for float, double, int32_t, int64_t and bool.
template <typename T>
void BroadcastTo(const platform::CPUDeviceContext& ctx, const T* x, const DDim& x_aligned,
                 const DDim& target, T* out);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
