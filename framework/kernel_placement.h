// Kernel placement: for each op, which kernel libraries it may use and whether it needs a
// deterministic kernel. Decided once per prepared program, before the first run
// (Executor::Prepare), from the ops' attributes and the caller's PlacementRules; the
// kernel choice then combines it with the flags (KernelChoiceOptions::ForOp):
//
//   library used   = the flags enable it (FLAGS_use_onednn; cuDNN on a GPU place)
//                    AND the op's placement allows it
//   deterministic  = FLAGS_cpu_deterministic / FLAGS_cudnn_deterministic
//                    OR the op's placement requires it
//
// An op's placement:
//   oneDNN  A block in which some op has use_mkldnn=true has been placed (by
//           ApplyOneDNNPlacement, by PaddlePaddle's enable_mkldnn, or by hand): there each
//           op that declares use_mkldnn uses oneDNN only if it is true. In a block where
//           no op says so (PaddlePaddle saves use_mkldnn=false unless placed) every op may
//           use oneDNN. Ops that do not declare the attribute follow the flags.
//   cuDNN   use_cudnn=false refuses cuDNN (PaddlePaddle's default is true).
//   rules   op types listed in PlacementRules override both.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "framework/operator.h"
#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

struct PlacementRules {
  std::set<std::string> no_onednn;      // Op types that never use oneDNN.
  std::set<std::string> no_cudnn;       // Op types that never use cuDNN.
  std::set<std::string> deterministic;  // Op types that need a deterministic kernel.
};

// The placement of each of `ops` (one block, in order).
std::vector<OpPlacement> PlaceKernels(const std::vector<const OperatorBase*>& ops,
                                      const PlacementRules& rules);

// PaddlePaddle's oneDNN placement pass: in every block, ops that declare use_mkldnn get
// true when their type is in `op_types` (empty: every op type with a oneDNN kernel) and
// false otherwise. The program stays valid and saveable.
void ApplyOneDNNPlacement(ProgramDesc* program, const std::set<std::string>& op_types = {});

}  // namespace framework
}  // namespace paddle_like
