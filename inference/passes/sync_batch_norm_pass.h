// sync_batch_norm_pass: an inference program's sync_batch_norm ops become batch_norm
// (PaddlePaddle's pass of that name). In inference mode the two compute the same, and the
// passes after it (conv_bn_fuse_pass, batch_norm_relu_fuse_pass) and the oneDNN kernel know
// batch_norm. Ops in training mode are left alone.
#pragma once

#include "framework/ir/pass.h"

namespace paddle_like {
namespace inference {

class SyncBatchNormPass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "sync_batch_norm_pass"; }
  // Written for sync_batch_norm and batch_norm version 0 (the same slots and attributes).
  framework::ir::PassCapability Capability() const override;
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

}  // namespace inference
}  // namespace paddle_like
