#include "paddle_like/cli/program_path.h"

#include <filesystem>
#include <vector>

#include "platform/enforce.h"

namespace paddle_like {
namespace cli {

std::string ResolveProgramPath(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return path;
  for (const char* name : {"__model__", "model.pdmodel", "inference.pdmodel"}) {
    const fs::path candidate = fs::path(path) / name;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.path().extension() == ".pdmodel") found.push_back(entry.path().string());
  }
  PL_ENFORCE(found.size() == 1,
             errors::NotFound("directory `%s` holds %zu .pdmodel files and no __model__; name "
                              "the program file",
                              path, found.size()));
  return found[0];
}

}  // namespace cli
}  // namespace paddle_like
