#include "inference/passes/sync_batch_norm_pass.h"

#include "inference/passes/pass_util.h"
#include "operators/nn/batch_norm_util.h"

namespace paddle_like {
namespace inference {

framework::ir::PassCapability SyncBatchNormPass::Capability() const {
  framework::ir::PassCapability c;
  c.max_versions = {{"sync_batch_norm", 0}, {"batch_norm", 0}};
  return c;
}

int SyncBatchNormPass::ApplyImpl(framework::ProgramDesc* program,
                                 framework::Scope* /*params*/) const {
  int changed = 0;
  for (size_t b = 0; b < program->Size(); ++b) {
    for (framework::OpDesc* op : program->Block(b).AllOps()) {
      if (op->Type() != "sync_batch_norm") continue;
      if (!operators::UsesGlobalStats(AttrOr<bool>(*op, "is_test", false),
                                      AttrOr<bool>(*op, "use_global_stats", false),
                                      AttrOr<bool>(*op, "trainable_statistics", false))) {
        continue;
      }
      op->SetType("batch_norm");
      ++changed;
    }
  }
  return changed;
}

}  // namespace inference
}  // namespace paddle_like
