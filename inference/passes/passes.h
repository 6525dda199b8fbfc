// The inference passes of this build, registered by name (framework/ir/pass.h).
#pragma once

#include <string>
#include <vector>

namespace paddle_like {
namespace inference {

// Registers every pass below once; later calls do nothing.
void RegisterInferencePasses();

// The passes a predictor with IR optimisation applies, in order: each may enable the next
// (dropout gone, constants folded into parameters, a conv's batch_norm folded before its
// bias, residual and activation).
const std::vector<std::string>& InferencePassOrder();

}  // namespace inference
}  // namespace paddle_like
