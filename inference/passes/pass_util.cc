#include "inference/passes/pass_util.h"

#include "framework/ir/rewrite.h"
#include "operators/common.h"

#include <algorithm>
#include <utility>

namespace paddle_like {
namespace inference {

std::string SingleVar(const framework::VariableNameMap& names, const std::string& slot) {
  auto it = names.find(slot);
  return it != names.end() && it->second.size() == 1 ? it->second[0] : "";
}

bool FlagOf(const framework::OpDesc& op, const std::string& name) {
  return operators::FlagAttr(op.Attrs(), name);
}

framework::DenseTensor* FloatParam(const framework::ir::Graph& graph, framework::Scope* params,
                                   const std::string& name) {
  if (params == nullptr || name.empty() || !graph.IsPersistable(name)) return nullptr;
  framework::Variable* var = params->FindVar(name);
  if (var == nullptr || !var->IsType<framework::DenseTensor>()) return nullptr;
  framework::DenseTensor* t = var->GetMutable<framework::DenseTensor>();
  if (!t->initialized() || !t->is_plain() || t->dtype() != framework::DataType::FLOAT32) {
    return nullptr;
  }
  return t;
}

std::string AddParam(framework::BlockDesc* block, framework::Scope* params,
                     const std::string& base, framework::DenseTensor value) {
  std::string name = base;
  for (int i = 1; block->FindVarRecursive(name) != nullptr || params->FindVar(name) != nullptr;
       ++i) {
    name = base + "_" + std::to_string(i);
  }
  framework::VarDesc* var = block->Var(name);
  var->SetPersistable(true);
  var->SetDataType(value.dtype());
  std::vector<int64_t> shape;
  for (int i = 0; i < value.dims().size(); ++i) shape.push_back(value.dims()[i]);
  var->SetShape(shape);
  *params->Var(name)->GetMutable<framework::DenseTensor>() = std::move(value);
  return name;
}

void DropUnusedParams(const framework::ProgramDesc& program, framework::BlockDesc* block,
                      framework::Scope* params, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    bool used = false;
    for (size_t b = 0; b < program.Size() && !used; ++b) {
      for (const framework::OpDesc* op : program.Block(b).AllOps()) {
        const auto in = op->InputArgumentNames(), out = op->OutputArgumentNames();
        if (std::find(in.begin(), in.end(), name) != in.end() ||
            std::find(out.begin(), out.end(), name) != out.end()) {
          used = true;
          break;
        }
      }
    }
    if (used) continue;
    if (block->FindVar(name) != nullptr) block->RemoveVar(name);
    if (params != nullptr && params->FindLocalVar(name) != nullptr) params->EraseVars({name});
  }
}

bool OtherOutputsUnused(const framework::ir::Graph& graph, const framework::OpDesc& op,
                        const std::vector<std::string>& keep) {
  const auto inputs = op.InputArgumentNames();
  for (const std::string& out : op.OutputArgumentNames()) {
    if (std::find(keep.begin(), keep.end(), out) != keep.end()) continue;
    if (graph.IsVisibleOutside(out)) return false;
    for (size_t reader : graph.Consumers(out)) {
      if (&graph.Op(reader) != &op) return false;
    }
    const bool own_input = std::find(inputs.begin(), inputs.end(), out) != inputs.end();
    if (graph.IsPersistable(out) && !own_input) return false;
  }
  return true;
}

bool InputsUnchangedUntil(const framework::ir::Graph& graph, size_t from, size_t to) {
  for (const std::string& in : graph.Op(from).InputArgumentNames()) {
    for (size_t writer : graph.Producers(in)) {
      if (writer > from && writer < to) return false;
    }
  }
  return true;
}

bool HasSideEffectsOrRandomness(const std::string& type) {
  for (const char* part : {"random", "dropout", "randint", "randperm", "sampling", "seed", "feed",
                           "fetch", "save", "load", "print", "read", "while", "conditional",
                           "recurrent", "select_input", "select_output", "send", "recv",
                           "barrier", "allreduce", "all_reduce"}) {
    if (type.find(part) != std::string::npos) return true;
  }
  return type.rfind("c_", 0) == 0;  // Collective ops: c_allreduce_sum, c_broadcast, ...
}

bool HasSubBlock(const framework::OpDesc& op) {
  for (const auto& kv : op.Attrs()) {
    if (std::holds_alternative<framework::BlockIndex>(kv.second) ||
        std::holds_alternative<framework::BlockIndices>(kv.second)) {
      return true;
    }
  }
  return false;
}

bool HasFusedActivation(const framework::OpDesc& conv) {
  return !AttrOr<std::string>(conv, "fuse_activation", "").empty() || FlagOf(conv, "fuse_relu") ||
         FlagOf(conv, "fuse_brelu");
}

bool IsUnfusedConvTail(const framework::OpDesc& conv) {
  return !conv.HasInput("ResidualData") && !FlagOf(conv, "fuse_residual_connection") &&
         !HasFusedActivation(conv);
}

const std::vector<std::string>& FusableActivationTypes() {
  static const std::vector<std::string> types = {"relu",    "leaky_relu", "relu6",
                                                 "clip",    "swish",      "hard_swish",
                                                 "hard_sigmoid", "sigmoid", "tanh", "gelu"};
  return types;
}

void AddFusableActivationVersions(framework::ir::PassCapability* capability) {
  for (const std::string& type : FusableActivationTypes()) capability->max_versions[type] = 0;
  capability->max_versions["clip"] = 1;
  capability->max_versions["leaky_relu"] = 1;
}

bool FuseOneTrailingActivation(
    framework::BlockDesc* block, const std::string& producer_type, const std::string& out_slot,
    const framework::ir::Pattern::Predicate& accepts,
    const std::function<void(const operators::FusedActivation&, framework::OpDesc*)>& write,
    const std::vector<std::string>& activations) {
  for (const std::string& act : activations) {
    const framework::ir::Graph graph(*block);
    framework::ir::Pattern p;
    const int producer = p.AddOp(producer_type, accepts);
    const int act_op = p.AddOp(act, [](const framework::OpDesc& op) {
      return operators::FusedActivationOfOp(op).has_value();
    });
    p.Connect(producer, out_slot, act_op, "X");
    for (const framework::ir::Match& m : framework::ir::FindMatches(graph, p)) {
      if (!InputsUnchangedUntil(graph, m.ops[producer], m.ops[act_op])) continue;
      const framework::OpDesc& a = graph.Op(m.ops[act_op]);
      framework::OpDesc fused = graph.Op(m.ops[producer]);
      write(*operators::FusedActivationOfOp(a), &fused);
      fused.SetOutput(out_slot, {SingleVar(a.Outputs(), "Out")});
      framework::ir::ReplaceOps(block, m.ops, fused);
      return true;
    }
  }
  return false;
}

bool UsesInferenceStatistics(const framework::OpDesc& bn) {
  return (FlagOf(bn, "is_test") && !FlagOf(bn, "trainable_statistics")) ||
         FlagOf(bn, "use_global_stats");
}

}  // namespace inference
}  // namespace paddle_like
