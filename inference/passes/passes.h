// The inference passes of this build, registered by name (framework/ir/pass.h).
#pragma once

#include <string>
#include <vector>

namespace paddle_like {
namespace inference {

// Registers every pass below once; later calls do nothing.
void RegisterInferencePasses();

// The passes a predictor with IR optimisation applies, in order: each may enable the next
// (dropout gone, constants folded into parameters, a conv's batch_norm and bias folded
// before a scale, the scale before its residual and activation), and dead-op elimination
// last removes what no one reads any more.
const std::vector<std::string>& InferencePassOrder();

// The passes of a predictor on a GPU: those whose results the CUDA kernels run (the fused
// bias/activation/residual convolutions and `fc` have CPU kernels only).
const std::vector<std::string>& GpuInferencePassOrder();

}  // namespace inference
}  // namespace paddle_like
