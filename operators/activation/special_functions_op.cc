// Special functions, elementwise, with PaddlePaddle's lower-case slots (x, out): gammaln,
// polygamma, the modified Bessel functions i0, i0e, i1, i1e, rint, and the binary gammaincc
// (regularised upper incomplete gamma) and nextafter. Values are computed in double with
// Eigen's special functions (Cephes' algorithms, as PaddlePaddle's kernels use).
#include <cmath>
#include <string>
#include <unsupported/Eigen/SpecialFunctions>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/elementwise/broadcast_binary.h"
#include "operators/op_family.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace operators {

namespace {

using Names = std::vector<std::string>;

// ---------------------------------------------------------------- the functions, in double

double Sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }
double I0(double x) { return Eigen::numext::bessel_i0(x); }
double I0e(double x) { return Eigen::numext::bessel_i0e(x); }
double I1(double x) { return Eigen::numext::bessel_i1(x); }
double I1e(double x) { return Eigen::numext::bessel_i1e(x); }

// psi^(n)(x); n = 0 is the digamma function.
double Polygamma(int n, double x) { return Eigen::numext::polygamma(static_cast<double>(n), x); }

// I1'(x) = I0(x) - I1(x) / x, 1/2 at 0.
double I1Slope(double x) { return x == 0 ? 0.5 : I0(x) - I1(x) / x; }
// (e^{-|x|} I1(x))' = I0e(x) - I1e(x) (sgn(x) + 1/x), 1/2 at 0.
double I1eSlope(double x) { return x == 0 ? 0.5 : I0e(x) - I1e(x) * (Sign(x) + 1 / x); }
// (e^{-|x|} I0(x))' = I1e(x) - sgn(x) I0e(x).
double I0eSlope(double x) { return I1e(x) - Sign(x) * I0e(x); }

// Q(a, y) = Gamma(a, y) / Gamma(a).
double Gammaincc(double a, double y) { return Eigen::numext::igammac(a, y); }
// dQ/dy = -y^{a-1} e^{-y} / Gamma(a).
double GammainccSlope(double a, double y) {
  if (y == 0) return a == 1 ? -1.0 : (a < 1 ? -INFINITY : 0.0);
  return -std::exp((a - 1) * std::log(y) - y - std::lgamma(a));
}

// ---------------------------------------------------------------- unary ops

class SpecialUnaryOpMaker : public OpProtoAndCheckerMaker {
 public:
  explicit SpecialUnaryOpMaker(std::string doc, bool takes_n = false)
      : doc_(std::move(doc)), takes_n_(takes_n) {}
  void Make() override {
    AddInput("x", "Input tensor of any shape (float32 or float64).");
    AddOutput("out", "x's shape and dtype.");
    if (takes_n_) {
      AddAttr<int>("n", "The order of the derivative of the digamma function (>= 0).")
          .GreaterThan(-1);
    }
    AddComment(doc_);
  }

 private:
  std::string doc_;
  bool takes_n_;
};

template <const char* kDoc, bool kTakesN = false>
class DocMaker : public SpecialUnaryOpMaker {
 public:
  DocMaker() : SpecialUnaryOpMaker(kDoc, kTakesN) {}
};

