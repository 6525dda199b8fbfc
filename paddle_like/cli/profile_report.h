// Reports of an ExecutionProfile for `paddle_like run --profile` and `train --profile`:
// JSON (every op in execution order with its kernel key, transforms and time, then totals per
// op type) and a readable table.
#pragma once

#include <string>

#include "framework/execution_profile.h"

namespace paddle_like {
namespace cli {

std::string ProfileJson(const framework::ExecutionProfile& profile, int runs);
// Per op type: count, total ms, share; then the transforms and the kernels used.
std::string ProfileTable(const framework::ExecutionProfile& profile);

}  // namespace cli
}  // namespace paddle_like
