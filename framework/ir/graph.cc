#include "framework/ir/graph.h"

#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {
namespace ir {

Graph::Graph(const BlockDesc& block) : block_(block) {
  for (size_t i = 0; i < block.OpSize(); ++i) {
    const OpDesc& op = *block.Op(i);
    for (const auto& name : op.InputArgumentNames()) {
      auto& list = consumers_[name];
      if (list.empty() || list.back() != i) list.push_back(i);
    }
    for (const auto& name : op.OutputArgumentNames()) {
      auto& list = producers_[name];
      if (list.empty() || list.back() != i) list.push_back(i);
    }
  }
  const ProgramDesc* program = block.Program();
  for (size_t b = 0; program != nullptr && b < program->Size(); ++b) {
    if (static_cast<int>(b) == block.ID()) continue;
    for (const OpDesc* op : program->Block(b).AllOps()) {
      for (const auto& name : op->InputArgumentNames()) used_by_other_blocks_[name] = true;
      for (const auto& name : op->OutputArgumentNames()) used_by_other_blocks_[name] = true;
    }
  }
}

const std::vector<size_t>& Graph::Producers(const std::string& var) const {
  static const std::vector<size_t> kNone;
  auto it = producers_.find(var);
  return it == producers_.end() ? kNone : it->second;
}

const std::vector<size_t>& Graph::Consumers(const std::string& var) const {
  static const std::vector<size_t> kNone;
  auto it = consumers_.find(var);
  return it == consumers_.end() ? kNone : it->second;
}

std::vector<std::string> Graph::VariableNames() const {
  std::map<std::string, bool> names;
  for (const auto& kv : producers_) names[kv.first] = true;
  for (const auto& kv : consumers_) names[kv.first] = true;
  std::vector<std::string> out;
  for (const auto& kv : names) out.push_back(kv.first);
  return out;
}

bool Graph::IsPersistable(const std::string& var) const {
  const VarDesc* v = block_.FindVarRecursive(var);
  return v != nullptr && v->Persistable();
}

bool Graph::IsVisibleOutside(const std::string& var) const {
  if (used_by_other_blocks_.count(var)) return true;
  for (size_t op : Consumers(var)) {
    if (Op(op).Type() == "fetch") return true;
  }
  return false;
}

}  // namespace ir
}  // namespace framework
}  // namespace paddle_like
