#include "framework/ir/rewrite.h"

#include <algorithm>
#include <set>

#include "framework/ir/graph.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {
namespace ir {

namespace {

void AddNames(const OpDesc& op, std::set<std::string>* names) {
  for (const auto& n : op.InputArgumentNames()) names->insert(n);
  for (const auto& n : op.OutputArgumentNames()) names->insert(n);
}

// Drops the declarations of `candidates` that no op of `block` uses, unless persistable.
void RemoveUnusedVars(BlockDesc* block, const std::set<std::string>& candidates) {
  std::set<std::string> used;
  for (size_t i = 0; i < block->OpSize(); ++i) AddNames(*block->Op(i), &used);
  for (const auto& name : candidates) {
    const VarDesc* v = block->FindVar(name);
    if (v != nullptr && !v->Persistable() && used.count(name) == 0) block->RemoveVar(name);
  }
}

}  // namespace

OpDesc* ReplaceOps(BlockDesc* block, std::vector<size_t> ops, const OpDesc& replacement) {
  PL_ENFORCE(!ops.empty(), errors::InvalidArgument("ReplaceOps: expected at least one op"));
  std::sort(ops.begin(), ops.end());
  PL_ENFORCE(std::adjacent_find(ops.begin(), ops.end()) == ops.end() && ops.back() < block->OpSize(),
             errors::InvalidArgument("ReplaceOps: expected distinct op indices below %zu",
                                     block->OpSize()));
  std::set<std::string> touched;
  for (size_t i : ops) AddNames(*block->Op(i), &touched);
  AddNames(replacement, &touched);
  const size_t position = ops.back() + 1 - ops.size();  // Where the last op ends up.
  for (size_t k = ops.size(); k-- > 0;) block->RemoveOp(ops[k], ops[k] + 1);
  OpDesc* added = block->InsertOp(position);
  *added = replacement;
  added->SetBlock(block);
  RemoveUnusedVars(block, touched);
  return added;
}

void RemoveIdentityOp(BlockDesc* block, size_t op, const std::string& from,
                      const std::string& to) {
  const Graph graph(*block);
  PL_ENFORCE(op < block->OpSize(),
             errors::InvalidArgument("RemoveIdentityOp: op %zu of %zu", op, block->OpSize()));
  const auto& producers = graph.Producers(to);
  PL_ENFORCE(!graph.IsPersistable(to) && !graph.IsVisibleOutside(to) && producers.size() == 1 &&
                 producers[0] == op,
             errors::PreconditionNotMet(
                 "RemoveIdentityOp: op #%zu `%s`: its output `%s` must be a temporary written "
                 "only by it (not persistable, not fetched)",
                 op, block->Op(op)->Type(), to));
  std::set<std::string> touched;
  AddNames(*block->Op(op), &touched);
  for (size_t reader : graph.Consumers(to)) {
    OpDesc* r = block->Op(reader);
    for (const auto& slot : VariableNameMap(r->Inputs())) {
      std::vector<std::string> names = slot.second;
      std::replace(names.begin(), names.end(), to, from);
      r->SetInput(slot.first, names);
    }
  }
  block->RemoveOp(op, op + 1);
  RemoveUnusedVars(block, touched);
}

}  // namespace ir
}  // namespace framework
}  // namespace paddle_like
