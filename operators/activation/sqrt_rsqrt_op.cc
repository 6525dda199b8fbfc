// sqrt and rsqrt (1 / sqrt), with PaddlePaddle's fused grad ops sqrt_grad and rsqrt_grad,
// which read Out.
#include <cmath>
#include <complex>

#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/complex/map_values.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class SqrtOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddComment(R"DOC(
Square root operator, elementwise (NaN for X < 0; the principal root of complex X, with a
real part >= 0):

$$Out = \sqrt{X}$$

Gradient (fused op `sqrt_grad`, first order), reading Out:
$$dX = \frac{dOut}{2 \, \overline{Out}}$$
(the conjugate, the identity on real values, as for every complex gradient here: dL/da +
i dL/db for z = a + ib).
)DOC");
  }
};

class RsqrtOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrsAndDoc() override {
    AddComment(R"DOC(
Reciprocal square root operator, elementwise (NaN for X < 0, inf at 0):

$$Out = \frac{1}{\sqrt{X}}$$

Gradient (fused op `rsqrt_grad`, first order), reading Out:
$$dX = -\frac{1}{2} \, dOut \cdot Out^3$$
)DOC");
  }
};

template <typename C>
struct SqrtComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    MapValues<C, C>(ctx, *ctx.Input("X"), "Out", [](const C& v) { return std::sqrt(v); });
  }
};

// X@GRAD = Out@GRAD / (2 conj(Out)).
template <typename C>
struct SqrtComplexGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    MapValuePairs<C, C>(ctx, "Out", "Out@GRAD", "X@GRAD",
                        [](const C& y, const C& g) { return g / (C(2) * std::conj(y)); });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSqrtRsqrtOps) {
  RegisterUnaryOpWithFusedGrad<UnaryOp, SqrtOpMaker, UnaryFunctorKernel<activation::Sqrt>::Kernel,
                               UnaryGradFunctorKernel<activation::SqrtGrad>::Kernel>(
      "sqrt", {{"Out"}, {"Out"}, {"X"}, R"DOC($$dX = \frac{dOut}{2 \, \overline{Out}}$$)DOC"});
  RegisterPlainCpuKernels<SqrtComplexKernel, std::complex<float>, std::complex<double>>("sqrt");
  RegisterPlainCpuKernels<SqrtComplexGradKernel, std::complex<float>, std::complex<double>>(
      "sqrt_grad");
  RegisterUnaryOpWithFusedGrad<UnaryOp, RsqrtOpMaker, UnaryFunctorKernel<activation::Rsqrt>::Kernel,
                               UnaryGradFunctorKernel<activation::RsqrtGrad>::Kernel>(
      "rsqrt", {{"Out"}, {"Out"}, {"X"}, R"DOC($$dX = -\frac{1}{2} \, dOut \cdot Out^3$$)DOC"});
}

}  // namespace operators
}  // namespace paddle_like
