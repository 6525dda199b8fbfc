#include "framework/memory_planning.h"

#include <map>

namespace paddle_like {
namespace framework {

std::set<std::string> NamesReadByOtherBlocks(const ProgramDesc& program, int block_id) {
  std::set<std::string> names;
  for (size_t b = 0; b < program.Size(); ++b) {
    if (static_cast<int>(b) == block_id) continue;
    for (const OpDesc* op : program.Block(b).AllOps()) {
      for (const auto& name : op->InputArgumentNames()) names.insert(name);
    }
  }
  return names;
}

MemoryPlan PlanMemory(const ProgramDesc& program, int block_id,
                      const std::vector<const OperatorBase*>& ops,
                      const std::set<std::string>& temporaries) {
  const std::set<std::string> read_elsewhere = NamesReadByOtherBlocks(program, block_id);
  const auto is_temporary = [&](const std::string& name) {
    return temporaries.count(name) > 0 && read_elsewhere.count(name) == 0;
  };
  // Last use of every variable, in execution order. Inputs in no-need-buffer slots (the op
  // reads only metadata) do not keep a buffer alive.
  std::map<std::string, size_t> last_use;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const auto& slot : ops[i]->Inputs()) {
      if (!ops[i]->NeedsBuffer(slot.first)) continue;
      for (const auto& n : slot.second) last_use[n] = i;
    }
    for (const auto& slot : ops[i]->Outputs()) {
      for (const auto& n : slot.second) last_use[n] = i;
    }
  }
  MemoryPlan plan;
  plan.free_after.resize(ops.size());
  plan.in_place.resize(ops.size());
  for (const auto& kv : last_use) {
    if (is_temporary(kv.first)) plan.free_after[kv.second].push_back(kv.first);
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const OperatorBase& op = *ops[i];
    std::map<std::string, int> reads;
    for (const auto& slot : op.Inputs()) {
      for (const auto& n : slot.second) ++reads[n];
    }
    std::set<std::string> written;
    for (const auto& slot : op.Outputs()) written.insert(slot.second.begin(), slot.second.end());
    for (const auto& in : op.Inputs()) {
      if (!op.NeedsBuffer(in.first)) continue;
      for (size_t a = 0; a < in.second.size(); ++a) {
        const std::string& x = in.second[a];
        if (!is_temporary(x) || last_use.at(x) != i || reads.at(x) != 1 || written.count(x)) {
          continue;
        }
        for (const auto& out : op.Outputs()) {
          for (size_t b = 0; b < out.second.size(); ++b) {
            // An output the op also reads must keep its own values until the kernel reads them.
            if (reads.count(out.second[b])) continue;
            plan.in_place[i].push_back({in.first, a, out.first, b});
          }
        }
      }
    }
  }
  return plan;
}

}  // namespace framework
}  // namespace paddle_like
