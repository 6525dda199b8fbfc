// Optimizers: Minimize(loss) appends the backward pass (framework::AppendBackward), optional
// L2 weight decay and gradient clipping by global norm, and one optimizer op per parameter
// (sgd, momentum, adam) with its state as persistable variables initialized in the startup
// program. The learning rate is a persistable [1] tensor (`learning_rate_0`), so a schedule
// can change it between steps.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "paddle_like/layers/program_builder.h"

namespace paddle_like {
namespace layers {

struct OptimizerConfig {
  enum class Kind { kSGD, kMomentum, kAdam };
  Kind kind = Kind::kSGD;
  float learning_rate = 0.01f;
  float momentum = 0.9f;     // kMomentum
  bool nesterov = false;     // kMomentum
  float beta1 = 0.9f;        // kAdam
  float beta2 = 0.999f;      // kAdam
  float epsilon = 1e-8f;     // kAdam
  float weight_decay = 0.0f;     // L2 coefficient (0: none): grad += weight_decay * param.
  float clip_global_norm = 0.0f;  // 0: no clipping.

  static Kind ParseKind(const std::string& name);  // "sgd", "momentum", "adam"
};

struct MinimizeResult {
  std::vector<std::pair<std::string, std::string>> param_grads;
  std::string learning_rate;  // The learning-rate variable.
};

MinimizeResult Minimize(ProgramBuilder* builder, Var loss, const OptimizerConfig& config,
                        const std::set<std::string>& no_grad_set = {});

}  // namespace layers
}  // namespace paddle_like
