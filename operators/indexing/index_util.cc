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

}  // namespace operators
}  // namespace paddle_like
