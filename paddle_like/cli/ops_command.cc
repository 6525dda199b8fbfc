// `paddle_like ops`: lists every registered op with its spec and kernels.
#include <iostream>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "framework/op_info.h"
#include "paddle_like/cli/args.h"
#include "paddle_like/cli/commands.h"
#include "paddle_like/cli/json_writer.h"

namespace paddle_like {
namespace cli {

namespace {

using framework::KernelInfo;
using framework::OpAttrSpec;
using framework::OpInfo;
using framework::OpSlotSpec;

constexpr char kOpsUsage[] =
    "usage: paddle_like ops [--json] [TYPE ...]\n"
    "  Lists the registered ops (all, or the named ones): input and output slots, attributes\n"
    "  with type, default and constraint, version and kernel keys. --json adds the doc comments.\n";

void WriteSlotsJson(const std::vector<OpSlotSpec>& slots, JsonWriter* w) {
  w->BeginArray();
  for (const auto& s : slots) {
    w->BeginObject()
        .Key("name").String(s.name)
        .Key("comment").String(s.comment)
        .Key("duplicable").Bool(s.duplicable)
        .Key("dispensable").Bool(s.dispensable)
        .Key("intermediate").Bool(s.intermediate)
        .Key("extra").Bool(s.extra)
        .Key("no_need_buffer").Bool(s.no_need_buffer)
        .EndObject();
  }
  w->EndArray();
}

void WriteOpJson(const std::string& type, const OpInfo& info, JsonWriter* w) {
  w->BeginObject().Key("type").String(type).Key("version").Int(info.version());
  w->Key("inputs");
  WriteSlotsJson(info.spec.inputs, w);
  w->Key("outputs");
  WriteSlotsJson(info.spec.outputs, w);
  w->Key("attrs").BeginArray();
  for (const OpAttrSpec& a : info.spec.attrs) {
    w->BeginObject()
        .Key("name").String(a.name)
        .Key("type").String(framework::AttrTypeName(a.type))
        .Key("required").Bool(!a.has_default);
    w->Key("default");
    if (a.has_default) {
      w->Raw(framework::AttrToJson(a.default_value));
    } else {
      w->Null();
    }
    w->Key("extra").Bool(a.extra)
        .Key("constraint").String(a.constraint)
        .Key("comment").String(a.comment)
        .EndObject();
  }
  w->EndArray();
  w->Key("kernels").BeginArray();
  for (const KernelInfo& k : framework::KernelRegistry::Instance().KernelsOf(type)) {
    w->BeginObject()
        .Key("device").String(framework::DeviceTypeName(k.key.device))
        .Key("dtype").String(platform::DataTypeName(k.key.dtype))
        .Key("library").String(framework::LibraryTypeName(k.key.backend))
        .Key("layout").String(framework::DataLayoutName(k.key.layout))
        .Key("deterministic").Bool(k.deterministic);
    w->Key("opaque_inputs").BeginArray();
    for (const auto& slot : k.opaque_inputs) w->String(slot);
    w->EndArray();
    w->Key("inplace").BeginArray();
    for (const auto& p : k.inplace) w->String(p.first + " -> " + p.second);
    w->EndArray();
    w->EndObject();
  }
  w->EndArray();
  if (!info.fused_grad_of.empty()) w->Key("fused_grad_of").String(info.fused_grad_of);
  w->Key("version").Int(info.version());
  w->Key("checkpoints").BeginArray();
  for (const auto& c : info.checkpoints) w->String(c.note);
  w->EndArray();
  // What each checkpoint changed: {"version": checkpoint number, "kind", "name", ...}.
  w->Key("changes").BeginArray();
  for (size_t i = 0; i < info.checkpoints.size(); ++i) {
    for (const auto& c : info.checkpoints[i].changes) {
      w->BeginObject()
          .Key("version").Int(static_cast<int64_t>(i + 1))
          .Key("kind").String(framework::OpChangeKindName(c.kind))
          .Key("name").String(c.name)
          .Key("remark").String(c.remark);
      if (c.has_default) w->Key("default").String(framework::AttrToString(c.default_value));
      w->EndObject();
    }
  }
  w->EndArray();
  w->Key("comment").String(info.spec.comment).EndObject();
}

std::string SlotsText(const std::vector<OpSlotSpec>& slots) {
  if (slots.empty()) return "-";
  std::string s;
  for (const auto& slot : slots) {
    if (!s.empty()) s += ", ";
    s += slot.name;
    std::string marks;
    const auto mark = [&marks](bool on, const char* word) {
      if (on) marks += (marks.empty() ? "" : ",") + std::string(word);
    };
    mark(slot.duplicable, "duplicable");
    mark(slot.dispensable, "dispensable");
    mark(slot.intermediate, "intermediate");
    mark(slot.extra, "extra");
    mark(slot.no_need_buffer, "dims only");
    if (!marks.empty()) s += " (" + marks + ")";
  }
  return s;
}

void PrintOpText(const std::string& type, const OpInfo& info, std::ostream& os) {
  os << type << "  (version " << info.version() << ")\n";
  os << "  inputs:  " << SlotsText(info.spec.inputs) << "\n";
  os << "  outputs: " << SlotsText(info.spec.outputs) << "\n";
  int extra = 0;
  std::string attrs;
  for (const OpAttrSpec& a : info.spec.attrs) {
    if (a.extra) {
      ++extra;
      continue;
    }
    if (!attrs.empty()) attrs += ", ";
    attrs += a.name + ": " + framework::AttrTypeName(a.type);
    attrs += a.has_default ? " = " + framework::AttrToString(a.default_value) : " (required)";
    if (!a.constraint.empty()) attrs += " [" + a.constraint + "]";
  }
  if (attrs.empty()) attrs = "-";
  if (extra > 0) attrs += "  (+" + std::to_string(extra) + " extra)";
  os << "  attrs:   " << attrs << "\n";
  std::string kernels;
  for (const KernelInfo& k : framework::KernelRegistry::Instance().KernelsOf(type)) {
    if (!kernels.empty()) kernels += " ";
    kernels += k.key.ToString();
  }
  os << "  kernels: " << (kernels.empty() ? "-" : kernels) << "\n";
}

}  // namespace

int OpsCommand(const std::vector<std::string>& argv) {
  const Args args(argv, {}, {"json", "help"});
  if (args.Has("help")) {
    std::cout << kOpsUsage;
    return 0;
  }
  const auto& registry = framework::OpInfoMap::Instance();
  std::vector<std::string> types = args.positional();
  if (types.empty()) {
    for (const auto& kv : registry.map()) types.push_back(kv.first);
  } else {
    for (const auto& t : types) registry.Get(t);  // NotFoundError for an unknown type.
  }
  if (args.Has("json")) {
    JsonWriter w;
    w.BeginObject().Key("ops").BeginArray();
    for (const auto& t : types) WriteOpJson(t, registry.Get(t), &w);
    w.EndArray().EndObject();
    std::cout << w.str();
  } else {
    for (const auto& t : types) PrintOpText(t, registry.Get(t), std::cout);
    std::cout << types.size() << " ops\n";
  }
  return 0;
}

}  // namespace cli
}  // namespace paddle_like
