// Pieces shared by the layer_norm and layer_norm_grad kernels (plain and oneDNN): the row view
// of X, the input checks, and the plain kernels themselves.
#pragma once

#include "operators/common.h"

namespace paddle_like {
namespace operators {

constexpr char kLayerNormOp[] = "layer_norm";
constexpr char kLayerNormGradOp[] = "layer_norm_grad";

// X as [left, right] at begin_norm_axis: left = prod(dims[:axis]), right = prod(dims[axis:]).
struct RowLayout {
  int64_t left = 0;
  int64_t right = 0;
};

// The rows of layer_norm's X; InvalidArgumentError unless begin_norm_axis lies in [1, rank)
// and the optional Scale / Bias have shape [right].
RowLayout CheckLayerNormInputs(const ExecutionContext& ctx);
// The same for layer_norm_grad, which also checks Y@GRAD (the shape of X) and Mean /
// Variance ([left] values).
RowLayout CheckLayerNormGradInputs(const ExecutionContext& ctx);

// The plain CPU kernels (T: float or double). The oneDNN kernels call them for the cases
// their primitives do not express.
template <typename T>
void LayerNormPlainCompute(const ExecutionContext& ctx);
template <typename T>
void LayerNormGradPlainCompute(const ExecutionContext& ctx);

}  // namespace operators
}  // namespace paddle_like
