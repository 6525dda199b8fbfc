// fft_c2c, fft_r2c and fft_c2r: PaddlePaddle's discrete Fourier transform ops (paddle.fft,
// and the STFT of paddle.signal.stft) over any set of axes, with the three normalizations;
// each with a fused backward (the adjoint transform). Kernels for float32 / complex64 and
// float64 / complex128; the transforms themselves run in double precision (fft_util.h).
#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/complex/complex_var_types.h"
#include "operators/fft/fft_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

using fft::Complex;

// The attributes of every transform op.
class TransformOpMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddTransformAttrs(bool forward_by_default) {
    AddAttr<std::vector<int64_t>>("axes", "The axes transformed (negative: from the end).");
    AddAttr<std::string>("normalization",
                         "backward (the inverse divides by n), forward (the forward divides by "
                         "n) or ortho (both by sqrt(n)); n: the points over all `axes`.")
        .SetDefault("backward")
        .InEnum({"backward", "forward", "ortho"});
    AddAttr<bool>("forward", "The forward transform (exponent sign -), else the inverse (+).")
        .SetDefault(forward_by_default);
  }
};

class FftC2COpMaker : public TransformOpMaker {
 public:
  void Make() override {
    AddInput("X", "Complex input (complex64 or complex128).");
    AddOutput("Out", "Its transform: X's shape and type.");
    AddTransformAttrs(true);
    AddComment(R"DOC(
Complex-to-complex discrete Fourier transform over `axes` (one axis shown; several compose):
$$Out[k] = c \sum_{t=0}^{n-1} X[t] \, e^{\mp 2 \pi i k t / n}$$
with the sign - for `forward`, and c the normalization's scale (1, 1/n or 1/sqrt(n)).

Gradient, by the fused op fft_c2c_grad: the adjoint transform, the same scale and the
opposite sign, $$dX = c \sum_k dOut[k] \, e^{\pm 2 \pi i k t / n}$$.
)DOC");
  }
};

class FftR2COpMaker : public TransformOpMaker {
 public:
  void Make() override {
    AddInput("X", "Real input (float32 or float64).");
    AddOutput("Out",
              "Its transform, complex of X's precision: X's shape, or with `onesided` the last "
              "of `axes` n / 2 + 1 long.");
    AddTransformAttrs(true);
    AddAttr<bool>("onesided",
                  "Keep only the non-redundant half, k <= n / 2, of the last axis of `axes` "
                  "(the rest are the conjugates of those).")
        .SetDefault(true);
    AddComment(R"DOC(
Real-to-complex discrete Fourier transform over `axes`: X is read as complex with zero
imaginary parts,
$$Out[k] = c \sum_{t=0}^{n-1} X[t] \, e^{\mp 2 \pi i k t / n}$$
(sign - for `forward`, c the normalization's scale), keeping k <= n / 2 on the last axis
with `onesided`.

Gradient, by the fused op fft_r2c_grad: dOut padded with zeros to n on the last axis,
transformed back, and its real part: $$dX = \mathrm{Re}\Big(c \sum_k dOut[k] \, e^{\pm 2 \pi
i k t / n}\Big)$$.
)DOC");
  }
};

class FftC2ROpMaker : public TransformOpMaker {
 public:
  void Make() override {
    AddInput("X",
             "Complex input (complex64 or complex128): on the last of `axes`, the half "
             "spectrum k <= n / 2 of a Hermitian-symmetric signal.");
    AddOutput("Out", "The real signal, of X's precision: X's shape, the last of `axes` n long.");
    AddTransformAttrs(false);
    AddAttr<int64_t>("last_dim_size",
                     "n, the output's length on the last of `axes`; 0: 2 (m - 1), m being "
                     "X's length there.")
        .SetDefault(0);
    AddComment(R"DOC(
Complex-to-real discrete Fourier transform: complex transforms over all of `axes` but the
last, then over the last one the Hermitian extension of the half spectrum X[0 .. n/2]
(X[n - k] = conj(X[k]); entries past n / 2 are not read, missing ones are 0; the imaginary
parts of X[0] and, for even n, X[n/2] do not count):
$$Out[t] = c \sum_{k=0}^{n-1} X[k] \, e^{\pm 2 \pi i k t / n}$$
(sign - for `forward`, c the normalization's scale over the output's points).

Gradient, by the fused op fft_c2r_grad: the real-to-complex transform of dOut with the
opposite sign, cut to X's length, the entries that stand for two (1 <= k <= (n - 1) / 2)
doubled: $$dX[k] = (1 + [1 \le k \le (n-1)/2]) \, c \sum_t dOut[t] \, e^{\mp 2 \pi i k t / n}$$.
)DOC");
  }
};

// The complex type of X or Out@GRAD picks the kernel (OperatorWithKernel::IndicateDataType).
class FftOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

struct TransformAttrs {
  std::vector<int> axes;
  std::string normalization;
  bool forward = true;
};

// `attrs`: the op (OperatorBase) or its shape-inference context, both with Attr<T>(name).
template <typename Attrs>
TransformAttrs ReadAttrs(const std::string& op, const Attrs& attrs, int rank) {
  TransformAttrs a;
  a.axes = fft::CheckedAxes(op, attrs.template Attr<std::vector<int64_t>>("axes"), rank);
  a.normalization = attrs.template Attr<std::string>("normalization");
  a.forward = attrs.template Attr<bool>("forward");
  return a;
}

// The dims of fft_r2c's Out for X `x`.
template <typename Attrs>
DDim R2COutDims(const std::string& op, const DDim& x, const Attrs& attrs) {
  const TransformAttrs a = ReadAttrs(op, attrs, x.size());
  DDim out = x;
  const int last = a.axes.back();
  if (attrs.template Attr<bool>("onesided") && x[last] >= 0) out[last] = x[last] / 2 + 1;
  return out;
}

// fft_c2r's n (the output's length on the last axis) for X `x`; -1 while unknown.
template <typename Attrs>
int64_t C2RLength(const std::string& op, const DDim& x, const Attrs& attrs) {
  const TransformAttrs a = ReadAttrs(op, attrs, x.size());
  const int64_t given = attrs.template Attr<int64_t>("last_dim_size");
  PL_ENFORCE(given >= 0, errors::InvalidArgument(
                             "op `%s` attribute `last_dim_size`: expected >= 0, received %lld", op,
                             static_cast<long long>(given)));
  if (given > 0) return given;
  const int64_t m = x[a.axes.back()];
  if (m < 0) return -1;
  PL_ENFORCE(m >= 2, errors::InvalidArgument(
                         "op `%s` input `X`: with `last_dim_size` 0 the last transformed axis "
                         "(%d) must be 2 or more long to give 2 (m - 1) points, X is %s",
                         op, a.axes.back(), x.ToString()));
  return 2 * (m - 1);
}

void C2CInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  ReadAttrs(ctx->OpType(), *ctx, x.size());
  ctx->SetOutputDim("Out", x);
}

