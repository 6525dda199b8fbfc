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

// Whether an op in (first, last) of `block` writes `written` or uses `used`.
bool TouchedBetween(const BlockDesc& block, size_t first, size_t last, const std::string& written,
                    const std::string& used) {
  for (size_t i = first + 1; i < last; ++i) {
    const OpDesc& op = *block.Op(i);
    const std::vector<std::string> outs = op.OutputArgumentNames();
    const std::vector<std::string> ins = op.InputArgumentNames();
    if (std::count(outs.begin(), outs.end(), written) > 0 ||
        std::count(outs.begin(), outs.end(), used) > 0 ||
        std::count(ins.begin(), ins.end(), used) > 0) {
      return true;
    }
  }
  return false;
}

// Folds into a fused_relu_pool2d_grad the reduce_as that sums its X@GRAD into a per-channel
// bias gradient (a conv's bias add before the relu), as the op's ChannelSum: the sum then
// comes from the pooling windows' gradients instead of a second pass over X@GRAD. False when
// no such pair is left.
bool FoldChannelSumOne(BlockDesc* block) {
  const ir::Graph graph(*block);
  for (size_t f = 0; f < block->OpSize(); ++f) {
    OpDesc* fused = block->Op(f);
    if (fused->Type() != kFusedReluPool2dGrad || fused->HasOutput("ChannelSum") ||
        fused->Output("X@GRAD").size() != 1 || fused->Input("X").size() != 1) {
      continue;
    }
    const std::string& dx = fused->Output("X@GRAD")[0];
    const VarDesc* x = block->FindVarRecursive(fused->Input("X")[0]);
    if (x == nullptr || x->GetShape().size() != 4) continue;
    const bool channel_last = AttrOr<std::string>(*fused, "data_format", "NCHW") == "NHWC";
    const int64_t channels = x->GetShape()[channel_last ? 3 : 1];
    for (size_t r : graph.Consumers(dx)) {
      const OpDesc& reduce = *block->Op(r);
      if (r <= f || reduce.Type() != "reduce_as" || reduce.Input("X").size() != 1 ||
          reduce.Input("Target").size() != 1 || reduce.Output("Out").size() != 1) {
        continue;
      }
      const VarDesc* target = block->FindVarRecursive(reduce.Input("Target")[0]);
      const int axis = AttrOr<int>(reduce, "axis", -1);
      const bool on_channels = channel_last ? (axis == -1 || axis == 3) : axis == 1;
      if (target == nullptr || target->GetShape() != std::vector<int64_t>{channels} ||
          channels <= 0 || !on_channels) {
        continue;
      }
      // Written at the fused op instead: nothing in between may use it (or change dX).
      const std::string sum = reduce.Output("Out")[0];
      if (sum == dx || TouchedBetween(*block, f, r, dx, sum)) continue;
      fused->SetOutput("ChannelSum", {sum});
      block->RemoveOp(r, r + 1);
      return true;
    }
  }
  return false;
}

}  // namespace

ir::PassCapability FusePoolReluGradPass::Capability() const {
  ir::PassCapability c;
  c.max_versions = {{"pool2d", 0}, {"relu", 0}, {"reduce_as", 0}};
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
    while (FoldChannelSumOne(&program->Block(b))) ++rewrites;
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
