// Activation ops: Out = f(X), elementwise, for f without attributes (relu, sigmoid, tanh, exp,
// log, sin, cos, square, sign, abs, ..., log1p, expm1, log2, log10, tanh_shrink).
//
// Each op is described once, by a tag struct naming its type, its formula and gradient
// formula (for the op doc), its functor and its grad maker. The functors are plain
// host/device callables, shared by the CPU kernels (activation_op.cc) and any CUDA kernels
// (activation_op.cu). The grad makers (defined in activation_op.cc) write each gradient with
// differentiable forward ops, so that applying the backward builder again gives higher
// orders.
//
// PaddlePaddle's own programs hold fused grad op types instead (relu_grad, sigmoid_grad,
// tanh_grad, exp_grad, square_grad): a tag with a grad functor names the forward value that
// op reads (kGradDep, "Out" or "X"), and activation_op.cc registers `<type>_grad` for it.
#pragma once

#include <cmath>

#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace framework {
class GradOpBuilder;
}  // namespace framework

namespace operators {

template <typename T>
struct ReluFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return x > T(0) ? x : T(0); }
};

template <typename T>
struct SigmoidFunctor {
  // Two branches so that exp() never overflows: for x < 0, 1 / (1 + e^-x) = e^x / (1 + e^x).
  PL_HOSTDEVICE T operator()(T x) const {
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    const T e = std::exp(x);
    return e / (T(1) + e);
  }
};

template <typename T>
struct TanhFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::tanh(x); }
};

template <typename T>
struct ExpFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::exp(x); }
};

template <typename T>
struct LogFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::log(x); }
};

template <typename T>
struct SinFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::sin(x); }
};

template <typename T>
struct CosFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::cos(x); }
};

template <typename T>
struct SquareFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return x * x; }
};

template <typename T>
struct SignFunctor {
  // NaN stays NaN (it fails both comparisons).
  PL_HOSTDEVICE T operator()(T x) const {
    if (x > T(0)) return T(1);
    if (x < T(0)) return T(-1);
    return x == T(0) ? T(0) : x;
  }
};

template <typename T>
struct AbsFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return x < T(0) ? -x : x; }
};

// The inverse error function: a polynomial first guess (Giles, "Approximating the erfinv
// function", 2010) refined by two Newton steps in double; +-inf at +-1, NaN outside [-1, 1].
template <typename T>
struct ErfinvFunctor {
  PL_HOSTDEVICE T operator()(T x) const {
    const double v = static_cast<double>(x);
    if (!(v > -1.0 && v < 1.0)) {
      if (v == 1.0) return static_cast<T>(INFINITY);
      if (v == -1.0) return static_cast<T>(-INFINITY);
      return static_cast<T>(NAN);
    }
    double w = -std::log((1.0 - v) * (1.0 + v)), p;
    if (w < 5.0) {
      w -= 2.5;
      p = 2.81022636e-08;
      p = 3.43273939e-07 + p * w;
      p = -3.5233877e-06 + p * w;
      p = -4.39150654e-06 + p * w;
      p = 0.00021858087 + p * w;
      p = -0.00125372503 + p * w;
      p = -0.00417768164 + p * w;
      p = 0.246640727 + p * w;
      p = 1.50140941 + p * w;
    } else {
      w = std::sqrt(w) - 3.0;
      p = -0.000200214257;
      p = 0.000100950558 + p * w;
      p = 0.00134934322 + p * w;
      p = -0.00367342844 + p * w;
      p = 0.00573950773 + p * w;
      p = -0.0076224613 + p * w;
      p = 0.00943887047 + p * w;
      p = 1.00167406 + p * w;
      p = 2.83297682 + p * w;
    }
    double y = p * v;
    for (int step = 0; step < 2; ++step) {
      y -= (std::erf(y) - v) / (1.1283791670955126 * std::exp(-y * y));  // 2 / sqrt(pi)
    }
    return static_cast<T>(y);
  }
};

template <typename T>
struct TruncFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::trunc(x); }
};