void R2CInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", R2COutDims(ctx->OpType(), ctx->GetInputDim("X"), *ctx));
}

void C2RInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  DDim out = x;
  out[ReadAttrs(ctx->OpType(), *ctx, x.size()).axes.back()] = C2RLength(ctx->OpType(), x, *ctx);
  ctx->SetOutputDim("Out", out);
}

void GradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Out@GRAD");
  if (!ctx->HasOutput("X@GRAD")) return;
  ctx->SetOutputDim("X@GRAD",
                    ctx->HasInput("X") ? ctx->GetInputDim("X") : ctx->GetInputDim("Out@GRAD"));
}

// X@GRAD of X's (real) type, not Out@GRAD's complex one.
void OutputGradOfInputType(framework::VarTypeInferenceContext* ctx) {
  if (!ctx->HasOutput("X@GRAD")) return;
  ctx->SetOutputKind("X@GRAD", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("X@GRAD", ctx->GetInputDataType("X"));
}

// A tensor's values as complex<double>, and back.
template <typename T>
std::vector<Complex> Widened(const DenseTensor& t) {
  if (t.numel() == 0) return {};
  const T* p = t.data<T>();
  std::vector<Complex> out(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) out[i] = Complex(p[i]);
  return out;
}
template <typename T>
void Narrow(const std::vector<Complex>& v, T* out) {
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<T>(v[i]);
}
template <typename T>
void NarrowReal(const std::vector<Complex>& v, T* out) {
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<T>(v[i].real());
}

// ---------------------------------------------------------------- fft_c2c

template <typename T>  // T: float or double; the tensors hold std::complex<T>.
void C2C(const ExecutionContext& ctx, const DenseTensor& x, const TransformAttrs& a, bool forward,
         DenseTensor* out) {
  using C = std::complex<T>;
  std::vector<Complex> v = Widened<C>(x);
  const double scale = fft::NormalizationScale(ctx.Type(), a.normalization, a.forward,
                                               fft::PointsOf(x.dims(), a.axes));
  fft::TransformAxes(ctx.device_context<platform::CPUDeviceContext>(), v.data(), x.dims(), a.axes,
                     forward, scale);
  DenseTensor o(x.dims(), platform::ToDataType<C>());
  Narrow(v, o.mutable_data<C>(ctx.GetPlace()));
  *out = std::move(o);
}

template <typename C>
struct FftC2CKernel {
  static void Compute(const ExecutionContext& ctx) {
    using T = typename C::value_type;
    const DenseTensor* x = ctx.Input("X");
    const TransformAttrs a = ReadAttrs(ctx.Type(), ctx.op(), x->dims().size());
    C2C<T>(ctx, *x, a, a.forward, ctx.Output("Out"));
  }
};

template <typename C>
struct FftC2CGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    using T = typename C::value_type;
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const TransformAttrs a = ReadAttrs(ctx.Type(), ctx.op(), dout->dims().size());
    C2C<T>(ctx, *dout, a, !a.forward, ctx.Output("X@GRAD"));
  }
};

