#include "operators/indexing/index_util.h"

#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

std::vector<int64_t> ReadIndices(const std::string& op, const std::string& slot,
                                 const DenseTensor& t, int64_t bound, bool allow_negative) {
  std::vector<int64_t> v = ReadIntValues(t, op, slot);
  for (size_t i = 0; i < v.size(); ++i) {
    const int64_t lo = allow_negative ? -bound : 0;
    PL_ENFORCE(v[i] >= lo && v[i] < bound,
               errors::InvalidArgument("op `%s` input `%s`: index %lld at element %zu is outside "
                                       "[%lld, %lld)",
                                       op, slot, static_cast<long long>(v[i]), i,
                                       static_cast<long long>(lo), static_cast<long long>(bound)));
    if (v[i] < 0) v[i] += bound;
  }
  return v;
}

AxisSplit SplitAtAxis(const DDim& dims, int axis) {
  AxisSplit s;
  for (int d = 0; d < dims.size(); ++d) {
    if (d < axis) {
      s.outer *= dims[d];
    } else if (d == axis) {
      s.axis = dims[d];
    } else {
      s.inner *= dims[d];
    }
  }
  return s;
}

IndexBuckets BucketPositions(const std::vector<int64_t>& ids, int64_t buckets, int64_t skip) {
  IndexBuckets b;
  b.offsets.assign(static_cast<size_t>(buckets + 1), 0);
  for (int64_t id : ids) {
    if (id != skip) ++b.offsets[id + 1];
  }
  for (int64_t r = 0; r < buckets; ++r) b.offsets[r + 1] += b.offsets[r];
  b.positions.resize(static_cast<size_t>(b.offsets[buckets]));
  std::vector<int64_t> next(b.offsets.begin(), b.offsets.end() - 1);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] != skip) b.positions[next[ids[i]]++] = static_cast<int64_t>(i);
  }
  return b;
}

}  // namespace operators
}  // namespace paddle_like
