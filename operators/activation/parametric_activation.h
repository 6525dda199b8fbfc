// Functors of the activations that the generic tags of activation_op.h do not cover:
// hard_sigmoid, hard_swish, relu6, leaky_relu, swish, gelu, softplus, clip, round and pow (they
// take attributes, clip also its bound tensors), and sqrt and rsqrt; each with the functor of its
// PaddlePaddle grad op (`<type>_grad`), which reads the forward value named by kGradDep.
// Shared by the CPU kernels (the ops' `*_op.cc` files) and the CUDA kernels
// (parametric_activation_op.cu); FromAttrs reads an op's attributes on the host.
#pragma once

#include <cmath>
#include <type_traits>

#include "framework/operator.h"
#include "operators/math/hostdevice.h"
#include "platform/data_type.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace operators {
namespace activation {

// std::min and std::max, NaN cases included, usable on the device.
template <typename T>
PL_HOSTDEVICE T Min(T a, T b) {
  return (b < a) ? b : a;
}
template <typename T>
PL_HOSTDEVICE T Max(T a, T b) {
  return (a < b) ? b : a;
}

template <typename T>
T AttrAs(const framework::ExecutionContext& ctx, const char* name) {
  return static_cast<T>(ctx.Attr<float>(name));
}

// Out = max(0, min(1, slope * X + offset)).
template <typename T>
struct HardSigmoid {
  T slope, offset;
  static HardSigmoid FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "slope"), AttrAs<T>(ctx, "offset")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return Max(T(0), Min(T(1), slope * x + offset)); }
};
template <typename T>
struct HardSigmoidGrad {
  static constexpr const char* kGradDep = "Out";
  T slope;
  static HardSigmoidGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "slope")};
  }
  PL_HOSTDEVICE T operator()(T out, T dout) const {
    return dout * (out > T(0) && out < T(1) ? slope : T(0));
  }
};

// Out = X * min(max(0, X + offset), threshold) / scale.
template <typename T>
struct HardSwish {
  T threshold, scale, offset;
  static HardSwish FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold"), AttrAs<T>(ctx, "scale"), AttrAs<T>(ctx, "offset")};
  }
  PL_HOSTDEVICE T operator()(T x) const {
    return x * Min(Max(T(0), x + offset), threshold) / scale;
  }
};
template <typename T>
struct HardSwishGrad {
  static constexpr const char* kGradDep = "X";
  T threshold, scale, offset;
  static HardSwishGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold"), AttrAs<T>(ctx, "scale"), AttrAs<T>(ctx, "offset")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    if (x + offset <= T(0)) return dout * T(0);
    // The clipped piece is X * threshold / scale. PaddlePaddle's kernel writes 1 here,
    // which agrees for its defaults (threshold == scale) and no others.
    if (x + offset >= threshold) return dout * (threshold / scale);
    return dout * ((T(2) * x + offset) / scale);
  }
};

// pow's exponent: input FactorTensor (one element, read on the host) when given, else the
// attribute `factor` (pow_op.cc).
double PowFactor(const framework::ExecutionContext& ctx);

// Out = X^factor, computed in double for double and integer X (then converted), in float for
// float.
template <typename T>
struct Pow {
  double factor;
  static Pow FromAttrs(const framework::ExecutionContext& ctx) { return {PowFactor(ctx)}; }
  PL_HOSTDEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, float>) {
      return std::pow(x, static_cast<float>(factor));
    } else {
      return static_cast<T>(std::pow(static_cast<double>(x), factor));
    }
  }
};

// Out = X rounded to `decimals` decimal places (tens, hundreds, ... when negative), halves to
// even (nearbyint in the default rounding mode), as PaddlePaddle 3's round.
template <typename T>
struct Round {
  int decimals;
  T scale;  // 10^|decimals|
  static Round FromAttrs(const framework::ExecutionContext& ctx) {
    const int d = ctx.Attr<int>("decimals");
    return {d, static_cast<T>(std::pow(10.0, d < 0 ? -d : d))};
  }
  PL_HOSTDEVICE T operator()(T x) const {
    if (decimals == 0) return std::nearbyint(x);
    if (decimals > 0) return std::nearbyint(x * scale) / scale;
    return std::nearbyint(x / scale) * scale;
  }
};

