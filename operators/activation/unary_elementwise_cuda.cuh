// The CUDA counterparts of ComputeUnary and ComputeUnaryGrad (unary_elementwise.h), shared by
// the activation ops' `.cu` files (nvcc only).
#pragma once

#include "operators/cuda/map_kernels.cuh"

namespace paddle_like {
namespace operators {

// Out[i] = f(X[i]); Out takes X's shape and LoD.
template <typename T, typename F>
void ComputeUnaryCuda(const framework::ExecutionContext& ctx, const F& f) {
  const framework::DenseTensor x = *ctx.Input("X");
  framework::DenseTensor* out = ctx.Output("Out");
  out->Resize(x.dims());
  out->set_lod(x.lod());
  T* o = out->mutable_data<T>(ctx.GetPlace());
  if (x.numel() > 0) cuda::Map(ctx, x.data<T>(), o, x.numel(), f);
}

// X@GRAD[i] = dx(V[i], dOut[i]) where V is the forward value `like` (X or Out).
template <typename T, typename DX>
void ComputeUnaryGradCuda(const framework::ExecutionContext& ctx, const char* like,
                          const DX& dx) {
  const framework::DenseTensor v = *ctx.Input(like);
  const framework::DenseTensor dout = *ctx.Input("Out@GRAD");
  PL_ENFORCE(v.dims() == dout.dims(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of `%s` %s, "
                                     "received %s",
                                     ctx.Type(), like, v.dims().ToString(),
                                     dout.dims().ToString()));
  framework::DenseTensor* out = ctx.Output("X@GRAD");
  out->Resize(v.dims());
  out->set_lod(v.lod());
  T* o = out->mutable_data<T>(ctx.GetPlace());
  if (v.numel() > 0) cuda::MapPair(ctx, v.data<T>(), dout.data<T>(), o, v.numel(), dx);
}

}  // namespace operators
}  // namespace paddle_like
