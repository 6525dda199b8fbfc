#include "inference/passes/constant_folding_pass.h"

#include <set>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/ir/graph.h"
#include "inference/passes/pass_util.h"

namespace paddle_like {
namespace inference {

namespace {

using framework::BlockDesc;
using framework::DenseTensor;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::Scope;
using framework::ir::Graph;

constexpr size_t kMaxFoldedBytes = 16 << 20;

// A loaded, row-major dense tensor of parameter `name`, or null.
const DenseTensor* ConstValue(const Graph& graph, const Scope& params, const std::string& name) {
  if (!graph.IsPersistable(name)) return nullptr;
  const framework::Variable* v = params.FindVar(name);
  if (v == nullptr || !v->IsType<DenseTensor>()) return nullptr;
  const DenseTensor& t = v->Get<DenseTensor>();
  return t.initialized() && t.is_plain() ? &t : nullptr;
}

// Whether op `i` reads only parameters and writes temporaries nothing else writes.
bool Foldable(const Graph& graph, const Scope& params, size_t i) {
  const OpDesc& op = graph.Op(i);
  if (HasSideEffectsOrRandomness(op.Type()) || HasSubBlock(op)) return false;
  const std::vector<std::string> inputs = op.InputArgumentNames();
  const std::vector<std::string> outputs = op.OutputArgumentNames();
  if (outputs.empty()) return false;
  for (const std::string& in : inputs) {
    if (ConstValue(graph, params, in) == nullptr) return false;
  }
  for (const std::string& out : outputs) {
    if (graph.IsPersistable(out) || graph.IsVisibleOutside(out) ||
        graph.Producers(out).size() != 1) {
      return false;
    }
  }
  return true;
}

// Runs op `i` of `block` alone over `params`; the values of `wanted` (outputs of the op), or
// nothing when it fails.
std::vector<DenseTensor> RunAlone(const BlockDesc& block, size_t i, Scope* params,
                                  const std::vector<std::string>& wanted) {
  const OpDesc& op = *block.Op(i);
  ProgramDesc one;
  BlockDesc& b = one.Block(0);
  std::vector<std::string> names = op.InputArgumentNames();
  const std::vector<std::string> outputs = op.OutputArgumentNames();
  names.insert(names.end(), outputs.begin(), outputs.end());
  for (const std::string& name : names) {
    if (const framework::VarDesc* v = block.FindVarRecursive(name)) *b.Var(name) = *v;
  }
  *b.AppendOp() = op;
  Scope& local = params->NewScope();
  std::vector<DenseTensor> values;
  try {
    framework::Executor executor{platform::CPUPlace()};
    values = executor.Run(one, &local, {}, wanted);
  } catch (const platform::Error&) {
    values.clear();
  }
  params->DeleteScope(&local);
  return values;
}

bool FoldOne(ProgramDesc* program, BlockDesc* block, Scope* params,
             std::set<std::string>* failed) {
  const Graph graph(*block);
  for (size_t i = 0; i < graph.OpCount(); ++i) {
    if (!Foldable(graph, *params, i)) continue;
    const OpDesc& op = graph.Op(i);
    const std::vector<std::string> outputs = op.OutputArgumentNames();
    // Outputs nobody reads (reshape2's XShape) go with the op.
    std::vector<std::string> read, unread;
    for (const std::string& out : outputs) {
      (graph.Consumers(out).empty() ? unread : read).push_back(out);
    }
    if (read.empty() || failed->count(outputs[0])) continue;
    const std::vector<DenseTensor> values = RunAlone(*block, i, params, read);
    bool fits = values.size() == read.size();
    for (const DenseTensor& v : values) fits = fits && v.data_bytes() <= kMaxFoldedBytes;
    if (!fits) {
      failed->insert(outputs[0]);
      continue;
    }
    const std::vector<std::string> inputs = op.InputArgumentNames();
    for (size_t k = 0; k < read.size(); ++k) {
      framework::VarDesc* var = block->Var(read[k]);
      var->SetPersistable(true);
      var->SetDataType(values[k].dtype());
      var->SetShape(values[k].dims().ToVector());
      *params->Var(read[k])->GetMutable<DenseTensor>() = values[k];
    }
    block->RemoveOp(i, i + 1);
    for (const std::string& out : unread) {
      if (block->FindVar(out) != nullptr) block->RemoveVar(out);
    }
    DropUnusedParams(*program, block, params, inputs);
    return true;
  }
  return false;
}

}  // namespace

int ConstantFoldingPass::ApplyImpl(ProgramDesc* program, Scope* params) const {
  if (params == nullptr) return 0;
  int rewrites = 0;
  for (size_t b = 0; b < program->Size(); ++b) {
    std::set<std::string> failed;
    while (FoldOne(program, &program->Block(b), params, &failed)) ++rewrites;
  }
  return rewrites;
}

}  // namespace inference
}  // namespace paddle_like
