// Where the diagonals of the 2-D slices of a tensor over two of its dims sit (diagonal,
// trace, fill_diagonal_tensor).
//
// With the dims D, the two dims a1 != a2 and the offset k (above the main diagonal for
// k > 0), each slice's diagonal has L = max(0, min(D[a1] - max(-k, 0), D[a2] - max(k, 0)))
// elements; element i sits at index i + max(-k, 0) along a1 and i + max(k, 0) along a2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

// Where the diagonals sit in Input: the other dims with their strides, the diagonal's
// length, the offset of its first element and the step between elements.
struct DiagonalPlan {
  std::vector<int64_t> rest_dims, rest_strides;
  int64_t length = 0, start = 0, step = 0;
  DDim out_dims(bool trace) const {
    std::vector<int64_t> d = rest_dims;
    if (!trace) d.push_back(length);
    return DDim(d);
  }
};

// The op's names for the tensor and the two dims, for error messages.
struct DiagonalNames {
  const char* input = "Input";
  const char* axis1 = "axis1";
  const char* axis2 = "axis2";
};

// The plan of `in`'s diagonals over dims axis1 and axis2 (negative counts from the end);
// InvalidArgumentError naming `op` for a rank below 2 or equal dims. L is -1 when either dim
// is unknown.
DiagonalPlan PlanDiagonal(const std::string& op, const DiagonalNames& names, const DDim& in,
                          int64_t offset, int axis1, int axis2);

// fn(offset of diagonal element i of slice r in Input, flat index of (r, i) in the diagonals).
template <typename Fn>
void ForEachDiagonalElement(const DiagonalPlan& p, Fn&& fn) {
  int64_t slices = 1;
  for (int64_t d : p.rest_dims) slices *= d;
  const int rank = static_cast<int>(p.rest_dims.size());
  std::vector<int64_t> index(rank, 0);
  for (int64_t r = 0; r < slices; ++r) {
    int64_t base = p.start;
    for (int d = 0; d < rank; ++d) base += index[d] * p.rest_strides[d];
    for (int64_t i = 0; i < p.length; ++i) fn(base + i * p.step, r * p.length + i, r);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < p.rest_dims[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
