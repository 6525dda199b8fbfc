#include "inference/passes/dead_op_elimination_pass.h"

#include <set>
#include <string>
#include <vector>

#include "framework/ir/graph.h"
#include "framework/grad_op_maker.h"
#include "framework/op_desc.h"
#include "inference/passes/pass_util.h"

namespace paddle_like {
namespace inference {

namespace {

using framework::BlockDesc;
using framework::OpDesc;
using framework::ir::Graph;

// Names read by the ops of every block but `block`.
std::set<std::string> ReadOutside(const framework::ProgramDesc& program, size_t block) {
  std::set<std::string> names;
  for (size_t b = 0; b < program.Size(); ++b) {
    if (b == block) continue;
    for (const OpDesc* op : program.Block(b).AllOps()) {
      for (const std::string& n : op->InputArgumentNames()) names.insert(n);
    }
  }
  return names;
}

// Whether op `i` writes only variables nothing reads after it.
bool IsDead(const Graph& graph, size_t i, const std::set<std::string>& read_outside) {
  const OpDesc& op = graph.Op(i);
  if (HasSideEffectsOrRandomness(op.Type()) || HasSubBlock(op)) return false;
  const std::vector<std::string> outputs = op.OutputArgumentNames();
  bool writes_any = false;
  for (const std::string& out : outputs) {
    if (out == framework::kEmptyVarName) continue;
    writes_any = true;
    if (graph.IsPersistable(out) || graph.IsVisibleOutside(out) || read_outside.count(out)) {
      return false;
    }
    for (size_t reader : graph.Consumers(out)) {
      if (reader > i) return false;
    }
  }
  return writes_any;
}

// Removes the last dead op of `block`, adding the variables it used to `touched`; false when
// none is left.
bool RemoveOne(BlockDesc* block, const std::set<std::string>& read_outside,
               std::set<std::string>* touched) {
  const Graph graph(*block);
  for (size_t i = graph.OpCount(); i-- > 0;) {
    if (!IsDead(graph, i, read_outside)) continue;
    for (const std::string& n : graph.Op(i).InputArgumentNames()) touched->insert(n);
    for (const std::string& n : graph.Op(i).OutputArgumentNames()) touched->insert(n);
    block->RemoveOp(i, i + 1);
    return true;
  }
  return false;
}

// Drops the declarations of the temporaries in `touched` that no op uses any more.
void DropUnusedTemporaries(BlockDesc* block, const std::set<std::string>& touched,
                           const std::set<std::string>& read_outside) {
  const Graph graph(*block);
  for (const std::string& name : touched) {
    const framework::VarDesc* v = block->FindVar(name);
    if (v == nullptr || v->Persistable() || read_outside.count(name)) continue;
    if (graph.Producers(name).empty() && graph.Consumers(name).empty()) block->RemoveVar(name);
  }
}

}  // namespace

int DeadOpEliminationPass::ApplyImpl(framework::ProgramDesc* program,
                                     framework::Scope* params) const {
  // What the caller reads is known only from fetch ops: a program without them (one run
  // with fetches named at run time) and sub-blocks (whose results their parent op takes)
  // are left alone.
  BlockDesc* block = &program->Block(0);
  bool has_fetch = false;
  for (const OpDesc* op : block->AllOps()) has_fetch = has_fetch || op->Type() == "fetch";
  if (!has_fetch) return 0;
  const std::set<std::string> read_outside = ReadOutside(*program, 0);
  std::set<std::string> touched;
  int removed = 0;
  while (RemoveOne(block, read_outside, &touched)) ++removed;
  DropUnusedTemporaries(block, touched, read_outside);
  // Parameters only removed ops read: their declarations and loaded values.
  DropUnusedParams(*program, block, params,
                   std::vector<std::string>(touched.begin(), touched.end()));
  return removed;
}

}  // namespace inference
}  // namespace paddle_like
