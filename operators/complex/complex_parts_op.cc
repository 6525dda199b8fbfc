// Ops between complex tensors and their real parts: complex (from real and imaginary parts,
// broadcasting), real, imag, conj, angle, as_complex and as_real (a trailing dim of 2 read
// as the two parts). Gradients follow PaddlePaddle's convention for complex values: the
// gradient of a real loss L with respect to z = a + ib is dL/da + i dL/db.
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/complex/complex_var_types.h"
#include "operators/complex/map_values.h"
#include "operators/elementwise/broadcast_binary.h"
#include "operators/math/reduce.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

using framework::GradOpBuilder;

// A maker for the unary ops: X to Out, with a formula and the gradient's.
class UnaryPartsOpMaker : public OpProtoAndCheckerMaker {
 public:
  UnaryPartsOpMaker(const char* x, const char* out, const char* doc)
      : x_(x), out_(out), doc_(doc) {}
  void Make() override {
    AddInput("X", x_);
    AddOutput("Out", out_);
    AddComment(doc_);
  }

 private:
  const char* x_;
  const char* out_;
  const char* doc_;
};

template <const char* kX, const char* kOut, const char* kDoc>
class PartsOpMaker : public UnaryPartsOpMaker {
 public:
  PartsOpMaker() : UnaryPartsOpMaker(kX, kOut, kDoc) {}
};

class PartsOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// ---------------------------------------------------------------- real, imag

constexpr char kComplexX[] = "Complex input (complex64 or complex128).";
constexpr char kRealOut[] = "X's shape, the type of its parts (float32 or float64).";
constexpr char kRealDoc[] = R"DOC(
The real parts: $$Out = \mathrm{Re}(X)$$

Gradient, by the fused op real_grad: $$dX = dOut + 0i$$
)DOC";
constexpr char kImagDoc[] = R"DOC(
The imaginary parts: $$Out = \mathrm{Im}(X)$$

Gradient, by the fused op imag_grad: $$dX = 0 + i \, dOut$$
)DOC";

template <typename C>
struct RealKernel {
  static void Compute(const ExecutionContext& ctx) {
    using T = typename C::value_type;
    MapValues<C, T>(ctx, *ctx.Input("X"), "Out", [](const C& v) { return v.real(); });
  }
};
template <typename C>
struct ImagKernel {
  static void Compute(const ExecutionContext& ctx) {
    using T = typename C::value_type;
    MapValues<C, T>(ctx, *ctx.Input("X"), "Out", [](const C& v) { return v.imag(); });
  }
};
// Keyed by Out@GRAD's real type.
template <typename T>
struct RealGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    using C = std::complex<T>;
    MapValues<T, C>(ctx, *ctx.Input("Out@GRAD"), "X@GRAD", [](T g) { return C(g, T(0)); });
  }
};
template <typename T>
struct ImagGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    using C = std::complex<T>;
    MapValues<T, C>(ctx, *ctx.Input("Out@GRAD"), "X@GRAD", [](T g) { return C(T(0), g); });
  }
};

void GradLikeOutGrad(InferShapeContext* ctx) {
  ctx->RequireInput("Out@GRAD");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("Out@GRAD"));
}

// X@GRAD of the parts' precision, complex.
void ComplexGradVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("X@GRAD", framework::VarKind::kDenseTensor);
  const DataType g = ctx->GetInputDataType("Out@GRAD");
  ctx->SetOutputDataType("X@GRAD",
                         g == DataType::UNDEFINED
                             ? g
                             : MapComplexType(ComplexMap::kComplex, g, ctx->OpType(), "Out@GRAD"));
}

// ---------------------------------------------------------------- conj

constexpr char kAnyX[] = "Complex or real input.";
constexpr char kSameOut[] = "X's shape and type.";
constexpr char kConjDoc[] = R"DOC(
The complex conjugate: $$Out = \overline{X} = \mathrm{Re}(X) - i \, \mathrm{Im}(X)$$
(a real X is copied).

Gradient: $$dX = \overline{dOut}$$, emitted as a conj op (differentiable again).
)DOC";

template <typename T>
struct ConjKernel {
  static void Compute(const ExecutionContext& ctx) {
    MapValues<T, T>(ctx, *ctx.Input("X"), "Out", [](const T& v) {
      if constexpr (std::is_arithmetic_v<T>) {
        return v;
      } else {
        return std::conj(v);
      }
    });
  }
};

void ConjGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("conj", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}});
}

// ---------------------------------------------------------------- angle

constexpr char kAngleOut[] = "X's shape, real (the parts' type for a complex X).";
constexpr char kAngleDoc[] = R"DOC(
The argument (phase) of each value, in (-pi, pi]:
$$Out = \mathrm{atan2}(\mathrm{Im}(X), \mathrm{Re}(X))$$
(a real X gives 0 where X >= 0 and pi where X < 0).

Gradient, by the fused op angle_grad: for a complex X = a + ib,
$$dX = dOut \cdot \frac{-b + i a}{a^2 + b^2}$$ (0 where X = 0); for a real X, 0.
)DOC";

template <typename T>
struct AngleKernel {
  static void Compute(const ExecutionContext& ctx) {
    if constexpr (std::is_arithmetic_v<T>) {
      MapValues<T, T>(ctx, *ctx.Input("X"), "Out", [](T v) {
        return std::isnan(v) ? v : (v < T(0) ? static_cast<T>(M_PI) : T(0));
      });
    } else {
      using R = typename T::value_type;
      MapValues<T, R>(ctx, *ctx.Input("X"), "Out", [](const T& v) { return std::arg(v); });
    }
  }
};

// Keyed by X's type: real (a zero gradient) or complex; Out@GRAD holds the parts' type.
template <typename T>
struct AngleGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "X", x->dims());
    if constexpr (std::is_arithmetic_v<T>) {
      MapValues<T, T>(ctx, *dout, "X@GRAD", [](T) { return T(0); });
    } else {
      using R = typename T::value_type;
      DenseTensor dx(x->dims(), platform::ToDataType<T>());
      T* o = dx.mutable_data<T>(ctx.GetPlace());
      const T* xp = x->numel() > 0 ? x->data<T>() : nullptr;
      const R* g = x->numel() > 0 ? dout->data<R>() : nullptr;
      for (int64_t i = 0; i < x->numel(); ++i) {
        const R norm = std::norm(xp[i]);
        o[i] = norm == R(0) ? T(0) : g[i] * T(-xp[i].imag(), xp[i].real()) / norm;
      }
      *ctx.Output("X@GRAD") = std::move(dx);
    }
  }
};

// ---------------------------------------------------------------- as_complex, as_real

constexpr char kAsComplexX[] = "Real input [..., 2] (float32 or float64): real, imaginary.";
constexpr char kAsComplexOut[] = "Complex [...] of X's precision.";
constexpr char kAsComplexDoc[] = R"DOC(
The trailing pairs of X as complex values: $$Out[...] = X[..., 0] + i \, X[..., 1]$$

Gradient: $$dX = \mathrm{as\_real}(dOut)$$, emitted as an as_real op.
)DOC";
constexpr char kAsRealOut[] = "Real [..., 2] of X's precision: real, imaginary.";
constexpr char kAsRealDoc[] = R"DOC(
Each complex value as its two parts:
$$Out[..., 0] = \mathrm{Re}(X[...]), \quad Out[..., 1] = \mathrm{Im}(X[...])$$

Gradient: $$dX = \mathrm{as\_complex}(dOut)$$, emitted as an as_complex op.
)DOC";

void AsComplexInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() >= 1 && (x[x.size() - 1] == 2 || x[x.size() - 1] < 0),
             errors::InvalidArgument("op `%s` input `X`: expected a last dim of 2 (real, "
                                     "imaginary), received %s",
                                     ctx->OpType(), x.ToString()));
  const std::vector<int64_t> v = x.ToVector();
  std::vector<int64_t> d(v.begin(), v.end() - 1);
  ctx->SetOutputDim("Out", DDim(d));
}

void AsRealInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  std::vector<int64_t> d = ctx->GetInputDim("X").ToVector();
  d.push_back(2);
  ctx->SetOutputDim("Out", DDim(d));
}

