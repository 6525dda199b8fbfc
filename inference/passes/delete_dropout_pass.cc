#include "inference/passes/delete_dropout_pass.h"

#include <string>

#include "framework/ir/graph.h"
#include "framework/ir/rewrite.h"
#include "inference/passes/pass_util.h"

namespace paddle_like {
namespace inference {

namespace {

using framework::BlockDesc;
using framework::OpDesc;
using framework::ir::Graph;

// Rewrites the first inference dropout of `block` it can; false when none is left.
bool RewriteOne(BlockDesc* block) {
  const Graph graph(*block);
  for (size_t i = 0; i < graph.OpCount(); ++i) {
    const OpDesc& op = graph.Op(i);
    if (op.Type() != "dropout" || !AttrOr<bool>(op, "is_test", false)) continue;
    const std::string x = SingleVar(op.Inputs(), "X"), out = SingleVar(op.Outputs(), "Out");
    const std::string mask = SingleVar(op.Outputs(), "Mask");
    if (x.empty() || out.empty() || x == out) continue;
    if (!mask.empty() && (!graph.Consumers(mask).empty() || graph.IsPersistable(mask))) continue;
    const bool upscale =
        AttrOr<std::string>(op, "dropout_implementation", "downgrade_in_infer") ==
        "upscale_in_train";
    const float p = AttrOr<float>(op, "dropout_prob", 0.5f);
    const float factor = upscale ? 1.0f : 1.0f - p;
    const bool out_is_temporary = !graph.IsPersistable(out) && !graph.IsVisibleOutside(out) &&
                                  graph.Producers(out).size() == 1;
    if (factor == 1.0f && out_is_temporary) {
      framework::ir::RemoveIdentityOp(block, i, x, out);
      return true;
    }
    framework::AttributeMap attrs = {{"scale", factor}, {"bias", 0.0f},
                                     {"bias_after_scale", true}};
    if (op.HasAttr("op_role")) attrs["op_role"] = op.GetAttr("op_role");
    framework::ir::ReplaceOps(block, {i}, OpDesc("scale", {{"X", {x}}}, {{"Out", {out}}}, attrs));
    return true;
  }
  return false;
}

}  // namespace

framework::ir::PassCapability DeleteDropoutPass::Capability() const {
  framework::ir::PassCapability c;
  c.max_versions = {{"dropout", 0}, {"scale", 0}};
  return c;
}

int DeleteDropoutPass::ApplyImpl(framework::ProgramDesc* program,
                                 framework::Scope* /*params*/) const {
  return RewriteEachBlock(program, RewriteOne);
}

}  // namespace inference
}  // namespace paddle_like