constexpr char kGammalnDoc[] = R"DOC(
Gammaln operator, elementwise: $$out = \ln |\Gamma(x)|$$ (+inf at 0 and the negative
integers). Gradient (written with polygamma, so every order differentiates again):
$$dx = dout \cdot \psi(x)$$
)DOC";
constexpr char kPolygammaDoc[] = R"DOC(
Polygamma operator, elementwise: the n-th derivative of the digamma function,
$$out = \psi^{(n)}(x) = (-1)^{n+1}\, n!\, \zeta(n + 1, x) \quad (n \ge 1), \qquad \psi^{(0)} = \psi$$
with the Hurwitz zeta function (+inf at the poles 0, -1, -2, ... for n >= 1). Gradient
(written with polygamma, so every order differentiates again):
$$dx = dout \cdot \psi^{(n+1)}(x)$$
)DOC";
constexpr char kI0Doc[] = R"DOC(
Modified Bessel function of the first kind, order 0, elementwise:
$$out = I_0(x) = \sum_{k \ge 0} \frac{(x/2)^{2k}}{(k!)^2}$$
Gradient (written with i1, so it differentiates once more): $$dx = dout \cdot I_1(x)$$
)DOC";
constexpr char kI0eDoc[] = R"DOC(
Exponentially scaled modified Bessel function of order 0, elementwise:
$$out = e^{-|x|} I_0(x)$$
(finite for every x where I_0 overflows). Gradient, by the fused op i0e_grad:
$$dx = dout \cdot (I_{1e}(x) - \operatorname{sgn}(x)\, I_{0e}(x))$$
)DOC";
constexpr char kI1Doc[] = R"DOC(
Modified Bessel function of the first kind, order 1, elementwise:
$$out = I_1(x) = \sum_{k \ge 0} \frac{(x/2)^{2k+1}}{k!\,(k+1)!}$$
Gradient, by the fused op i1_grad: $$dx = dout \cdot (I_0(x) - I_1(x)/x)$$ (1/2 at x = 0).
)DOC";
constexpr char kI1eDoc[] = R"DOC(
Exponentially scaled modified Bessel function of order 1, elementwise:
$$out = e^{-|x|} I_1(x)$$
Gradient, by the fused op i1e_grad:
$$dx = dout \cdot (I_{0e}(x) - I_{1e}(x) (\operatorname{sgn}(x) + 1/x))$$ (1/2 at x = 0).
)DOC";
constexpr char kRintDoc[] = R"DOC(
Rint operator, elementwise: x rounded to the nearest integer, halves to the even one
(IEEE round-half-even):
$$out = \operatorname{argmin}_{n \in \mathbb{Z}} |x - n|, \text{ ties to even } n$$
so rint(2.5) = 2, rint(3.5) = 4, rint(-0.5) = -0. Piecewise constant, so no gradient flows
back.
)DOC";

class SpecialOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void UnaryInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireOutput("out");
  ctx->SetOutputDim("out", ctx->GetInputDim("x"));
  ctx->ShareLoD("x", "out");
}

// out[i] = f(x[i]) computed in double.
template <typename T, typename F>
void ComputeSpecial(const ExecutionContext& ctx, const char* in_slot, const char* out_slot,
                    const F& f) {
  const DenseTensor* x = ctx.Input(in_slot);
  DenseTensor out(x->dims(), x->dtype());
  out.set_lod(x->lod());
  T* o = out.mutable_data<T>(ctx.GetPlace());
  const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      x->numel(), 1 << 12, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          o[i] = static_cast<T>(f(static_cast<double>(in[i])));
        }
      });
  *ctx.Output(out_slot) = std::move(out);
}

template <double (*F)(double)>
struct UnaryKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) { ComputeSpecial<T>(ctx, "x", "out", F); }
  };
};

template <typename T>
struct GammalnKernel {
  static void Compute(const ExecutionContext& ctx) {
    ComputeSpecial<T>(ctx, "x", "out", [](double v) { return std::lgamma(v); });
  }
};

template <typename T>
struct RintKernel {
  static void Compute(const ExecutionContext& ctx) {
    // std::nearbyint rounds in the current mode, which is round-half-even by default.
    ComputeSpecial<T>(ctx, "x", "out", [](double v) { return std::nearbyint(v); });
  }
};

template <typename T>
struct PolygammaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const int n = ctx.Attr<int>("n");
    ComputeSpecial<T>(ctx, "x", "out", [n](double v) { return Polygamma(n, v); });
  }
};

// dx[i] = dout[i] * slope(x[i]).
template <double (*Slope)(double)>
struct SlopeGradKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("x");
      const DenseTensor* dout = ctx.Input("out@GRAD");
      CheckSameShape(ctx.Type(), "out@GRAD", dout->dims(), "x", x->dims());
      DenseTensor dx(x->dims(), x->dtype());
      dx.set_lod(x->lod());
      T* d = dx.mutable_data<T>(ctx.GetPlace());
      const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
      const T* g = x->numel() > 0 ? dout->data<T>() : nullptr;
      for (int64_t i = 0; i < x->numel(); ++i) {
        d[i] = static_cast<T>(static_cast<double>(g[i]) * Slope(static_cast<double>(in[i])));
      }
      *ctx.Output("x@GRAD") = std::move(dx);
    }
  };
};

void FusedGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireInput("out@GRAD");
  if (!ctx->HasOutput("x@GRAD")) return;
  ctx->SetOutputDim("x@GRAD", ctx->GetInputDim("x"));
  ctx->ShareLoD("x", "x@GRAD");
}

