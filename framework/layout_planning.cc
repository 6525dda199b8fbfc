#include "framework/layout_planning.h"

#include "framework/memory_planning.h"

namespace paddle_like {
namespace framework {

std::set<std::string> PlanOpaqueLayouts(const ProgramDesc& program, int block_id,
                                        const std::vector<const OperatorBase*>& ops,
                                        const std::vector<OpPlacement>& placements,
                                        const platform::Place& place,
                                        const std::set<std::string>& persistable,
                                        const std::set<std::string>& keep,
                                        const std::set<std::string>& kept_any_layout) {
  std::set<std::string> planned;
  if (!place.is_cpu()) return planned;
  const std::set<std::string> read_elsewhere = NamesReadByOtherBlocks(program, block_id);
  // Variables with a read that accepts the layout, and with one that does not.
  std::set<std::string> accepted, refused, written_by_any;
  const KernelRegistry& registry = KernelRegistry::Instance();
  for (size_t i = 0; i < ops.size(); ++i) {
    const OperatorBase& op = *ops[i];
    const bool onednn = KernelChoiceOptions::ForOp(place, placements[i]).use_onednn;
    std::set<std::string> written;
    for (const auto& slot : op.Outputs()) written.insert(slot.second.begin(), slot.second.end());
    written_by_any.insert(written.begin(), written.end());
    for (const auto& slot : op.Inputs()) {
      // A slot read for its dims only (reduce_as's Target) takes any layout.
      if (op.HasKernels() && !op.NeedsBuffer(slot.first)) continue;
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
  std::set<std::string> candidates = accepted;
  for (const std::string& name : kept_any_layout) {
    if (written_by_any.count(name)) candidates.insert(name);
  }
  for (const std::string& name : candidates) {
    if (refused.count(name) || persistable.count(name) ||
        (keep.count(name) && !kept_any_layout.count(name)) || read_elsewhere.count(name)) {
      continue;
    }
    planned.insert(name);
  }
  return planned;
}

}  // namespace framework
}  // namespace paddle_like
