// fuse_relu_grad_pass: relu's gradient as one op for execution.
//
// relu's grad maker writes dX = dOut * sign(Out) with forward ops, so that gradients of
// gradients work. When a program only runs (no further AppendBackward on it), the pair
// `sign(Out) -> mask; elementwise_mul(dOut, mask) -> dX` is PaddlePaddle's fused
// `relu_grad(Out, Out@GRAD) -> X@GRAD`: one kernel instead of two and no mask buffer, and
// a oneDNN kernel that reads Out and dOut in oneDNN's blocked layouts, so conv -> relu ->
// pool chains keep them in the backward pass too. The pass matches only a sign whose input
// is the Out of a relu (where sign is 1 or 0) and whose mask nothing else reads.
#pragma once

#include <string>
#include <vector>

#include "framework/ir/pass.h"
#include "platform/place.h"

namespace paddle_like {
namespace framework {

class FuseReluGradPass : public ir::Pass {
 public:
  std::string Name() const override { return "fuse_relu_grad_pass"; }
  ir::PassCapability Capability() const override;
  int ApplyImpl(ProgramDesc* program, Scope* params) const override;
};

// The op fuse_pool_relu_grad_pass writes (registered with pool2d's ops).
constexpr char kFusedReluPool2dGrad[] = "fused_relu_pool2d_grad";

// fuse_pool_relu_grad_pass: `pool2d_grad(X, Out, dOut) -> dX; relu_grad(X, dX) -> dReluX`,
// where X, the pooling's input, is the relu's Out (relu -> pool2d, as in most CNNs), as one
// fused_relu_pool2d_grad op. dX, a temporary as large as the relu's output, is then never
// written: the pooling gradient applies relu's mask as it writes (a max pooling sends each
// window's gradient to its maximum, so the mask is whether that maximum is above 0). Runs
// after fuse_relu_grad_pass; dX must have no other reader and not be in `keep`. A reduce_as
// after it that sums the relu's X gradient per channel (the gradient of a conv's bias added
// before the relu) becomes the fused op's ChannelSum output, summed from the pooling
// windows' gradients instead of a second pass over that gradient. Only for
// a device with a kernel of the fused op (the CPU's: plain and oneDNN): elsewhere the two ops
// keep their own kernels.
class FusePoolReluGradPass : public ir::Pass {
 public:
  explicit FusePoolReluGradPass(std::vector<std::string> keep = {},
                                platform::Place place = platform::CPUPlace())
      : keep_(std::move(keep)), place_(place) {}
  std::string Name() const override { return "fuse_pool_relu_grad_pass"; }
  ir::PassCapability Capability() const override;
  int ApplyImpl(ProgramDesc* program, Scope* params) const override;

 private:
  std::vector<std::string> keep_;
  platform::Place place_;
};

// Applies the passes that make a training program faster to run on `place` without changing
// what it computes (fuse_relu_grad_pass, fuse_pool_relu_grad_pass, then
// fuse_conv_bias_relu_pass, fuse_conv_bias_relu_pass.h) to `program`;
// returns the number of rewrites. `keep` names the variables the caller reads after a run
// (fetches besides the program's fetch ops): no pass removes them.
int ApplyExecutionPasses(ProgramDesc* program, const std::vector<std::string>& keep = {},
                         const platform::Place& place = platform::CPUPlace());

}  // namespace framework
}  // namespace paddle_like
