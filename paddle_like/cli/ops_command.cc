#include "paddle_like/cli/commands.h"

namespace paddle_like {
namespace cli {

int OpsCommand(const std::vector<std::string>&) { return 0; }

}  // namespace cli
}  // namespace paddle_like
