// Sampling ops: randperm (a random permutation), bernoulli (coin flips with given
// probabilities) and multinomial (category draws from given weights). They draw from
// std::mt19937_64 through random_transforms.h in element order on one thread, seeded with
// platform::ResolveSeed: FLAGS_random_seed (or a non-zero `seed`) reproduces them bit for bit.
// No gradients.
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/random/random_transforms.h"
#include "platform/random.h"

namespace paddle_like {
namespace operators {

namespace {

class RandpermOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddOutput("Out", "1-D [n]: a permutation of 0 .. n - 1.");
    AddAttr<int>("n", "How many values (>= 0).").SetDefault(1);
    AddAttr<int>("dtype", "Out's dtype (VarType: 2 int32, 3 int64, 5 float32, 6 float64).")
        .SetDefault(static_cast<int>(DataType::INT64))
        .InEnum({2, 3, 5, 6});
    AddAttr<int>("seed", "Random seed; 0 takes the next seed of the default generator.")
        .SetDefault(0);
    AddComment(R"DOC(
Randperm operator: every ordering of 0 .. n - 1 equally likely (Fisher-Yates),

$$Out = (\pi(0), \dots, \pi(n - 1)), \quad \pi \text{ uniform over the permutations of } n$$
)DOC");
  }
};

class BernoulliOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Probabilities in [0, 1].");
    AddOutput("Out", "X's shape and dtype: 1 with probability X, else 0.");
    AddComment(R"DOC(
Bernoulli operator, elementwise:

$$Out_i = \begin{cases} 1 & u_i < X_i \\ 0 & \text{otherwise} \end{cases}, \quad
u_i \sim U[0, 1)$$

A probability outside [0, 1] (or NaN) is an InvalidArgumentError naming the element.
)DOC");
  }
};

class MultinomialOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[C] or [B, C]: non-negative weights of the C categories (per row).");
    AddOutput("Out", "int64 [num_samples] or [B, num_samples]: the drawn categories.");
    AddAttr<int>("num_samples", "Draws per row (>= 1).").SetDefault(1);
    AddAttr<bool>("replacement",
                  "Draw with replacement; without it a category is drawn at most once.")
        .SetDefault(false);
    AddComment(R"DOC(
Multinomial operator: each draw picks category c of its row with probability

$$P(c) = \frac{X_c}{\sum_k X_k}$$

over the categories still available (all with replacement; those not yet drawn without it).
Weights must be finite and >= 0 with a positive sum; without replacement num_samples may not
exceed the number of categories of positive weight.
)DOC");
  }
};

class SamplingOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

class RandpermOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
};

void RandpermInferShape(InferShapeContext* ctx) {
  ctx->RequireOutput("Out");
  const int n = ctx->Attr<int>("n");
  PL_ENFORCE(n >= 0, errors::InvalidArgument("op `%s` attribute `n`: expected a count >= 0, "
                                             "received %d",
                                             ctx->OpType(), n));
  ctx->SetOutputDim("Out", DDim({n}));
}

void RandpermInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

