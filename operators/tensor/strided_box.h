// StridedBox: the elements of a row-major tensor that a strided slice takes (strided_slice,
// set_value): along dim d, count[d] indices first[d], first[d] + step[d], ...
#pragma once

#include <cstdint>
#include <vector>

#include "framework/ddim.h"

namespace paddle_like {
namespace operators {

struct StridedBox {
  std::vector<int64_t> first, step, count;
};

// Calls fn(offset in the tensor of dims `dims`, element number) for every element of `box`,
// in row-major order of the box.
template <typename Fn>
void ForEachInBox(const framework::DDim& dims, const StridedBox& box, Fn&& fn) {
  const int rank = dims.size();
  int64_t total = 1;
  for (int64_t c : box.count) total *= c;
  if (total == 0) return;
  std::vector<int64_t> stride(static_cast<size_t>(rank), 1), index(static_cast<size_t>(rank), 0);
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * dims[d + 1];
  int64_t at = 0;
  for (int d = 0; d < rank; ++d) at += box.first[d] * stride[d];
  for (int64_t e = 0; e < total; ++e) {
    fn(at, e);
    for (int d = rank - 1; d >= 0; --d) {
      at += box.step[d] * stride[d];
      if (++index[d] < box.count[d]) break;
      at -= box.step[d] * stride[d] * box.count[d];
      index[d] = 0;
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
