// Numeric gradient checks through programs: the op's backward (built by AppendBackward from
// its grad maker) against central finite differences in float64, for first and higher
// orders.
//
// For an op f with inputs x and outputs y_j the checker builds
//   loss_1 = sum_j reduce_sum(y_j * w_j)        (w_j random, fixed)
// and checks d loss_1 / d x. For order k > 1 it continues with
//   loss_k = sum_i reduce_sum(g_i * v_i)        (g_i the gradients of order k-1, v_i random)
// applying AppendBackward again to the same program, and checks d loss_k / d x against finite
// differences of loss_k, which the program itself computes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {

struct GradCheck {
  std::string op_type;
  // Input slot -> tensors (float64 or complex128; a complex output enters the loss as its
  // parts). Each becomes a variable "<slot>_<i>".
  SlotTensors inputs;
  // Output slot -> number of variables.
  std::map<std::string, int> outputs;
  AttributeMap attrs;
  // Input slots whose gradients are checked (empty: all of them). Others get stop_gradient.
  std::vector<std::string> wrt;
  // Output slots that enter the loss (empty: all of them; list only the differentiable ones,
  // e.g. leave out XShape).
  std::vector<std::string> loss_outputs;
  int max_order = 1;
  double eps = 1e-5;
  double rtol = 1e-5;
  double atol = 1e-7;
};

// Runs the checks with gtest assertions; messages name the op, order, variable and element.
void CheckGradients(const GradCheck& check);

// Builds `op_type`'s program, applies AppendBackward `order` times (each time to the sum of
// all gradients of the previous order, unweighted), runs it and returns the order-`order`
// gradient of every input variable "<slot>_<i>" (for closed-form checks such as
// d^3/dx^3 sin x = -cos x). `loss_outputs` as in GradCheck (empty: every output).
std::map<std::string, DenseTensor> NthGradient(const std::string& op_type,
                                               const SlotTensors& inputs,
                                               const std::map<std::string, int>& outputs,
                                               const AttributeMap& attrs, int order,
                                               const std::vector<std::string>& loss_outputs = {});

}  // namespace testing
}  // namespace paddle_like
