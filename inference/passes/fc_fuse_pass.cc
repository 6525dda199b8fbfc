#include "inference/passes/fc_fuse_pass.h"

#include <string>
#include <vector>

#include "framework/ir/graph.h"
#include "framework/ir/pattern.h"
#include "framework/ir/rewrite.h"
#include "inference/passes/pass_util.h"
#include "operators/activation/fused_activation.h"

namespace paddle_like {
namespace inference {

namespace {

using framework::BlockDesc;
using framework::DenseTensor;
using framework::OpDesc;
using framework::Scope;
using framework::ir::FindMatches;
using framework::ir::Graph;
using framework::ir::Match;
using framework::ir::Pattern;

const char* const kProducts[] = {"mul", "matmul_v2", "matmul"};

int DeclaredRank(const Graph& graph, const std::string& name) {
  const framework::VarDesc* v = graph.block().FindVarRecursive(name);
  return v != nullptr && v->HasTensorDesc() ? static_cast<int>(v->GetShape().size()) : -1;
}

// in_num_col_dims of the fc computing `product`, or 0 when it is not a plain X * W.
int ColumnDims(const Graph& graph, const OpDesc& product) {
  const std::string x = SingleVar(product.Inputs(), "X");
  const std::string& type = product.Type();
  if (type == "mul") {
    return AttrOr<int>(product, "y_num_col_dims", 1) == 1 ? AttrOr<int>(product, "x_num_col_dims", 1)
                                                         : 0;
  }
  if (type == "matmul_v2" && (FlagOf(product, "trans_x") || FlagOf(product, "trans_y"))) return 0;
  if (type == "matmul" && (FlagOf(product, "transpose_X") || FlagOf(product, "transpose_Y") ||
                           AttrOr<float>(product, "alpha", 1.0f) != 1.0f)) {
    return 0;
  }
  const int rank = DeclaredRank(graph, x);
  return rank >= 2 ? rank - 1 : 0;
}

// Whether `add` adds a bias of N values to the last dim of the product (rank `out_rank`).
bool AddsRowBias(const Graph& graph, Scope* params, const OpDesc& add, int64_t n, int out_rank) {
  const DenseTensor* b = FloatParam(graph, params, SingleVar(add.Inputs(), "Y"));
  if (b == nullptr || b->numel() != n || b->dims()[b->dims().size() - 1] != n) return false;
  if (b->dims().size() > 2 || (b->dims().size() == 2 && b->dims()[0] != 1)) return false;
  const int axis = AttrOr<int>(add, "axis", -1);
  return axis == -1 || axis == out_rank - b->dims().size();
}

bool FuseOneProduct(BlockDesc* block, Scope* params) {
  for (const char* type : kProducts) {
    const Graph graph(*block);
    Pattern p;
    const int product = p.AddOp(type);
    const int add = p.AddOp("elementwise_add");
    p.Connect(product, "Out", add, "X");
    for (const Match& m : FindMatches(graph, p)) {
      const OpDesc& prod = graph.Op(m.ops[product]);
      const OpDesc& add_op = graph.Op(m.ops[add]);
      const int k = ColumnDims(graph, prod);
      const DenseTensor* w = FloatParam(graph, params, SingleVar(prod.Inputs(), "Y"));
      if (k <= 0 || w == nullptr || w->dims().size() != 2) continue;
      if (!AddsRowBias(graph, params, add_op, w->dims()[1], k + 1)) continue;
      if (!InputsUnchangedUntil(graph, m.ops[product], m.ops[add])) continue;
      framework::AttributeMap attrs = {{"in_num_col_dims", k},
                                       {"activation_type", std::string()},
                                       {"padding_weights", false}};
      if (prod.HasAttr("op_role")) attrs["op_role"] = prod.GetAttr("op_role");
      const OpDesc fc("fc",
                      {{"Input", {SingleVar(prod.Inputs(), "X")}},
                       {"W", {SingleVar(prod.Inputs(), "Y")}},
                       {"Bias", {SingleVar(add_op.Inputs(), "Y")}}},
                      {{"Out", {SingleVar(add_op.Outputs(), "Out")}}}, attrs);
      framework::ir::ReplaceOps(block, m.ops, fc);
      return true;
    }
  }
  return false;
}

bool FuseOneActivation(BlockDesc* block) {
  return FuseOneTrailingActivation(
      block, "fc", "Out",
      [](const OpDesc& op) { return AttrOr<std::string>(op, "activation_type", "").empty(); },
      [](const operators::FusedActivation& a, OpDesc* fc) {
        fc->SetAttr("activation_type", a.name);
        fc->SetAttr("fuse_alpha", a.alpha);
        fc->SetAttr("fuse_beta", a.beta);
      });
}

}  // namespace

// mul 0, matmul_v2 0, matmul 1 (PaddlePaddle's matmul version 1 did not change X * Y's
// meaning for the attributes checked here), elementwise_add 1; activations: pass_util.h.
framework::ir::PassCapability FcFusePass::Capability() const {
  framework::ir::PassCapability c{
      {{"mul", 0}, {"matmul_v2", 0}, {"matmul", 1}, {"elementwise_add", 1}}};
  AddFusableActivationVersions(&c);
  return c;
}

int FcFusePass::ApplyImpl(framework::ProgramDesc* program, Scope* params) const {
  if (params == nullptr) return 0;
  int rewrites = 0;
  for (size_t b = 0; b < program->Size(); ++b) {
    BlockDesc* block = &program->Block(b);
    while (FuseOneProduct(block, params)) ++rewrites;
    while (FuseOneActivation(block)) ++rewrites;
  }
  return rewrites;
}

}  // namespace inference
}  // namespace paddle_like
