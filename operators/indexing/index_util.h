// Helpers of the indexing ops (gather, gather_nd, index_select): index tensors read and
// checked, and a tensor's dims split around one axis.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

// The values of the int32 or int64 tensor `t` (input `slot` of `op`), each checked to lie in
// [0, bound), or in [-bound, bound) when `allow_negative` (then bound is added to a negative
// one). InvalidArgumentError naming the op, the slot, the element and the bound.
std::vector<int64_t> ReadIndices(const std::string& op, const std::string& slot,
                                 const DenseTensor& t, int64_t bound, bool allow_negative);

// Dims as [outer, axis, inner]: the products of the dims before, at and after `axis`.
struct AxisSplit {
  int64_t outer = 1;
  int64_t axis = 1;
  int64_t inner = 1;
};
AxisSplit SplitAtAxis(const DDim& dims, int axis);

// gather's Out dims: X's with dim `axis` replaced by the index count (removed for a 0-D
// index); InvalidArgumentError naming `op` for an index that is not 0-D, 1-D or [N, 1].
DDim GatherDims(const std::string& op, const DDim& x, const DDim& index, int axis);

// gather's axis from input Axis (read on the host) or attribute `axis`, normalised.
int GatherAxis(const ExecutionContext& ctx, int rank);

// index_select's Out dims: X's with dim `dim` replaced by the index count.
DDim IndexSelectDims(const std::string& op, const DDim& x, const DDim& index, int dim);

// The positions of `ids` grouped by value (a stable counting sort): the positions i with
// ids[i] == r are positions[offsets[r]], ..., positions[offsets[r + 1] - 1], increasing.
// Every id must lie in [0, buckets) or equal `skip` (left out; -1 for none). The gradient
// kernels of gather-like ops on devices sum each bucket in this order, the CPU's order.
struct IndexBuckets {
  std::vector<int64_t> offsets;    // buckets + 1 values.
  std::vector<int64_t> positions;  // The positions of every id but the skipped ones.
};
IndexBuckets BucketPositions(const std::vector<int64_t>& ids, int64_t buckets, int64_t skip);

// out[o, i, :] = in[o, index[i], :] for `in` split as `s` and `out` of [s.outer, |index|,
// s.inner].
template <typename T>
void GatherSlices(const T* in, const AxisSplit& s, const std::vector<int64_t>& index, T* out) {
  const auto n = static_cast<int64_t>(index.size());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(out + (o * n + i) * s.inner, in + (o * s.axis + index[i]) * s.inner,
                  sizeof(T) * s.inner);
    }
  }
}

// The gradient of GatherSlices: dx (split as `s`) = 0, then dx[o, index[i], :] += dout[o, i, :]
// in the order of `index` (deterministic).
template <typename T>
void ScatterAddSlices(const T* dout, const AxisSplit& s, const std::vector<int64_t>& index,
                      T* dx) {
  std::fill(dx, dx + s.outer * s.axis * s.inner, T(0));
  const auto n = static_cast<int64_t>(index.size());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < n; ++i) {
      T* dst = dx + (o * s.axis + index[i]) * s.inner;
      const T* src = dout + (o * n + i) * s.inner;
      for (int64_t k = 0; k < s.inner; ++k) dst[k] += src[k];
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
