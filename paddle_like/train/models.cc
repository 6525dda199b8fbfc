#include "paddle_like/train/models.h"

#include <cmath>

#include "framework/op_proto_maker.h"

namespace paddle_like {
namespace train {

using layers::Var;

ModelVars BuildModel(layers::ProgramBuilder* b, const std::string& model,
                     const std::vector<int64_t>& sample_shape, int64_t classes,
                     DataType dtype) {
  ModelVars v;
  std::vector<int64_t> image_shape = {-1};
  image_shape.insert(image_shape.end(), sample_shape.begin(), sample_shape.end());
  v.image = layers::Data(b, "image", image_shape, dtype);
  v.label = layers::Data(b, "label", {-1, 1}, DataType::INT64);
  // Weights and biases uniform in +-1/sqrt(fan_in) (the usual default of other frameworks'
  // layers), which trains these networks faster than the Kaiming/Xavier defaults of ours.
  auto fan_in_uniform = [](int64_t fan_in) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
    return layers::Initializer::Uniform(-bound, bound);
  };
  if (model == "mlp") {
    int64_t pixels = 1;
    for (int64_t d : sample_shape) pixels *= d;
    Var h = layers::Fc(b, v.image, 256, "relu", /*num_flatten_dims=*/1, fan_in_uniform(pixels),
                       fan_in_uniform(pixels));
    h = layers::Fc(b, h, 128, "relu", 1, fan_in_uniform(256), fan_in_uniform(256));
    v.logits = layers::Fc(b, h, classes, "", 1, fan_in_uniform(128), fan_in_uniform(128));
  } else if (model == "lenet") {
    const int64_t channels = sample_shape.empty() ? 1 : sample_shape[0];
    Var h = layers::Conv2d(b, v.image, 20, 5, 1, 0, 1, "relu", fan_in_uniform(channels * 25),
                           fan_in_uniform(channels * 25));
    h = layers::Pool2d(b, h, 2, "max", 2);
    h = layers::Conv2d(b, h, 50, 5, 1, 0, 1, "relu", fan_in_uniform(20 * 25),
                       fan_in_uniform(20 * 25));
    h = layers::Pool2d(b, h, 2, "max", 2);
    const auto dims = h.shape();
    const int64_t flat = dims[1] * dims[2] * dims[3];
    h = layers::Fc(b, h, 500, "relu", /*num_flatten_dims=*/1, fan_in_uniform(flat),
                   fan_in_uniform(flat));
    v.logits = layers::Fc(b, h, classes, "", 1, fan_in_uniform(500), fan_in_uniform(500));
  } else {
    throw errors::InvalidArgument("unknown model `%s`: expected mlp or lenet", model);
  }
  v.probabilities = layers::Softmax(b, v.logits);
  v.loss = layers::Mean(b, layers::SoftmaxWithCrossEntropy(b, v.logits, v.label));
  v.accuracy = layers::Accuracy(b, v.probabilities, v.label, 1);
  return v;
}

framework::ProgramDesc CloneForTest(const framework::ProgramDesc& program) {
  framework::ProgramDesc test = program;
  framework::BlockDesc& block = test.Block(0);
  const int training_roles = static_cast<int>(framework::OpRole::kBackward) |
                             static_cast<int>(framework::OpRole::kOptimize);
  for (size_t i = block.OpSize(); i-- > 0;) {
    framework::OpDesc* op = block.Op(i);
    const auto* role = op->HasAttr("op_role") ? std::get_if<int>(&op->GetAttr("op_role")) : nullptr;
    // The loss op keeps Forward|Loss; the gradient seed is Backward|Loss.
    if (role != nullptr && (*role & training_roles)) {
      block.RemoveOp(i, i + 1);
      continue;
    }
    if (op->HasAttr("is_test")) op->SetAttr("is_test", true);
  }
  return test;
}

}  // namespace train
}  // namespace paddle_like
