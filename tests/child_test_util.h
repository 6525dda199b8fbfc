// A test of this test binary run in a child process: how a test gets a peer that can die on
// its own (a saver killed mid-write, a rank that exits without a word). The child is this
// executable run again with only `test` (usually a DISABLED_ one, which skips itself unless
// its environment is set), `env` set in it, and its output discarded.
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

namespace paddle_like {
namespace testing {

// Starts the child and returns its pid (reap it with waitpid), or -1 when fork fails.
inline pid_t StartTestInChild(const std::string& test,
                              const std::vector<std::pair<std::string, std::string>>& env) {
  const std::string filter = "--gtest_filter=" + test;
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int null = ::open("/dev/null", O_WRONLY);
  ::dup2(null, 1);
  ::dup2(null, 2);
  for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
  const char* argv[] = {"/proc/self/exe", "--gtest_also_run_disabled_tests", filter.c_str(),
                        nullptr};
  ::execv("/proc/self/exe", const_cast<char**>(argv));
  ::_exit(127);
}

}  // namespace testing
}  // namespace paddle_like
