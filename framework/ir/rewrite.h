// Rewrite helpers for passes: edits of a BlockDesc that keep the program valid (every input
// produced before it is read, no dangling variable declarations) and saveable.
#pragma once

#include <string>
#include <vector>

#include "framework/block_desc.h"

namespace paddle_like {
namespace framework {
namespace ir {

// Replaces the ops at block indices `ops` (a match) by one op, a copy of `replacement`,
// placed where the last of them was; returns it. The caller makes sure the replacement
// reads only variables available there (inputs of the matched ops from outside the match)
// and writes what later ops read. Variables the removed ops used and no op uses any more
// lose their declaration unless persistable.
OpDesc* ReplaceOps(BlockDesc* block, std::vector<size_t> ops, const OpDesc& replacement);

// Removes op `op`, which copies `from` into `to` (an identity in this program): later
// readers of `to` read `from` instead. PreconditionNotMetError if `to` is persistable,
// fetched, or written again later, where the rename would change what is read.
void RemoveIdentityOp(BlockDesc* block, size_t op, const std::string& from, const std::string& to);

}  // namespace ir
}  // namespace framework
}  // namespace paddle_like
