// dead_op_elimination_pass: an op whose every output no later op reads, the caller does not
// fetch and is not persistable computes nothing anyone sees, and goes; removing it can make
// the ops that fed it dead too, which go in turn. Typical: the branches of a training
// program that an exported inference program still carries (an auxiliary head, a loss
// computed beside the prediction), ops left unread by other passes.
//
// Kept whatever their outputs: ops with side effects or randomness and ops with sub-blocks
// (pass_util.h), ops without outputs, and ops writing a variable another block reads. Only
// block 0 of a program with fetch ops is pruned: without them what the caller reads is not
// known (names given at run time), and a sub-block's results are its parent op's business.
#pragma once

#include "framework/ir/pass.h"

namespace paddle_like {
namespace inference {

class DeadOpEliminationPass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "dead_op_elimination_pass"; }
  // Any op at any version: the pass only looks at which variables are read.
  framework::ir::PassCapability Capability() const override { return {}; }
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

}  // namespace inference
}  // namespace paddle_like