// dx = dout * polygamma(x, order).
void AddPolygammaProduct(framework::GradOpBuilder* g, int order) {
  const Names slope{g->NewTemp("polygamma_x")};
  g->AddOp("polygamma", {{"x", g->Input("x")}}, {{"out", slope}}, {{"n", order}});
  g->AddOp("elementwise_mul", {{"X", g->OutputGrad("out")}, {"Y", slope}},
           {{"Out", g->InputGrad("x")}}, {{"axis", -1}});
}

void GammalnGradMaker(framework::GradOpBuilder* g) {
  if (g->WantsInputGrad("x")) AddPolygammaProduct(g, 0);
}

void PolygammaGradMaker(framework::GradOpBuilder* g) {
  if (g->WantsInputGrad("x")) AddPolygammaProduct(g, g->Attr<int>("n") + 1);
}

void I0GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("x")) return;
  const Names slope{g->NewTemp("i1_x")};
  g->AddOp("i1", {{"x", g->Input("x")}}, {{"out", slope}});
  g->AddOp("elementwise_mul", {{"X", g->OutputGrad("out")}, {"Y", slope}},
           {{"Out", g->InputGrad("x")}}, {{"axis", -1}});
}

// ---------------------------------------------------------------- binary ops

class GammainccOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "The shape parameter a (>= 0), float32 or float64.");
    AddInput("y", "The lower limit of the integral (>= 0), x's shape and dtype.");
    AddOutput("out", "x's shape and dtype.");
    AddComment(R"DOC(
Regularised upper incomplete gamma function, elementwise (x and y of one shape):
$$out = Q(x, y) = \frac{1}{\Gamma(x)} \int_y^\infty t^{x-1} e^{-t}\, dt$$
(1 at y = 0; NaN for negative arguments). Gradient, by the fused op gammaincc_grad, with
respect to y only (as in PaddlePaddle; x gets none):
$$dy = -dout \cdot \frac{y^{x-1} e^{-y}}{\Gamma(x)}$$
)DOC");
  }
};

class NextafterOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "The starting values, float32 or float64.");
    AddInput("y", "The directions, x's dtype; broadcast against x.");
    AddOutput("out", "The broadcast shape of x and y, x's dtype.");
    AddComment(R"DOC(
Nextafter operator, elementwise with NumPy broadcasting: the next value of x's dtype after x
in the direction of y,
$$out = \begin{cases} \min\{v > x\} & y > x \\ \max\{v < x\} & y < x \\ y & y = x \end{cases}$$
over the values v of x's dtype. Example in float32: nextafter(1, 2) = 1 + 2^{-23}.
Piecewise constant, so no gradient flows back.
)DOC");
  }
};

void GammainccInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireInput("y");
  ctx->RequireOutput("out");
  const DDim x = ctx->GetInputDim("x");
  CheckSameShape(ctx->OpType(), "y", ctx->GetInputDim("y"), "x", x);
  ctx->SetOutputDim("out", x);
}

void NextafterInferShape(InferShapeContext* ctx) {
  BroadcastBinaryInferShape(ctx, -1, BinarySlots{"x", "y", "out"});
}

template <typename T>
struct GammainccKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DenseTensor* y = ctx.Input("y");
    CheckSameShape(ctx.Type(), "y", y->dims(), "x", x->dims());
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* a = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* b = x->numel() > 0 ? y->data<T>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) {
      o[i] = static_cast<T>(Gammaincc(static_cast<double>(a[i]), static_cast<double>(b[i])));
    }
    *ctx.Output("out") = std::move(out);
  }
};

template <typename T>
struct GammainccGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DenseTensor* y = ctx.Input("y");
    const DenseTensor* dout = ctx.Input("out@GRAD");
    CheckSameShape(ctx.Type(), "y", y->dims(), "x", x->dims());
    CheckSameShape(ctx.Type(), "out@GRAD", dout->dims(), "x", x->dims());
    DenseTensor dy(y->dims(), y->dtype());
    T* d = dy.mutable_data<T>(ctx.GetPlace());
    const T* a = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* b = x->numel() > 0 ? y->data<T>() : nullptr;
    const T* g = x->numel() > 0 ? dout->data<T>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) {
      d[i] = static_cast<T>(static_cast<double>(g[i]) *
                            GammainccSlope(static_cast<double>(a[i]), static_cast<double>(b[i])));
    }
    *ctx.Output("y@GRAD") = std::move(dy);
  }
};

template <typename T>
struct NextafterKernel {
  static void Compute(const ExecutionContext& ctx) {
    ComputeBroadcastBinary<T, T>(
        ctx, -1, [](T x, T y) { return std::nextafter(x, y); }, [](const T*, int64_t) {},
        BinarySlots{"x", "y", "out"});
  }
};

