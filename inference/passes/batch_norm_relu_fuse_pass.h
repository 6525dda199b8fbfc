// batch_norm_relu_fuse_pass: batch_norm (running statistics) -> relu becomes one batch_norm
// with fuse_with_relu, where the normalised output has that single reader and is neither
// persistable nor fetched. What conv_bn_fuse_pass leaves: batch norms that follow a concat
// or a pooling, as in DenseNet's and pre-activation ResNets' blocks (batch norm, relu,
// convolution). The kernels apply the relu as they write Y (the oneDNN one in its primitive).
#pragma once

#include "framework/ir/pass.h"

namespace paddle_like {
namespace inference {

class BatchNormReluFusePass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "batch_norm_relu_fuse_pass"; }
  // Written for batch_norm 0 (fuse_with_relu) and relu 0.
  framework::ir::PassCapability Capability() const override;
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

}  // namespace inference
}  // namespace paddle_like
