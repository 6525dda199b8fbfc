// The verbs of the `paddle_like` command-line tool. Each returns the process exit code and
// reports user errors on stderr (never aborts).
#pragma once

#include <string>
#include <vector>

namespace paddle_like {
namespace cli {

int OpsCommand(const std::vector<std::string>& args);

}  // namespace cli
}  // namespace paddle_like
