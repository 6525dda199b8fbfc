// Complex kernels (complex64, complex128) of the elementwise math ops that PaddlePaddle defines
// on complex values: the trigonometric and hyperbolic functions and their inverses (principal
// branches, as std::), expm1, log1p, log2, log10, square, reciprocal, sigmoid, silu,
// logsigmoid and sign; and of PaddlePaddle's fused grad ops sigmoid_grad, tanh_grad and
// square_grad. exp, log, abs and sqrt have theirs beside their real kernels.
//
// Each value is computed in complex128 and rounded once, so complex64 results are the
// correctly rounded parts of the exact function up to complex128's own error.
//
// Gradients: every function here but sign is holomorphic with real Taylor coefficients
// (f(conj z) = conj f(z)), so the gradient of a real loss L by z = a + ib, dL/da + i dL/db,
// is dX = dOut * conj(f'(X)); the grad makers of activation_op.cc compute f' on conj(X) or
// conj(Out) with the same ops as for real values, which makes it differentiable again.
// sign(z) = z / |z| is piecewise constant in modulus and gets no gradient, as for real values.
#include <cmath>
#include <complex>

#include "operators/activation/unary_elementwise.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

using Cd = std::complex<double>;

// log(1 + z), accurate for small z: log|1 + z| = log1p(2a + a^2 + b^2) / 2 for z = a + ib.
Cd Log1p(const Cd& z) {
  const double a = z.real(), b = z.imag();
  if (std::abs(a) < 0.5 && std::abs(b) < 0.5) {
    return {0.5 * std::log1p(a * (2.0 + a) + b * b), std::atan2(b, 1.0 + a)};
  }
  return std::log(1.0 + z);
}

// exp(z) - 1, accurate for small z: the real part expm1(a) cos b - 2 sin^2(b / 2).
Cd Expm1(const Cd& z) {
  const double a = z.real(), b = z.imag();
  const double half_sin = std::sin(0.5 * b);
  return {std::expm1(a) * std::cos(b) - 2.0 * half_sin * half_sin, std::exp(a) * std::sin(b)};
}

Cd Sigmoid(const Cd& z) { return 1.0 / (1.0 + std::exp(-z)); }

// One function per op, on complex128.
struct SinFn {
  Cd operator()(const Cd& z) const { return std::sin(z); }
};
struct CosFn {
  Cd operator()(const Cd& z) const { return std::cos(z); }
};
struct TanFn {
  Cd operator()(const Cd& z) const { return std::tan(z); }
};
struct AsinFn {
  Cd operator()(const Cd& z) const { return std::asin(z); }
};
struct AcosFn {
  Cd operator()(const Cd& z) const { return std::acos(z); }
};
struct AtanFn {
  Cd operator()(const Cd& z) const { return std::atan(z); }
};
struct SinhFn {
  Cd operator()(const Cd& z) const { return std::sinh(z); }
};
struct CoshFn {
  Cd operator()(const Cd& z) const { return std::cosh(z); }
};
struct TanhFn {
  Cd operator()(const Cd& z) const { return std::tanh(z); }
};
struct AsinhFn {
  Cd operator()(const Cd& z) const { return std::asinh(z); }
};
struct AcoshFn {
  Cd operator()(const Cd& z) const { return std::acosh(z); }
};
struct AtanhFn {
  Cd operator()(const Cd& z) const { return std::atanh(z); }
};
struct Expm1Fn {
  Cd operator()(const Cd& z) const { return Expm1(z); }
};
struct Log1pFn {
  Cd operator()(const Cd& z) const { return Log1p(z); }
};
struct Log2Fn {
  Cd operator()(const Cd& z) const { return std::log(z) / 0.69314718055994530942; }
};
struct Log10Fn {
  Cd operator()(const Cd& z) const { return std::log10(z); }
};
struct SquareFn {
  Cd operator()(const Cd& z) const { return z * z; }
};
struct ReciprocalFn {
  Cd operator()(const Cd& z) const { return 1.0 / z; }
};
struct SigmoidFn {
  Cd operator()(const Cd& z) const { return Sigmoid(z); }
};
struct SiluFn {
  Cd operator()(const Cd& z) const { return z * Sigmoid(z); }
};
// log(sigmoid(z)) = -log(1 + exp(-z)).
struct LogSigmoidFn {
  Cd operator()(const Cd& z) const { return -Log1p(std::exp(-z)); }
};
// z / |z|, 0 at 0.
struct SignFn {
  Cd operator()(const Cd& z) const {
    const double r = std::abs(z);
    return r == 0.0 ? Cd(0.0) : z / r;
  }
};

