#include "framework/op_info.h"

#include <algorithm>

namespace paddle_like {
namespace framework {

const char* OpChangeKindName(OpChangeKind kind) {
  switch (kind) {
    case OpChangeKind::kNewAttr: return "new attribute";
    case OpChangeKind::kModifyAttr: return "modified attribute";
    case OpChangeKind::kNewInput: return "new input";
    case OpChangeKind::kNewOutput: return "new output";
    case OpChangeKind::kBugfixWithBehaviorChanged: return "bug fix with changed behaviour";
  }
  return "unknown change";
}

namespace {
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

OpInfoMap& OpInfoMap::Instance() {
  static OpInfoMap map;
  return map;
}

bool OpInfoMap::ReadsOnlyMetadata(const std::string& type, const std::string& slot) const {
  auto it = map_.find(type);
  return it != map_.end() && it->second.spec.ReadsOnlyMetadata(slot);
}

const OpInfo& OpInfoMap::Get(const std::string& type) const {
  auto it = map_.find(type);
  if (it != map_.end()) return it->second;
  std::vector<std::pair<size_t, std::string>> near;
  for (const auto& kv : map_) {
    size_t d = EditDistance(type, kv.first);
    if (d <= std::max<size_t>(2, type.size() / 4)) near.emplace_back(d, kv.first);
  }
  std::sort(near.begin(), near.end());
  std::string hint;
  for (size_t i = 0; i < near.size() && i < 3; ++i) hint += (i ? ", `" : "; did you mean `") + near[i].second + "`";
  if (!hint.empty()) hint += "?";
  throw errors::NotFound("op `%s` is not registered (%zu ops are; `paddle_like ops` lists them)%s",
                         type, map_.size(), hint);
}

OpInfo* OpInfoMap::GetMutable(const std::string& type) {
  Get(type);
  return &map_[type];
}

OpInfo* OpInfoMap::Insert(const std::string& type) {
  PL_ENFORCE(map_.count(type) == 0,
             errors::AlreadyExists("op `%s` is registered twice", type));
  return &map_[type];
}

}  // namespace framework
}  // namespace paddle_like
