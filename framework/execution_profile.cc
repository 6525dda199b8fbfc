#include "framework/execution_profile.h"

#include <algorithm>
#include <map>

namespace paddle_like {
namespace framework {

void ExecutionProfile::Average(const ExecutionProfile& run) {
  if (ops.empty() || ops.size() != run.ops.size()) {
    *this = run;
    averaged_runs = 1;
    return;
  }
  const double n = averaged_runs;
  auto mean = [n](double so_far, double next) { return (so_far * n + next) / (n + 1); };
  for (size_t i = 0; i < ops.size(); ++i) ops[i].seconds = mean(ops[i].seconds, run.ops[i].seconds);
  seconds = mean(seconds, run.seconds);
  ++averaged_runs;
}

std::vector<ExecutionProfile::TypeTotal> ExecutionProfile::ByType() const {
  std::map<std::string, TypeTotal> by_type;
  double all = 0;
  for (const auto& op : ops) {
    TypeTotal& t = by_type[op.type];
    t.type = op.type;
    ++t.count;
    t.seconds += op.seconds;
    all += op.seconds;
  }
  std::vector<TypeTotal> out;
  for (auto& kv : by_type) {
    kv.second.share = all > 0 ? kv.second.seconds / all : 0;
    out.push_back(kv.second);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TypeTotal& a, const TypeTotal& b) { return a.seconds > b.seconds; });
  return out;
}

size_t ExecutionProfile::TransformCount() const {
  size_t n = 0;
  for (const auto& op : ops) n += op.transforms.size();
  return n;
}

size_t ExecutionProfile::TransformBytes() const {
  size_t n = 0;
  for (const auto& op : ops) {
    for (const auto& t : op.transforms) n += t.bytes;
  }
  return n;
}

}  // namespace framework
}  // namespace paddle_like
