// Functors of the activations with float attributes that PaddlePaddle's deploy models use
// beside the common ones: the exponential-linear family (elu, selu, celu), mish, stanh, and the
// piecewise-linear shrinks and clamps (hard_shrink, softshrink, thresholded_relu, brelu); each
// with the functor of its PaddlePaddle grad op (`<type>_grad`), which reads the forward value
// named by kGradDep (the one PaddlePaddle's grad op reads). Shared by the CPU kernels
// (piecewise_activation_op.cc) and the CUDA kernels (parametric_activation_op.cu).
#pragma once

#include <cmath>
#include <limits>

#include "operators/activation/parametric_activation.h"

namespace paddle_like {
namespace operators {
namespace activation {

// Out = X where X > 0, alpha (e^X - 1) elsewhere.
template <typename T>
struct Elu {
  T alpha;
  static Elu FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "alpha")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return x > T(0) ? x : alpha * std::expm1(x); }
};
template <typename T>
struct EluGrad {
  static constexpr const char* kGradDep = "X";
  T alpha;
  static EluGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "alpha")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    return x > T(0) ? dout : dout * alpha * std::exp(x);
  }
};

// Out = scale X where X > 0, scale alpha (e^X - 1) elsewhere.
template <typename T>
struct Selu {
  T scale, alpha;
  static Selu FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "scale"), AttrAs<T>(ctx, "alpha")};
  }
  PL_HOSTDEVICE T operator()(T x) const {
    return x > T(0) ? scale * x : scale * alpha * std::expm1(x);
  }
};
// From Out, as PaddlePaddle's selu_grad: scale where Out > 0, Out + scale alpha elsewhere.
template <typename T>
struct SeluGrad {
  static constexpr const char* kGradDep = "Out";
  T scale, alpha;
  static SeluGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "scale"), AttrAs<T>(ctx, "alpha")};
  }
  PL_HOSTDEVICE T operator()(T out, T dout) const {
    return out > T(0) ? dout * scale : dout * (out + scale * alpha);
  }
};

// celu's alpha divides X: InvalidArgumentError for 0.
void CheckCeluAlpha(const framework::ExecutionContext& ctx);

// Out = max(0, X) + min(0, alpha (e^{X / alpha} - 1)): X where X > 0, alpha (e^{X/alpha} - 1)
// elsewhere, for either sign of alpha.
template <typename T>
struct Celu {
  T alpha;
  static Celu FromAttrs(const framework::ExecutionContext& ctx) {
    CheckCeluAlpha(ctx);
    return {AttrAs<T>(ctx, "alpha")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return x > T(0) ? x : alpha * std::expm1(x / alpha); }
};
template <typename T>
struct CeluGrad {
  static constexpr const char* kGradDep = "X";
  T alpha;
  static CeluGrad FromAttrs(const framework::ExecutionContext& ctx) {
    CheckCeluAlpha(ctx);
    return {AttrAs<T>(ctx, "alpha")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    return x > T(0) ? dout : dout * std::exp(x / alpha);
  }
};

// softplus(X) = log(1 + e^X), X itself above `threshold` (mish's inner function).
template <typename T>
PL_HOSTDEVICE T MishSoftplus(T x, T threshold) {
  return x > threshold ? x : std::log1p(std::exp(x));
}

// Out = X tanh(softplus(X)).
template <typename T>
struct Mish {
  T threshold;
  static Mish FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return x * std::tanh(MishSoftplus(x, threshold)); }
};
// dX = dOut (tanh(sp) + X (1 - tanh(sp)^2) sp'), sp' = sigmoid(X) (1 above the threshold).
template <typename T>
struct MishGrad {
  static constexpr const char* kGradDep = "X";
  T threshold;
  static MishGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    const T t = std::tanh(MishSoftplus(x, threshold));
    const T slope = x > threshold ? T(1) : StableSigmoid(x);
    return dout * (t + x * (T(1) - t * t) * slope);
  }
};

// Out = scale_b tanh(scale_a X).
template <typename T>
struct Stanh {
  T a, b;
  static Stanh FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "scale_a"), AttrAs<T>(ctx, "scale_b")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return b * std::tanh(a * x); }
};
template <typename T>
struct StanhGrad {
  static constexpr const char* kGradDep = "X";
  T a, b;
  static StanhGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "scale_a"), AttrAs<T>(ctx, "scale_b")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    const T t = std::tanh(a * x);
    return dout * a * b * (T(1) - t * t);
  }
};