template <typename T>
struct FloorFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::floor(x); }
};

template <typename T>
struct CeilFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::ceil(x); }
};

template <typename T>
struct ReciprocalFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return T(1) / x; }
};

template <typename T>
struct ErfFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::erf(x); }
};

template <typename T>
struct SiluFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return x * SigmoidFunctor<T>{}(x); }
};

// log(sigmoid(x)) = min(x, 0) - log(1 + e^{-|x|}): no overflow for large |x|.
template <typename T>
struct LogSigmoidFunctor {
  PL_HOSTDEVICE T operator()(T x) const {
    const T m = x < T(0) ? x : T(0);
    return m - std::log1p(std::exp(x < T(0) ? x : -x));
  }
};

template <typename T>
struct SoftsignFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return x / (T(1) + (x < T(0) ? -x : x)); }
};

template <typename T>
struct TanFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::tan(x); }
};

template <typename T>
struct AtanFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::atan(x); }
};

template <typename T>
struct AsinFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::asin(x); }
};

template <typename T>
struct AcosFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::acos(x); }
};

template <typename T>
struct SinhFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::sinh(x); }
};

template <typename T>
struct CoshFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::cosh(x); }
};

template <typename T>
struct Log1pFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::log1p(x); }
};

template <typename T>
struct Expm1Functor {
  PL_HOSTDEVICE T operator()(T x) const { return std::expm1(x); }
};

template <typename T>
struct Log2Functor {
  PL_HOSTDEVICE T operator()(T x) const { return std::log2(x); }
};

template <typename T>
struct Log10Functor {
  PL_HOSTDEVICE T operator()(T x) const { return std::log10(x); }
};

template <typename T>
struct TanhShrinkFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return x - std::tanh(x); }
};

template <typename T>
struct AsinhFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::asinh(x); }
};

template <typename T>
struct AcoshFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::acosh(x); }
};

template <typename T>
struct AtanhFunctor {
  PL_HOSTDEVICE T operator()(T x) const { return std::atanh(x); }
};

// Grad functors of PaddlePaddle's `<type>_grad` ops: dX from the forward value the op
// reads (`dep`, Out or X) and dOut, with PaddlePaddle's formulas.
template <typename T>
struct ReluGradFunctor {
  PL_HOSTDEVICE T operator()(T out, T dout) const {
    return dout * (out > T(0) ? T(1) : T(0));
  }
};

template <typename T>
struct SigmoidGradFunctor {
  PL_HOSTDEVICE T operator()(T out, T dout) const { return dout * out * (T(1) - out); }
};

template <typename T>
struct TanhGradFunctor {
  PL_HOSTDEVICE T operator()(T out, T dout) const { return dout * (T(1) - out * out); }
};

template <typename T>
struct ExpGradFunctor {
  PL_HOSTDEVICE T operator()(T out, T dout) const { return dout * out; }
};

template <typename T>
struct SquareGradFunctor {
  PL_HOSTDEVICE T operator()(T x, T dout) const { return dout * T(2) * x; }
};

