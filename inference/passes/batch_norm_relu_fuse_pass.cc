#include "inference/passes/batch_norm_relu_fuse_pass.h"

#include "inference/passes/pass_util.h"

namespace paddle_like {
namespace inference {

framework::ir::PassCapability BatchNormReluFusePass::Capability() const {
  return {{{"batch_norm", 0}, {"relu", 0}}};
}

int BatchNormReluFusePass::ApplyImpl(framework::ProgramDesc* program,
                                     framework::Scope* /*params*/) const {
  return RewriteEachBlock(program, [](framework::BlockDesc* block) {
    return FuseOneTrailingActivation(
        block, "batch_norm", "Y",
        [](const framework::OpDesc& bn) {
          return UsesInferenceStatistics(bn) && !FlagOf(bn, "fuse_with_relu");
        },
        [](const operators::FusedActivation&, framework::OpDesc* bn) {
          bn->SetAttr("fuse_with_relu", true);
        },
        {"relu"});
  });
}

}  // namespace inference
}  // namespace paddle_like
