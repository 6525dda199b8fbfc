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

#include "framework/ir/pass.h"

namespace paddle_like {
namespace framework {

class FuseReluGradPass : public ir::Pass {
 public:
  std::string Name() const override { return "fuse_relu_grad_pass"; }
  ir::PassCapability Capability() const override;
  int ApplyImpl(ProgramDesc* program, Scope* params) const override;
};

// Applies the passes that make a training program faster to run without changing what it
// computes (today fuse_relu_grad_pass) to `program`; returns the number of rewrites.
int ApplyExecutionPasses(ProgramDesc* program);

}  // namespace framework
}  // namespace paddle_like
