// poisson, standard_gamma, dirichlet, binomial and exponential: samples of the Poisson, gamma,
// Dirichlet, binomial and exponential distributions with per-element parameters
// (paddle.poisson, paddle.standard_gamma, paddle.distribution.Dirichlet's sample,
// paddle.binomial, Tensor.exponential_). Like the other random ops they draw from RandomSource
// (random_transforms.h) in element order on one thread, seeded with platform::ResolveSeed, and
// the samplers are written out here so that a seed gives the same values with every C++
// library:
// - Poisson: multiplication of uniforms (Knuth) for a rate below 10, else Hoermann's
//   transformed rejection with squeeze (PTRS, 1993);
// - gamma: Marsaglia and Tsang's method (2000) for a shape >= 1, and for a shape a < 1 a
//   sample of shape a + 1 times U^(1 / a);
// - Dirichlet: one gamma sample per concentration, divided by their sum;
// - binomial: inversion for n min(p, 1 - p) < 10, else Hoermann's BTRS (1993), with p
//   replaced by 1 - p above 1/2;
// - exponential: inversion, -log(U) / lambda with U uniform in (0, 1].
// A parameter outside its domain (or NaN) is an InvalidArgumentError naming the op, the slot
// and the element. No gradients flow through them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/random/random_transforms.h"
#include "platform/random.h"

namespace paddle_like {
namespace operators {

namespace {

// A uniform in (0, 1]: its logarithm is finite.
double OpenUniform(RandomSource* source) { return 1.0 - source->Uniform(); }

int64_t SamplePoisson(double rate, RandomSource* source) {
  if (rate == 0) return 0;
  if (rate < 10) {
    const double limit = std::exp(-rate);
    int64_t k = 0;
    double product = source->Uniform();
    while (product > limit) {
      ++k;
      product *= source->Uniform();
    }
    return k;
  }
  const double root = std::sqrt(rate), log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * root;
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2);
  while (true) {
    const double u = source->Uniform() - 0.5;
    const double v = source->Uniform();
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<int64_t>(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
        -rate + k * log_rate - std::lgamma(k + 1)) {
      return static_cast<int64_t>(k);
    }
  }
}

double SampleGamma(double shape, RandomSource* source) {
  if (shape < 1) {
    return SampleGamma(shape + 1, source) * std::pow(OpenUniform(source), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    const double x = source->Normal();
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = OpenUniform(source);
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

// log of SampleGamma's sample, from the same draws: for a shape below 1 the factor
// U^(1 / a) is added as log(U) / a, which does not underflow as the product can.
double LogSampleGamma(double shape, RandomSource* source) {
  if (shape >= 1) return std::log(SampleGamma(shape, source));
  const double base = std::log(SampleGamma(shape + 1, source));
  return base + std::log(OpenUniform(source)) / shape;
}

int64_t SampleBinomial(int64_t n, double p, RandomSource* source) {
  if (n == 0 || p == 0) return 0;
  if (p == 1) return n;
  const bool flipped = p > 0.5;
  const double pp = flipped ? 1 - p : p, q = 1 - pp;
  int64_t k = 0;
  if (static_cast<double>(n) * pp < 10) {
    // Inversion: walk the probabilities P(0), P(1), ... until they pass a uniform.
    const double s = pp / q, a = static_cast<double>(n + 1) * s;
    double r = std::pow(q, static_cast<double>(n));
    double u = source->Uniform();
    while (u > r && k < n) {
      u -= r;
      ++k;
      r *= a / static_cast<double>(k) - s;
    }
  } else {
    const double nd = static_cast<double>(n);
    const double spq = std::sqrt(nd * pp * q);
    const double b = 1.15 + 2.53 * spq;
    const double a = -0.0873 + 0.0248 * b + 0.01 * pp;
    const double c = nd * pp + 0.5;
    const double vr = 0.92 - 4.2 / b;
    const double alpha = (2.83 + 5.1 / b) * spq;
    const double lpq = std::log(pp / q);
    const double m = std::floor((nd + 1) * pp);
    const double h = std::lgamma(m + 1) + std::lgamma(nd - m + 1);
    while (true) {
      const double u = source->Uniform() - 0.5;
      double v = source->Uniform();
      const double us = 0.5 - std::abs(u);
      const double kd = std::floor((2 * a / us + b) * u + c);
      if (kd < 0 || kd > nd) continue;
      if (us >= 0.07 && v <= vr) {
        k = static_cast<int64_t>(kd);
        break;
      }
      v = std::log(v * alpha / (a / (us * us) + b));
      if (v <= h - std::lgamma(kd + 1) - std::lgamma(nd - kd + 1) + (kd - m) * lpq) {
        k = static_cast<int64_t>(kd);
        break;
      }
    }
  }
  return flipped ? n - k : k;
}

// Checks element i of parameter `slot`: `ok` or an InvalidArgumentError naming the domain.
void CheckParameter(const ExecutionContext& ctx, const char* slot, bool ok, double value, int64_t i,
                    const char* domain) {
  PL_ENFORCE(ok,
             errors::InvalidArgument("op `%s` input `%s`: expected %s, received %g at "
                                     "element %lld",
                                     ctx.Type(), slot, domain, value, static_cast<long long>(i)));
}

class PoissonOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Rates (>= 0), any shape.");
    AddOutput("Out", "X's shape and dtype: one Poisson sample per rate.");
    AddComment(R"DOC(
Poisson operator, elementwise:

$$P(Out_i = k) = \frac{X_i^k e^{-X_i}}{k!}, \quad k = 0, 1, \dots$$

No gradient.
)DOC");
  }
};

class StandardGammaOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "Shapes (> 0), any shape.");
    AddOutput("out", "x's shape and dtype: one sample of Gamma(x_i, 1) per shape.");
    AddComment(R"DOC(
Standard gamma operator (PaddlePaddle's slots in lower case), elementwise:

$$p(out_i = y) = \frac{y^{x_i - 1} e^{-y}}{\Gamma(x_i)}, \quad y > 0$$

No gradient.
)DOC");
  }
};

class DirichletOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Alpha", "Concentrations (> 0) [..., K]: one distribution per row.");
    AddOutput("Out", "Alpha's shape and dtype: one sample per row, on the simplex.");
    AddComment(R"DOC(
Dirichlet operator: for each row alpha of the last axis, a sample of Dir(alpha),

$$Out_i = \frac{G_i}{\sum_j G_j}, \quad G_i \sim \mathrm{Gamma}(\alpha_i, 1)$$

No gradient.
)DOC");
  }
};

class ExponentialOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Any tensor: Out takes its shape and dtype (its values are not read).");
    AddOutput("Out", "X's shape and dtype: samples of Exp(lambda).");
    AddAttr<float>("lambda", "The rate (> 0).").SetDefault(1.0f).GreaterThan(0.0f);
    AddComment(R"DOC(
Exponential operator (Tensor.exponential_ writes Out over X):

$$p(Out_i = y) = \lambda e^{-\lambda y}, \quad y \ge 0$$

No gradient.
)DOC");
  }
};

class BinomialOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("count", "Numbers of trials (int32 or int64, >= 0).");
    AddInput("prob", "Success probabilities in [0, 1], count's shape (float or double).");
    AddOutput("out", "int64, count's shape: successes in count_i trials.");
    AddComment(R"DOC(
Binomial operator (PaddlePaddle's slots in lower case), elementwise:

$$P(out_i = k) = \binom{count_i}{k} prob_i^k (1 - prob_i)^{count_i - k}$$

No gradient.
)DOC");
  }
};

class SamplingOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

class BinomialOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "prob");
  }
};

void SameShapeInOut(InferShapeContext* ctx, const char* in, const char* out) {
  ctx->RequireInput(in);
  ctx->RequireOutput(out);
  ctx->SetOutputDim(out, ctx->GetInputDim(in));
}

void BinomialInferShape(InferShapeContext* ctx) {
  SameShapeInOut(ctx, "count", "out");
  ctx->RequireInput("prob");
  CheckSameShape(ctx->OpType(), "prob", ctx->GetInputDim("prob"), "count",
                 ctx->GetInputDim("count"));
}

void BinomialInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("out", DataType::INT64);
}

template <typename T>
struct PoissonKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const T* rate = x->data<T>();
    for (int64_t i = 0; i < x->numel(); ++i) {
      CheckParameter(ctx, "X", rate[i] >= T(0) && std::isfinite(static_cast<double>(rate[i])),
                     static_cast<double>(rate[i]), i, "finite rates >= 0");
    }
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    RandomSource source(platform::ResolveSeed(0));
    for (int64_t i = 0; i < x->numel(); ++i) {
      o[i] = static_cast<T>(SamplePoisson(static_cast<double>(rate[i]), &source));
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct StandardGammaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const T* shape = x->data<T>();
    for (int64_t i = 0; i < x->numel(); ++i) {
      CheckParameter(ctx, "x", shape[i] > T(0) && std::isfinite(static_cast<double>(shape[i])),
                     static_cast<double>(shape[i]), i, "finite shapes > 0");
    }
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    RandomSource source(platform::ResolveSeed(0));
    for (int64_t i = 0; i < x->numel(); ++i) {
      o[i] = static_cast<T>(SampleGamma(static_cast<double>(shape[i]), &source));
    }
    *ctx.Output("out") = std::move(out);
  }
};

