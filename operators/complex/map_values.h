// Elementwise maps between tensors of different element types (a complex X to its real
// parts, moduli or exponentials): one loop for the complex ops' kernels.
#pragma once

#include <utility>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

// Output `out_slot` = f(X[i]) for each value of `x` (of In), as a new tensor of Out with x's
// dims.
template <typename In, typename Out, typename F>
void MapValues(const ExecutionContext& ctx, const DenseTensor& x, const char* out_slot, F f) {
  DenseTensor out(x.dims(), platform::ToDataType<Out>());
  Out* o = out.mutable_data<Out>(ctx.GetPlace());
  const In* p = x.numel() > 0 ? x.data<In>() : nullptr;
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = f(p[i]);
  *ctx.Output(out_slot) = std::move(out);
}

}  // namespace operators
}  // namespace paddle_like
