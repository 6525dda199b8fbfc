// delete_dropout_pass: dropout in inference mode (is_test) is a constant scale, so an
// inference program does not need the op (PaddlePaddle's delete_dropout_op_pass):
//   upscale_in_train:    Out = X          -> the op goes, readers of Out read X
//   downgrade_in_infer:  Out = X (1 - p)  -> scale(X, scale = 1 - p)
// An Out that is persistable or fetched keeps its name (a scale op with factor 1 writes
// it). Mask must be unread. Training dropout (is_test false) is left alone.
#pragma once

#include <memory>

#include "framework/ir/pass.h"

namespace paddle_like {
namespace inference {

class DeleteDropoutPass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "delete_dropout_pass"; }
  // Written for dropout version 0 (attributes dropout_prob, is_test, dropout_implementation)
  // and scale version 0 (scale, bias, bias_after_scale).
  framework::ir::PassCapability Capability() const override;
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

}  // namespace inference
}  // namespace paddle_like
