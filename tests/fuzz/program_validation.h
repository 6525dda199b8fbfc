// What the program targets do with a parsed program: the validation a loader runs before
// anything executes (framework::ValidateProgram), then build-time type and shape inference
// on a copy.
#pragma once

#include "framework/program_desc.h"
#include "framework/program_validation.h"
#include "framework/var_type_inference.h"

namespace paddle_like {
namespace fuzz {

inline void ValidateAndInferShapes(const framework::ProgramDesc& program) {
  framework::ValidateProgram(program, "fuzz");
  framework::ProgramDesc copy = program;
  for (size_t b = 0; b < copy.Size(); ++b) {
    framework::BlockDesc& block = copy.Block(static_cast<int>(b));
    for (framework::OpDesc* op : block.AllOps()) framework::InferVarTypeAndShape(op, &block);
  }
}

}  // namespace fuzz
}  // namespace paddle_like
