// fc_fuse_pass: a matrix product with a parameter, plus a bias parameter, and optionally an
// activation, becomes one `fc` op (operators/matmul/fc_op.cc; PaddlePaddle's fc_fuse_pass):
//
//   mul(X, W)                          [x_num_col_dims = k, y_num_col_dims = 1]
//   matmul_v2(X, W) / matmul(X, W)     [no transposes, alpha 1; k = rank(X) - 1]
//     -> elementwise_add(., b)         [b: [N] or [1, N], added to the last dim]
//     [-> relu, sigmoid, tanh, gelu, ... (operators/activation/fused_activation.h)]
//   => fc(Input = X, W, Bias = b, in_num_col_dims = k, activation_type)
//
// W must be a 2-D parameter; the product's output must be read by the add alone (and the
// add's by the activation alone), neither persistable nor fetched.
#pragma once

#include "framework/ir/pass.h"

namespace paddle_like {
namespace inference {

class FcFusePass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "fc_fuse_pass"; }
  framework::ir::PassCapability Capability() const override;
  int ApplyImpl(framework::ProgramDesc* program, framework::Scope* params) const override;
};

}  // namespace inference
}  // namespace paddle_like
