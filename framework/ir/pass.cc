#include "framework/ir/pass.h"

#include <glog/logging.h>

#include <set>

#include "framework/op_info.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {
namespace ir {

namespace {
std::map<std::string, PassFactory>& Registry() {
  static std::map<std::string, PassFactory> registry;
  return registry;
}
}  // namespace

int ProgramOpVersion(const ProgramDesc& program, const std::string& type) {
  auto it = program.OpVersions().find(type);
  if (it != program.OpVersions().end()) return it->second;
  return OpInfoMap::Instance().Has(type) ? OpInfoMap::Instance().Get(type).version() : 0;
}

namespace {
// Why op `op` depends on checkpoint change `c` (a pass written before it cannot assume the
// old behaviour), or "" when the op keeps the old behaviour: a new attribute at its default
// (or absent), a new input or output left empty.
std::string UsesChange(const OpDesc& op, const OpVersionChange& c) {
  switch (c.kind) {
    case OpChangeKind::kNewAttr:
      if (!op.HasAttr(c.name) || (c.has_default && op.GetAttr(c.name) == c.default_value)) {
        return "";
      }
      return "sets new attribute `" + c.name + "`";
    case OpChangeKind::kNewInput:
      return op.Input(c.name).empty() ? "" : "uses new input `" + c.name + "`";
    case OpChangeKind::kNewOutput:
      return op.Output(c.name).empty() ? "" : "uses new output `" + c.name + "`";
    case OpChangeKind::kModifyAttr:
      return "attribute `" + c.name + "` changed meaning";
    case OpChangeKind::kBugfixWithBehaviorChanged:
      return "behaviour changed (" + c.remark + ")";
  }
  return "unknown change";
}
}  // namespace

std::string CapabilityProblem(const ProgramDesc& program, const PassCapability& capability) {
  for (const auto& kv : capability.max_versions) {
    const int needed = ProgramOpVersion(program, kv.first);
    if (needed <= kv.second) continue;
    const OpInfo* info =
        OpInfoMap::Instance().Has(kv.first) ? &OpInfoMap::Instance().Get(kv.first) : nullptr;
    // Versions past the pass's are fine for an op that uses none of what they changed.
    for (size_t b = 0; b < program.Size(); ++b) {
      for (const OpDesc* op : program.Block(b).AllOps()) {
        if (op->Type() != kv.first) continue;
        if (info == nullptr || needed > info->version()) {
          return platform::Sprintf(
              "op `%s`: the program needs version %d, the pass handles up to %d", kv.first,
              needed, kv.second);
        }
        for (int v = kv.second + 1; v <= needed; ++v) {
          for (const OpVersionChange& c : info->checkpoints[static_cast<size_t>(v - 1)].changes) {
            const std::string why = UsesChange(*op, c);
            if (why.empty()) continue;
            return platform::Sprintf(
                "op `%s` (block %zu): the program needs version %d, the pass handles up to %d, "
                "and the op %s at version %d",
                kv.first, b, needed, kv.second, why, v);
          }
          if (info->checkpoints[static_cast<size_t>(v - 1)].changes.empty()) {
            return platform::Sprintf(
                "op `%s`: the program needs version %d, the pass handles up to %d (version %d "
                "records no changes a pass could check)",
                kv.first, needed, kv.second, v);
          }
        }
      }
    }
  }
  return "";
}

int ApplyPass(const Pass& pass, ProgramDesc* program, Scope* params) {
  const std::string problem = CapabilityProblem(*program, pass.Capability());
  if (!problem.empty()) {
    LOG(INFO) << "pass `" << pass.Name() << "` skipped, program left unchanged: " << problem;
    return 0;
  }
  return pass.ApplyImpl(program, params);
}

void RegisterPass(const std::string& name, PassFactory factory) {
  PL_ENFORCE(Registry().count(name) == 0,
             errors::AlreadyExists("pass `%s` is registered twice", name));
  Registry()[name] = factory;
}

std::unique_ptr<Pass> CreatePass(const std::string& name) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    std::string known;
    for (const auto& kv : Registry()) known += (known.empty() ? "" : ", ") + kv.first;
    throw errors::NotFound("pass `%s` is not registered (registered: %s)", name,
                           known.empty() ? "none" : known);
  }
  return it->second();
}

std::vector<std::string> RegisteredPasses() {
  std::vector<std::string> names;
  for (const auto& kv : Registry()) names.push_back(kv.first);
  return names;
}

}  // namespace ir
}  // namespace framework
}  // namespace paddle_like
