// The loop of the binary elementwise ops with broadcasting (arithmetic, comparisons, logical
// ops): Out = f(X, Y) over the broadcast shape of X and Y under the `axis` rule of
// math/broadcast.h, split across the CPU threads.
#pragma once

#include "operators/common.h"
#include "operators/math/broadcast.h"

namespace paddle_like {
namespace operators {

// out[k] = f(x[k * xs], y[k * ys]) for k < n; the strides are 0 or 1, and the branches let the
// compiler vectorise each case.
template <typename In, typename Out, typename F>
void BinaryRun(const F& f, const In* x, int64_t xs, const In* y, int64_t ys, Out* out,
               int64_t n) {
  if (xs == 1 && ys == 1) {
    for (int64_t k = 0; k < n; ++k) out[k] = f(x[k], y[k]);
  } else if (xs == 1) {
    const In b = y[0];
    for (int64_t k = 0; k < n; ++k) out[k] = f(x[k], b);
  } else if (ys == 1) {
    const In a = x[0];
    for (int64_t k = 0; k < n; ++k) out[k] = f(a, y[k]);
  } else {
    const Out v = f(x[0], y[0]);
    for (int64_t k = 0; k < n; ++k) out[k] = v;
  }
}

// InvalidArgumentError naming the op and slot unless `t` holds T.
template <typename T>
void CheckDataType(const ExecutionContext& ctx, const char* slot, const DenseTensor& t) {
  const DataType expected = platform::ToDataType<T>();
  PL_ENFORCE(t.dtype() == expected,
             errors::InvalidArgument("op `%s` input `%s`: expected dtype %s, received %s",
                                     ctx.Type(), slot, platform::DataTypeName(expected),
                                     platform::DataTypeName(t.dtype())));
}

// The slots of a binary op's operands and result: X, Y, Out unless the op names them
// otherwise (PaddlePaddle's newer ops use x, y, out).
struct BinarySlots {
  const char* x = "X";
  const char* y = "Y";
  const char* out = "Out";
};

// Shape inference of a binary op with broadcasting: out gets the broadcast shape of x and y
// (`axis` as in the elementwise ops; -1 aligns trailing dims, NumPy's rule) and x's LoD.
inline void BroadcastBinaryInferShape(InferShapeContext* ctx, int axis,
                                      const BinarySlots& s = BinarySlots()) {
  ctx->RequireInput(s.x);
  ctx->RequireInput(s.y);
  ctx->RequireOutput(s.out);
  ctx->SetOutputDim(s.out, math::ComputeBroadcastDims(ctx->OpType(), ctx->GetInputDim(s.x),
                                                      ctx->GetInputDim(s.y), axis)
                               .out);
  ctx->ShareLoD(s.x, s.out);
}

// o = f(x, y) over `plan` (from MakeBroadcastPlan of x's and y's aligned dims), split across
// the CPU threads.
template <typename In, typename Out, typename F>
void RunBroadcastBinary(const platform::CPUDeviceContext& dev, const math::BroadcastPlan& plan,
                        const F& f, const In* x, const In* y, Out* o) {
  if (plan.numel == 0) return;
  const int64_t xs = plan.x_inner_stride();
  const int64_t ys = plan.y_inner_stride();
  dev.ParallelFor(plan.numel, 1 << 14, [&](int64_t begin, int64_t end) {
    math::ForEachBroadcastRun(plan, begin, end, [&](int64_t oo, int64_t xo, int64_t yo, int64_t n) {
      BinaryRun(f, x + xo, xs, y + yo, ys, o + oo, n);
    });
  });
}

// Out (dtype `Out`; its dims were set by shape inference) = f(X, Y) elementwise, X and Y of
// dtype In; `check_y(y, n)` sees Y's values before anything is written (a divisor check).
template <typename In, typename Out, typename F, typename CheckY>
void ComputeBroadcastBinary(const ExecutionContext& ctx, int axis, const F& f,
                            const CheckY& check_y, const BinarySlots& slots = BinarySlots()) {
  const DenseTensor* x = ctx.Input(slots.x);
  const DenseTensor* y = ctx.Input(slots.y);
  DenseTensor* out = ctx.Output(slots.out);
  CheckDataType<In>(ctx, slots.x, *x);
  CheckDataType<In>(ctx, slots.y, *y);
  const math::BroadcastDims dims = math::ComputeBroadcastDims(ctx.Type(), x->dims(), y->dims(), axis);
  const math::BroadcastPlan plan = math::MakeBroadcastPlan(dims);
  // Read the inputs' buffers before Out gets one: Out may be X or Y, and gets a buffer of its
  // own when it shares one with another tensor.
  const bool empty = plan.numel == 0;
  const In* xp = empty ? nullptr : x->data<In>();
  const In* yp = empty ? nullptr : y->data<In>();
  if (!empty) check_y(yp, y->numel());
  Out* o = out->mutable_data<Out>(ctx.GetPlace());
  RunBroadcastBinary(ctx.device_context<platform::CPUDeviceContext>(), plan, f, xp, yp, o);
}

template <typename In, typename Out, typename F>
void ComputeBroadcastBinary(const ExecutionContext& ctx, int axis, const F& f) {
  ComputeBroadcastBinary<In, Out>(ctx, axis, f, [](const In*, int64_t) {});
}

}  // namespace operators
}  // namespace paddle_like
