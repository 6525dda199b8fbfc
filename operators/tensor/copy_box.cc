#include "operators/tensor/copy_box.h"

#include "platform/allocator.h"

namespace paddle_like {
namespace operators {

BoxGeometry MergeBoxDims(const BoxGeometry& g) {
  BoxGeometry m;
  if (g.box.empty()) {
    m.big = m.box = {1};
    m.offset = {0};
    return m;
  }
  // Walk from the innermost dim; a dim that the box spans fully (offset 0) folds into the
  // dim before it.
  std::vector<int64_t> big = {g.big.back()};
  std::vector<int64_t> box = {g.box.back()};
  std::vector<int64_t> offset = {g.offset.back()};
  for (int i = static_cast<int>(g.box.size()) - 2; i >= 0; --i) {
    if (box.back() == big.back()) {
      const int64_t inner = big.back();
      big.back() = g.big[i] * inner;
      box.back() = g.box[i] * inner;
      offset.back() = g.offset[i] * inner;
    } else {
      big.push_back(g.big[i]);
      box.push_back(g.box[i]);
      offset.push_back(g.offset[i]);
    }
  }
  m.big.assign(big.rbegin(), big.rend());
  m.box.assign(box.rbegin(), box.rend());
  m.offset.assign(offset.rbegin(), offset.rend());
  return m;
}

void CopyBoxBytes(const platform::Place& place, const BoxGeometry& geometry,
                  size_t element_bytes, const void* src, void* dst, bool to_big) {
  const BoxGeometry g = MergeBoxDims(geometry);
  const int rank = static_cast<int>(g.box.size());
  int64_t box_numel = 1;
  for (int64_t d : g.box) box_numel *= d;
  if (box_numel == 0) return;
  // Element strides of the big tensor and of the box.
  std::vector<int64_t> big_stride(static_cast<size_t>(rank), 1), box_stride(big_stride);
  for (int i = rank - 2; i >= 0; --i) {
    big_stride[i] = big_stride[i + 1] * g.big[i + 1];
    box_stride[i] = box_stride[i + 1] * g.box[i + 1];
  }
  // Each block: `rows` rows (the box's second-to-last dim; 1 for a 1-D box) of the last dim.
  const int row_dim = rank - 2;
  const size_t rows = row_dim >= 0 ? static_cast<size_t>(g.box[row_dim]) : 1;
  const size_t row_bytes = static_cast<size_t>(g.box[rank - 1]) * element_bytes;
  const size_t big_pitch = row_dim >= 0 ? static_cast<size_t>(big_stride[row_dim]) * element_bytes
                                        : row_bytes;
  const size_t box_pitch = row_dim >= 0 ? static_cast<size_t>(box_stride[row_dim]) * element_bytes
                                        : row_bytes;
  int64_t corner = 0;  // The block's first element in the big tensor, before the outer index.
  for (int i = 0; i < rank; ++i) corner += g.offset[i] * big_stride[i];
  const int outer_rank = rank > 2 ? rank - 2 : 0;
  int64_t blocks = 1;
  for (int i = 0; i < outer_rank; ++i) blocks *= g.box[i];
  std::vector<int64_t> index(static_cast<size_t>(outer_rank), 0);
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t big_pos = corner, box_pos = 0;
    for (int i = 0; i < outer_rank; ++i) {
      big_pos += index[i] * big_stride[i];
      box_pos += index[i] * box_stride[i];
    }
    const size_t big_byte = static_cast<size_t>(big_pos) * element_bytes;
    const size_t box_byte = static_cast<size_t>(box_pos) * element_bytes;
    if (to_big) {
      platform::Copy2D(place, static_cast<char*>(dst) + big_byte, big_pitch,
                       static_cast<const char*>(src) + box_byte, box_pitch, row_bytes, rows);
    } else {
      platform::Copy2D(place, static_cast<char*>(dst) + box_byte, box_pitch,
                       static_cast<const char*>(src) + big_byte, big_pitch, row_bytes, rows);
    }
    for (int i = outer_rank - 1; i >= 0; --i) {  // Odometer step.
      if (++index[i] < g.box[i]) break;
      index[i] = 0;
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
