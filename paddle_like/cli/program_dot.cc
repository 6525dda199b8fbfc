#include "paddle_like/cli/program_dot.h"

#include <set>
#include <string>

#include "framework/ddim.h"
#include "framework/var_desc.h"

namespace paddle_like {
namespace cli {

namespace {

using framework::BlockDesc;
using framework::OpDesc;
using framework::VarDesc;

// A DOT string literal: quotes and backslashes escaped, newlines as \n.
std::string Quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (c == '\n') {
      q += "\\n";
      continue;
    }
    q += c;
  }
  return q + "\"";
}

std::string VarNode(int block, const std::string& name) {
  return Quote("v" + std::to_string(block) + ":" + name);
}

std::string OpNode(int block, size_t i) {
  return Quote("o" + std::to_string(block) + ":" + std::to_string(i));
}

std::string VarLabel(const std::string& name, const VarDesc* v) {
  std::string label = name;
  if (v != nullptr && v->HasTensorDesc()) {
    label += "\n" + std::string(platform::DataTypeName(v->GetDataType())) + " " +
             framework::DDim(v->GetShape()).ToString();
  }
  return label;
}

// The block that declares `name` as seen from `block` (itself or an ancestor), or `block`.
int DeclaringBlock(const BlockDesc& block, const std::string& name) {
  const BlockDesc* b = &block;
  while (b != nullptr) {
    if (b->HasVar(name)) return b->ID();
    b = b->Parent() < 0 ? nullptr : &b->Program()->Block(static_cast<size_t>(b->Parent()));
  }
  return block.ID();
}

}  // namespace

void WriteProgramDot(const framework::ProgramDesc& program, std::ostream& os) {
  os << "digraph program {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
  // Variables used without a declaration get a node in the block that uses them.
  std::set<std::string> drawn;
  for (size_t b = 0; b < program.Size(); ++b) {
    const BlockDesc& block = program.Block(b);
    const int id = block.ID();
    os << "  subgraph cluster_" << id << " {\n    label=" << Quote("block " + std::to_string(id))
       << ";\n";
    for (const VarDesc* v : block.AllVars()) {
      os << "    " << VarNode(id, v->Name()) << " [shape=ellipse, label="
         << Quote(VarLabel(v->Name(), v)) << (v->Persistable() ? ", style=filled, fillcolor=gray85" : "")
         << "];\n";
      drawn.insert(VarNode(id, v->Name()));
    }
    for (size_t i = 0; i < block.OpSize(); ++i) {
      os << "    " << OpNode(id, i) << " [shape=box, style=\"rounded,bold\", label="
         << Quote(block.Op(i)->Type()) << "];\n";
    }
    os << "  }\n";
    for (size_t i = 0; i < block.OpSize(); ++i) {
      const OpDesc* op = block.Op(i);
      auto edge = [&](const std::string& slot, const std::string& var, bool input) {
        const std::string node = VarNode(DeclaringBlock(block, var), var);
        if (drawn.insert(node).second) {
          os << "  " << node << " [shape=ellipse, style=dashed, label=" << Quote(var) << "];\n";
        }
        os << "  " << (input ? node : OpNode(id, i)) << " -> " << (input ? OpNode(id, i) : node)
           << " [label=" << Quote(slot) << ", fontsize=8];\n";
      };
      for (const auto& kv : op->Inputs()) {
        for (const auto& var : kv.second) edge(kv.first, var, true);
      }
      for (const auto& kv : op->Outputs()) {
        for (const auto& var : kv.second) edge(kv.first, var, false);
      }
    }
  }
  os << "}\n";
}

}  // namespace cli
}  // namespace paddle_like
