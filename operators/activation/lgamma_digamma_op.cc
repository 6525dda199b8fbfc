// lgamma (log |Gamma(X)|) and digamma (its derivative, psi), elementwise. lgamma's gradient is
// written with digamma, so it differentiates again; digamma's fused backward uses the
// trigamma function psi'.
#include <cmath>
#include <limits>
#include <string>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

// psi(x): reflection below 1/2, the recurrence psi(x) = psi(x + 1) - 1/x up to 10, then the
// asymptotic series. -inf at 0 and NaN at the negative integers, as PaddlePaddle gives.
double Digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (x < 0 && x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
  double result = 0;
  if (x < 0.5) {
    result = -M_PI / std::tan(M_PI * x);  // psi(x) = psi(1 - x) - pi cot(pi x)
    x = 1 - x;
  }
  for (; x < 10; x += 1) result -= 1 / x;
  const double inv = 1 / x, inv2 = inv * inv;
  return result + std::log(x) - 0.5 * inv -
         inv2 *
             (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))));
}

// psi'(x): reflection below 1/2 (psi'(1 - x) + psi'(x) = pi^2 / sin^2(pi x)), the recurrence
// psi'(x) = psi'(x + 1) + 1/x^2 up to 10, then the asymptotic series; +inf at the poles.
double Trigamma(double x) {
  if (std::isnan(x)) return x;
  if (x <= 0 && x == std::floor(x)) return std::numeric_limits<double>::infinity();
  if (x < 0.5) {
    const double s = std::sin(M_PI * x);
    return -Trigamma(1 - x) + M_PI * M_PI / (s * s);
  }
  double result = 0;
  for (; x < 10; x += 1) result += 1 / (x * x);
  const double inv = 1 / x, inv2 = inv * inv;
  return result + inv + 0.5 * inv2 +
         inv * inv2 * (1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (1.0 / 42 - inv2 / 30)));
}

template <bool kLgamma>
class GammaOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    if (kLgamma) {
      AddComment(R"DOC(
Lgamma operator, elementwise: $$Out = \ln |\Gamma(X)|$$ (+inf at 0 and the negative
integers). Gradient (written with digamma, so it differentiates again):
$$dX = dOut \cdot \psi(X)$$
)DOC");
    } else {
      AddComment(R"DOC(
Digamma operator, elementwise: $$Out = \psi(X) = \frac{d}{dX} \ln \Gamma(X)$$ (-inf at 0,
NaN at the negative integers). Gradient, by the fused op digamma_grad:
$$dX = dOut \cdot \psi'(X)$$
)DOC");
    }
  }
};

template <bool kLgamma>
struct GammaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      DenseTensor out(x->dims(), x->dtype());
      out.set_lod(x->lod());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
      for (int64_t i = 0; i < x->numel(); ++i) {
        const double v = static_cast<double>(in[i]);
        o[i] = static_cast<T>(kLgamma ? std::lgamma(v) : Digamma(v));
      }
      *ctx.Output("Out") = std::move(out);
    }
  };
};

template <typename T>
struct DigammaGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    DenseTensor dx(x->dims(), x->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* g = x->numel() > 0 ? dout->data<T>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) {
      d[i] = g[i] * static_cast<T>(Trigamma(static_cast<double>(in[i])));
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

void LgammaGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string psi = g->NewTemp("digamma_x");
  g->AddOp("digamma", {{"X", g->Input("X")}}, {{"Out", {psi}}});
  g->AddOp("elementwise_mul", {{"X", g->OutputGrad("Out")}, {"Y", {psi}}},
           {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
}

}  // namespace

PL_REGISTER_OPS(RegisterLgammaDigammaOps) {
  framework::RegisterOp<UnaryOp, GammaOpMaker<true>>("lgamma")
      .InferShape(SameShapeInferShape)
      .GradOpMaker(LgammaGradMaker);
  RegisterPlainCpuFloatKernels<GammaKernel<true>::Kernel>("lgamma");
  const framework::FusedGradDecl digamma_grad{
      {"X"}, {"Out"}, {"X"}, R"DOC($$dX = dOut \cdot \psi'(X)$$)DOC"};
  RegisterUnaryOpWithFusedGrad<UnaryOp, GammaOpMaker<false>, GammaKernel<false>::Kernel,
                               DigammaGradKernel>("digamma", digamma_grad);
}

}  // namespace operators
}  // namespace paddle_like
