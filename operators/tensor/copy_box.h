// CopyBox: copies between a row-major tensor and a box (an axis-aligned sub-block) of it, on
// any place. Shared by concat, split, slice and slice_grad, whose kernels therefore run on
// every device. The caller checks that the box lies inside the tensor; zero-size boxes copy
// nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "platform/place.h"

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

// Element (i) of the box, in row-major box order, is element (offset + i) of the tensor;
// both buffers hold elements of `element_bytes` bytes on `place`. to_big = false: box <-
// tensor (slice, split); true: tensor <- box (concat, slice_grad). Copied as 2-D blocks
// (platform::Copy2D): one per index of the merged box's dims before its last two.
void CopyBoxBytes(const platform::Place& place, const BoxGeometry& geometry,
                  size_t element_bytes, const void* src, void* dst, bool to_big);

template <typename T>
void CopyBox(const platform::Place& place, const BoxGeometry& geometry, const T* src, T* dst,
             bool to_big) {
  CopyBoxBytes(place, geometry, sizeof(T), src, dst, to_big);
}

}  // namespace operators
}  // namespace paddle_like
