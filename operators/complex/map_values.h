// Elementwise maps between tensors of different element types (a complex X to its real
// parts, moduli or exponentials, and the fused gradients of such maps): one loop for the
// complex ops' kernels.
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

// Output `out_slot` = f(A[i], B[i]) for the inputs `a_slot` and `b_slot` (of In, the same
// shape: InvalidArgumentError naming the op and both slots otherwise), as a new tensor of Out
// with their dims: the fused gradients of complex ops (Out and Out@GRAD to X@GRAD).
template <typename In, typename Out, typename F>
void MapValuePairs(const ExecutionContext& ctx, const char* a_slot, const char* b_slot,
                   const char* out_slot, F f) {
  const DenseTensor* a = ctx.Input(a_slot);
  const DenseTensor* b = ctx.Input(b_slot);
  CheckSameShape(ctx.Type(), b_slot, b->dims(), a_slot, a->dims());
  DenseTensor out(a->dims(), platform::ToDataType<Out>());
  Out* o = out.mutable_data<Out>(ctx.GetPlace());
  const In* p = a->numel() > 0 ? a->data<In>() : nullptr;
  const In* q = a->numel() > 0 ? b->data<In>() : nullptr;
  for (int64_t i = 0; i < a->numel(); ++i) o[i] = f(p[i], q[i]);
  *ctx.Output(out_slot) = std::move(out);
}

}  // namespace operators
}  // namespace paddle_like
