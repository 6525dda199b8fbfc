// fuse_conv_bias_relu_pass: `conv2d -> elementwise_add(a bias per output channel) -> relu`
// in a training program as one conv2d with that Bias and fuse_activation relu, which the
// convolution kernels apply as they write (oneDNN post-ops): the conv's and the add's outputs
// are never written, and two passes over the activation go.
//
// The backward ops need neither of those outputs: conv2d_grad reads Input, Filter and
// Output@GRAD, relu's gradient reads relu's Out, and the add's gradient reads the conv's
// output only for its shape (reduce_as's Target), which the relu's Out has too; the pass
// points those Targets at it. It fuses only three consecutive ops whose intermediate outputs
// nothing else reads and the caller does not keep (`keep`), a conv2d without a bias,
// residual or activation of its own, and a bias declared as [C_out] added on the channel axis
// (axis 1 for NCHW, 3 or -1 for NHWC). CPU places only (the CUDA kernels take no Bias). Runs
// after the gradient passes, which look for the relu ops.
#pragma once

#include <string>
#include <vector>

#include "framework/ir/pass.h"
#include "platform/place.h"

namespace paddle_like {
namespace framework {

class FuseConvBiasReluPass : public ir::Pass {
 public:
  explicit FuseConvBiasReluPass(std::vector<std::string> keep = {},
                                platform::Place place = platform::CPUPlace())
      : keep_(std::move(keep)), place_(place) {}
  std::string Name() const override { return "fuse_conv_bias_relu_pass"; }
  ir::PassCapability Capability() const override;
  int ApplyImpl(ProgramDesc* program, Scope* params) const override;

 private:
  std::vector<std::string> keep_;
  platform::Place place_;
};

}  // namespace framework
}  // namespace paddle_like