template <double (*Slope)(double)>
void RegisterWithFusedGrad(const std::string& type, const framework::FusedGradDecl& grad,
                           framework::OpRegistrar forward) {
  forward.InferShape(UnaryInferShape).GradOpMaker(framework::FusedGradMaker(grad));
  framework::RegisterFusedGradOp(type, grad).InferShape(FusedGradInferShape);
  RegisterPlainCpuFloatKernels<SlopeGradKernel<Slope>::template Kernel>(type + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterSpecialFunctionOps) {
  framework::RegisterOp<SpecialOp, DocMaker<kGammalnDoc>>("gammaln")
      .InferShape(UnaryInferShape)
      .GradOpMaker(GammalnGradMaker);
  RegisterPlainCpuFloatKernels<GammalnKernel>("gammaln");
  framework::RegisterOp<SpecialOp, DocMaker<kPolygammaDoc, true>>("polygamma")
      .InferShape(UnaryInferShape)
      .GradOpMaker(PolygammaGradMaker);
  RegisterPlainCpuFloatKernels<PolygammaKernel>("polygamma");
  framework::RegisterOp<SpecialOp, DocMaker<kRintDoc>>("rint")
      .InferShape(UnaryInferShape)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<RintKernel>("rint");

  framework::RegisterOp<SpecialOp, DocMaker<kI0Doc>>("i0")
      .InferShape(UnaryInferShape)
      .GradOpMaker(I0GradMaker);
  RegisterPlainCpuFloatKernels<UnaryKernel<I0>::Kernel>("i0");
  const framework::FusedGradDecl i0e_grad{
      {"x"},
      {"out"},
      {"x"},
      R"DOC($$dx = dout \cdot (I_{1e}(x) - \operatorname{sgn}(x) I_{0e}(x))$$)DOC"};
  RegisterWithFusedGrad<I0eSlope>("i0e", i0e_grad,
                                  framework::RegisterOp<SpecialOp, DocMaker<kI0eDoc>>("i0e"));
  RegisterPlainCpuFloatKernels<UnaryKernel<I0e>::Kernel>("i0e");
  const framework::FusedGradDecl i1_grad{
      {"x"}, {"out"}, {"x"}, R"DOC($$dx = dout \cdot (I_0(x) - I_1(x)/x)$$)DOC"};
  RegisterWithFusedGrad<I1Slope>("i1", i1_grad,
                                 framework::RegisterOp<SpecialOp, DocMaker<kI1Doc>>("i1"));
  RegisterPlainCpuFloatKernels<UnaryKernel<I1>::Kernel>("i1");
  const framework::FusedGradDecl i1e_grad{
      {"x"},
      {"out"},
      {"x"},
      R"DOC($$dx = dout \cdot (I_{0e}(x) - I_{1e}(x) (\operatorname{sgn}(x) + 1/x))$$)DOC"};
  RegisterWithFusedGrad<I1eSlope>("i1e", i1e_grad,
                                  framework::RegisterOp<SpecialOp, DocMaker<kI1eDoc>>("i1e"));
  RegisterPlainCpuFloatKernels<UnaryKernel<I1e>::Kernel>("i1e");

  const framework::FusedGradDecl gammaincc_grad{
      {"x", "y"}, {"out"}, {"y"}, R"DOC($$dy = -dout \cdot \frac{y^{x-1} e^{-y}}{\Gamma(x)}$$)DOC"};
  framework::RegisterOp<SpecialOp, GammainccOpMaker>("gammaincc")
      .InferShape(GammainccInferShape)
      .GradOpMaker(framework::FusedGradMaker(gammaincc_grad));
  RegisterPlainCpuFloatKernels<GammainccKernel>("gammaincc");
  framework::RegisterFusedGradOp("gammaincc", gammaincc_grad)
      .InferShape([](InferShapeContext* ctx) {
        ctx->RequireInput("y");
        if (ctx->HasOutput("y@GRAD")) ctx->SetOutputDim("y@GRAD", ctx->GetInputDim("y"));
      });
  RegisterPlainCpuFloatKernels<GammainccGradKernel>("gammaincc_grad");

  framework::RegisterOp<SpecialOp, NextafterOpMaker>("nextafter")
      .InferShape(NextafterInferShape)
      .InferVarType(OutputDataTypeOf("x", "out"))
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<NextafterKernel>("nextafter");
}

}  // namespace operators
}  // namespace paddle_like
