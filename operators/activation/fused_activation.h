// FusedActivation: the activation an op applies to its own result once a pass has folded an
// activation op into it (conv2d's `fuse_activation`, `fuse_alpha`, `fuse_beta`).
//
// The parameters are those of oneDNN's eltwise post-ops, so the plain and the oneDNN kernels
// read the same three attributes:
//   relu          max(x, 0)                     leaky_relu    x >= 0 ? x : alpha x
//   relu6         min(max(x, 0), beta)          clip          min(max(x, alpha), beta)
//   swish         x sigmoid(alpha x)            hard_swish    x min(max(alpha x + beta, 0), 1)
//   hard_sigmoid  min(max(alpha x + beta, 0), 1)
//   sigmoid, tanh, gelu (erf form), gelu_tanh (tanh approximation)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "framework/attribute.h"
#include "framework/op_desc.h"

namespace paddle_like {
namespace operators {

struct FusedActivation {
  std::string name;  // "" when the op applies none.
  float alpha = 0.0f, beta = 0.0f;
  bool empty() const { return name.empty(); }
};

// The activation attributes of op `op`: `fuse_activation` with `fuse_alpha` and `fuse_beta`,
// or PaddlePaddle's older `fuse_relu` and `fuse_brelu` (+ `fuse_brelu_threshold`).
// UnimplementedError naming the op and the activation for a name not listed above.
FusedActivation ReadFusedActivation(const std::string& op, const framework::AttributeMap& attrs);

// Writes `a` as `fuse_activation`, `fuse_alpha`, `fuse_beta` of `op`.
void WriteFusedActivation(const FusedActivation& a, framework::OpDesc* op);

// The fused form of activation op `act` (its type and attributes), or nullopt when it has
// none: not an activation, hard_swish with threshold != scale (the clip of oneDNN's form is
// 1), clip bounded by Min / Max tensors.
std::optional<FusedActivation> FusedActivationOfOp(const framework::OpDesc& act);

// Applies `a` to the n values at `data`, in place.
template <typename T>
void ApplyFusedActivation(const FusedActivation& a, T* data, int64_t n);

}  // namespace operators
}  // namespace paddle_like
