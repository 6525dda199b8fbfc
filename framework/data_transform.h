// Data transforms: when an input's place, dtype or layout (an opaque library layout handed
// to a kernel that reads row-major data) does not match the chosen kernel, the prepared op
// converts it into a private variable before the kernel runs. Transforms are
// planned when the kernel is chosen and counted here so tests can see them.
#pragma once

#include <cstdint>

#include "framework/dense_tensor.h"

namespace paddle_like {
namespace framework {

// Converts `in` to row-major `dtype` on `place` into `out` (reorder, copy and/or cast).
void TransformTensor(const DenseTensor& in, DataType dtype, const platform::Place& place,
                     DenseTensor* out);

// `t` itself when it is in CPU memory, else a copy there: for reading the values of a tensor
// that may live on a device on the host (shape tensors, scalars, labels to check).
DenseTensor OnCpu(const DenseTensor& t);

// Number of tensor transforms performed by this process so far.
int64_t DataTransformCount();

}  // namespace framework
}  // namespace paddle_like
