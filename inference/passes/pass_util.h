// Helpers the inference passes share: reading an op's slots and attributes, and the
// parameters a folding pass reads, rewrites, adds and drops.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "framework/block_desc.h"
#include "framework/dense_tensor.h"
#include "framework/ir/graph.h"
#include "framework/ir/pass.h"
#include "framework/ir/pattern.h"
#include "operators/activation/fused_activation.h"
#include "framework/program_desc.h"
#include "framework/scope.h"

namespace paddle_like {
namespace inference {

// The single variable of a slot, or "" when it holds none or several.
std::string SingleVar(const framework::VariableNameMap& names, const std::string& slot);

using framework::AttrOr;

// Runs `rewrite_one(block)` on each block until it reports nothing more to rewrite there;
// returns the number of rewrites.
inline int RewriteEachBlock(framework::ProgramDesc* program,
                            const std::function<bool(framework::BlockDesc*)>& rewrite_one) {
  int rewrites = 0;
  for (size_t b = 0; b < program->Size(); ++b) {
    while (rewrite_one(&program->Block(b))) ++rewrites;
  }
  return rewrites;
}

// Truthiness of a flag programs store as BOOLEAN or INT (false when absent).
bool FlagOf(const framework::OpDesc& op, const std::string& name);

// The float32 tensor of parameter `name` (persistable in `graph`, initialised in `params`),
// or null.
framework::DenseTensor* FloatParam(const framework::ir::Graph& graph, framework::Scope* params,
                                   const std::string& name);

// Declares a new persistable float32 variable in `block`, named `base` or `base_1`, `base_2`,
// ... (a name neither the program nor `params` uses), holding `value`; returns its name.
std::string AddParam(framework::BlockDesc* block, framework::Scope* params,
                     const std::string& base, framework::DenseTensor value);

// Removes each of `names` that no op of `program` reads or writes any more: its declaration
// in `block` and its value in `params`.
void DropUnusedParams(const framework::ProgramDesc& program, framework::BlockDesc* block,
                      framework::Scope* params, const std::vector<std::string>& names);

// Whether each output of op `op` other than those in `keep` is unread and not fetched, and
// not persistable unless it is also one of the op's inputs (a statistic the op would update):
// the op can then go without changing anything a later op or the caller sees.
bool OtherOutputsUnused(const framework::ir::Graph& graph, const framework::OpDesc& op,
                        const std::vector<std::string>& keep);

// Whether no op strictly between block indices `from` and `to` writes an input of op `from`:
// op `from` can then be moved to `to` (a fusion places the fused op where the last was).
bool InputsUnchangedUntil(const framework::ir::Graph& graph, size_t from, size_t to);

// Whether ops of this type do more than compute their outputs from their inputs: random
// generators (a removed or moved one would shift the others' streams), dropout, feed, fetch,
// save, load, print, readers, control flow and collective communication.
bool HasSideEffectsOrRandomness(const std::string& type);
// Whether `op` runs a sub-block (a BLOCK or BLOCKS attribute).
bool HasSubBlock(const framework::OpDesc& op);

// Whether conv2d / depthwise_conv2d op `conv` has an activation fused (it then ends there).
bool HasFusedActivation(const framework::OpDesc& conv);
// Whether it has neither a residual nor an activation fused: what comes after the
// convolution proper may still be folded in.
bool IsUnfusedConvTail(const framework::OpDesc& conv);

// The activation ops with a fused form (operators/activation/fused_activation.h), and the
// capability entries of a pass that folds them: the versions their fused forms were written
// for (clip 1: Min / Max tensors, not fused; leaky_relu 1: alpha > 1 allowed; others 0).
const std::vector<std::string>& FusableActivationTypes();
void AddFusableActivationVersions(framework::ir::PassCapability* capability);

// Folds one activation op into the op before it: a `producer_type` op accepted by `accepts`
// whose `out_slot` variable only an activation of `activations` (types with a fused form)
// reads. `write` records the activation in a copy of the producer, which takes the
// activation's output and replaces both ops. Returns whether it rewrote one.
bool FuseOneTrailingActivation(
    framework::BlockDesc* block, const std::string& producer_type, const std::string& out_slot,
    const framework::ir::Pattern::Predicate& accepts,
    const std::function<void(const operators::FusedActivation&, framework::OpDesc*)>& write,
    const std::vector<std::string>& activations = FusableActivationTypes());

// Whether batch_norm op `bn` normalises with its running statistics (Mean, Variance), as an
// inference program does.
bool UsesInferenceStatistics(const framework::OpDesc& bn);

}  // namespace inference
}  // namespace paddle_like