template <typename T>
struct RandpermKernel {
  static void Compute(const ExecutionContext& ctx) {
    const int n = ctx.Attr<int>("n");
    std::vector<int64_t> perm(static_cast<size_t>(std::max(n, 0)));
    std::iota(perm.begin(), perm.end(), int64_t{0});
    RandomSource source(platform::ResolveSeed(ctx.Attr<int>("seed")));
    for (int64_t i = static_cast<int64_t>(perm.size()) - 1; i > 0; --i) {
      std::swap(perm[i], perm[source.Below(static_cast<uint64_t>(i + 1))]);
    }
    DenseTensor out(DDim({static_cast<int64_t>(perm.size())}), platform::ToDataType<T>());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (size_t i = 0; i < perm.size(); ++i) o[i] = static_cast<T>(perm[i]);
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct BernoulliKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const T* p = x->data<T>();
    for (int64_t i = 0; i < x->numel(); ++i) {
      PL_ENFORCE(p[i] >= T(0) && p[i] <= T(1),
                 errors::InvalidArgument("op `%s` input `X`: expected probabilities in [0, 1], "
                                         "received %g at element %lld",
                                         ctx.Type(), static_cast<double>(p[i]),
                                         static_cast<long long>(i)));
    }
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    RandomSource source(platform::ResolveSeed(0));
    for (int64_t i = 0; i < x->numel(); ++i) {
      o[i] = source.Uniform() < static_cast<double>(p[i]) ? T(1) : T(0);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void MultinomialInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const int samples = ctx->Attr<int>("num_samples");
  PL_ENFORCE(x.size() == 1 || x.size() == 2,
             errors::InvalidArgument("op `%s` input `X`: expected [C] or [B, C], received %s",
                                     ctx->OpType(), x.ToString()));
  PL_ENFORCE(samples >= 1, errors::InvalidArgument("op `%s` attribute `num_samples`: expected a "
                                                   "count >= 1, received %d",
                                                   ctx->OpType(), samples));
  ctx->SetOutputDim("Out", x.size() == 1 ? DDim({samples}) : DDim({x[0], samples}));
}

void MultinomialInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", DataType::INT64);
}

template <typename T>
struct MultinomialKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const int64_t samples = ctx.Attr<int>("num_samples");
    const bool replacement = ctx.Attr<bool>("replacement");
    const int64_t categories = x->dims()[x->dims().size() - 1];
    const int64_t rows = x->dims().size() == 1 ? 1 : x->dims()[0];
    DenseTensor out(x->dims().size() == 1 ? DDim({samples}) : DDim({rows, samples}),
                    DataType::INT64);
    int64_t* o = out.mutable_data<int64_t>(ctx.GetPlace());
    const T* w = x->data<T>();
    RandomSource source(platform::ResolveSeed(0));
    std::vector<double> weight(static_cast<size_t>(categories));
    for (int64_t r = 0; r < rows; ++r) {
      double total = 0;
      int64_t positive = 0;
      for (int64_t c = 0; c < categories; ++c) {
        const double v = static_cast<double>(w[r * categories + c]);
        PL_ENFORCE(std::isfinite(v) && v >= 0,
                   errors::InvalidArgument("op `%s` input `X`: expected finite weights >= 0, "
                                           "received %g in row %lld",
                                           ctx.Type(), v, static_cast<long long>(r)));
        weight[c] = v;
        total += v;
        positive += v > 0;
      }
      PL_ENFORCE(total > 0, errors::InvalidArgument("op `%s` input `X`: expected weights with a "
                                                    "positive sum, row %lld sums to 0",
                                                    ctx.Type(), static_cast<long long>(r)));
      PL_ENFORCE(
          replacement || samples <= positive,
          errors::InvalidArgument("op `%s` attribute `num_samples`: expected at most the "
                                  "%lld categories of positive weight in row %lld (no "
                                  "replacement), received %lld",
                                  ctx.Type(), static_cast<long long>(positive),
                                  static_cast<long long>(r), static_cast<long long>(samples)));
      for (int64_t s = 0; s < samples; ++s) {
        // The first category whose running sum exceeds u * total (the last positive one if
        // rounding leaves u * total at the very top).
        const double target = source.Uniform() * total;
        double running = 0;
        int64_t pick = -1;
        for (int64_t c = 0; c < categories; ++c) {
          if (weight[c] <= 0) continue;
          pick = c;
          running += weight[c];
          if (running > target) break;
        }
        o[r * samples + s] = pick;
        if (!replacement) {
          total -= weight[pick];
          weight[pick] = 0;
          // Recomputed so that rounding in the subtraction cannot accumulate.
          total = std::accumulate(weight.begin(), weight.end(), 0.0);
        }
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSamplingOps) {
  framework::RegisterOp<RandpermOp, RandpermOpMaker>("randperm")
      .InferShape(RandpermInferShape)
      .InferVarType(RandpermInferVarType);
  RegisterPlainCpuNumericKernels<RandpermKernel>("randperm");
  framework::RegisterOp<SamplingOp, BernoulliOpMaker>("bernoulli")
      .InferShape(SameShapeInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"));
  RegisterPlainCpuFloatKernels<BernoulliKernel>("bernoulli");
  framework::RegisterOp<SamplingOp, MultinomialOpMaker>("multinomial")
      .InferShape(MultinomialInferShape)
      .InferVarType(MultinomialInferVarType);
  RegisterPlainCpuFloatKernels<MultinomialKernel>("multinomial");
}

}  // namespace operators
}  // namespace paddle_like
