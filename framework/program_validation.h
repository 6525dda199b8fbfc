// Validation of a loaded program as a whole, before anything of it runs: what a loader (the
// Predictor, `paddle_like run` and `infer`) checks after parsing, on top of the checks the
// parser itself makes (block order and parents, sub-block attributes, declared shapes).
#pragma once

#include <set>
#include <string>

#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

// The newest program format version this runtime reads: PaddlePaddle 3.x
// (major * 1000000 + minor * 1000 + patch; 0 or absent in old programs).
constexpr int64_t kNewestProgramVersion = 3999999;

// Checks, in order, with a typed error naming the program, block, op and variable:
//  - the program's version field: not negative (InvalidArgumentError), not newer than
//    kNewestProgramVersion (UnimplementedError: saved by a newer framework);
//  - op versions (CheckOpVersions);
//  - every op: registered, its slots and attributes as its registration declares
//    (OpRegistry::CreateOp);
//  - every variable an op reads or writes is declared in its block or an ancestor, as a
//    tensor (dense, SelectedRows or tensor array) where the op has kernels;
//  - feed and fetch ops of block 0: `col` attributes 0, 1, ... without gaps or repeats;
//  - block 0 reads no tensor before writing it: each one an op reads is persistable, in
//    `fed` (variables the caller sets before the run, beside the feed ops' outputs), or an
//    output of an earlier op.
void ValidateProgram(const ProgramDesc& program, const std::string& source,
                     const std::set<std::string>& fed = {});

}  // namespace framework
}  // namespace paddle_like