template <typename T>
struct DirichletKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* alpha = ctx.Input("Alpha");
    PL_ENFORCE(alpha->dims().size() >= 1,
               errors::InvalidArgument("op `%s` input `Alpha`: expected a tensor of rank >= 1 "
                                       "([..., K]), received %s",
                                       ctx.Type(), alpha->dims().ToString()));
    const T* a = alpha->data<T>();
    for (int64_t i = 0; i < alpha->numel(); ++i) {
      CheckParameter(ctx, "Alpha", a[i] > T(0) && std::isfinite(static_cast<double>(a[i])),
                     static_cast<double>(a[i]), i, "finite concentrations > 0");
    }
    DenseTensor out(alpha->dims(), alpha->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const int64_t k = alpha->dims()[alpha->dims().size() - 1];
    RandomSource source(platform::ResolveSeed(0));
    // The gamma samples are normalised in log space: with small concentrations every one of
    // them can underflow, while their ratios stay well defined.
    std::vector<double> log_g(static_cast<size_t>(k));
    for (int64_t row = 0; k > 0 && row < alpha->numel() / k; ++row) {
      double top = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < k; ++j) {
        log_g[j] = LogSampleGamma(static_cast<double>(a[row * k + j]), &source);
        top = std::max(top, log_g[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < k; ++j) sum += std::exp(log_g[j] - top);
      for (int64_t j = 0; j < k; ++j) {
        o[row * k + j] = static_cast<T>(std::exp(log_g[j] - top) / sum);
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct ExponentialKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const double rate = ctx.Attr<float>("lambda");
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    RandomSource source(platform::ResolveSeed(0));
    for (int64_t i = 0; i < x->numel(); ++i) {
      o[i] = static_cast<T>(-std::log(OpenUniform(&source)) / rate);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct BinomialKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* count = ctx.Input("count");
    const DenseTensor* prob = ctx.Input("prob");
    CheckSameShape(ctx.Type(), "prob", prob->dims(), "count", count->dims());
    PL_ENFORCE(count->dtype() == DataType::INT32 || count->dtype() == DataType::INT64,
               errors::InvalidArgument("op `%s` input `count`: expected int32 or int64, "
                                       "received %s",
                                       ctx.Type(), platform::DataTypeName(count->dtype())));
    const T* p = prob->data<T>();
    std::vector<int64_t> n(static_cast<size_t>(count->numel()));
    for (int64_t i = 0; i < count->numel(); ++i) {
      n[i] =
          count->dtype() == DataType::INT32 ? count->data<int32_t>()[i] : count->data<int64_t>()[i];
      CheckParameter(ctx, "count", n[i] >= 0, static_cast<double>(n[i]), i, "counts >= 0");
      CheckParameter(ctx, "prob", p[i] >= T(0) && p[i] <= T(1), static_cast<double>(p[i]), i,
                     "probabilities in [0, 1]");
    }
    DenseTensor out(count->dims(), DataType::INT64);
    int64_t* o = out.mutable_data<int64_t>(ctx.GetPlace());
    RandomSource source(platform::ResolveSeed(0));
    for (int64_t i = 0; i < count->numel(); ++i) {
      o[i] = SampleBinomial(n[i], static_cast<double>(p[i]), &source);
    }
    *ctx.Output("out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterCountGammaSamplingOps) {
  framework::RegisterOp<SamplingOp, PoissonOpMaker>("poisson")
      .InferShape([](InferShapeContext* ctx) { SameShapeInOut(ctx, "X", "Out"); })
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<PoissonKernel>("poisson");
  framework::RegisterOp<SamplingOp, StandardGammaOpMaker>("standard_gamma")
      .InferShape([](InferShapeContext* ctx) { SameShapeInOut(ctx, "x", "out"); })
      .InferVarType(OutputDataTypeOf("x", "out"))
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<StandardGammaKernel>("standard_gamma");
  framework::RegisterOp<BinomialOp, BinomialOpMaker>("binomial")
      .InferShape(BinomialInferShape)
      .InferVarType(BinomialInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<BinomialKernel>("binomial");
  framework::RegisterOp<SamplingOp, DirichletOpMaker>("dirichlet")
      .InferShape([](InferShapeContext* ctx) { SameShapeInOut(ctx, "Alpha", "Out"); })
      .InferVarType(OutputDataTypeOf("Alpha", "Out"))
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<DirichletKernel>("dirichlet");
  framework::RegisterOp<SamplingOp, ExponentialOpMaker>("exponential")
      .InferShape([](InferShapeContext* ctx) { SameShapeInOut(ctx, "X", "Out"); })
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<ExponentialKernel>("exponential");
}

}  // namespace operators
}  // namespace paddle_like
