// SelectedRows: a sparse set of rows of a [height, ...] tensor, as produced by sparse
// embedding gradients. `rows[i]` is the row index of value(i, ...).
#pragma once

#include <cstdint>
#include <vector>

#include "framework/dense_tensor.h"

namespace paddle_like {
namespace framework {

class SelectedRows {
 public:
  SelectedRows() = default;
  SelectedRows(std::vector<int64_t> rows, int64_t height)
      : rows_(std::move(rows)), height_(height) {}

  const std::vector<int64_t>& rows() const { return rows_; }
  std::vector<int64_t>* mutable_rows() { return &rows_; }
  int64_t height() const { return height_; }
  void set_height(int64_t height) { height_ = height; }
  const DenseTensor& value() const { return value_; }
  DenseTensor* mutable_value() { return &value_; }

  // The dense shape this represents: [height] + value.dims[1:].
  DDim dense_dims() const;

 private:
  std::vector<int64_t> rows_;
  int64_t height_ = 0;
  DenseTensor value_;
};

}  // namespace framework
}  // namespace paddle_like
