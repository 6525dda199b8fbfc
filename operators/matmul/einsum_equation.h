// The equation of einsum ("ij,jk->ik", "...ij,...jk", "ii->i"), parsed against the operands'
// ranks, and the size of every label.
//
// Labels are ids: 'a'-'z' are 0-25, 'A'-'Z' 26-51, and the dims an ellipsis stands for are
// kEllipsisLabel + j, right-aligned across operands as in broadcasting (the operand with the
// most ellipsis dims has j = 0, 1, ...). Without "->", the output is the ellipsis dims followed
// by the letters that occur exactly once in the inputs, in ASCII order (as NumPy). With "->"
// but no ellipsis in the output, the ellipsis dims are summed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/ddim.h"

namespace paddle_like {
namespace operators {

constexpr int kEllipsisLabel = 52;

struct EinsumEquation {
  std::vector<std::vector<int>> operands;  // The label of each dim of each operand.
  std::vector<int> out;                    // The label of each dim of Out (no repeats).
  int num_labels = kEllipsisLabel;         // Every id is below this.
};

// InvalidArgumentError naming `op` for a malformed equation, an operand count or rank that
// does not fit it, or an output label missing from the inputs or repeated.
EinsumEquation ParseEinsumEquation(const std::string& op, const std::string& equation,
                                   const std::vector<int>& ranks);

// The size of each label (indexed by id; -1 where unknown or unused). A dim of 1 broadcasts
// against the label's other dims; a repeated label within an operand (a diagonal) needs equal
// dims. InvalidArgumentError naming the op, operand and label otherwise.
std::vector<int64_t> EinsumLabelSizes(const std::string& op, const EinsumEquation& eq,
                                      const std::vector<framework::DDim>& dims);

// The label's text ('i', 'B', or "...[j]" for an ellipsis dim), for messages.
std::string EinsumLabelName(int label);

}  // namespace operators
}  // namespace paddle_like
