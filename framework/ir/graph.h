// Graph: a producer/consumer view of one block, for optimisation passes.
//
// Nodes are the block's ops (by index, in execution order) and its variables (by name);
// edges link each op to the variables it reads and writes. The view is read-only and
// cheap to build: a pass matches on it (pattern.h), rewrites the BlockDesc through the
// helpers in rewrite.h, and builds a new Graph for the next match. The BlockDesc stays the
// one source of truth, so a rewritten program is always a valid, saveable ProgramDesc.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/block_desc.h"

namespace paddle_like {
namespace framework {
namespace ir {

class Graph {
 public:
  // Keeps a pointer to `block`, which must outlive the graph and not change under it.
  explicit Graph(const BlockDesc& block);

  const BlockDesc& block() const { return block_; }
  size_t OpCount() const { return block_.OpSize(); }
  const OpDesc& Op(size_t i) const { return *block_.Op(i); }

  // Ops that write / read `var`, in execution order (empty for unknown names).
  const std::vector<size_t>& Producers(const std::string& var) const;
  const std::vector<size_t>& Consumers(const std::string& var) const;
  // Every variable name the block's ops use.
  std::vector<std::string> VariableNames() const;

  // Declared persistable here or in an enclosing block (a parameter, a feed/fetch holder).
  bool IsPersistable(const std::string& var) const;
  // Whether something besides this block's ops sees `var`: a fetch op reads it (the caller
  // reads it by name after the run), or the ops of another block of the program (the
  // sub-blocks of control-flow ops) read or write it. Passes keep such names.
  bool IsVisibleOutside(const std::string& var) const;

 private:
  const BlockDesc& block_;
  std::map<std::string, bool> used_by_other_blocks_;
  std::map<std::string, std::vector<size_t>> producers_;
  std::map<std::string, std::vector<size_t>> consumers_;
};

}  // namespace ir
}  // namespace framework
}  // namespace paddle_like
