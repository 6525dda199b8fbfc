#include "operators/activation/fused_activation.h"

#include <algorithm>
#include <cmath>

#include "operators/common.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::AttributeMap;

using framework::AttrOr;

bool Known(const std::string& name) {
  for (const char* k : {"relu", "leaky_relu", "relu6", "clip", "swish", "hard_swish",
                        "hard_sigmoid", "sigmoid", "tanh", "gelu", "gelu_tanh"}) {
    if (name == k) return true;
  }
  return false;
}

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluCubic = 0.044715;

template <typename T>
T Sigmoid(T z) {
  if (z >= T(0)) return T(1) / (T(1) + std::exp(-z));
  const T e = std::exp(z);
  return e / (T(1) + e);
}

template <typename T, typename F>
void ForEach(T* data, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) data[i] = f(data[i]);
}

}  // namespace

FusedActivation ReadFusedActivation(const std::string& op, const AttributeMap& attrs) {
  FusedActivation a;
  a.name = AttrOr<std::string>(attrs, "fuse_activation", "");
  a.alpha = AttrOr<float>(attrs, "fuse_alpha", 0.0f);
  a.beta = AttrOr<float>(attrs, "fuse_beta", 0.0f);
  if (a.name.empty() && FlagAttr(attrs, "fuse_relu")) a.name = "relu";
  if (a.name.empty() && FlagAttr(attrs, "fuse_brelu")) {
    a.name = "relu6";
    a.beta = AttrOr<float>(attrs, "fuse_brelu_threshold", 6.0f);
  }
  PL_ENFORCE(a.name.empty() || Known(a.name),
             errors::Unimplemented("op `%s` attribute `fuse_activation`: expected one of relu, "
                                   "leaky_relu, relu6, clip, swish, hard_swish, hard_sigmoid, "
                                   "sigmoid, tanh, gelu, gelu_tanh, received `%s`",
                                   op, a.name));
  return a;
}

void WriteFusedActivation(const FusedActivation& a, framework::OpDesc* op) {
  op->SetAttr("fuse_activation", a.name);
  op->SetAttr("fuse_alpha", a.alpha);
  op->SetAttr("fuse_beta", a.beta);
}

std::optional<FusedActivation> FusedActivationOfOp(const framework::OpDesc& act) {
  const std::string& type = act.Type();
  const AttributeMap& attrs = act.Attrs();
  FusedActivation a;
  a.name = type;
  if (type == "relu" || type == "sigmoid" || type == "tanh") return a;
  if (type == "leaky_relu") {
    a.alpha = AttrOr<float>(attrs, "alpha", 0.02f);
    return a;
  }
  if (type == "relu6") {
    a.beta = AttrOr<float>(attrs, "threshold", 6.0f);
    return a;
  }
  if (type == "swish") {
    a.alpha = AttrOr<float>(attrs, "beta", 1.0f);
    return a;
  }
  if (type == "hard_sigmoid") {
    a.alpha = AttrOr<float>(attrs, "slope", 0.2f);
    a.beta = AttrOr<float>(attrs, "offset", 0.5f);
    return a;
  }
  if (type == "hard_swish") {
    const float threshold = AttrOr<float>(attrs, "threshold", 6.0f);
    const float scale = AttrOr<float>(attrs, "scale", 6.0f);
    if (threshold != scale || scale == 0.0f) return std::nullopt;
    a.alpha = 1.0f / scale;
    a.beta = AttrOr<float>(attrs, "offset", 3.0f) / scale;
    return a;
  }
  if (type == "gelu") {
    if (AttrOr<bool>(attrs, "approximate", false)) a.name = "gelu_tanh";
    return a;
  }
  if (type == "clip") {
    if (act.HasInput("Min") || act.HasInput("Max")) return std::nullopt;
    a.alpha = AttrOr<float>(attrs, "min", 0.0f);
    a.beta = AttrOr<float>(attrs, "max", 0.0f);
    return a;
  }
  return std::nullopt;
}

template <typename T>
void ApplyFusedActivation(const FusedActivation& a, T* data, int64_t n) {
  const T alpha = static_cast<T>(a.alpha), beta = static_cast<T>(a.beta);
  const std::string& f = a.name;
  if (f.empty()) return;
  if (f == "relu") {
    ForEach(data, n, [](T x) { return std::max(x, T(0)); });
  } else if (f == "leaky_relu") {
    ForEach(data, n, [=](T x) { return x >= T(0) ? x : alpha * x; });
  } else if (f == "relu6") {
    ForEach(data, n, [=](T x) { return std::min(std::max(x, T(0)), beta); });
  } else if (f == "clip") {
    ForEach(data, n, [=](T x) { return std::min(std::max(x, alpha), beta); });
  } else if (f == "swish") {
    ForEach(data, n, [=](T x) { return x * Sigmoid(alpha * x); });
  } else if (f == "hard_swish") {
    ForEach(data, n, [=](T x) { return x * std::min(std::max(alpha * x + beta, T(0)), T(1)); });
  } else if (f == "hard_sigmoid") {
    ForEach(data, n, [=](T x) { return std::min(std::max(alpha * x + beta, T(0)), T(1)); });
  } else if (f == "sigmoid") {
    ForEach(data, n, [](T x) { return Sigmoid(x); });
  } else if (f == "tanh") {
    ForEach(data, n, [](T x) { return std::tanh(x); });
  } else if (f == "gelu") {
    ForEach(data, n, [](T x) {
      return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(kInvSqrt2)));
    });
  } else if (f == "gelu_tanh") {
    ForEach(data, n, [](T x) {
      const T t = std::tanh(static_cast<T>(kSqrt2OverPi) * (x + static_cast<T>(kGeluCubic) * x * x * x));
      return T(0.5) * x * (T(1) + t);
    });
  } else {
    throw errors::Unimplemented("fused activation `%s` is not implemented", f);
  }
}

template void ApplyFusedActivation<float>(const FusedActivation&, float*, int64_t);
template void ApplyFusedActivation<double>(const FusedActivation&, double*, int64_t);

}  // namespace operators
}  // namespace paddle_like
