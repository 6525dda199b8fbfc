// Functions on SelectedRows (sparse row sets, e.g. the gradient of a sparse embedding), for
// the ops that produce them and the optimizers that consume them. CPU tensors of float32 or
// float64; pure functions of their inputs (no threads, results bitwise reproducible).
#pragma once

#include <vector>

#include "framework/dense_tensor.h"
#include "framework/selected_rows.h"

namespace paddle_like {
namespace operators {
namespace math {

// Merges duplicate rows: `out` gets the sorted distinct row indices of `in`, and the value
// row of each is the sum of `in`'s value rows with that index, added in the order they
// appear in `in` (so the result does not depend on anything but `in`). `out` keeps `in`'s
// height; `out` must not be `in`. Throws InvalidArgumentError when value's dim 0 differs
// from the number of rows, a row index is outside [0, height), or the dtype is not
// float32/float64.
void MergeSelectedRows(const framework::SelectedRows& in, framework::SelectedRows* out);

// The dense tensor `in` represents: dims [height] + value.dims[1:], zeros where no row is
// given, and the sum of the value rows (in order) where rows repeat. Same errors as above.
void SelectedRowsToDense(const framework::SelectedRows& in, framework::DenseTensor* out);

// Adds the value rows of `in`, in order, into the rows of `dense` they name. `dense` must
// be a CPU tensor of in.dense_dims() with in's dtype. Same errors as above, and
// InvalidArgumentError when `dense` does not match.
void AddSelectedRowsToDense(const framework::SelectedRows& in, framework::DenseTensor* dense);

// Concatenates `ins` in order: `out` gets every row index (repeats kept) and the value rows
// stacked, so it stands for the sum of the inputs. The inputs must share height, row dims
// and dtype (InvalidArgumentError naming the first mismatching input otherwise); `out` must
// not be one of them. With no rows at all, `out` gets a [0, row dims...] value.
void ConcatSelectedRows(const std::vector<const framework::SelectedRows*>& ins,
                        framework::SelectedRows* out);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