// Both are the same bytes in another type and shape: a copy.
template <typename T>
struct AsComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    using C = std::complex<T>;
    const DenseTensor* x = ctx.Input("X");
    const DDim& xd = x->dims();
    PL_ENFORCE(xd.size() >= 1 && xd[xd.size() - 1] == 2,
               errors::InvalidArgument("op `%s` input `X`: expected a last dim of 2 (real, "
                                       "imaginary), received %s",
                                       ctx.Type(), xd.ToString()));
    const std::vector<int64_t> v = xd.ToVector();
    DenseTensor out(DDim(std::vector<int64_t>(v.begin(), v.end() - 1)), platform::ToDataType<C>());
    C* o = out.mutable_data<C>(ctx.GetPlace());
    const T* p = x->numel() > 0 ? x->data<T>() : nullptr;
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = C(p[2 * i], p[2 * i + 1]);
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename C>
struct AsRealKernel {
  static void Compute(const ExecutionContext& ctx) {
    using T = typename C::value_type;
    const DenseTensor* x = ctx.Input("X");
    std::vector<int64_t> d = x->dims().ToVector();
    d.push_back(2);
    DenseTensor out{DDim(d), platform::ToDataType<T>()};
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const C* p = x->numel() > 0 ? x->data<C>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) {
      o[2 * i] = p[i].real();
      o[2 * i + 1] = p[i].imag();
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void AsComplexGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("as_real", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}});
}
void AsRealGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("as_complex", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}});
}

// ---------------------------------------------------------------- complex

class ComplexOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Real parts (float32 or float64).");
    AddInput("Y", "Imaginary parts, X's type; X and Y broadcast as NumPy's rule.");
    AddOutput("Out", "Complex of X's precision, of the broadcast shape.");
    AddComment(R"DOC(
A complex tensor from its parts: $$Out = X + i \, Y$$ (broadcast).

Gradient, by the fused op complex_grad, each summed back over its broadcast dims:
$$dX = \mathrm{Re}(dOut), \quad dY = \mathrm{Im}(dOut)$$
)DOC");
  }
};

void ComplexInferShape(InferShapeContext* ctx) { BroadcastBinaryInferShape(ctx, -1); }

template <typename T>
struct ComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    using C = std::complex<T>;
    ComputeBroadcastBinary<T, C>(ctx, -1, [](T a, T b) { return C(a, b); });
  }
};

// Keyed by Out@GRAD's complex type; X and Y are read for their dims.
template <typename C>
struct ComplexGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    using T = typename C::value_type;
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const math::BroadcastDims dims =
        math::ComputeBroadcastDims(ctx.Type(), x->dims(), y->dims(), -1);
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", dims.out);
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const C* g = dout->numel() > 0 ? dout->data<C>() : nullptr;
    std::vector<T> part(dout->numel());
    const auto reduce_part = [&](const char* slot, const DDim& aligned, const DDim& own,
                                 bool imag) {
      DenseTensor* out = ctx.Output(slot);
      if (out == nullptr) return;
      for (int64_t i = 0; i < dout->numel(); ++i) part[i] = imag ? g[i].imag() : g[i].real();
      DenseTensor d(own, platform::ToDataType<T>());
      T* p = d.mutable_data<T>(ctx.GetPlace());
      if (d.numel() > 0) math::SumToShape(dev, part.data(), dims.out, aligned, p);
      *out = std::move(d);
    };
    reduce_part("X@GRAD", dims.x, x->dims(), false);
    reduce_part("Y@GRAD", dims.y, y->dims(), true);
  }
};

void ComplexGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Out@GRAD");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  if (ctx->HasOutput("Y@GRAD")) ctx->SetOutputDim("Y@GRAD", ctx->GetInputDim("Y"));
}

