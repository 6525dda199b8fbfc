// softmax and log_softmax: shape helpers shared by their CPU kernels (softmax_op.cc,
// log_softmax_op.cc) and kernels of other libraries. The math is in operators/math/softmax.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/ddim.h"

namespace paddle_like {
namespace framework {
class GradOpBuilder;
class InferShapeContext;
}  // namespace framework
}  // namespace paddle_like

namespace paddle_like {
namespace operators {

// X viewed as [outer, n, inner], with n the size of the softmax dim.
struct SoftmaxDims {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
};

// The softmax dim of `dims` for attribute `axis` (negative counts from the end; a 0-D X
// accepts 0 and -1 and is treated as [1]). Throws InvalidArgumentError naming `op_type` and
// attribute `axis` when out of range.
int SoftmaxAxis(const std::string& op_type, const framework::DDim& dims, int axis);

SoftmaxDims GetSoftmaxDims(const std::string& op_type, const framework::DDim& dims, int axis);

// Shape inference of the grad ops softmax_grad and log_softmax_grad (Out, Out@GRAD ->
// X@GRAD, same shape and LoD as Out).
void SoftmaxGradInferShape(framework::InferShapeContext* ctx);

// Appends the backward of Out = softmax(X) along `axis` as differentiable ops (so that it can
// be differentiated again): dx = out * (dout - reduce_sum(dout * out, [axis], keep_dim)).
void AppendSoftmaxGradOps(framework::GradOpBuilder* g, const std::vector<std::string>& out,
                          const std::vector<std::string>& dout, int axis,
                          const std::vector<std::string>& dx);

}  // namespace operators
}  // namespace paddle_like
