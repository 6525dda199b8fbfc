#include "paddle_like/cli/profile_report.h"

#include <cstdio>
#include <map>

#include "paddle_like/cli/json_writer.h"

namespace paddle_like {
namespace cli {

namespace {
std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

void WriteKey(JsonWriter* w, const framework::KernelKey& key) {
  w->BeginObject()
      .Key("device").String(framework::DeviceTypeName(key.device))
      .Key("dtype").String(platform::DataTypeName(key.dtype))
      .Key("library").String(framework::LibraryTypeName(key.backend))
      .Key("layout").String(framework::DataLayoutName(key.layout))
      .EndObject();
}
}  // namespace

std::string ProfileJson(const framework::ExecutionProfile& profile, int runs) {
  JsonWriter w;
  w.BeginObject().Key("runs").Int(runs);
  w.Key("averaged_runs").Int(profile.averaged_runs);
  w.Key("profiled_run_ms").Raw(Fixed(profile.seconds * 1e3, 4));
  w.Key("ops").BeginArray();
  for (const auto& op : profile.ops) {
    w.BeginObject().Key("index").Int(static_cast<int64_t>(op.index)).Key("type").String(op.type);
    w.Key("kernel");
    if (op.has_kernel) {
      WriteKey(&w, op.key);
    } else {
      w.Null();
    }
    w.Key("transforms").BeginArray();
    for (const auto& t : op.transforms) {
      w.BeginObject()
          .Key("slot").String(t.slot)
          .Key("variable").String(t.variable)
          .Key("kind").String(t.kind)
          .Key("bytes").Int(static_cast<int64_t>(t.bytes))
          .EndObject();
    }
    w.EndArray();
    w.Key("opaque_outputs").BeginArray();
    for (const auto& o : op.opaque_outputs) w.String(o);
    w.EndArray();
    w.Key("in_place").BeginArray();
    for (const auto& o : op.in_place) w.String(o);
    w.EndArray();
    w.Key("ms").Raw(Fixed(op.seconds * 1e3, 4)).EndObject();
  }
  w.EndArray();
  w.Key("by_type").BeginArray();
  for (const auto& t : profile.ByType()) {
    w.BeginObject()
        .Key("type").String(t.type)
        .Key("count").Int(static_cast<int64_t>(t.count))
        .Key("ms").Raw(Fixed(t.seconds * 1e3, 4))
        .Key("share").Raw(Fixed(t.share, 4))
        .EndObject();
  }
  w.EndArray();
  w.Key("transforms").BeginObject()
      .Key("count").Int(static_cast<int64_t>(profile.TransformCount()))
      .Key("bytes").Int(static_cast<int64_t>(profile.TransformBytes()))
      .EndObject();
  w.EndObject();
  return w.str();
}

std::string ProfileTable(const framework::ExecutionProfile& profile) {
  char line[160];
  std::string s;
  if (profile.averaged_runs > 1) {
    std::snprintf(line, sizeof(line), "mean profile of %d runs: %zu ops, %.3f ms\n",
                  profile.averaged_runs, profile.ops.size(), profile.seconds * 1e3);
  } else {
    std::snprintf(line, sizeof(line), "profile of one run: %zu ops, %.3f ms\n", profile.ops.size(),
                  profile.seconds * 1e3);
  }
  s += line;
  std::snprintf(line, sizeof(line), "  %-32s %6s %12s %7s\n", "op type", "count", "total ms",
                "share");
  s += line;
  for (const auto& t : profile.ByType()) {
    std::snprintf(line, sizeof(line), "  %-32s %6zu %12.3f %6.1f%%\n", t.type.c_str(), t.count,
                  t.seconds * 1e3, t.share * 100);
    s += line;
  }
  std::map<std::string, size_t> kernels;
  for (const auto& op : profile.ops) {
    if (op.has_kernel) ++kernels[op.type + " " + op.key.ToString()];
  }
  s += "  kernels:\n";
  for (const auto& kv : kernels) {
    std::snprintf(line, sizeof(line), "    %-60s x%zu\n", kv.first.c_str(), kv.second);
    s += line;
  }
  // Kernel pre-packs (ExecutionContext::NotePrepack) are listed apart from data transforms.
  size_t packs = 0, pack_bytes = 0, transforms = 0, transform_bytes = 0;
  for (const auto& op : profile.ops) {
    for (const auto& t : op.transforms) {
      const bool pack = t.kind.rfind("prepack", 0) == 0;
      (pack ? packs : transforms) += 1;
      (pack ? pack_bytes : transform_bytes) += t.bytes;
    }
  }
  std::snprintf(line, sizeof(line), "  data transforms: %zu (%zu bytes); weight pre-packs: %zu (%zu bytes)\n",
                transforms, transform_bytes, packs, pack_bytes);
  s += line;
  size_t opaque = 0, in_place = 0;
  for (const auto& op : profile.ops) {
    opaque += op.opaque_outputs.size();
    in_place += op.in_place.size();
  }
  std::snprintf(line, sizeof(line),
                "  outputs kept in a library layout: %zu; written over a dying input: %zu\n",
                opaque, in_place);
  s += line;
  return s;
}

}  // namespace cli
}  // namespace paddle_like
