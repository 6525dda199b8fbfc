#include "framework/ir/pattern.h"

#include <set>

#include "platform/enforce.h"

namespace paddle_like {
namespace framework {
namespace ir {

int Pattern::AddOp(const std::string& type, Predicate predicate) {
  nodes_.push_back(Node{type, std::move(predicate)});
  return static_cast<int>(nodes_.size()) - 1;
}

void Pattern::Connect(int from, const std::string& from_slot, int to, const std::string& to_slot,
                      bool single_consumer) {
  const int n = static_cast<int>(nodes_.size());
  PL_ENFORCE(from >= 0 && from < n && to >= 0 && to < n && from != to,
             errors::InvalidArgument("pattern edge %d -> %d: expected two different ops of the "
                                     "%d in the pattern",
                                     from, to, n));
  edges_.push_back(Edge{from, from_slot, to, to_slot, single_consumer});
}

namespace {

constexpr size_t kUnassigned = static_cast<size_t>(-1);

// The single variable of `slot` in `names`, or "" when the slot holds none or several.
std::string SingleVar(const VariableNameMap& names, const std::string& slot) {
  auto it = names.find(slot);
  return it != names.end() && it->second.size() == 1 ? it->second[0] : "";
}

class Matcher {
 public:
  Matcher(const Graph& g, const Pattern& p) : g_(g), p_(p) {}

  bool Fits(int node, size_t op) const {
    const Pattern::Node& n = p_.nodes()[node];
    const OpDesc& desc = g_.Op(op);
    if (desc.Type() != n.type || used_.count(op)) return false;
    for (size_t other : assigned_) {
      if (other == op) return false;  // One block op per pattern op.
    }
    return !n.predicate || n.predicate(desc);
  }

  // Whether edge e holds between the assigned ops; records its variable.
  bool EdgeHolds(const Pattern::Edge& e, Match* m) const {
    const std::string out = SingleVar(g_.Op(assigned_[e.from]).Outputs(), e.from_slot);
    const std::string in = SingleVar(g_.Op(assigned_[e.to]).Inputs(), e.to_slot);
    if (out.empty() || out != in) return false;
    if (e.single_consumer) {
      if (g_.Consumers(out).size() != 1 || g_.Producers(out).size() != 1) return false;
      if (g_.IsPersistable(out) || g_.IsVisibleOutside(out)) return false;
    }
    m->vars[{e.from, e.from_slot}] = out;
    return true;
  }

  // Assigns the remaining pattern ops by following edges from assigned ones.
  bool Extend(Match* m) {
    for (const auto& e : p_.edges()) {
      const bool from = assigned_[e.from] != kUnassigned, to = assigned_[e.to] != kUnassigned;
      if (from == to) continue;
      std::vector<size_t> candidates;
      if (from) {
        const std::string var = SingleVar(g_.Op(assigned_[e.from]).Outputs(), e.from_slot);
        if (var.empty()) return false;
        candidates = g_.Consumers(var);
      } else {
        const std::string var = SingleVar(g_.Op(assigned_[e.to]).Inputs(), e.to_slot);
        if (var.empty()) return false;
        candidates = g_.Producers(var);
      }
      const int node = from ? e.to : e.from;
      for (size_t op : candidates) {
        if (!Fits(node, op)) continue;
        assigned_[node] = op;
        if (Extend(m)) return true;
        assigned_[node] = kUnassigned;
      }
      return false;  // This edge cannot be satisfied.
    }
    // Every op reachable is assigned: check all edges.
    for (size_t a : assigned_) {
      if (a == kUnassigned) return false;
    }
    m->vars.clear();
    for (const auto& e : p_.edges()) {
      if (!EdgeHolds(e, m)) return false;
    }
    m->ops = assigned_;
    return true;
  }

  std::vector<Match> Run() {
    std::vector<Match> matches;
    for (size_t op = 0; op < g_.OpCount(); ++op) {
      assigned_.assign(p_.nodes().size(), kUnassigned);
      if (!Fits(0, op)) continue;
      assigned_[0] = op;
      Match m;
      if (!Extend(&m)) continue;
      used_.insert(m.ops.begin(), m.ops.end());
      matches.push_back(std::move(m));
    }
    return matches;
  }

 private:
  const Graph& g_;
  const Pattern& p_;
  std::vector<size_t> assigned_;
  std::set<size_t> used_;
};

// Whether every pattern op is reachable from op 0 along edges (either direction).
bool Connected(const Pattern& p) {
  std::vector<bool> seen(p.nodes().size(), false);
  seen[0] = true;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& e : p.edges()) {
      if (seen[e.from] != seen[e.to]) {
        seen[e.from] = seen[e.to] = true;
        grew = true;
      }
    }
  }
  for (bool s : seen) {
    if (!s) return false;
  }
  return true;
}

}  // namespace

std::vector<Match> FindMatches(const Graph& graph, const Pattern& pattern) {
  PL_ENFORCE(!pattern.nodes().empty(), errors::InvalidArgument("pattern: expected at least one op"));
  PL_ENFORCE(Connected(pattern),
             errors::InvalidArgument("pattern: expected its %zu ops to be connected by edges",
                                     pattern.nodes().size()));
  return Matcher(graph, pattern).Run();
}

}  // namespace ir
}  // namespace framework
}  // namespace paddle_like
