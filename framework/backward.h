// Backward as program rewriting: AppendBackward appends to block 0 the ops that compute the
// gradient of `loss` with respect to every variable that needs one.
//
// - Walks the ops that reach `loss` in reverse and asks each op's grad maker for its backward
//   ops (op_role = Backward); ops that do not reach the loss are pruned.
// - Seeds `loss@GRAD` with ones of the loss's shape (a non-scalar loss means the sum of its
//   elements), so applying AppendBackward to a gradient gives higher orders.
// - A variable gets a gradient when it is floating point, not stop_gradient, not in
//   `no_grad_set`, and is a leaf or computed from the values of a variable that gets one.
//   Inputs an op reads only for their metadata (no-need-buffer slots: fill_any_like's X,
//   reduce_as's Target) pass no gradient; a leaf the loss depends on only through such
//   slots gets an exact zero gradient (so higher derivatives of polynomials reach 0).
// - Gradients that several ops produce for one variable are written to renamed copies
//   (`x@GRAD@RENAME@block0@k`) and added by a `sum` op.
// - A gradient name that already exists in the block (a second pass over a program that has
//   a backward part) gets a numbered suffix: `x@GRAD@1`, `x@GRAD@2`, ...
// - Shapes and dtypes of the new variables are inferred.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

struct BackwardResult {
  // (parameter, gradient) for every parameter that received a gradient, sorted by name.
  // Parameters: VarDescs marked is_parameter, or persistable floating dense tensors.
  std::vector<std::pair<std::string, std::string>> param_grads;
  // Every variable that received a gradient -> the gradient's name.
  std::map<std::string, std::string> grad_of;
};

// Throws NotFoundError when `loss` is not produced in block 0, InvalidArgumentError when it
// depends on nothing that can have a gradient, and NotFoundError naming the op when an op on
// the path has no grad maker.
BackwardResult AppendBackward(ProgramDesc* program, const std::string& loss,
                              const std::set<std::string>& no_grad_set = {});

}  // namespace framework
}  // namespace paddle_like
