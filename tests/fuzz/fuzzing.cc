#include "tests/fuzz/fuzzing.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "platform/file_util.h"

namespace paddle_like {
namespace fuzz {

namespace fs = std::filesystem;

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void Collect(const fs::path& root, const std::vector<std::string>& suffixes,
             std::vector<std::string>* out) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string name = it->path().filename().string();
    for (const auto& s : suffixes) {
      if (EndsWith(name, s)) {
        out->push_back(it->path().string());
        break;
      }
    }
  }
}

}  // namespace

std::string SharedModelsDir() {
  const fs::path dir = fs::path(PL_SOURCE_DIR) / ".." / "shared" / "models";
  std::error_code ec;
  return fs::is_directory(dir, ec) ? dir.lexically_normal().string() : "";
}

std::vector<std::string> FixtureFiles(const std::vector<std::string>& suffixes) {
  std::vector<std::string> files;
  Collect(fs::path(PL_SOURCE_DIR) / "tests" / "fixtures", suffixes, &files);
  Collect(fs::path(PL_SOURCE_DIR) / "examples", suffixes, &files);
  const std::string shared = SharedModelsDir();
  if (!shared.empty()) Collect(shared, suffixes, &files);
  std::sort(files.begin(), files.end());
  return files;
}

std::string SeedDir() {
  const char* dir = std::getenv("PL_FUZZ_SEED_DIR");
  return dir == nullptr ? "" : dir;
}

void WriteSeed(const std::string& name, const std::string& bytes) {
  const std::string dir = SeedDir();
  if (dir.empty()) return;
  fs::create_directories(dir);
  platform::WriteFileAtomically((fs::path(dir) / ("seed_" + name)).string(), bytes);
}

std::string ReadBytes(const std::string& path) { return platform::ReadFile(path); }

}  // namespace fuzz
}  // namespace paddle_like
