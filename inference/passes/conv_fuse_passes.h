// The passes that fold what follows a convolution into conv2d / depthwise_conv2d, whose
// kernels then compute it in their epilogue (operators/nn/conv_fusion.h; oneDNN post-ops):
//
//   conv_bn_fuse_pass               conv [-> elementwise_add(bias)] -> batch_norm (inference
//                                   statistics) becomes one conv with a Bias: with
//                                   s = Scale / sqrt(Variance + epsilon), Filter[m] *= s[m] and
//                                   Bias = (bias - Mean) s + BN's Bias (parameters rewritten
//                                   in the parameter scope; PaddlePaddle's conv_bn_fuse_pass).
//   conv_bias_fuse_pass             conv -> elementwise_add(Y a [C_out] parameter added per
//                                   channel) becomes conv with Bias = Y.
//   conv_elementwise_add_fuse_pass  conv -> elementwise_add(conv output, R of the same shape)
//                                   becomes conv with ResidualData = R.
//   conv_activation_fuse_pass       conv -> activation (relu, leaky_relu, relu6, clip, swish,
//                                   hard_swish, hard_sigmoid, sigmoid, tanh, gelu) becomes conv
//                                   with fuse_activation.
//
// Each applies only where the conv's output has that single reader and is neither
// persistable nor fetched, and where nothing between the two ops writes what the fused op
// reads. Run in the order above (InferencePassOrder), so a conv can take all four.
#pragma once

#include "framework/ir/pass.h"

namespace paddle_like {
namespace inference {

class ConvBnFusePass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "conv_bn_fuse_pass"; }
  framework::ir::PassCapability Capability() const override;
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

class ConvBiasFusePass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "conv_bias_fuse_pass"; }
  framework::ir::PassCapability Capability() const override;
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

class ConvElementwiseAddFusePass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "conv_elementwise_add_fuse_pass"; }
  framework::ir::PassCapability Capability() const override;
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

class ConvActivationFusePass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "conv_activation_fuse_pass"; }
  framework::ir::PassCapability Capability() const override;
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

}  // namespace inference
}  // namespace paddle_like
