// Running the `paddle_like` binary from tests: exit code, stdout and stderr of one call, and
// a per-process temporary directory removed after the last test.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace paddle_like {
namespace testing {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

// The binary under test: PL_BINARY_DIR/bin/paddle_like.
const std::string& CliBinary();
// Runs the binary with `args` (each passed as one shell word).
CliResult RunCli(const std::vector<std::string>& args);
// This process's temporary directory (created on first use, removed at exit of the tests).
std::string CliTempDir();
// Writes `bytes` to CliTempDir()/name and returns the path.
std::string WriteTemp(const std::string& name, const std::string& bytes);
// The losses `paddle_like train` prints ("step N loss X"), in order.
std::vector<double> PrintedLosses(const std::string& out);
inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace testing
}  // namespace paddle_like
