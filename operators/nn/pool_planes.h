// The plane loops of the plain 2-D pooling kernels (pool2d, lp_pool2d): each [H, W] plane of
// NCHW data is pooled on its own, the N * C planes split over the threads; NHWC tensors are
// copied to NCHW and back.
#pragma once

#include <algorithm>
#include <vector>

#include "framework/dense_tensor.h"
#include "framework/operator.h"
#include "operators/math/im2col.h"
#include "operators/nn/conv_pool_shape.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace operators {

// Runs fn(plane) for the N * C planes, split over the threads; `work_per_plane` sizes the
// chunks.
template <typename Fn>
void ForEachPoolPlane(const framework::ExecutionContext& ctx, const Pool2dGeometry& g,
                      int64_t work_per_plane, Fn&& fn) {
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      g.batch * g.channels, std::max<int64_t>(1, (1 << 14) / (work_per_plane + 1)),
      [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) fn(p);
      });
}

// Out = pool(X) into `out` (dims and dtype set here): plane(x, y) pools one input plane `x`
// into one output plane `y`.
template <typename T, typename PlaneFn>
void PoolPlanes(const framework::ExecutionContext& ctx, const Pool2dGeometry& g,
                const framework::DenseTensor& x, int64_t work_per_plane, PlaneFn&& plane,
                framework::DenseTensor* out) {
  out->Resize(g.OutputDims());
  out->set_dtype(x.dtype());
  T* y = out->mutable_data<T>(ctx.GetPlace());
  std::vector<T> xs;
  const T* xp = NchwData(x, g.channel_last, &xs);
  std::vector<T> nchw(g.channel_last ? static_cast<size_t>(out->numel()) : 0);
  T* dst = g.channel_last ? nchw.data() : y;
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  ForEachPoolPlane(ctx, g, work_per_plane,
                   [&](int64_t p) { plane(xp + p * in_plane, dst + p * out_plane); });
  if (g.channel_last) math::NchwToNhwc(nchw.data(), g.batch, g.channels, g.out_h, g.out_w, y);
}

// dX of a pooling from X, Out and dOut (shapes checked by the caller), returned with X's dims:
// plane(x, y, dy, dx) writes one plane of dX (every element).
template <typename T, typename PlaneFn>
framework::DenseTensor PoolGradPlanes(const framework::ExecutionContext& ctx,
                                      const Pool2dGeometry& g, const framework::DenseTensor& x,
                                      const framework::DenseTensor& out,
                                      const framework::DenseTensor& dout, int64_t work_per_plane,
                                      PlaneFn&& plane) {
  std::vector<T> xs, ys, dys;
  const T* xp = NchwData(x, g.channel_last, &xs);
  const T* yp = NchwData(out, g.channel_last, &ys);
  const T* dyp = NchwData(dout, g.channel_last, &dys);
  framework::DenseTensor grad(x.dims(), x.dtype());
  T* dx = grad.mutable_data<T>(ctx.GetPlace());
  std::vector<T> nchw(g.channel_last ? static_cast<size_t>(x.numel()) : 0);
  T* dst = g.channel_last ? nchw.data() : dx;
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  ForEachPoolPlane(ctx, g, work_per_plane, [&](int64_t p) {
    plane(xp + p * in_plane, yp + p * out_plane, dyp + p * out_plane, dst + p * in_plane);
  });
  if (g.channel_last) math::NchwToNhwc(nchw.data(), g.batch, g.channels, g.in_h, g.in_w, dx);
  return grad;
}

}  // namespace operators
}  // namespace paddle_like
