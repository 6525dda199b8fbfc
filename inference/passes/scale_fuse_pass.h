// scale_fuse_pass: removes `scale` ops where what they compute can be had without them
// (PaddlePaddle's identity_scale_op_clean_pass and the scale folds of its oneDNN passes):
//   - an identity scale (scale 1, bias 0) goes: its readers read X, or, when Out must keep
//     its name (fetched, persistable), X's producer writes Out directly;
//   - a scale of a conv2d / depthwise_conv2d output (no residual or activation fused) or of
//     an fc output (no activation) folds into the op's weights and bias:
//       scale (W x + b) + c = (scale W) x + (scale b + c)       (bias_after_scale)
//       scale (W x + b + c) = (scale W) x + scale (b + c)       (otherwise)
//     with a Bias parameter added where the op had none and the folded one is not zero.
// Scales with a ScaleTensor input, of non-float32 weights, of weights other ops also read, or
// whose X other ops read are left alone.
#pragma once

#include "framework/ir/pass.h"

namespace paddle_like {
namespace inference {

class ScaleFusePass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "scale_fuse_pass"; }
  // Written for scale 0 (scale, bias, bias_after_scale), conv2d / depthwise_conv2d 1
  // (Bias, ResidualData and the fuse_* attributes) and fc 0.
  framework::ir::PassCapability Capability() const override;
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

}  // namespace inference
}  // namespace paddle_like
