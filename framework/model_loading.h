// Loading the parameters of a saved program (FORMATS.md 3.3): the persistable variables of
// block 0, sorted by name, either back-to-back in one combined file (`.pdiparams`,
// `__params__`) or one file per variable in a directory.
#pragma once

#include <string>
#include <vector>

#include "framework/ddim.h"
#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

class Scope;

// Where the program of a saved model lives: a file is taken as is; a directory is searched
// for `__model__`, `model.pdmodel`, `inference.pdmodel`, then PaddlePaddle 3's PIR programs
// `__model__.json`, `inference.json`, `model.json`, then a single `*.pdmodel`, then a single
// `<stem>.json` beside a `<stem>.pdiparams`.
// NotFoundError naming the directory when it holds no (or several candidate) programs.
std::string ResolveProgramPath(const std::string& path);

// The persistable variables of block 0 that a parameter file holds (feed, fetch, raw and
// reader variables excluded, as PaddlePaddle's loaders do), sorted ascending: the order of
// records in a combined file. InvalidArgumentError naming the variable for a persistable of a
// kind no file holds (a tensor array, step scopes).
std::vector<std::string> ParameterNames(const ProgramDesc& program);

// Where parameters come from. Both empty: next to the program, trying
// `<dir>/<stem>.pdiparams`, then `<dir>/__params__`, then per-variable files in `<dir>`.
struct ParameterSource {
  std::string combined_file;  // One file with every record.
  std::string dir;            // One file per variable, named by the variable.
};

// Loads every parameter of `program` (read from `program_path`) into `scope` and checks each
// against its VarDesc. NotFoundError when no parameter file exists; InvalidArgumentError
// naming the variable when a dtype or a known dim differs from the declaration.
void LoadParameters(const ProgramDesc& program, const std::string& program_path,
                    const ParameterSource& source, Scope* scope);

// The check LoadParameters ends with: every parameter of `program` in `scope` has the dtype
// and the known dims its VarDesc declares (InvalidArgumentError naming the variable).
void CheckParametersAgainstProgram(const ProgramDesc& program, const Scope& scope);

// True when `dims` has the rank of `declared` and equals it in every known (>= 0) dim.
bool ShapeMatchesDeclared(const std::vector<int64_t>& declared, const DDim& dims);

}  // namespace framework
}  // namespace paddle_like
