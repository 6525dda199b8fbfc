#include "framework/layout_planning.h"

#include "framework/memory_planning.h"

namespace paddle_like {
namespace framework {

std::set<std::string> PlanOpaqueLayouts(const ProgramDesc& program, int block_id,
                                        const std::vector<const OperatorBase*>& ops,
                                        const std::vector<OpPlacement>& placements,
                                        const platform::Place& place,
                                        const std::set<std::string>& persistable,
                                        const std::set<std::string>& keep) {
  std::set<std::string> planned;
  if (!place.is_cpu()) return planned;
  const std::set<std::string> read_elsewhere = NamesReadByOtherBlocks(program, block_id);
  // Variables with a read that accepts the layout, and with one that does not.
  std::set<std::string> accepted, refused;
  const KernelRegistry& registry = KernelRegistry::Instance();
  for (size_t i = 0; i < ops.size(); ++i) {
    const OperatorBase& op = *ops[i];
    const bool onednn = KernelChoiceOptions::ForOp(place, placements[i]).use_onednn;
    std::set<std::string> written;
    for (const auto& slot : op.Outputs()) written.insert(slot.second.begin(), slot.second.end());
    for (const auto& slot : op.Inputs()) {
      const bool ok = onednn && op.HasKernels() &&
                      registry.AcceptsOpaque(op.Type(), LibraryType::kOneDNN, slot.first);
      for (const auto& name : slot.second) {
        if (!ok || written.count(name)) {
          refused.insert(name);
        } else {
          accepted.insert(name);
        }
      }
    }
  }
  for (const std::string& name : accepted) {
    if (refused.count(name) || persistable.count(name) || keep.count(name) ||
        read_elsewhere.count(name)) {
      continue;
    }
    planned.insert(name);
  }
  return planned;
}

}  // namespace framework
}  // namespace paddle_like
