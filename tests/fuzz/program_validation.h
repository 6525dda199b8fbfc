// What the program targets do with a parsed program: the checks a loader runs before
// anything executes (op versions; each op created against its registration, which checks
// its slots and attributes), then build-time type and shape inference on a copy.
#pragma once

#include "framework/executor.h"
#include "framework/op_registry.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"

namespace paddle_like {
namespace fuzz {

inline void ValidateProgram(const framework::ProgramDesc& program) {
  framework::CheckOpVersions(program);
  for (size_t b = 0; b < program.Size(); ++b) {
    for (const framework::OpDesc* op : program.Block(static_cast<int>(b)).AllOps()) {
      framework::OpRegistry::CreateOp(*op);
    }
  }
  framework::ProgramDesc copy = program;
  for (size_t b = 0; b < copy.Size(); ++b) {
    framework::BlockDesc& block = copy.Block(static_cast<int>(b));
    for (framework::OpDesc* op : block.AllOps()) framework::InferVarTypeAndShape(op, &block);
  }
}

}  // namespace fuzz
}  // namespace paddle_like
