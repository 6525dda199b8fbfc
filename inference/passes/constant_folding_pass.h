// constant_folding_pass: an op that reads only parameters computes the same value in every
// run, so it runs once when the model loads and its outputs become parameters
// (PaddlePaddle's constant_folding_pass). Typical: reshape2 of a bias to [1, C, 1, 1] (which
// conv_bias_fuse_pass then folds into the conv), fill_constant / assign_value feeding shapes.
//
// Not folded: ops with random or side effects (random generators, dropout, save, load,
// print, feed, fetch), ops with sub-blocks, ops whose outputs are persistable, fetched,
// written by another op or over 16 MB, and ops whose run fails at load time (they then fail
// or run at run time, as without the pass).
#pragma once

#include "framework/ir/pass.h"

namespace paddle_like {
namespace inference {

class ConstantFoldingPass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "constant_folding_pass"; }
  // Any op at any version: the pass runs the op's own kernel, whatever it computes.
  framework::ir::PassCapability Capability() const override { return {}; }
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

}  // namespace inference
}  // namespace paddle_like
