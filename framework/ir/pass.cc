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

std::string CapabilityProblem(const ProgramDesc& program, const PassCapability& capability) {
  std::set<std::string> used;
  for (size_t b = 0; b < program.Size(); ++b) {
    for (const OpDesc* op : program.Block(b).AllOps()) used.insert(op->Type());
  }
  for (const auto& kv : capability.max_versions) {
    if (!used.count(kv.first)) continue;
    const int needed = ProgramOpVersion(program, kv.first);
    if (needed > kv.second) {
      return platform::Sprintf("op `%s`: the program needs version %d, the pass handles up to %d",
                               kv.first, needed, kv.second);
    }
  }
  return "";
}

int ApplyPass(const Pass& pass, ProgramDesc* program) {
  const std::string problem = CapabilityProblem(*program, pass.Capability());
  if (!problem.empty()) {
    LOG(INFO) << "pass `" << pass.Name() << "` skipped, program left unchanged: " << problem;
    return 0;
  }
  return pass.ApplyImpl(program);
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
