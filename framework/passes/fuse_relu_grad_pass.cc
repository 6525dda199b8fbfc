#include "framework/passes/fuse_relu_grad_pass.h"

#include <algorithm>
#include <string>
#include <vector>

#include "framework/ir/graph.h"
#include "framework/ir/pattern.h"
#include "framework/ir/rewrite.h"
#include "framework/kernel_registry.h"
#include "framework/passes/fuse_conv_bias_relu_pass.h"

namespace paddle_like {
namespace framework {

namespace {

// Whether `var` is written only by relu ops, as their Out.
bool OnlyReluWrites(const ir::Graph& graph, const std::string& var) {
  const auto& producers = graph.Producers(var);
  if (producers.empty()) return false;
  for (size_t p : producers) {
    const OpDesc& op = graph.Op(p);
    if (op.Type() != "relu" || op.Output("Out") != std::vector<std::string>{var}) return false;
  }
  return true;
}

// Fuses the first match in `block`; false when none is left.
bool FuseOne(BlockDesc* block) {
  const ir::Graph graph(*block);
  ir::Pattern pattern;
  const int sign = pattern.AddOp("sign");
  const int mul = pattern.AddOp("elementwise_mul", [](const OpDesc& op) {
    return !op.HasAttr("axis") || op.Attr<int>("axis") == -1;
  });
  pattern.Connect(sign, "Out", mul, "Y");
  for (const ir::Match& m : ir::FindMatches(graph, pattern)) {
    const OpDesc& sign_op = graph.Op(m.ops[sign]);
    const OpDesc& mul_op = graph.Op(m.ops[mul]);
    if (sign_op.Input("X").size() != 1 || mul_op.Input("X").size() != 1) continue;
    const std::string out = sign_op.Input("X")[0];
    const std::string dout = mul_op.Input("X")[0];
    // Only relu's Out is 0 or positive, where sign(Out) is relu's slope; dOut must have
    // Out's shape (no broadcasting through the mul).
    if (!OnlyReluWrites(graph, out)) continue;
    const VarDesc* out_desc = block->FindVar(out);
    const VarDesc* dout_desc = block->FindVar(dout);
    if (out_desc == nullptr || dout_desc == nullptr ||
        out_desc->GetShape() != dout_desc->GetShape()) {
      continue;
    }
    AttributeMap attrs;
    if (mul_op.HasAttr("op_role")) attrs["op_role"] = mul_op.GetAttr("op_role");
    ir::ReplaceOps(block, {m.ops[sign], m.ops[mul]},
                   OpDesc("relu_grad", {{"Out", {out}}, {"Out@GRAD", {dout}}},
                          {{"X@GRAD", mul_op.Output("Out")}}, attrs));
    return true;
  }
  return false;
}

// Fuses the first pool2d_grad -> relu_grad pair in `block`; false when none is left.
bool FusePoolReluOne(BlockDesc* block, const std::vector<std::string>& keep) {
  const ir::Graph graph(*block);
  ir::Pattern pattern;
  const int pool = pattern.AddOp("pool2d_grad");
  const int relu = pattern.AddOp("relu_grad");
  pattern.Connect(pool, "X@GRAD", relu, "Out@GRAD");
  for (const ir::Match& m : ir::FindMatches(graph, pattern)) {
    const OpDesc& pool_op = graph.Op(m.ops[pool]);
    const OpDesc& relu_op = graph.Op(m.ops[relu]);
    const std::string& dx = m.Var(pool, "X@GRAD");
    if (std::find(keep.begin(), keep.end(), dx) != keep.end()) continue;
    // relu_grad's mask must be the pooling's input, and both ops placed alike.
    if (pool_op.Input("X").size() != 1 || relu_op.Input("Out") != pool_op.Input("X") ||
        relu_op.Output("X@GRAD").size() != 1) {
      continue;
    }
    const auto use_onednn = [](const OpDesc& op) {
      return op.HasAttr("use_mkldnn") && op.Attr<bool>("use_mkldnn");
    };
    if (use_onednn(pool_op) != use_onednn(relu_op)) continue;
    ir::ReplaceOps(block, {m.ops[pool], m.ops[relu]},
                   OpDesc(kFusedReluPool2dGrad,
                          {{"X", pool_op.Input("X")},
                           {"Out", pool_op.Input("Out")},
                           {"Out@GRAD", pool_op.Input("Out@GRAD")}},
                          {{"X@GRAD", relu_op.Output("X@GRAD")}}, pool_op.Attrs()));
    return true;
  }
  return false;
}

}  // namespace

ir::PassCapability FusePoolReluGradPass::Capability() const {
  ir::PassCapability c;
  c.max_versions = {{"pool2d", 0}, {"relu", 0}};
  return c;
}

int FusePoolReluGradPass::ApplyImpl(ProgramDesc* program, Scope* /*params*/) const {
  const KernelRegistry& kernels = KernelRegistry::Instance();
  if (!kernels.HasKernels(kFusedReluPool2dGrad)) return 0;
  const auto& fused = kernels.KernelsOf(kFusedReluPool2dGrad);
  if (std::none_of(fused.begin(), fused.end(),
                   [&](const KernelInfo& k) { return k.key.device == place_.type(); })) {
    return 0;
  }
  int rewrites = 0;
  for (size_t b = 0; b < program->Size(); ++b) {
    while (FusePoolReluOne(&program->Block(b), keep_)) ++rewrites;
  }
  return rewrites;
}

ir::PassCapability FuseReluGradPass::Capability() const {
  ir::PassCapability c;
  c.max_versions = {{"relu", 0}, {"sign", 0}, {"elementwise_mul", 1}, {"relu_grad", 0}};
  return c;
}

int FuseReluGradPass::ApplyImpl(ProgramDesc* program, Scope* /*params*/) const {
  int rewrites = 0;
  for (size_t b = 0; b < program->Size(); ++b) {
    while (FuseOne(&program->Block(b))) ++rewrites;
  }
  return rewrites;
}

int ApplyExecutionPasses(ProgramDesc* program, const std::vector<std::string>& keep,
                         const platform::Place& place) {
  const int relu_grads = ir::ApplyPass(FuseReluGradPass(), program);
  const int pool_grads = ir::ApplyPass(FusePoolReluGradPass(keep, place), program);
  // Last: the gradient passes look for the relu ops this one folds into the convolutions.
  return relu_grads + pool_grads + ir::ApplyPass(FuseConvBiasReluPass(keep, place), program);
}

}  // namespace framework
}  // namespace paddle_like