// Out = min(max(X, 0), threshold); NaN propagates (both comparisons fail).
template <typename T>
struct Relu6 {
  T threshold;
  static Relu6 FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold")};
  }
  PL_HOSTDEVICE T operator()(T x) const {
    return x < T(0) ? T(0) : (x > threshold ? threshold : x);
  }
};
template <typename T>
struct Relu6Grad {
  static constexpr const char* kGradDep = "Out";
  T threshold;
  static Relu6Grad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "threshold")};
  }
  PL_HOSTDEVICE T operator()(T out, T dout) const {
    return out > T(0) && out < threshold ? dout : T(0);
  }
};

// Out = X where X >= 0, alpha * X elsewhere.
template <typename T>
struct LeakyRelu {
  T alpha;
  static LeakyRelu FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "alpha")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return x >= T(0) ? x : alpha * x; }
};
// A NaN in X gives 0, as in PaddlePaddle.
template <typename T>
struct LeakyReluGrad {
  static constexpr const char* kGradDep = "X";
  T alpha;
  static LeakyReluGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "alpha")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    return dout * (x < T(0) ? alpha : (x >= T(0) ? T(1) : T(0)));
  }
};

// sigmoid(z) without overflow on either side.
template <typename T>
PL_HOSTDEVICE T StableSigmoid(T z) {
  if (z >= T(0)) return T(1) / (T(1) + std::exp(-z));
  const T e = std::exp(z);
  return e / (T(1) + e);
}

// Out = X * sigmoid(beta * X).
template <typename T>
struct Swish {
  T beta;
  static Swish FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "beta")};
  }
  PL_HOSTDEVICE T operator()(T x) const { return x * StableSigmoid(beta * x); }
};
template <typename T>
struct SwishGrad {
  static constexpr const char* kGradDep = "X";
  T beta;
  static SwishGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {AttrAs<T>(ctx, "beta")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    const T s = StableSigmoid(beta * x);
    return dout * (s + beta * x * s * (T(1) - s));
  }
};

// Out = X / 2 * (1 + erf(X / sqrt(2))), or with the tanh approximation
// X / 2 * (1 + tanh(sqrt(2 / pi) * (X + 0.044715 X^3))) when `approximate`.
template <typename T>
struct Gelu {
  bool approximate;
  static Gelu FromAttrs(const framework::ExecutionContext& ctx) {
    return {ctx.Attr<bool>("approximate")};
  }
  PL_HOSTDEVICE T operator()(T x) const {
    if (approximate) {
      const T t = std::tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x));
      return T(0.5) * x * (T(1) + t);
    }
    return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
  }
};
// dX = dOut * d gelu(X) / dX: Phi(X) + X phi(X) (the standard normal cdf and pdf), or the
// derivative of the tanh form.
template <typename T>
struct GeluGrad {
  static constexpr const char* kGradDep = "X";
  bool approximate;
  static GeluGrad FromAttrs(const framework::ExecutionContext& ctx) {
    return {ctx.Attr<bool>("approximate")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    if (approximate) {
      const T k = T(0.79788456080286535588);  // sqrt(2 / pi).
      const T x2 = x * x;
      const T t = std::tanh(k * x * (T(1) + T(0.044715) * x2));
      const T dt = k * (T(1) + T(3 * 0.044715) * x2);
      return dout * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * dt);
    }
    const T cdf = T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440)));
    const T pdf = T(0.39894228040143267794) * std::exp(T(-0.5) * x * x);  // 1 / sqrt(2 pi).
    return dout * (cdf + x * pdf);
  }
};

// InvalidArgumentError naming the op unless softplus's attribute `beta` is non-zero.
inline void CheckSoftplusBeta(const framework::ExecutionContext& ctx) {
  PL_ENFORCE(ctx.Attr<float>("beta") != 0.0f,
             errors::InvalidArgument("op `%s` attribute `beta`: expected a non-zero value, "
                                     "received 0",
                                     ctx.Type()));
}