// One tag per op: the registered type, the LaTeX formulas of Out and of the gradient dX
// (dOut is the gradient of Out) and an optional note for the op's doc, the functor, and the
// grad maker.
struct ReluTag {
  static constexpr const char* kType = "relu";
  static constexpr const char* kFormula = "Out = \\max(X, 0)";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\mathrm{sign}(Out)";
  template <typename T>
  using Functor = ReluFunctor<T>;
  // PaddlePaddle's `relu_grad` op reads Out and Out@GRAD.
  static constexpr const char* kGradDep = "Out";
  template <typename T>
  using GradFunctor = ReluGradFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct SigmoidTag {
  static constexpr const char* kType = "sigmoid";
  static constexpr const char* kFormula = "Out = \\frac{1}{1 + e^{-X}}";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot Out \\cdot (1 - Out)";
  template <typename T>
  using Functor = SigmoidFunctor<T>;
  // PaddlePaddle's `sigmoid_grad` op reads Out and Out@GRAD.
  static constexpr const char* kGradDep = "Out";
  template <typename T>
  using GradFunctor = SigmoidGradFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct TanhTag {
  static constexpr const char* kType = "tanh";
  static constexpr const char* kFormula = "Out = \\frac{e^{X} - e^{-X}}{e^{X} + e^{-X}}";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot (1 - Out^2)";
  template <typename T>
  using Functor = TanhFunctor<T>;
  // PaddlePaddle's `tanh_grad` op reads Out and Out@GRAD.
  static constexpr const char* kGradDep = "Out";
  template <typename T>
  using GradFunctor = TanhGradFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct ExpTag {
  static constexpr const char* kType = "exp";
  static constexpr const char* kFormula = "Out = e^{X}";
  static constexpr const char* kNote = "Complex X too (complex64, complex128).";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\overline{Out}";
  template <typename T>
  using Functor = ExpFunctor<T>;
  // PaddlePaddle's `exp_grad` op reads Out and Out@GRAD.
  static constexpr const char* kGradDep = "Out";
  template <typename T>
  using GradFunctor = ExpGradFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct LogTag {
  static constexpr const char* kType = "log";
  static constexpr const char* kFormula = "Out = \\ln(X)";
  static constexpr const char* kNote =
      "Out is -inf where X = 0 and NaN where X < 0. Complex X too (complex64, complex128), on "
      "the principal branch.";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{\\overline{X}}";
  template <typename T>
  using Functor = LogFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct SinTag {
  static constexpr const char* kType = "sin";
  static constexpr const char* kFormula = "Out = \\sin(X)";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\cos(X)";
  template <typename T>
  using Functor = SinFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct CosTag {
  static constexpr const char* kType = "cos";
  static constexpr const char* kFormula = "Out = \\cos(X)";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = -dOut \\cdot \\sin(X)";
  template <typename T>
  using Functor = CosFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct SquareTag {
  static constexpr const char* kType = "square";
  static constexpr const char* kFormula = "Out = X^2";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot 2X";
  template <typename T>
  using Functor = SquareFunctor<T>;
  // PaddlePaddle's `square_grad` op reads X and Out@GRAD.
  static constexpr const char* kGradDep = "X";
  template <typename T>
  using GradFunctor = SquareGradFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct SignTag {
  static constexpr const char* kType = "sign";
  static constexpr const char* kFormula = "Out = \\mathrm{sign}(X)";
  static constexpr const char* kNote =
      "Out is -1 where X < 0, 0 where X = 0 and 1 where X > 0; NaN stays NaN. The gradient is "
      "zero almost everywhere, so no gradient flows through sign.";
  static constexpr const char* kGradFormula = "dX = 0";
  template <typename T>
  using Functor = SignFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};

struct AbsTag {
  static constexpr const char* kType = "abs";
  static constexpr const char* kFormula = "Out = |X|";
  static constexpr const char* kNote =
      "A complex X gives its modulus, of the parts' real type; its gradient, by the fused "
      "abs_grad, is dOut X / |X| (0 where X = 0).";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\mathrm{sign}(X)";
  template <typename T>
  using Functor = AbsFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct FloorTag {
  static constexpr const char* kType = "floor";
  static constexpr const char* kFormula = "Out = \\lfloor X \\rfloor";
  static constexpr const char* kNote = "The gradient is zero almost everywhere: none flows back.";
  static constexpr const char* kGradFormula = "dX = 0";
  template <typename T>
  using Functor = FloorFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct ErfinvTag {
  static constexpr const char* kType = "erfinv";
  static constexpr const char* kFormula = "Out = \\operatorname{erf}^{-1}(X)";
  static constexpr const char* kNote = "Out is +-inf at X = +-1 and NaN outside [-1, 1].";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\frac{\\sqrt{\\pi}}{2} e^{Out^2}";
  template <typename T>
  using Functor = ErfinvFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct TruncTag {
  static constexpr const char* kType = "trunc";
  static constexpr const char* kFormula = "Out = \\operatorname{sign}(X) \\lfloor |X| \\rfloor";
  static constexpr const char* kNote =
      "Rounds towards zero. The gradient is zero almost everywhere: none flows back.";
  static constexpr const char* kGradFormula = "dX = 0";
  template <typename T>
  using Functor = TruncFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct CeilTag {
  static constexpr const char* kType = "ceil";
  static constexpr const char* kFormula = "Out = \\lceil X \\rceil";
  static constexpr const char* kNote = "The gradient is zero almost everywhere: none flows back.";
  static constexpr const char* kGradFormula = "dX = 0";
  template <typename T>
  using Functor = CeilFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct ReciprocalTag {
  static constexpr const char* kType = "reciprocal";
  static constexpr const char* kFormula = "Out = \\frac{1}{X}";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = -dOut \\cdot Out^2";
  template <typename T>
  using Functor = ReciprocalFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct ErfTag {
  static constexpr const char* kType = "erf";
  static constexpr const char* kFormula = "Out = \\frac{2}{\\sqrt{\\pi}} \\int_0^X e^{-t^2} dt";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\frac{2}{\\sqrt{\\pi}} e^{-X^2}";
  template <typename T>
  using Functor = ErfFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct SiluTag {
  static constexpr const char* kType = "silu";
  static constexpr const char* kFormula = "Out = \\frac{X}{1 + e^{-X}}";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula =
      "dX = dOut \\cdot \\sigma(X) (1 + X (1 - \\sigma(X)))";
  template <typename T>
  using Functor = SiluFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct LogSigmoidTag {
  static constexpr const char* kType = "logsigmoid";
  static constexpr const char* kFormula = "Out = \\ln \\frac{1}{1 + e^{-X}}";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\sigma(-X)";
  template <typename T>
  using Functor = LogSigmoidFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct SoftsignTag {
  static constexpr const char* kType = "softsign";
  static constexpr const char* kFormula = "Out = \\frac{X}{1 + |X|}";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{(1 + |X|)^2}";
  template <typename T>
  using Functor = SoftsignFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct TanTag {
  static constexpr const char* kType = "tan";
  static constexpr const char* kFormula = "Out = \\tan(X)";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot (1 + Out^2)";
  template <typename T>
  using Functor = TanFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct AtanTag {
  static constexpr const char* kType = "atan";
  static constexpr const char* kFormula = "Out = \\arctan(X)";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{1 + X^2}";
  template <typename T>
  using Functor = AtanFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct AsinTag {
  static constexpr const char* kType = "asin";
  static constexpr const char* kFormula = "Out = \\arcsin(X)";
  static constexpr const char* kNote = "Out is NaN where |X| > 1.";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{\\sqrt{1 - X^2}}";
  template <typename T>
  using Functor = AsinFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct AcosTag {
  static constexpr const char* kType = "acos";
  static constexpr const char* kFormula = "Out = \\arccos(X)";
  static constexpr const char* kNote = "Out is NaN where |X| > 1.";
  static constexpr const char* kGradFormula = "dX = -\\frac{dOut}{\\sqrt{1 - X^2}}";
  template <typename T>
  using Functor = AcosFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct SinhTag {
  static constexpr const char* kType = "sinh";
  static constexpr const char* kFormula = "Out = \\sinh(X)";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\cosh(X)";
  template <typename T>
  using Functor = SinhFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct CoshTag {
  static constexpr const char* kType = "cosh";
  static constexpr const char* kFormula = "Out = \\cosh(X)";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\sinh(X)";
  template <typename T>
  using Functor = CoshFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};

struct Log1pTag {
  static constexpr const char* kType = "log1p";
  static constexpr const char* kFormula = "Out = \\ln(1 + X)";
  static constexpr const char* kNote = "Accurate for small |X|; NaN where X < -1.";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{1 + X}";
  template <typename T>
  using Functor = Log1pFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct Expm1Tag {
  static constexpr const char* kType = "expm1";
  static constexpr const char* kFormula = "Out = e^{X} - 1";
  static constexpr const char* kNote = "Accurate for small |X|.";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot (Out + 1)";
  template <typename T>
  using Functor = Expm1Functor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct Log2Tag {
  static constexpr const char* kType = "log2";
  static constexpr const char* kFormula = "Out = \\log_2(X)";
  static constexpr const char* kNote = "Out is -inf where X = 0 and NaN where X < 0.";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{X \\ln 2}";
  template <typename T>
  using Functor = Log2Functor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct Log10Tag {
  static constexpr const char* kType = "log10";
  static constexpr const char* kFormula = "Out = \\log_{10}(X)";
  static constexpr const char* kNote = "Out is -inf where X = 0 and NaN where X < 0.";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{X \\ln 10}";
  template <typename T>
  using Functor = Log10Functor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct TanhShrinkTag {
  static constexpr const char* kType = "tanh_shrink";
  static constexpr const char* kFormula = "Out = X - \\tanh(X)";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = dOut \\cdot \\tanh^2(X)";
  template <typename T>
  using Functor = TanhShrinkFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct AsinhTag {
  static constexpr const char* kType = "asinh";
  static constexpr const char* kFormula =
      "Out = \\operatorname{arsinh}(X) = \\ln(X + \\sqrt{X^2 + 1})";
  static constexpr const char* kNote = "";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{\\sqrt{X^2 + 1}}";
  template <typename T>
  using Functor = AsinhFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct AcoshTag {
  static constexpr const char* kType = "acosh";
  static constexpr const char* kFormula =
      "Out = \\operatorname{arcosh}(X) = \\ln(X + \\sqrt{X^2 - 1})";
  static constexpr const char* kNote = "Out is NaN where X < 1.";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{\\sqrt{X^2 - 1}}";
  template <typename T>
  using Functor = AcoshFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};
struct AtanhTag {
  static constexpr const char* kType = "atanh";
  static constexpr const char* kFormula =
      "Out = \\operatorname{artanh}(X) = \\frac{1}{2} \\ln \\frac{1 + X}{1 - X}";
  static constexpr const char* kNote = "Out is NaN where |X| > 1 and infinite at |X| = 1.";
  static constexpr const char* kGradFormula = "dX = \\frac{dOut}{1 - X^2}";
  template <typename T>
  using Functor = AtanhFunctor<T>;
  static void MakeGrad(framework::GradOpBuilder* g);
};

// Calls fn(Tag{}) for every activation op, in registration order.
template <typename Fn>
void ForEachActivation(Fn&& fn) {
  fn(ReluTag{});
  fn(SigmoidTag{});
  fn(TanhTag{});
  fn(ExpTag{});
  fn(LogTag{});
  fn(SinTag{});
  fn(CosTag{});
  fn(SquareTag{});
  fn(SignTag{});
  fn(AbsTag{});
  fn(FloorTag{});
  fn(CeilTag{});
  fn(ReciprocalTag{});
  fn(ErfTag{});
  fn(SiluTag{});
  fn(LogSigmoidTag{});
  fn(SoftsignTag{});
  fn(TanTag{});
  fn(AtanTag{});
  fn(AsinTag{});
  fn(AcosTag{});
  fn(SinhTag{});
  fn(CoshTag{});
  fn(Log1pTag{});
  fn(Expm1Tag{});
  fn(Log2Tag{});
  fn(Log10Tag{});
  fn(TanhShrinkTag{});
  fn(AsinhTag{});
  fn(AcoshTag{});
  fn(AtanhTag{});
  fn(TruncTag{});
  fn(ErfinvTag{});
}

// Calls fn(Tag{}) for every activation op with a PaddlePaddle grad op type.
template <typename Fn>
void ForEachActivationWithGradOp(Fn&& fn) {
  fn(ReluTag{});
  fn(SigmoidTag{});
  fn(TanhTag{});
  fn(ExpTag{});
  fn(SquareTag{});
}

}  // namespace operators
}  // namespace paddle_like
