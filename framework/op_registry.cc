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
  std::unique_ptr<OperatorBase> op =
      CreateOp(desc.Type(), desc.Inputs(), desc.Outputs(), desc.Attrs());
  op->SetBlock(desc.Block());
  return op;
}

std::vector<std::string> CheckpointProblems(const std::string& type) {
  const OpInfo& info = OpInfoMap::Instance().Get(type);
  std::vector<std::string> problems;
  for (size_t c = 0; c < info.checkpoints.size(); ++c) {
    for (const OpVersionChange& change : info.checkpoints[c].changes) {
      const std::string where = platform::Sprintf("op `%s` checkpoint %zu, %s `%s`", type, c + 1,
                                                  OpChangeKindName(change.kind), change.name);
      switch (change.kind) {
        case OpChangeKind::kNewAttr:
        case OpChangeKind::kModifyAttr: {
          const OpAttrSpec* attr = info.spec.FindAttr(change.name);
          if (attr == nullptr) {
            problems.push_back(where + ": not an attribute of the op");
          } else if (!attr->has_default) {
            problems.push_back(where + ": the attribute has no default, so programs saved "
                                       "before the change no longer load");
          } else if (!change.has_default || !(attr->default_value == change.default_value)) {
            problems.push_back(where + ": the recorded default is not the declared one");
          }
          break;
        }
        case OpChangeKind::kNewInput:
        case OpChangeKind::kNewOutput: {
          const bool input = change.kind == OpChangeKind::kNewInput;
          const OpSlotSpec* slot =
              input ? info.spec.FindInput(change.name) : info.spec.FindOutput(change.name);
          if (slot == nullptr) {
            problems.push_back(where + ": not a slot of the op");
          } else if (!slot->dispensable) {
            problems.push_back(where + ": the slot is not dispensable, so programs saved "
                                       "before the change no longer load");
          }
          break;
        }
        case OpChangeKind::kBugfixWithBehaviorChanged:
          if (change.remark.empty()) problems.push_back(where + ": no remark says what changed");
          break;
      }
    }
  }
  return problems;
}

}  // namespace framework
}  // namespace paddle_like
