#include "tests/cli_test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "platform/file_util.h"

namespace paddle_like {
namespace testing {

namespace fs = std::filesystem;

namespace {
std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

class TempDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(CliTempDir(), ec);
  }
};
}  // namespace

const std::string& CliBinary() {
  static const std::string binary = PL_BINARY_DIR "/bin/paddle_like";
  return binary;
}

std::string CliTempDir() {
  static const bool registered = (::testing::AddGlobalTestEnvironment(new TempDirCleanup), true);
  (void)registered;
  const fs::path dir = fs::temp_directory_path() / ("pl_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir.string();
}

CliResult RunCli(const std::vector<std::string>& args) {
  if (!fs::exists(CliBinary())) {
    ADD_FAILURE() << CliBinary() << " is missing: build the `paddle_like` target first";
    return {};
  }
  const std::string dir = CliTempDir();
  std::string cmd = Quote(CliBinary());
  for (const auto& a : args) cmd += " " + Quote(a);
  cmd += " >" + Quote(dir + "/stdout") + " 2>" + Quote(dir + "/stderr");
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = platform::ReadFile(dir + "/stdout");
  r.err = platform::ReadFile(dir + "/stderr");
  return r;
}

std::vector<double> PrintedLosses(const std::string& out) {
  std::vector<double> losses;
  const std::regex line("step ([0-9]+) loss ([-0-9.eE+]+)");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
       ++it) {
    losses.push_back(std::stod((*it)[2]));
  }
  return losses;
}

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = CliTempDir() + "/" + name;
  platform::WriteFileAtomically(path, bytes);
  return path;
}

}  // namespace testing
}  // namespace paddle_like
