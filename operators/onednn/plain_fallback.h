// The plain CPU kernel behind a oneDNN kernel, for inputs too small for a primitive to pay
// off: creating (or fetching from the cache) and running a primitive costs about 3 to 5 us,
// more than a plain loop over a few thousand elements (tests/benchmarks/activation_benchmark).
#pragma once

#include "framework/operator.h"

namespace paddle_like {
namespace operators {

// Whether a oneDNN kernel should hand an input of `numel` elements to the plain kernel:
// numel < min_numel, unless FLAGS_onednn_small_input_fallback is off.
bool BelowOneDNNThreshold(int64_t numel, int64_t min_numel);

// Runs the op's plain CPU kernel of the same dtype on `ctx` (the oneDNN context is a CPU
// context), with inputs in oneDNN layouts converted to row-major. Fatal error if the op
// registered none.
void RunPlainKernel(const framework::ExecutionContext& ctx);

}  // namespace operators
}  // namespace paddle_like