// ---------------------------------------------------------------- fft_r2c

template <typename T>
struct FftR2CKernel {
  static void Compute(const ExecutionContext& ctx) {
    using C = std::complex<T>;
    const DenseTensor* x = ctx.Input("X");
    const TransformAttrs a = ReadAttrs(ctx.Type(), ctx.op(), x->dims().size());
    std::vector<Complex> v = Widened<T>(*x);
    const double scale = fft::NormalizationScale(ctx.Type(), a.normalization, a.forward,
                                                 fft::PointsOf(x->dims(), a.axes));
    fft::TransformAxes(ctx.device_context<platform::CPUDeviceContext>(), v.data(), x->dims(),
                       a.axes, a.forward, scale);
    const DDim out_dims = R2COutDims(ctx.Type(), x->dims(), ctx.op());
    DenseTensor out(out_dims, platform::ToDataType<C>());
    C* o = out.mutable_data<C>(ctx.GetPlace());
    if (out_dims == x->dims()) {
      Narrow(v, o);
    } else {
      std::vector<Complex> half(out_dims.numel());
      fft::ResizeAxis(v.data(), x->dims(), half.data(), out_dims, a.axes.back());
      Narrow(half, o);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

// dX = Re(adjoint transform of dOut padded to X's length on the last axis).
template <typename C>
struct FftR2CGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    using T = typename C::value_type;
    const DenseTensor* x = ctx.Input("X");  // Its dims only.
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const TransformAttrs a = ReadAttrs(ctx.Type(), ctx.op(), x->dims().size());
    const DDim want = R2COutDims(ctx.Type(), x->dims(), ctx.op());
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", want);
    const std::vector<Complex> g = Widened<C>(*dout);
    std::vector<Complex> full(x->dims().numel());
    fft::ResizeAxis(g.data(), want, full.data(), x->dims(), a.axes.back());
    const double scale = fft::NormalizationScale(ctx.Type(), a.normalization, a.forward,
                                                 fft::PointsOf(x->dims(), a.axes));
    fft::TransformAxes(ctx.device_context<platform::CPUDeviceContext>(), full.data(), x->dims(),
                       a.axes, !a.forward, scale);
    DenseTensor dx(x->dims(), platform::ToDataType<T>());
    NarrowReal(full, dx.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// ---------------------------------------------------------------- fft_c2r

template <typename C>
struct FftC2RKernel {
  static void Compute(const ExecutionContext& ctx) {
    using T = typename C::value_type;
    const DenseTensor* x = ctx.Input("X");
    const DDim& xd = x->dims();
    const TransformAttrs a = ReadAttrs(ctx.Type(), ctx.op(), xd.size());
    const int last = a.axes.back();
    const int64_t n = C2RLength(ctx.Type(), xd, ctx.op());
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    // The other axes first, on X's half spectrum.
    std::vector<Complex> v = Widened<C>(*x);
    const std::vector<int> others(a.axes.begin(), a.axes.end() - 1);
    fft::TransformAxes(dev, v.data(), xd, others, a.forward, 1.0);
    // Then the Hermitian extension of each line of the last axis, transformed whole.
    DDim od = xd;
    od[last] = n;
    std::vector<Complex> full(od.numel());
    fft::ResizeAxis(v.data(), xd, full.data(), od, last);
    const int64_t inner = framework::Product(od, last + 1, od.size());
    const int64_t lines = n > 0 ? od.numel() / n : 0;
    for (int64_t line = 0; line < lines; ++line) {
      Complex* base = full.data() + (line / inner) * n * inner + line % inner;
      for (int64_t k = n / 2 + 1; k < n; ++k) base[k * inner] = std::conj(base[(n - k) * inner]);
    }
    const double scale =
        fft::NormalizationScale(ctx.Type(), a.normalization, a.forward, fft::PointsOf(od, a.axes));
    fft::TransformAxes(dev, full.data(), od, {last}, a.forward, scale);
    DenseTensor out(od, platform::ToDataType<T>());
    NarrowReal(full, out.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("Out") = std::move(out);
  }
};

// dX: the transform of dOut with the opposite sign over every axis, cut to X's length on the
// last one, the entries 1 <= k <= (n - 1) / 2 doubled (each stands for itself and its
// conjugate), the entries past n / 2 zero (not read by the forward op).
template <typename C>  // Keyed by X's complex type; Out@GRAD is real.
struct FftC2RGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    using T = typename C::value_type;
    const DenseTensor* x = ctx.Input("X");  // Its dims only.
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const DDim& xd = x->dims();
    const TransformAttrs a = ReadAttrs(ctx.Type(), ctx.op(), xd.size());
    const int last = a.axes.back();
    DDim od = xd;
    od[last] = C2RLength(ctx.Type(), xd, ctx.op());
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", od);
    const int64_t n = od[last];
    std::vector<Complex> g = Widened<T>(*dout);
    const double scale =
        fft::NormalizationScale(ctx.Type(), a.normalization, a.forward, fft::PointsOf(od, a.axes));
    fft::TransformAxes(ctx.device_context<platform::CPUDeviceContext>(), g.data(), od, a.axes,
                       !a.forward, scale);
    std::vector<Complex> dx(xd.numel());
    fft::ResizeAxis(g.data(), od, dx.data(), xd, last);
    const int64_t m = xd[last];
    const int64_t inner = framework::Product(xd, last + 1, xd.size());
    const int64_t lines = m > 0 ? xd.numel() / m : 0;
    for (int64_t line = 0; line < lines; ++line) {
      Complex* base = dx.data() + (line / inner) * m * inner + line % inner;
      for (int64_t k = 1; k < m; ++k) {
        if (k <= (n - 1) / 2) {
          base[k * inner] *= 2.0;
        } else if (k > n / 2) {
          base[k * inner] = Complex(0);
        }
      }
    }
    DenseTensor out(xd, platform::ToDataType<C>());
    Narrow(dx, out.mutable_data<C>(ctx.GetPlace()));
    *ctx.Output("X@GRAD") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFftOps) {
  using C64 = std::complex<float>;
  using C128 = std::complex<double>;

  const framework::FusedGradDecl c2c_grad{
      {}, {"Out"}, {"X"}, R"DOC($$dX = c \sum_k dOut[k] \, e^{\pm 2 \pi i k t / n}$$)DOC"};
  framework::RegisterOp<FftOp, FftC2COpMaker>("fft_c2c")
      .InferShape(C2CInferShape)
      .InferVarType(OutputOfType(ComplexMap::kComplex))
      .GradOpMaker(framework::FusedGradMaker(c2c_grad));
  RegisterPlainCpuKernels<FftC2CKernel, C64, C128>("fft_c2c");
  framework::RegisterFusedGradOp("fft_c2c", c2c_grad).InferShape(GradInferShape);
  RegisterPlainCpuKernels<FftC2CGradKernel, C64, C128>("fft_c2c_grad");

  const framework::FusedGradDecl r2c_grad{
      {"X"},
      {"Out"},
      {"X"},
      R"DOC($$dX = \mathrm{Re}\Big(c \sum_k dOut[k] \, e^{\pm 2 \pi i k t / n}\Big)$$
(dOut zero-padded to n on the last axis))DOC",
      {"X"}};
  framework::RegisterOp<FftOp, FftR2COpMaker>("fft_r2c")
      .InferShape(R2CInferShape)
      .InferVarType(OutputOfType(ComplexMap::kComplex))
      .GradOpMaker(framework::FusedGradMaker(r2c_grad));
  RegisterPlainCpuFloatKernels<FftR2CKernel>("fft_r2c");
  framework::RegisterFusedGradOp("fft_r2c", r2c_grad)
      .InferShape(GradInferShape)
      .InferVarType(OutputGradOfInputType);
  RegisterPlainCpuKernels<FftR2CGradKernel, C64, C128>("fft_r2c_grad");

  const framework::FusedGradDecl c2r_grad{
      {"X"},
      {"Out"},
      {"X"},
      R"DOC($$dX[k] = (1 + [1 \le k \le (n-1)/2]) \, c \sum_t dOut[t] \,
e^{\mp 2 \pi i k t / n}$$)DOC",
      {"X"}};
  framework::RegisterOp<FftOp, FftC2ROpMaker>("fft_c2r")
      .InferShape(C2RInferShape)
      .InferVarType(OutputOfType(ComplexMap::kParts))
      .GradOpMaker(framework::FusedGradMaker(c2r_grad));
  RegisterPlainCpuKernels<FftC2RKernel, C64, C128>("fft_c2r");
  framework::RegisterFusedGradOp("fft_c2r", c2r_grad).InferShape(GradInferShape);
  RegisterPlainCpuKernels<FftC2RGradKernel, C64, C128>("fft_c2r_grad");
}

}  // namespace operators
}  // namespace paddle_like
