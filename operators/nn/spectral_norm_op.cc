// spectral_norm (paddle.nn.SpectralNorm): a weight divided by its largest singular value as
// estimated by power iteration from the vectors U and V; with a fused backward. Runs in
// double.
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

constexpr char kOp[] = "spectral_norm";

class SpectralNormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Weight", "The weight, rank >= 2.");
    AddInput("U", "[h]: the left vector to start from, h = Weight's dim `dim`.");
    AddInput("V", "[w]: the right vector to start from, w = the product of the other dims.");
    AddOutput("Out", "Weight's shape: Weight / sigma.");
    AddAttr<int>("dim", "The dim of Weight that gives the matrix's rows.").SetDefault(0);
    AddAttr<int>("power_iters", "Power iterations before sigma (>= 0).").SetDefault(1);
    AddAttr<float>("eps", "Added to the norms that normalize U and V.").SetDefault(1e-12f);
    AddComment(R"DOC(
Spectral normalization. W is Weight as an h x w matrix (dim `dim` moved first, the rest
flattened); U and V are read, not updated. power_iters times:
$$v = W^T u / (\|W^T u\|_2 + \epsilon), \quad u = W v / (\|W v\|_2 + \epsilon)$$
then $$\sigma = u^T W v, \quad Out = Weight / \sigma$$

Gradient, by the fused op spectral_norm_grad, with u and v (after the iterations) held
constant: $$dW = dOut / \sigma - \frac{\sum dOut \odot W}{\sigma^2} \, u v^T$$
)DOC");
  }
};

class SpectralNormOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Weight");
  }
};

// Weight as [outer, h, inner] around `dim`: the matrix's row i and column a * inner + b hold
// Weight[a, i, b].
struct WeightMatrix {
  int64_t outer = 1, h = 1, inner = 1;
  int64_t w() const { return outer * inner; }
};

template <typename Context>
WeightMatrix AsMatrix(const std::string& op, const DDim& weight, const DDim& u, const DDim& v,
                      const Context& ctx) {
  const int rank = weight.size(), dim = ctx.template Attr<int>("dim");
  PL_ENFORCE(rank >= 2, errors::InvalidArgument("op `%s` input `Weight`: expected rank >= 2, "
                                                "received %s",
                                                op, weight.ToString()));
  PL_ENFORCE(dim >= 0 && dim < rank,
             errors::InvalidArgument("op `%s` attribute `dim`: expected a value in [0, %d) for "
                                     "Weight of shape %s, received %d",
                                     op, rank, weight.ToString(), dim));
  PL_ENFORCE(ctx.template Attr<int>("power_iters") >= 0,
             errors::InvalidArgument("op `%s` attribute `power_iters`: expected >= 0, received %d",
                                     op, ctx.template Attr<int>("power_iters")));
  WeightMatrix m;
  m.outer = framework::Product(weight, 0, dim);
  m.h = weight[dim];
  m.inner = framework::Product(weight, dim + 1, rank);
  const bool known = m.h >= 0 && m.outer >= 0 && m.inner >= 0;
  const auto check = [&](const char* slot, const DDim& d, int64_t want, const char* what) {
    PL_ENFORCE(d.size() == 1 && (!known || d[0] < 0 || d[0] == want),
               errors::InvalidArgument("op `%s` input `%s`: expected shape [%lld] (%s of Weight "
                                       "%s with dim %d), received %s",
                                       op, slot, static_cast<long long>(want), what,
                                       weight.ToString(), dim, d.ToString()));
  };
  check("U", u, m.h, "the rows");
  check("V", v, m.w(), "the columns");
  return m;
}

void SpectralNormInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Weight", "U", "V"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim weight = ctx->GetInputDim("Weight");
  AsMatrix(ctx->OpType(), weight, ctx->GetInputDim("U"), ctx->GetInputDim("V"), *ctx);
  ctx->SetOutputDim("Out", weight);
}

// sigma, with u and v as the power iterations leave them.
struct Spectrum {
  double sigma = 0;
  std::vector<double> u, v;
};