// X@GRAD and Y@GRAD: the parts' real type.
void ComplexGradVarTypeReal(framework::VarTypeInferenceContext* ctx) {
  const DataType g = ctx->GetInputDataType("Out@GRAD");
  for (const char* slot : {"X@GRAD", "Y@GRAD"}) {
    if (!ctx->HasOutput(slot)) continue;
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, platform::RealPartType(g));
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterComplexPartsOps) {
  using C64 = std::complex<float>;
  using C128 = std::complex<double>;

  const framework::FusedGradDecl real_grad{{}, {"Out"}, {"X"}, "$$dX = dOut + 0i$$"};
  framework::RegisterOp<PartsOp, PartsOpMaker<kComplexX, kRealOut, kRealDoc>>("real")
      .InferShape(SameShapeInferShape)
      .InferVarType(OutputOfType(ComplexMap::kParts))
      .GradOpMaker(framework::FusedGradMaker(real_grad));
  RegisterPlainCpuKernels<RealKernel, C64, C128>("real");
  framework::RegisterFusedGradOp("real", real_grad)
      .InferShape(GradLikeOutGrad)
      .InferVarType(ComplexGradVarType);
  RegisterPlainCpuFloatKernels<RealGradKernel>("real_grad");

  const framework::FusedGradDecl imag_grad{{}, {"Out"}, {"X"}, "$$dX = 0 + i \\, dOut$$"};
  framework::RegisterOp<PartsOp, PartsOpMaker<kComplexX, kRealOut, kImagDoc>>("imag")
      .InferShape(SameShapeInferShape)
      .InferVarType(OutputOfType(ComplexMap::kParts))
      .GradOpMaker(framework::FusedGradMaker(imag_grad));
  RegisterPlainCpuKernels<ImagKernel, C64, C128>("imag");
  framework::RegisterFusedGradOp("imag", imag_grad)
      .InferShape(GradLikeOutGrad)
      .InferVarType(ComplexGradVarType);
  RegisterPlainCpuFloatKernels<ImagGradKernel>("imag_grad");

  framework::RegisterOp<PartsOp, PartsOpMaker<kAnyX, kSameOut, kConjDoc>>("conj")
      .InferShape(SameShapeInferShape)
      .InferVarType(OutputOfType(ComplexMap::kSame))
      .GradOpMaker(ConjGrad);
  RegisterPlainCpuKernels<ConjKernel, float, double, C64, C128>("conj");

  const framework::FusedGradDecl angle_grad{
      {"X"}, {"Out"}, {"X"}, "$$dX = dOut \\cdot \\frac{-b + i a}{a^2 + b^2}$$ (X = a + ib)"};
  framework::RegisterOp<PartsOp, PartsOpMaker<kAnyX, kAngleOut, kAngleDoc>>("angle")
      .InferShape(SameShapeInferShape)
      .InferVarType(OutputOfType(ComplexMap::kParts))
      .GradOpMaker(framework::FusedGradMaker(angle_grad));
  RegisterPlainCpuKernels<AngleKernel, float, double, C64, C128>("angle");
  framework::RegisterFusedGradOp("angle", angle_grad).InferShape(GradLikeOutGrad);
  // X@GRAD takes X's type (complex for a complex X), the default: X is the first input read.
  RegisterPlainCpuKernels<AngleGradKernel, float, double, C64, C128>("angle_grad");

  framework::RegisterOp<PartsOp, PartsOpMaker<kAsComplexX, kAsComplexOut, kAsComplexDoc>>(
      "as_complex")
      .InferShape(AsComplexInferShape)
      .InferVarType(OutputOfType(ComplexMap::kComplex))
      .GradOpMaker(AsComplexGrad);
  RegisterPlainCpuFloatKernels<AsComplexKernel>("as_complex");

  framework::RegisterOp<PartsOp, PartsOpMaker<kComplexX, kAsRealOut, kAsRealDoc>>("as_real")
      .InferShape(AsRealInferShape)
      .InferVarType(OutputOfType(ComplexMap::kParts))
      .GradOpMaker(AsRealGrad);
  RegisterPlainCpuKernels<AsRealKernel, C64, C128>("as_real");

  const framework::FusedGradDecl complex_grad{
      {"X", "Y"},
      {"Out"},
      {"X", "Y"},
      "$$dX = \\mathrm{Re}(dOut), \\quad dY = \\mathrm{Im}(dOut)$$ (summed over broadcast dims)",
      {"X", "Y"}};
  framework::RegisterOp<PartsOp, ComplexOpMaker>("complex")
      .InferShape(ComplexInferShape)
      .InferVarType(OutputOfType(ComplexMap::kComplex))
      .GradOpMaker(framework::FusedGradMaker(complex_grad));
  RegisterPlainCpuFloatKernels<ComplexKernel>("complex");
  framework::RegisterFusedGradOp("complex", complex_grad)
      .InferShape(ComplexGradInferShape)
      .InferVarType(ComplexGradVarTypeReal);
  RegisterPlainCpuKernels<ComplexGradKernel, C64, C128>("complex_grad");
}

}  // namespace operators
}  // namespace paddle_like
