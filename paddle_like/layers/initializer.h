// Parameter initializers: each appends one op to the startup program that fills a
// persistable variable (fill_constant, uniform_random, gaussian_random,
// truncated_gaussian_random). Xavier and Kaiming derive their scale from the parameter's
// fan-in/fan-out: [in, out] for fc weights, [out, in, kh, kw] for conv filters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "paddle_like/layers/program_builder.h"

namespace paddle_like {
namespace layers {

struct Initializer {
  enum class Kind {
    kConstant,
    kUniform,
    kNormal,
    kTruncatedNormal,
    kXavierUniform,
    kXavierNormal,
    kKaimingUniform,
    kKaimingNormal,
  };
  Kind kind = Kind::kConstant;
  float value = 0.0f;            // kConstant
  float low = -1.0f, high = 1.0f;  // kUniform
  float mean = 0.0f, std = 1.0f;   // kNormal, kTruncatedNormal

  static Initializer Constant(float value);
  static Initializer Uniform(float low, float high);
  static Initializer Normal(float mean, float std);
  // N(mean, std^2) redrawn outside mean +- 2 std.
  static Initializer TruncatedNormal(float mean, float std);
  // limit = sqrt(6 / (fan_in + fan_out)) (uniform) or std = sqrt(2 / (fan_in + fan_out)).
  static Initializer Xavier(bool uniform = true);
  // limit = sqrt(6 / fan_in) (uniform) or std = sqrt(2 / fan_in).
  static Initializer Kaiming(bool uniform = false);
};

// (fan_in, fan_out) of a parameter shape.
std::pair<int64_t, int64_t> FanInOut(const std::vector<int64_t>& shape);

// Appends the startup op that initializes `name` (of `shape` and `dtype`).
void AppendInitializer(ProgramBuilder* builder, const std::string& name,
                       const std::vector<int64_t>& shape, DataType dtype,
                       const Initializer& init);

// A trainable parameter: persistable, is_parameter, initialized in the startup program.
Var CreateParameter(ProgramBuilder* builder, const std::string& name,
                    const std::vector<int64_t>& shape, DataType dtype, const Initializer& init);

}  // namespace layers
}  // namespace paddle_like
