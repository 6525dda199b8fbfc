// Checkpoints: every persistable variable of a program that holds a tensor (parameters,
// batch-norm statistics, optimizer moments, the learning rate), written back-to-back in
// save_combine's record format in ascending name order (FORMATS.md 2.1), so PaddlePaddle's
// load_combine reads them with the same names.
//
// A save writes a temporary file, flushes it and renames it over the old checkpoint: an
// interrupted save never destroys the previous one.
#pragma once

#include <string>
#include <vector>

#include "framework/program_desc.h"
#include "framework/scope.h"

namespace paddle_like {
namespace io {

// The persistable variables a checkpoint of `program` holds, sorted.
std::vector<std::string> CheckpointVariables(const framework::ProgramDesc& program);

// NotFoundError naming the variable when one of them holds no tensor in `scope`.
void SaveCheckpoint(const std::string& path, const framework::ProgramDesc& program,
                    const framework::Scope& scope);
// Loads into `scope` (creating the variables); InvalidArgumentError for a file that does not
// hold exactly the program's variables, or a variable of another dtype or shape.
void LoadCheckpoint(const std::string& path, const framework::ProgramDesc& program,
                    framework::Scope* scope);

}  // namespace io
}  // namespace paddle_like
