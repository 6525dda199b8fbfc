// CopyBox: copies between a row-major tensor and a box (an axis-aligned sub-block) of it.
// Shared by concat, split, slice and slice_grad. The caller checks that the box lies inside
// the tensor; zero-size boxes copy nothing.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace paddle_like {
namespace operators {

// Box geometry: `big` dims of the tensor, `box` dims of the block, `offset` its first
// corner. All three have the same length (the rank; 0 means one element).
struct BoxGeometry {
  std::vector<int64_t> big;
  std::vector<int64_t> box;
  std::vector<int64_t> offset;
};

// Merges each dim into the one before it when the box spans that dim completely, so the
// innermost dim is the longest contiguous run. Keeps at least one dim.
BoxGeometry MergeBoxDims(const BoxGeometry& g);

// Element (i) of the box, in row-major box order, is element (offset + i) of the tensor.
// to_big = false: box <- tensor (slice, split); true: tensor <- box (concat, slice_grad).
template <typename T>
void CopyBox(const BoxGeometry& geometry, const T* src, T* dst, bool to_big) {
  const BoxGeometry g = MergeBoxDims(geometry);
  const int rank = static_cast<int>(g.box.size());
  int64_t box_numel = 1;
  for (int64_t d : g.box) box_numel *= d;
  if (box_numel == 0) return;
  std::vector<int64_t> stride(static_cast<size_t>(rank), 1);  // Of the big tensor.
  for (int i = rank - 2; i >= 0; --i) stride[i] = stride[i + 1] * g.big[i + 1];
  const int64_t run = g.box[rank - 1];
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);  // Over dims [0, rank - 1).
  int64_t base = 0;
  for (int i = 0; i < rank; ++i) base += g.offset[i] * stride[i];
  for (int64_t box_pos = 0; box_pos < box_numel; box_pos += run) {
    int64_t big_pos = base;
    for (int i = 0; i + 1 < rank; ++i) big_pos += index[i] * stride[i];
    if (to_big) {
      std::memcpy(dst + big_pos, src + box_pos, sizeof(T) * run);
    } else {
      std::memcpy(dst + box_pos, src + big_pos, sizeof(T) * run);
    }
    for (int i = rank - 2; i >= 0; --i) {  // Odometer step.
      if (++index[i] < g.box[i]) break;
      index[i] = 0;
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
