// Memory planning of a block, before its first run: after which op each temporary is dead
// (its buffer is released), and which outputs may be written over the buffer of an input
// that dies at the op writing them (in place).
//
// A temporary is a variable of the block's local scope that is not persistable, not kept
// for the caller and not read by another block. An (input, output) pair of op i is a
// candidate for in-place when the input is such a temporary, op i is its last reader in the
// block, op i reads it through exactly one slot entry and does not also write it, and the
// output is a variable op i does not read. Whether a candidate is used is decided at run time by the
// prepared op (prepared_op.h): the chosen kernel must declare the pair, and the buffer must
// be held by no one else and have the output's size.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "framework/prepared_op.h"
#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

// Variables that ops of blocks other than `block_id` read (sub-blocks of control flow see
// their parent's variables).
std::set<std::string> NamesReadByOtherBlocks(const ProgramDesc& program, int block_id);

struct MemoryPlan {
  std::vector<std::vector<std::string>> free_after;  // Per op: temporaries dead after it.
  std::vector<std::vector<PreparedOp::InPlaceCandidate>> in_place;  // Per op.
};

// `temporaries`: the block's variables that live in its local scope and are neither
// persistable nor kept.
MemoryPlan PlanMemory(const ProgramDesc& program, int block_id,
                      const std::vector<const OperatorBase*>& ops,
                      const std::set<std::string>& temporaries);

}  // namespace framework
}  // namespace paddle_like