// Out = log(1 + exp(beta X)) / beta, X itself where beta X > threshold; computed as
// (max(beta X, 0) + log1p(exp(-|beta X|))) / beta so that exp never overflows.
template <typename T>
struct Softplus {
  T beta, threshold;
  static Softplus FromAttrs(const framework::ExecutionContext& ctx) {
    CheckSoftplusBeta(ctx);
    return {AttrAs<T>(ctx, "beta"), AttrAs<T>(ctx, "threshold")};
  }
  PL_HOSTDEVICE T operator()(T x) const {
    const T bx = beta * x;
    if (bx > threshold) return x;
    return (Max(bx, T(0)) + std::log1p(std::exp(-std::abs(bx)))) / beta;
  }
};
// dX = dOut * sigmoid(beta X), dOut where beta X > threshold.
template <typename T>
struct SoftplusGrad {
  static constexpr const char* kGradDep = "X";
  T beta, threshold;
  static SoftplusGrad FromAttrs(const framework::ExecutionContext& ctx) {
    CheckSoftplusBeta(ctx);
    return {AttrAs<T>(ctx, "beta"), AttrAs<T>(ctx, "threshold")};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const {
    const T bx = beta * x;
    return bx > threshold ? dout : dout * StableSigmoid(bx);
  }
};

// clip's bounds: the one-element tensors Min and Max when given (read on the host wherever
// they live; of dtype `x_dtype`), else the attributes min and max. InvalidArgumentError
// naming the op and slot for a tensor of another size or dtype, and when min > max. Defined
// in clip_op.cc.
struct ClipBounds {
  double min, max;  // Exact: each comes from a float attribute or an X-typed tensor.
};
ClipBounds ReadClipBounds(const framework::ExecutionContext& ctx, framework::DataType x_dtype);

// Out = min(max(X, min), max); NaN propagates.
template <typename T>
struct Clip {
  T min, max;
  static Clip FromAttrs(const framework::ExecutionContext& ctx) {
    const ClipBounds b = ReadClipBounds(ctx, platform::ToDataType<T>());
    return {static_cast<T>(b.min), static_cast<T>(b.max)};
  }
  PL_HOSTDEVICE T operator()(T x) const { return x < min ? min : (x > max ? max : x); }
};
// dX = dOut where min < X < max, else 0.
template <typename T>
struct ClipGrad {
  static constexpr const char* kGradDep = "X";
  T min, max;
  static ClipGrad FromAttrs(const framework::ExecutionContext& ctx) {
    const ClipBounds b = ReadClipBounds(ctx, platform::ToDataType<T>());
    return {static_cast<T>(b.min), static_cast<T>(b.max)};
  }
  PL_HOSTDEVICE T operator()(T x, T dout) const { return x > min && x < max ? dout : T(0); }
};

template <typename T>
struct Sqrt {
  static Sqrt FromAttrs(const framework::ExecutionContext&) { return {}; }
  PL_HOSTDEVICE T operator()(T x) const { return std::sqrt(x); }
};
template <typename T>
struct SqrtGrad {
  static constexpr const char* kGradDep = "Out";
  static SqrtGrad FromAttrs(const framework::ExecutionContext&) { return {}; }
  PL_HOSTDEVICE T operator()(T out, T dout) const { return dout / (T(2) * out); }
};

template <typename T>
struct Rsqrt {
  static Rsqrt FromAttrs(const framework::ExecutionContext&) { return {}; }
  PL_HOSTDEVICE T operator()(T x) const { return T(1) / std::sqrt(x); }
};
template <typename T>
struct RsqrtGrad {
  static constexpr const char* kGradDep = "Out";
  static RsqrtGrad FromAttrs(const framework::ExecutionContext&) { return {}; }
  PL_HOSTDEVICE T operator()(T out, T dout) const { return T(-0.5) * dout * out * out * out; }
};

}  // namespace activation
}  // namespace operators
}  // namespace paddle_like
