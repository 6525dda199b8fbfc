// What the control-flow ops (conditional_block, while) share: finding the sub-block an op runs,
// preparing it on the op's scope, and reading a condition.
#pragma once

#include <memory>
#include <string>

#include "framework/executor.h"
#include "framework/operator.h"
#include "operators/common.h"

namespace paddle_like {
namespace operators {

// The block named by `op`'s attribute `sub_block`. InvalidArgumentError naming the op when it
// was not created from a program (no block to look in).
const framework::BlockDesc& SubBlockOf(const framework::OperatorBase& op);

// Prepares `op`'s sub-block to run on `scope`: the sub-block's own variables live in a kid
// scope of `scope`; the variables it reads and writes from the enclosing blocks are found up
// the scope chain and are never freed or given an opaque layout by the sub-block's run.
// `scope` is the one the executor ran `op` with (its own local scope, which it lets the op
// extend).
std::unique_ptr<framework::PreparedProgram> PrepareSubBlock(const framework::OperatorBase& op,
                                                            const framework::Scope& scope,
                                                            const platform::Place& place);

// The value of a one-element bool tensor (copied to the host when it lives on a device).
// InvalidArgumentError naming the op, the slot and the variable otherwise.
bool ReadCondition(const framework::OperatorBase& op, const framework::Scope& scope,
                   const std::string& slot, const std::string& var);

}  // namespace operators
}  // namespace paddle_like
