#include "framework/passes/fuse_conv_bias_relu_pass.h"

#include <algorithm>
#include <string>
#include <vector>

#include "framework/ir/graph.h"
#include "framework/ir/pattern.h"
#include "framework/ir/rewrite.h"

namespace paddle_like {
namespace framework {

namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A conv2d that adds nothing to its output yet.
bool IsBareConv(const OpDesc& op) {
  return !op.HasInput("Bias") && !op.HasInput("ResidualData") &&
         !AttrOr<bool>(op, "fuse_residual_connection", false) &&
         AttrOr<std::string>(op, "fuse_activation", "").empty();
}

// Whether `add` adds `bias`, declared as [C_out], on `conv`'s channel axis.
bool AddsChannelBias(const BlockDesc& block, const OpDesc& conv, const OpDesc& add) {
  if (add.Input("Y").size() != 1 || conv.Input("Filter").size() != 1) return false;
  const VarDesc* bias = block.FindVarRecursive(add.Input("Y")[0]);
  const VarDesc* filter = block.FindVarRecursive(conv.Input("Filter")[0]);
  if (bias == nullptr || filter == nullptr || !bias->HasTensorDesc() || !filter->HasTensorDesc() ||
      bias->GetDataType() != filter->GetDataType()) {
    return false;
  }
  const std::vector<int64_t> b = bias->GetShape(), f = filter->GetShape();
  if (b.size() != 1 || f.size() != 4 || f[0] <= 0 || b[0] != f[0]) return false;
  const int axis = AttrOr<int>(add, "axis", -1);
  const bool channel_last = AttrOr<std::string>(conv, "data_format", "NCHW") == "NHWC";
  return channel_last ? (axis == 3 || axis == -1) : axis == 1;
}

bool SameKnownShape(const BlockDesc& block, const std::string& a, const std::string& b) {
  const VarDesc* va = block.FindVarRecursive(a);
  const VarDesc* vb = block.FindVarRecursive(b);
  if (va == nullptr || vb == nullptr || !va->HasTensorDesc() || !vb->HasTensorDesc()) {
    return false;
  }
  const std::vector<int64_t> da = va->GetShape();
  return da.size() == 4 && da == vb->GetShape() && va->GetDataType() == vb->GetDataType();
}

// Fuses the first match in `block`; false when none is left.
bool FuseOne(BlockDesc* block, const std::vector<std::string>& keep) {
  const ir::Graph graph(*block);
  ir::Pattern pattern;
  const int conv = pattern.AddOp("conv2d", IsBareConv);
  const int add = pattern.AddOp("elementwise_add");
  const int relu = pattern.AddOp("relu");
  // The conv's output is also read by the add's gradient (checked below).
  pattern.Connect(conv, "Output", add, "X", /*single_consumer=*/false);
  pattern.Connect(add, "Out", relu, "X");
  for (const ir::Match& m : ir::FindMatches(graph, pattern)) {
    if (m.ops[add] != m.ops[conv] + 1 || m.ops[relu] != m.ops[add] + 1) continue;
    const OpDesc& conv_op = graph.Op(m.ops[conv]);
    const OpDesc& add_op = graph.Op(m.ops[add]);
    const OpDesc& relu_op = graph.Op(m.ops[relu]);
    const std::string& conv_out = m.Var(conv, "Output");
    const std::string& add_out = m.Var(add, "Out");
    if (relu_op.Output("Out").size() != 1) continue;
    const std::string relu_out = relu_op.Output("Out")[0];
    if (Contains(keep, conv_out) || Contains(keep, add_out) ||
        !AddsChannelBias(*block, conv_op, add_op) || !SameKnownShape(*block, conv_out, relu_out)) {
      continue;
    }
    const VarDesc* conv_var = block->FindVar(conv_out);
    if (conv_var == nullptr || conv_var->Persistable() || graph.Producers(conv_out).size() != 1) {
      continue;
    }
    // Besides the add, only reduce_as ops may read the conv's output, and only for its shape.
    std::vector<size_t> shape_readers;
    bool only_shape_readers = true;
    for (size_t reader : graph.Consumers(conv_out)) {
      if (reader == m.ops[add]) continue;
      const OpDesc& op = graph.Op(reader);
      if (op.Type() != "reduce_as" || op.Input("Target") != std::vector<std::string>{conv_out} ||
          Contains(op.Input("X"), conv_out)) {
        only_shape_readers = false;
        break;
      }
      shape_readers.push_back(reader);
    }
    if (!only_shape_readers) continue;

    for (size_t reader : shape_readers) block->Op(reader)->SetInput("Target", {relu_out});
    OpDesc fused = conv_op;
    fused.SetInput("Bias", add_op.Input("Y"));
    fused.SetAttr("fuse_activation", std::string("relu"));
    fused.SetAttr("fuse_alpha", 0.0f);
    fused.SetAttr("fuse_beta", 0.0f);
    fused.SetOutput("Output", {relu_out});
    ir::ReplaceOps(block, {m.ops[conv], m.ops[add], m.ops[relu]}, fused);
    return true;
  }
  return false;
}

}  // namespace

ir::PassCapability FuseConvBiasReluPass::Capability() const {
  ir::PassCapability c;
  c.max_versions = {{"conv2d", 1}, {"elementwise_add", 1}, {"relu", 0}, {"reduce_as", 0}};
  return c;
}

int FuseConvBiasReluPass::ApplyImpl(ProgramDesc* program, Scope* /*params*/) const {
  if (!place_.is_cpu()) return 0;
  int rewrites = 0;
  for (size_t b = 0; b < program->Size(); ++b) {
    while (FuseOne(&program->Block(b), keep_)) ++rewrites;
  }
  return rewrites;
}

}  // namespace framework
}  // namespace paddle_like
