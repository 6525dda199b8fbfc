#include "paddle_like/layers/initializer.h"

#include <cmath>

namespace paddle_like {
namespace layers {

Initializer Initializer::Constant(float value) {
  Initializer i;
  i.kind = Kind::kConstant;
  i.value = value;
  return i;
}
Initializer Initializer::Uniform(float low, float high) {
  Initializer i;
  i.kind = Kind::kUniform;
  i.low = low;
  i.high = high;
  return i;
}
Initializer Initializer::Normal(float mean, float std) {
  Initializer i;
  i.kind = Kind::kNormal;
  i.mean = mean;
  i.std = std;
  return i;
}
Initializer Initializer::TruncatedNormal(float mean, float std) {
  Initializer i = Normal(mean, std);
  i.kind = Kind::kTruncatedNormal;
  return i;
}
Initializer Initializer::Xavier(bool uniform) {
  Initializer i;
  i.kind = uniform ? Kind::kXavierUniform : Kind::kXavierNormal;
  return i;
}
Initializer Initializer::Kaiming(bool uniform) {
  Initializer i;
  i.kind = uniform ? Kind::kKaimingUniform : Kind::kKaimingNormal;
  return i;
}

std::pair<int64_t, int64_t> FanInOut(const std::vector<int64_t>& shape) {
  if (shape.empty()) return {1, 1};
  if (shape.size() == 1) return {shape[0], shape[0]};
  if (shape.size() == 2) return {shape[0], shape[1]};
  int64_t receptive = 1;
  for (size_t i = 2; i < shape.size(); ++i) receptive *= shape[i];
  return {shape[1] * receptive, shape[0] * receptive};
}

void AppendInitializer(ProgramBuilder* builder, const std::string& name,
                       const std::vector<int64_t>& shape, DataType dtype,
                       const Initializer& init) {
  const auto fans = FanInOut(shape);
  const double fan_in = static_cast<double>(fans.first);
  const double fan_out = static_cast<double>(fans.second);
  const int dtype_number = static_cast<int>(dtype);
  const VariableNameMap out = {{"Out", {name}}};
  auto uniform = [&](double limit, double low, double high) {
    if (limit > 0) {
      low = -limit;
      high = limit;
    }
    builder->AppendStartupOp("uniform_random", {}, out,
                             {{"shape", shape}, {"dtype", dtype_number},
                              {"min", static_cast<float>(low)}, {"max", static_cast<float>(high)},
                              {"seed", builder->NextSeed()}});
  };
  auto normal = [&](const char* type, double mean, double std) {
    AttributeMap attrs = {{"dtype", dtype_number}, {"mean", static_cast<float>(mean)},
                          {"std", static_cast<float>(std)}, {"seed", builder->NextSeed()}};
    if (std::string(type) == "truncated_gaussian_random") {
      attrs["shape"] = std::vector<int>(shape.begin(), shape.end());
      // Two standard deviations either side of the mean (the op's bounds are absolute).
      attrs["a"] = static_cast<float>(mean - 2 * std);
      attrs["b"] = static_cast<float>(mean + 2 * std);
    } else {
      attrs["shape"] = shape;
    }
    builder->AppendStartupOp(type, {}, out, attrs);
  };
  switch (init.kind) {
    case Initializer::Kind::kConstant:
      builder->AppendStartupOp("fill_constant", {}, out,
                               {{"shape", shape}, {"dtype", dtype_number}, {"value", init.value}});
      return;
    case Initializer::Kind::kUniform:
      uniform(0, init.low, init.high);
      return;
    case Initializer::Kind::kNormal:
      normal("gaussian_random", init.mean, init.std);
      return;
    case Initializer::Kind::kTruncatedNormal:
      normal("truncated_gaussian_random", init.mean, init.std);
      return;
    case Initializer::Kind::kXavierUniform:
      uniform(std::sqrt(6.0 / (fan_in + fan_out)), 0, 0);
      return;
    case Initializer::Kind::kXavierNormal:
      normal("gaussian_random", 0, std::sqrt(2.0 / (fan_in + fan_out)));
      return;
    case Initializer::Kind::kKaimingUniform:
      uniform(std::sqrt(6.0 / fan_in), 0, 0);
      return;
    case Initializer::Kind::kKaimingNormal:
      normal("gaussian_random", 0, std::sqrt(2.0 / fan_in));
      return;
  }
}

Var CreateParameter(ProgramBuilder* builder, const std::string& name,
                    const std::vector<int64_t>& shape, DataType dtype, const Initializer& init) {
  Var v = builder->CreatePersistable(name, shape, dtype, /*is_parameter=*/true);
  AppendInitializer(builder, name, shape, dtype, init);
  return v;
}

}  // namespace layers
}  // namespace paddle_like
