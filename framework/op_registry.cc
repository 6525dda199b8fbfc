#include "framework/op_registry.h"

namespace paddle_like {
namespace framework {

namespace {
std::string DeclaredNames(const std::vector<OpSlotSpec>& slots) {
  std::string s;
  for (const auto& slot : slots) s += (s.empty() ? "" : ", ") + slot.name;
  return s.empty() ? "none" : s;
}

void CheckSlots(const std::string& type, const char* kind, const std::vector<OpSlotSpec>& declared,
                const VariableNameMap& given) {
  for (const auto& kv : given) {
    if (kv.second.empty()) continue;
    const OpSlotSpec* spec = nullptr;
    for (const auto& s : declared) {
      if (s.name == kv.first) spec = &s;
    }
    PL_ENFORCE(spec != nullptr,
               errors::InvalidArgument("op `%s` %s `%s`: not a slot of this op (declared: %s)",
                                       type, kind, kv.first, DeclaredNames(declared)));
    PL_ENFORCE(spec->duplicable || kv.second.size() == 1,
               errors::InvalidArgument("op `%s` %s `%s`: expected 1 variable, received %zu", type,
                                       kind, kv.first, kv.second.size()));
  }
  for (const auto& s : declared) {
    if (s.dispensable || s.extra) continue;
    auto it = given.find(s.name);
    PL_ENFORCE(it != given.end() && !it->second.empty(),
               errors::NotFound("op `%s` %s `%s`: required but not given", type, kind, s.name));
  }
}
}  // namespace

std::unique_ptr<OperatorBase> OpRegistry::CreateOp(const std::string& type,
                                                   const VariableNameMap& inputs,
                                                   const VariableNameMap& outputs,
                                                   AttributeMap attrs) {
  const OpInfo& info = OpInfoMap::Instance().Get(type);
  CheckSlots(type, "input", info.spec.inputs, inputs);
  CheckSlots(type, "output", info.spec.outputs, outputs);
  info.checker.Check(type, &attrs);
  return info.creator(type, inputs, outputs, attrs);
}

std::unique_ptr<OperatorBase> OpRegistry::CreateOp(const OpDesc& desc) {
  return CreateOp(desc.Type(), desc.Inputs(), desc.Outputs(), desc.Attrs());
}

}  // namespace framework
}  // namespace paddle_like
