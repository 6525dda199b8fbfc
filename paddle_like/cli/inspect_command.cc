// `paddle_like inspect`: a readable dump of a saved program.
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/ir/pass.h"
#include "framework/model_loading.h"
#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "inference/passes/passes.h"
#include "operators/registry.h"
#include "paddle_like/cli/args.h"
#include "paddle_like/cli/commands.h"
#include "paddle_like/cli/program_dot.h"

namespace paddle_like {
namespace cli {

namespace {

using framework::BlockDesc;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::VarDesc;
using platform::Sprintf;

constexpr char kInspectUsage[] =
    "usage: paddle_like inspect [--callstack] [--passes [--params FILE]] [--dot] FILE|DIR\n"
    "  Prints the program version, op versions, each block's variables and ops, and the feed\n"
    "  and fetch targets of a ProgramDesc (binary or text). The Python call stacks saved in\n"
    "  `op_callstack` attributes are shown only with --callstack.\n"
    "  --passes: loads the parameters too (from --params, else found as for `run`), applies\n"
    "  the inference passes in the Predictor's order and prints what each changed (rewrites,\n"
    "  op counts by type; why a pass was skipped), then the optimised program.\n"
    "  --dot: prints the program (optimised, with --passes) as a Graphviz graph instead;\n"
    "  the passes' report then goes to stderr. Render with `dot -Tsvg`.\n";

std::string Join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string s;
  for (const auto& item : items) s += (s.empty() ? "" : sep) + item;
  return s;
}

std::string VersionString(int64_t v) {
  if (v < 0) return "absent";
  return std::to_string(v) + " (" + std::to_string(v / 1000000) + "." +
         std::to_string(v / 1000 % 1000) + "." + std::to_string(v % 1000) + ")";
}

std::string SlotsString(const framework::VariableNameMap& slots) {
  std::vector<std::string> parts;
  for (const auto& kv : slots) parts.push_back(kv.first + "=[" + Join(kv.second) + "]");
  return Join(parts, " ");
}

void PrintOpVersions(const ProgramDesc& program, std::ostream& os) {
  std::set<std::string> used;
  for (size_t b = 0; b < program.Size(); ++b) {
    for (const OpDesc* op : program.Block(b).AllOps()) used.insert(op->Type());
  }
  const auto& registry = framework::OpInfoMap::Instance();
  os << "op versions: " << program.OpVersions().size() << " recorded; " << used.size()
     << " op types used (saved version / this runtime):\n";
  for (const auto& type : used) {
    const auto it = program.OpVersions().find(type);
    const std::string saved = it == program.OpVersions().end() ? "-" : std::to_string(it->second);
    const std::string ours =
        registry.Has(type) ? std::to_string(registry.Get(type).version()) : "not registered";
    os << "  " << type << ": " << saved << " / " << ours << "\n";
  }
}

void PrintBlock(const BlockDesc& block, bool callstack, std::ostream& os) {
  const auto vars = block.AllVars();
  os << "block " << block.ID() << " (parent " << block.Parent() << "): " << vars.size()
     << " vars, " << block.OpSize() << " ops\n";
  os << "  vars:\n";
  for (const VarDesc* v : vars) {
    os << "    " << v->Name() << "  " << framework::VarKindName(static_cast<int>(v->GetKind()));
    if (v->HasTensorDesc()) {
      os << "  " << platform::DataTypeName(v->GetDataType()) << " "
         << framework::DDim(v->GetShape()).ToString();
      if (v->GetLoDLevel() > 0) os << " lod_level=" << v->GetLoDLevel();
    }
    if (v->Persistable()) os << "  persistable";
    os << "\n";
  }
  os << "  ops:\n";
  for (size_t i = 0; i < block.OpSize(); ++i) {
    const OpDesc* op = block.Op(i);
    os << "    [" << i << "] " << op->Type() << "  " << SlotsString(op->Inputs()) << " -> "
       << SlotsString(op->Outputs());
    std::vector<std::string> attrs;
    for (const auto& kv : op->Attrs()) {
      const auto* frames = std::get_if<std::vector<std::string>>(&kv.second);
      if (kv.first == "op_callstack" && !callstack && frames != nullptr) {
        if (!frames->empty()) attrs.push_back(Sprintf("op_callstack=<%zu frames>", frames->size()));
        continue;
      }
      attrs.push_back(kv.first + "=" + framework::AttrToString(kv.second));
    }
    if (!attrs.empty()) os << "  {" << Join(attrs) << "}";
    os << "\n";
  }
}

std::map<std::string, int> OpCounts(const ProgramDesc& program) {
  std::map<std::string, int> counts;
  for (size_t b = 0; b < program.Size(); ++b) {
    for (const OpDesc* op : program.Block(b).AllOps()) ++counts[op->Type()];
  }
  return counts;
}

size_t OpTotal(const ProgramDesc& program) {
  size_t n = 0;
  for (size_t b = 0; b < program.Size(); ++b) n += program.Block(b).OpSize();
  return n;
}

// Applies the inference passes to `program` (parameters in `params`), printing per pass its
// rewrites and the change in op counts by type.
void ApplyAndReportPasses(ProgramDesc* program, framework::Scope* params, std::ostream& os) {
  inference::RegisterInferencePasses();
  const size_t ops_before = OpTotal(*program);
  os << "passes (in the Predictor's order):\n";
  for (const std::string& name : inference::InferencePassOrder()) {
    const auto pass = framework::ir::CreatePass(name);
    const std::string problem = framework::ir::CapabilityProblem(*program, pass->Capability());
    if (!problem.empty()) {
      os << "  " << name << ": skipped, " << problem << "\n";
      continue;
    }
    const auto before = OpCounts(*program);
    const int rewrites = framework::ir::ApplyPass(*pass, program, params);
    const auto after = OpCounts(*program);
    std::vector<std::string> changes;
    std::set<std::string> types;
    for (const auto& kv : before) types.insert(kv.first);
    for (const auto& kv : after) types.insert(kv.first);
    for (const std::string& type : types) {
      const int was = before.count(type) ? before.at(type) : 0;
      const int now = after.count(type) ? after.at(type) : 0;
      if (was != now) changes.push_back(Sprintf("%s %+d", type, now - was));
    }
    os << "  " << name << ": " << rewrites << " rewrite" << (rewrites == 1 ? "" : "s");
    if (!changes.empty()) os << " (" << Join(changes) << ")";
    os << "\n";
  }
  os << "ops: " << ops_before << " -> " << OpTotal(*program) << "\n";
}

}  // namespace

int InspectCommand(const std::vector<std::string>& argv) {
  const Args args(argv, {"params"}, {"callstack", "dot", "help", "passes"});
  if (args.Has("help")) {
    std::cout << kInspectUsage;
    return 0;
  }
  PL_ENFORCE(args.positional().size() == 1,
             errors::InvalidArgument("inspect: expected one program file, received %zu "
                                     "arguments\n%s",
                                     args.positional().size(), kInspectUsage));
  const std::string path = framework::ResolveProgramPath(args.positional()[0]);
  ProgramDesc program = ProgramDesc::Load(path);
  const bool dot = args.Has("dot");
  std::ostream& os = dot ? std::cerr : std::cout;
  os << "program: " << path << "\n";
  if (args.Has("passes")) {
    operators::RegisterAllOps();
    framework::Scope params;
    framework::ParameterSource source;
    source.combined_file = args.Get("params", "");
    framework::LoadParameters(program, path, source, &params);
    ApplyAndReportPasses(&program, &params, os);
  }
  if (dot) {
    WriteProgramDot(program, std::cout);
    return 0;
  }
  os << "version: " << VersionString(program.Version()) << "\n";
  PrintOpVersions(program, os);
  for (size_t b = 0; b < program.Size(); ++b) {
    PrintBlock(program.Block(b), args.Has("callstack"), os);
  }
  os << "feed targets: " << Join(program.FeedTargetNames()) << "\n";
  os << "fetch targets: " << Join(program.FetchTargetNames()) << "\n";
  return 0;
}

}  // namespace cli
}  // namespace paddle_like
