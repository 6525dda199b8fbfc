// Element-wise reductions of host buffers, the arithmetic of every host collective: half
// types are computed in float and rounded once per pair.
#pragma once

#include <cstddef>

#include "platform/collective/communicator.h"
#include "platform/data_type.h"

namespace paddle_like {
namespace platform {
namespace collective {

// out[i] = a[i] op b[i], i < n. `out` may be `a` or `b`.
using HostReduceFn = void (*)(void* out, const void* a, const void* b, size_t n);

// The reduction of `dtype` by `op`; UnimplementedError naming the dtype for a type that
// collectives do not reduce (IsReducibleType).
HostReduceFn HostReduceFunction(DataType dtype, ReduceOp op);

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like
