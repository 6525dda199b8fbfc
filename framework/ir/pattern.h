// Pattern: a small connected group of ops to find in a Graph (the subject of a fusion).
//
//   Pattern p;
//   const int conv = p.AddOp("conv2d");
//   const int act = p.AddOp("relu");
//   p.Connect(conv, "Output", act, "X");          // conv's Output feeds relu's X ...
//   // ... and relu is its only reader (default), so the variable can disappear.
//   for (const Match& m : FindMatches(graph, p)) { ... m.ops[conv], m.Var(conv, "Output") }
//
// Each pattern op has a type and an optional predicate on its OpDesc (attribute values).
// An edge names one variable: the single variable of the producer's output slot and of the
// consumer's input slot. With `single_consumer` the variable must be read by the consumer
// alone, written by the producer alone, and be neither persistable nor fetched: a rewrite
// may then remove it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "framework/ir/graph.h"

namespace paddle_like {
namespace framework {
namespace ir {

class Pattern {
 public:
  using Predicate = std::function<bool(const OpDesc&)>;

  // Returns the pattern op's id (0, 1, ...); the first op added anchors the search.
  int AddOp(const std::string& type, Predicate predicate = nullptr);
  void Connect(int from, const std::string& from_slot, int to, const std::string& to_slot,
               bool single_consumer = true);

  struct Node {
    std::string type;
    Predicate predicate;
  };
  struct Edge {
    int from;
    std::string from_slot;
    int to;
    std::string to_slot;
    bool single_consumer;
  };
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Edge>& edges() const { return edges_; }

 private:
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
};

struct Match {
  std::vector<size_t> ops;  // Block index of each pattern op, by pattern id.
  // The variable of each edge, keyed by (from id, from slot).
  std::map<std::pair<int, std::string>, std::string> vars;

  const std::string& Var(int from, const std::string& from_slot) const {
    return vars.at({from, from_slot});
  }
};

// Every match in `graph`, in block order of the anchor op, sharing no op with an earlier
// match. InvalidArgumentError for a pattern that is empty or not connected.
std::vector<Match> FindMatches(const Graph& graph, const Pattern& pattern);

}  // namespace ir
}  // namespace framework
}  // namespace paddle_like
