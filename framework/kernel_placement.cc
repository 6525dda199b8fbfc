#include "framework/kernel_placement.h"

#include "framework/op_info.h"

namespace paddle_like {
namespace framework {

namespace {
constexpr const char* kUseOneDNN = "use_mkldnn";
constexpr const char* kUseCuDNN = "use_cudnn";

// The value of a boolean attribute, or `otherwise` when the op does not carry it.
bool BoolAttr(const AttributeMap& attrs, const char* name, bool otherwise) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return otherwise;
  const bool* b = std::get_if<bool>(&it->second);
  return b != nullptr ? *b : otherwise;
}

bool HasOneDNNKernel(const std::string& type) {
  for (const auto& k : KernelRegistry::Instance().KernelsOf(type)) {
    if (k.key.backend == LibraryType::kOneDNN) return true;
  }
  return false;
}
}  // namespace

std::vector<OpPlacement> PlaceKernels(const std::vector<const OperatorBase*>& ops,
                                      const PlacementRules& rules) {
  bool placed = false;
  for (const OperatorBase* op : ops) placed = placed || BoolAttr(op->Attrs(), kUseOneDNN, false);
  std::vector<OpPlacement> placements(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const OperatorBase& op = *ops[i];
    OpPlacement& p = placements[i];
    p.allow_onednn = !placed || BoolAttr(op.Attrs(), kUseOneDNN, true);
    p.allow_cudnn = BoolAttr(op.Attrs(), kUseCuDNN, true);
    if (rules.no_onednn.count(op.Type())) p.allow_onednn = false;
    if (rules.no_cudnn.count(op.Type())) p.allow_cudnn = false;
    p.deterministic = rules.deterministic.count(op.Type()) > 0;
  }
  return placements;
}

void ApplyOneDNNPlacement(ProgramDesc* program, const std::set<std::string>& op_types) {
  for (size_t b = 0; b < program->Size(); ++b) {
    for (OpDesc* op : program->Block(b).AllOps()) {
      if (!OpInfoMap::Instance().Has(op->Type())) continue;
      const OpSpec& spec = OpInfoMap::Instance().Get(op->Type()).spec;
      if (spec.FindAttr(kUseOneDNN) == nullptr) continue;
      const bool on = op_types.empty() ? HasOneDNNKernel(op->Type()) : op_types.count(op->Type()) > 0;
      op->SetAttr(kUseOneDNN, on);
    }
  }
}

}  // namespace framework
}  // namespace paddle_like
