// What fc's kernels share: its shape check and its fused activation.
#pragma once

#include "framework/attribute.h"
#include "framework/ddim.h"
#include "operators/activation/fused_activation.h"
#include "operators/matmul/matmul_shape.h"

namespace paddle_like {
namespace operators {

// fc's activation from `activation_type`, `fuse_alpha` and `fuse_beta`.
FusedActivation FcActivation(const framework::AttributeMap& attrs);

// Input flattened at in_num_col_dims against W [K, N] and Bias ([N] or [1, N]); typed
// errors naming fc's slots otherwise.
MulShape CheckFc(const framework::AttributeMap& attrs, const framework::DDim& input,
                 const framework::DDim& w, const framework::DDim* bias);

}  // namespace operators
}  // namespace paddle_like
