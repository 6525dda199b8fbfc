#include "paddle_like/layers/optimizer.h"

#include "framework/backward.h"
#include "framework/op_proto_maker.h"
#include "paddle_like/layers/initializer.h"

namespace paddle_like {
namespace layers {

OptimizerConfig::Kind OptimizerConfig::ParseKind(const std::string& name) {
  if (name == "sgd") return Kind::kSGD;
  if (name == "momentum") return Kind::kMomentum;
  if (name == "adam") return Kind::kAdam;
  throw errors::InvalidArgument("unknown optimizer `%s`: expected one of sgd, momentum, adam",
                                name);
}

namespace {
constexpr int kOptimizeRole = static_cast<int>(framework::OpRole::kOptimize);
constexpr int kBackwardRole = static_cast<int>(framework::OpRole::kBackward);

// A zero- (or value-) initialized optimizer state variable shaped like `like`.
Var State(ProgramBuilder* b, const std::string& name, const std::vector<int64_t>& shape,
          DataType dtype, float value) {
  Var v = b->CreatePersistable(name, shape, dtype, /*is_parameter=*/false);
  AppendInitializer(b, name, shape, dtype, Initializer::Constant(value));
  return v;
}
}  // namespace

MinimizeResult Minimize(ProgramBuilder* b, Var loss, const OptimizerConfig& config,
                        const std::set<std::string>& no_grad_set) {
  const auto backward = framework::AppendBackward(&b->main_program(), loss.name(), no_grad_set);
  MinimizeResult result;
  result.param_grads = backward.param_grads;
  Var lr = State(b, "learning_rate_0", {1}, DataType::FLOAT32, config.learning_rate);
  result.learning_rate = lr.name();

  std::vector<std::string> grads;
  for (auto& pg : result.param_grads) {
    std::string g = pg.second;
    if (config.weight_decay > 0) {
      // grad += coeff * param
      const std::string decay = b->UniqueName(pg.first + "@DECAY");
      const std::string decayed = b->UniqueName(pg.second + "@DECAYED");
      b->AppendOp("scale", {{"X", {pg.first}}}, {{"Out", {decay}}},
                  {{"scale", config.weight_decay}, {"bias", 0.0f}, {"op_role", kBackwardRole}});
      b->AppendOp("sum", {{"X", {g, decay}}}, {{"Out", {decayed}}}, {{"op_role", kBackwardRole}});
      g = decayed;
    }
    grads.push_back(g);
  }
  if (config.clip_global_norm > 0 && !grads.empty()) {
    std::vector<std::string> clipped;
    for (const auto& g : grads) clipped.push_back(g + "@CLIPPED");
    b->AppendOp("clip_by_global_norm", {{"X", grads}}, {{"Out", clipped}},
                {{"max_global_norm", config.clip_global_norm}, {"op_role", kBackwardRole}});
    grads = clipped;
  }

  for (size_t i = 0; i < result.param_grads.size(); ++i) {
    const std::string& p = result.param_grads[i].first;
    const std::string& g = grads[i];
    framework::VarDesc* pd = b->main_program().Block(0).FindVar(p);
    const std::vector<int64_t> shape = pd->GetShape();
    const DataType dtype = pd->GetDataType();
    const AttributeMap role = {{"op_role", kOptimizeRole},
                               {"op_role_var", std::vector<std::string>{p, g}}};
    auto with_role = [&role](AttributeMap attrs) {
      attrs.insert(role.begin(), role.end());
      return attrs;
    };
    switch (config.kind) {
      case OptimizerConfig::Kind::kSGD:
        b->AppendOp("sgd", {{"Param", {p}}, {"Grad", {g}}, {"LearningRate", {lr.name()}}},
                    {{"ParamOut", {p}}}, with_role({}));
        break;
      case OptimizerConfig::Kind::kMomentum: {
        Var velocity = State(b, p + "_velocity_0", shape, dtype, 0.0f);
        b->AppendOp("momentum",
                    {{"Param", {p}}, {"Grad", {g}}, {"Velocity", {velocity.name()}},
                     {"LearningRate", {lr.name()}}},
                    {{"ParamOut", {p}}, {"VelocityOut", {velocity.name()}}},
                    with_role({{"mu", config.momentum}, {"use_nesterov", config.nesterov}}));
        break;
      }
      case OptimizerConfig::Kind::kAdam: {
        Var m1 = State(b, p + "_moment1_0", shape, dtype, 0.0f);
        Var m2 = State(b, p + "_moment2_0", shape, dtype, 0.0f);
        Var b1 = State(b, p + "_beta1_pow_acc_0", {1}, DataType::FLOAT32, config.beta1);
        Var b2 = State(b, p + "_beta2_pow_acc_0", {1}, DataType::FLOAT32, config.beta2);
        b->AppendOp("adam",
                    {{"Param", {p}}, {"Grad", {g}}, {"LearningRate", {lr.name()}},
                     {"Moment1", {m1.name()}}, {"Moment2", {m2.name()}},
                     {"Beta1Pow", {b1.name()}}, {"Beta2Pow", {b2.name()}}},
                    {{"ParamOut", {p}}, {"Moment1Out", {m1.name()}}, {"Moment2Out", {m2.name()}},
                     {"Beta1PowOut", {b1.name()}}, {"Beta2PowOut", {b2.name()}}},
                    with_role({{"beta1", config.beta1}, {"beta2", config.beta2},
                               {"epsilon", config.epsilon}}));
        break;
      }
    }
  }
  return result;
}

}  // namespace layers
}  // namespace paddle_like
