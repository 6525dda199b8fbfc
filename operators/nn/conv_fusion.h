// The epilogue of a fused conv2d: what an inference pass folded into the convolution
// (inference/passes), applied in this order to each output element of channel m:
//   Output = act(conv(Input, Filter) + Bias[m] + ResidualData)
// Bias is [C_out]; ResidualData (read when `fuse_residual_connection` is set) has Output's
// shape; act is the FusedActivation of `fuse_activation`, `fuse_alpha`, `fuse_beta`.
// Fused convs are for inference: they have no gradient.
#pragma once

#include <string>

#include "framework/attribute.h"
#include "framework/ddim.h"
#include "operators/activation/fused_activation.h"
#include "operators/nn/conv_pool_shape.h"

namespace paddle_like {
namespace operators {

struct ConvFusion {
  bool bias = false;
  bool residual = false;
  FusedActivation act;
  bool any() const { return bias || residual || !act.empty(); }
};

// Reads the fusion attributes of conv2d `op` and checks Bias and ResidualData against the
// output of geometry `g` (null dims: the input is absent). InvalidArgumentError naming the
// op, the slot, the expected and the received shape; unknown dims (-1) match anything.
ConvFusion ResolveConvFusion(const std::string& op, const framework::AttributeMap& attrs,
                             const Conv2dGeometry& g, const framework::DDim* bias,
                             const framework::DDim* residual);

// Applies `f` to `out`, the convolution of geometry `g` in the user's layout (NCHW or
// NHWC). `bias` and `residual` may be null when `f` does not use them.
template <typename T>
void ApplyConvFusion(const ConvFusion& f, const Conv2dGeometry& g, const T* bias,
                     const T* residual, T* out);

}  // namespace operators
}  // namespace paddle_like