template <typename T>
Spectrum PowerIterate(const ExecutionContext& ctx, const WeightMatrix& m) {
  const T* w = ctx.Input("Weight")->data<T>();
  const T* u0 = ctx.Input("U")->data<T>();
  const T* v0 = ctx.Input("V")->data<T>();
  const double eps = ctx.Attr<float>("eps");
  Spectrum s;
  s.u.assign(u0, u0 + m.h);
  s.v.assign(v0, v0 + m.w());
  // y = W x (rows) or W^T x (columns), over the [outer, h, inner] layout.
  const auto times = [&](const std::vector<double>& x, bool transposed) {
    std::vector<double> y(static_cast<size_t>(transposed ? m.w() : m.h), 0.0);
    for (int64_t a = 0; a < m.outer; ++a) {
      for (int64_t i = 0; i < m.h; ++i) {
        for (int64_t b = 0; b < m.inner; ++b) {
          const double e = w[(a * m.h + i) * m.inner + b];
          const int64_t col = a * m.inner + b;
          if (transposed) {
            y[col] += e * x[i];
          } else {
            y[i] += e * x[col];
          }
        }
      }
    }
    return y;
  };
  const auto normalized = [eps](std::vector<double> x) {
    double norm = 0;
    for (double e : x) norm += e * e;
    norm = std::sqrt(norm) + eps;
    for (double& e : x) e /= norm;
    return x;
  };
  for (int it = 0; it < ctx.Attr<int>("power_iters"); ++it) {
    s.v = normalized(times(s.u, true));
    s.u = normalized(times(s.v, false));
  }
  const std::vector<double> wv = times(s.v, false);
  for (int64_t i = 0; i < m.h; ++i) s.sigma += s.u[i] * wv[i];
  return s;
}

template <typename T>
struct SpectralNormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* weight = ctx.Input("Weight");
    const WeightMatrix m =
        AsMatrix(ctx.Type(), weight->dims(), ctx.Input("U")->dims(), ctx.Input("V")->dims(), ctx);
    const Spectrum s = PowerIterate<T>(ctx, m);
    DenseTensor out(weight->dims(), weight->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* w = weight->data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = static_cast<T>(w[i] / s.sigma);
    *ctx.Output("Out") = std::move(out);
  }
};

void SpectralNormGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Weight");
  if (ctx->HasOutput("Weight@GRAD")) ctx->SetOutputDim("Weight@GRAD", ctx->GetInputDim("Weight"));
}

template <typename T>
struct SpectralNormGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* weight = ctx.Input("Weight");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const WeightMatrix m =
        AsMatrix(ctx.Type(), weight->dims(), ctx.Input("U")->dims(), ctx.Input("V")->dims(), ctx);
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Weight", weight->dims());
    const Spectrum s = PowerIterate<T>(ctx, m);
    const T* w = weight->data<T>();
    const T* g = dout->data<T>();
    double dot = 0;
    for (int64_t i = 0; i < weight->numel(); ++i) dot += double(g[i]) * double(w[i]);
    const double c = dot / (s.sigma * s.sigma);
    DenseTensor grad(weight->dims(), weight->dtype());
    T* d = grad.mutable_data<T>(ctx.GetPlace());
    for (int64_t a = 0; a < m.outer; ++a) {
      for (int64_t i = 0; i < m.h; ++i) {
        for (int64_t b = 0; b < m.inner; ++b) {
          const int64_t e = (a * m.h + i) * m.inner + b;
          d[e] = static_cast<T>(g[e] / s.sigma - c * s.u[i] * s.v[a * m.inner + b]);
        }
      }
    }
    *ctx.Output("Weight@GRAD") = std::move(grad);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSpectralNormOp) {
  const framework::FusedGradDecl grad{
      {"Weight", "U", "V"},
      {"Out"},
      {"Weight"},
      R"DOC($$dW = dOut / \sigma - \frac{\sum dOut \odot W}{\sigma^2} u v^T$$ (u, v after the
power iterations, held constant))DOC"};
  framework::RegisterOp<SpectralNormOp, SpectralNormOpMaker>(kOp)
      .InferShape(SpectralNormInferShape)
      .InferVarType(OutputDataTypeOf("Weight", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<SpectralNormKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(SpectralNormGradInferShape);
  RegisterPlainCpuFloatKernels<SpectralNormGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