// Out = X where |X| >= threshold, 0 elsewhere (the boundary kept, as PaddlePaddle 3 does).
template <typename T>
struct HardShrink {
  T threshold;
  static HardShrink FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return x <= -threshold || x >= threshold ? x : T(0); }
};
template <typename T>
struct HardShrinkGrad {
  static constexpr const char* kGradDep = "X";
  T threshold;
  static HardShrinkGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    return x <= -threshold || x >= threshold ? dout : T(0);
  }
};

// softshrink's lambda is a width: InvalidArgumentError when negative.
void CheckSoftshrinkLambda(const framework::ExecutionContext& ctx);

// Out = X - lambda where X > lambda, X + lambda where X < -lambda, 0 between.
template <typename T>
struct Softshrink {
  T lambda;
  static Softshrink FromAttrs(const framework::ExecutionContext& ctx) {
    CheckSoftshrinkLambda(ctx);
    return {AttrAs<T>(ctx, "lambda")};
  }
  PL_HOSTDEVICE T operator()(T x) const {
    return x > lambda ? x - lambda : (x < -lambda ? x + lambda : T(0));
  }
};
template <typename T>
struct SoftshrinkGrad {
  static constexpr const char* kGradDep = "X";
  T lambda;
  static SoftshrinkGrad FromAttrs(const framework::ExecutionContext& ctx) {
    CheckSoftshrinkLambda(ctx);
    return {AttrAs<T>(ctx, "lambda")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    return x > lambda || x < -lambda ? dout : T(0);
  }
};

// Out = X where X > threshold, `value` elsewhere.
template <typename T>
struct ThresholdedRelu {
  T threshold, value;
  static ThresholdedRelu FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold"), AttrAs<T>(ctx, "value")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return x > threshold ? x : value; }
};
template <typename T>
struct ThresholdedReluGrad {
  static constexpr const char* kGradDep = "X";
  T threshold;
  static ThresholdedReluGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const { return x > threshold ? dout : T(0); }
};

// brelu's bounds: InvalidArgumentError when t_min > t_max.
void CheckBreluBounds(const framework::ExecutionContext& ctx);

// Out = min(max(X, t_min), t_max); NaN propagates.
template <typename T>
struct Brelu {
  T t_min, t_max;
  static Brelu FromAttrs(const framework::ExecutionContext& ctx) {
    CheckBreluBounds(ctx);
    return {AttrAs<T>(ctx, "t_min"), AttrAs<T>(ctx, "t_max")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return x < t_min ? t_min : (x > t_max ? t_max : x); }
};
template <typename T>
struct BreluGrad {
  static constexpr const char* kGradDep = "X";
  T t_min, t_max;
  static BreluGrad FromAttrs(const framework::ExecutionContext& ctx) {
    CheckBreluBounds(ctx);
    return {AttrAs<T>(ctx, "t_min"), AttrAs<T>(ctx, "t_max")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const { return x > t_min && x < t_max ? dout : T(0); }
};

// Out = log(c / (1 - c)) with c = X clipped to [eps, 1 - eps]; with eps = 0, NaN outside
// [0, 1] (PaddlePaddle's rule).
template <typename T>
struct Logit {
  T eps;
  static Logit FromAttrs(const framework::ExecutionContext& ctx) { return {AttrAs<T>(ctx, "eps")}; }
  PL_HOSTDEVICE T operator()(T x) const {
    if (eps == T(0) && (x < T(0) || x > T(1))) return std::numeric_limits<T>::quiet_NaN();
    const T c = x < eps ? eps : (x > T(1) - eps ? T(1) - eps : x);
    return std::log(c / (T(1) - c));
  }
};
template <typename T>
struct LogitGrad {
  static constexpr const char* kGradDep = "X";
  T eps;
  static LogitGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "eps")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    return x < eps || x > T(1) - eps ? T(0) : dout / (x * (T(1) - x));
  }
};

}  // namespace activation
}  // namespace operators
}  // namespace paddle_like
