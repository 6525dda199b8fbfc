// Where the program of a saved model lives: a file is taken as is; a directory is searched
// for `__model__`, `model.pdmodel`, `inference.pdmodel`, then a single `*.pdmodel`.
#pragma once

#include <string>

namespace paddle_like {
namespace cli {

// NotFoundError naming the directory when it holds no (or several candidate) programs.
std::string ResolveProgramPath(const std::string& path);

}  // namespace cli
}  // namespace paddle_like
