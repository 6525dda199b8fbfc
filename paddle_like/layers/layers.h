// Layers: functions that append the ops of a network layer to a ProgramBuilder's main
// program (and its parameters' initializers to the startup program), with PaddlePaddle's
// op types, slot names, attributes and parameter names (fc_0.w_0, conv2d_0.b_0, ...), so
// the programs serialize in PaddlePaddle's format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "paddle_like/layers/initializer.h"

namespace paddle_like {
namespace layers {

// A feed variable: shape with -1 for the batch dim; stop_gradient, need_check_feed.
Var Data(ProgramBuilder* b, const std::string& name, const std::vector<int64_t>& shape,
         DataType dtype = DataType::FLOAT32);

// Out = act(flatten(x, num_flatten_dims) * W + bias); W [in, size] (Xavier by default), bias
// [size] (zeros). act: "" or an activation op type (relu, sigmoid, tanh, gelu, softmax ...).
Var Fc(ProgramBuilder* b, Var x, int64_t size, const std::string& act = "",
       int num_flatten_dims = 1, std::optional<Initializer> weight_init = std::nullopt,
       std::optional<Initializer> bias_init = std::nullopt);

// NCHW convolution with a [num_filters, C/groups, k, k] filter (Kaiming by default) and a
// per-channel bias (zeros), then `act`.
Var Conv2d(ProgramBuilder* b, Var x, int64_t num_filters, int filter_size, int stride = 1,
           int padding = 0, int groups = 1, const std::string& act = "",
           std::optional<Initializer> weight_init = std::nullopt,
           std::optional<Initializer> bias_init = std::nullopt);

Var Pool2d(ProgramBuilder* b, Var x, int pool_size, const std::string& pool_type = "max",
           int stride = 1, int padding = 0, bool global_pooling = false);

// Per-channel batch normalisation (NCHW) with trainable scale/bias and running mean/variance.
Var BatchNorm(ProgramBuilder* b, Var x, const std::string& act = "", float momentum = 0.9f,
              float epsilon = 1e-5f, bool is_test = false);

Var Dropout(ProgramBuilder* b, Var x, float dropout_prob,
            const std::string& implementation = "downgrade_in_infer");

// An activation op by type: relu, sigmoid, tanh, exp, gelu, leaky_relu ...
Var Activation(ProgramBuilder* b, const std::string& type, Var x);
Var Softmax(ProgramBuilder* b, Var x, int axis = -1);
Var Flatten(ProgramBuilder* b, Var x, int start_axis = 1, int stop_axis = -1);

// Per-example loss [N, 1] of integer labels [N, 1].
Var SoftmaxWithCrossEntropy(ProgramBuilder* b, Var logits, Var label);
Var Mean(ProgramBuilder* b, Var x);
// Top-k accuracy of class scores [N, C] against labels [N, 1].
Var Accuracy(ProgramBuilder* b, Var scores, Var label, int k = 1);

}  // namespace layers
}  // namespace paddle_like
