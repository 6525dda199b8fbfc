// The built-in models of `paddle_like train`, built with the layers API:
//   mlp:   flatten -> fc 256 relu -> fc 128 relu -> fc classes
//   lenet: conv 20 5x5 relu -> max pool 2 -> conv 50 5x5 relu -> max pool 2 -> fc 500 relu
//          -> fc classes
// Each program takes `image` [-1, C, H, W] of `dtype` (float32 unless asked; the parameters
// take the same dtype) and `label` [-1, 1] int64 and defines the
// mean cross-entropy loss, top-1 accuracy and the class probabilities.
#pragma once

#include <string>
#include <vector>

#include "paddle_like/layers/layers.h"

namespace paddle_like {
namespace train {

using platform::DataType;

struct ModelVars {
  layers::Var image, label, logits, probabilities, loss, accuracy;
};

// `sample_shape` is one image's [C, H, W]. InvalidArgumentError for an unknown model name.
ModelVars BuildModel(layers::ProgramBuilder* builder, const std::string& model,
                     const std::vector<int64_t>& sample_shape, int64_t classes,
                     DataType dtype = DataType::FLOAT32);

// A copy of `program` for evaluation: ops after the forward part (backward, optimizer) are
// dropped and every is_test attribute is set (PaddlePaddle's clone(for_test=True)).
framework::ProgramDesc CloneForTest(const framework::ProgramDesc& program);

}  // namespace train
}  // namespace paddle_like