template <typename Fn>
struct ComplexUnaryKernel {
  template <typename C>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      ComputeUnary<C>(ctx, [](const C& z) { return static_cast<C>(Fn{}(Cd(z))); });
    }
  };
};

template <typename Fn>
void RegisterComplexUnary(const char* type) {
  RegisterPlainCpuKernels<ComplexUnaryKernel<Fn>::template Kernel, std::complex<float>,
                          std::complex<double>>(type);
}

constexpr char kOut[] = "Out";
constexpr char kX[] = "X";

// PaddlePaddle's fused grad ops on complex values: dX = dOut * conj(f'(X)), with f' written
// through the value the op reads (Out for sigmoid and tanh, X for square).
struct SigmoidGradFn {
  Cd operator()(const Cd& out, const Cd& dout) const { return dout * std::conj(out * (1.0 - out)); }
};
struct TanhGradFn {
  Cd operator()(const Cd& out, const Cd& dout) const { return dout * std::conj(1.0 - out * out); }
};
struct SquareGradFn {
  Cd operator()(const Cd& x, const Cd& dout) const { return dout * std::conj(2.0 * x); }
};

// The grad op's kernel, reading the forward value `kLike` (X or Out) and Out@GRAD.
template <typename Fn, const char* kLike>
struct ComplexUnaryGradKernel {
  template <typename C>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      ComputeUnaryGrad<C>(ctx, kLike, [](const C& v, const C& dout) {
        return static_cast<C>(Fn{}(Cd(v), Cd(dout)));
      });
    }
  };
};

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterComplexActivationKernels) {
  RegisterComplexUnary<SinFn>("sin");
  RegisterComplexUnary<CosFn>("cos");
  RegisterComplexUnary<TanFn>("tan");
  RegisterComplexUnary<AsinFn>("asin");
  RegisterComplexUnary<AcosFn>("acos");
  RegisterComplexUnary<AtanFn>("atan");
  RegisterComplexUnary<SinhFn>("sinh");
  RegisterComplexUnary<CoshFn>("cosh");
  RegisterComplexUnary<TanhFn>("tanh");
  RegisterComplexUnary<AsinhFn>("asinh");
  RegisterComplexUnary<AcoshFn>("acosh");
  RegisterComplexUnary<AtanhFn>("atanh");
  RegisterComplexUnary<Expm1Fn>("expm1");
  RegisterComplexUnary<Log1pFn>("log1p");
  RegisterComplexUnary<Log2Fn>("log2");
  RegisterComplexUnary<Log10Fn>("log10");
  RegisterComplexUnary<SquareFn>("square");
  RegisterComplexUnary<ReciprocalFn>("reciprocal");
  RegisterComplexUnary<SigmoidFn>("sigmoid");
  RegisterComplexUnary<SiluFn>("silu");
  RegisterComplexUnary<LogSigmoidFn>("logsigmoid");
  RegisterComplexUnary<SignFn>("sign");
  RegisterPlainCpuKernels<ComplexUnaryGradKernel<SigmoidGradFn, kOut>::template Kernel,
                          std::complex<float>, std::complex<double>>("sigmoid_grad");
  RegisterPlainCpuKernels<ComplexUnaryGradKernel<TanhGradFn, kOut>::template Kernel,
                          std::complex<float>, std::complex<double>>("tanh_grad");
  RegisterPlainCpuKernels<ComplexUnaryGradKernel<SquareGradFn, kX>::template Kernel,
                          std::complex<float>, std::complex<double>>("square_grad");
}

}  // namespace operators
}  // namespace paddle_like
