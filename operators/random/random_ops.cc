// Random initializers: uniform_random, gaussian_random, truncated_gaussian_random, randint.
//
// Each op draws from std::mt19937_64 seeded with platform::ResolveSeed(seed): a non-zero
// `seed` attribute gives the same tensor on every run, bit for bit; seed 0 takes the next
// seed of the process's default generator (reproducible with FLAGS_random_seed). Values are
// generated one after another in element order on one thread, with the transforms of
// random_transforms.h, so they do not depend on the thread count or the C++ library.
#include <algorithm>
#include <cmath>

#include "operators/activation/activation_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/random/random_transforms.h"
#include "operators/tensor/shape_inputs.h"
#include "operators/tensor/tensor_op_util.h"
#include "platform/random.h"

namespace paddle_like {
namespace operators {

namespace {

class UniformRandomOpMaker : public ShapeInputsOpMaker {
 public:
  void Make() override {
    AddShapeInputs();
    AddOutput("Out", "The random tensor.");
    AddAttr<std::vector<int64_t>>("shape", "Shape of Out.").SetDefault({});
    AddAttr<int>("dtype", "Element type as a VarType number: 5 float32, 6 float64.")
        .SetDefault(static_cast<int>(DataType::FLOAT32))
        .InEnum({5, 6});
    AddAttr<float>("min", "Lower bound (inclusive).").SetDefault(-1.0f);
    AddAttr<float>("max", "Upper bound (exclusive).").SetDefault(1.0f);
    AddAttr<int>("seed", "Random seed; 0 takes the next seed of the default generator.")
        .SetDefault(0);
    AddAttr<int>("diag_num", "Number of diagonal elements set to diag_val (0: none).")
        .SetDefault(0);
    AddAttr<int>("diag_step", "Step between the diagonal elements (see the formula).")
        .SetDefault(0);
    AddAttr<float>("diag_val", "Value of the diagonal elements.").SetDefault(1.0f);
    AddComment(R"DOC(
UniformRandom operator.

$$Out_i = min + (max - min) \cdot u_i, \quad u_i \sim U[0, 1)$$

u_i has 53 random bits (top bits of one std::mt19937_64 draw); a value that rounds up to max
in the output dtype is drawn again, so Out lies in [min, max). With diag_num > 0, afterwards
$$Out_{k \cdot (diag\_step + 1)} = diag\_val \quad (0 \le k < diag\_num)$$
in the flattened tensor.
)DOC");
  }
};

class GaussianRandomOpMaker : public ShapeInputsOpMaker {
 public:
  void Make() override {
    AddShapeInputs();
    AddOutput("Out", "The random tensor.");
    AddAttr<std::vector<int64_t>>("shape", "Shape of Out.").SetDefault({});
    AddAttr<float>("mean", "Mean of the distribution.").SetDefault(0.0f);
    AddAttr<float>("std", "Standard deviation (>= 0).").SetDefault(1.0f);
    AddAttr<int>("seed", "Random seed; 0 takes the next seed of the default generator.")
        .SetDefault(0);
    AddAttr<int>("dtype", "Element type as a VarType number: 5 float32, 6 float64.")
        .SetDefault(static_cast<int>(DataType::FLOAT32))
        .InEnum({5, 6});
    AddComment(R"DOC(
GaussianRandom operator.

$$Out_i = mean + std \cdot z_i, \quad z_i \sim N(0, 1)$$

z_i comes from the Box-Muller transform of 53-bit uniforms (std::mt19937_64).
)DOC");
  }
};

class TruncatedGaussianRandomOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddOutput("Out", "The random tensor.");
    AddAttr<std::vector<int>>("shape", "Shape of Out.").SetDefault({});
    AddAttr<float>("mean", "Mean of the distribution.").SetDefault(0.0f);
    AddAttr<float>("std", "Standard deviation (>= 0).").SetDefault(1.0f);
    AddAttr<int>("seed", "Random seed; 0 takes the next seed of the default generator.")
        .SetDefault(0);
    AddAttr<int>("dtype", "Element type as a VarType number: 5 float32, 6 float64.")
        .SetDefault(static_cast<int>(DataType::FLOAT32))
        .InEnum({5, 6});
    AddAttr<float>("a", "Lowest value kept (an absolute bound, not in units of std).")
        .SetDefault(-2.0f);
    AddAttr<float>("b", "Highest value kept (>= a).").SetDefault(2.0f);
    AddComment(R"DOC(
TruncatedGaussianRandom operator: the normal distribution N(mean, std^2) conditioned on
[a, b] (absolute bounds, as PaddlePaddle reads them since the op's version 1; before, the
bounds were mean +- 2 std, which the defaults give for mean 0 and std 1):
$$Out_i = mean + std \cdot z_i, \quad z_i \sim N(0, 1) \text{ conditioned on }
  a \le Out_i \le b$$
Where [a, b] holds at least a quarter of the distribution, a sample outside it (checked in
the output dtype) is drawn again; otherwise each sample is the inverse CDF of a uniform draw
between the CDF's values at a and b. std = 0 gives mean, clipped to [a, b].
)DOC");
  }
};

class RandintOpMaker : public ShapeInputsOpMaker {
 public:
  void Make() override {
    AddShapeInputs();
    AddOutput("Out", "The random integers.");
    AddAttr<int>("low", "Lower bound (inclusive).").SetDefault(0);
    AddAttr<int>("high", "Upper bound (exclusive), > low.").SetDefault(1);
    AddAttr<std::vector<int64_t>>("shape", "Shape of Out.").SetDefault({});
    AddAttr<int>("dtype", "Element type as a VarType number: 2 int32, 3 int64.")
        .SetDefault(static_cast<int>(DataType::INT64))
        .InEnum({2, 3});
    AddAttr<int>("seed", "Random seed; 0 takes the next seed of the default generator.")
        .SetDefault(0);
    AddComment(R"DOC(
Randint operator: integers drawn uniformly, each value equally likely,

$$Out_i \in \{low, low + 1, \dots, high - 1\}$$

from std::mt19937_64 (one draw modulo high - low, drawn again above the largest multiple).
)DOC");
  }
};

class RandomOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
  // Shape tensors are integers read as they are.
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void RandomInferShape(InferShapeContext* ctx) { ShapeInputsInferShape(ctx); }

void RandomInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

// Sizes Out from ShapeTensor / ShapeTensorList when given, and allocates it.
template <typename T>
T* AllocOut(const ExecutionContext& ctx) {
  DenseTensor* out = ctx.Output("Out");
  if (ctx.HasInput("ShapeTensor") || ctx.HasInput("ShapeTensorList")) {
    out->Resize(ShapeFromInputs(ctx));
  }
  return out->mutable_data<T>(ctx.GetPlace());
}

void CheckStd(const ExecutionContext& ctx) {
  const float std_dev = ctx.Attr<float>("std");
  PL_ENFORCE(std_dev >= 0 && std::isfinite(std_dev),
             errors::InvalidArgument("op `%s` attribute `std`: expected a finite value >= 0, "
                                     "received %g",
                                     ctx.Type(), static_cast<double>(std_dev)));
}

template <typename T>
struct UniformRandomKernel {
  static void Compute(const ExecutionContext& ctx) {
    const double lo = ctx.Attr<float>("min");
    const double hi = ctx.Attr<float>("max");
    PL_ENFORCE(lo <= hi, errors::InvalidArgument("op `%s` attributes `min`, `max`: expected min "
                                                 "<= max, received %g > %g",
                                                 ctx.Type(), lo, hi));
    T* o = AllocOut<T>(ctx);
    const int64_t n = ctx.Output("Out")->numel();
    RandomSource source(platform::ResolveSeed(ctx.Attr<int>("seed")));
    const T upper = static_cast<T>(hi);
    for (int64_t i = 0; i < n; ++i) {
      T v;
      do {
        v = static_cast<T>(lo + (hi - lo) * source.Uniform());
      } while (lo < hi && v >= upper);
      o[i] = v;
    }
    const int64_t diag_num = ctx.Attr<int>("diag_num");
    const int64_t diag_step = ctx.Attr<int>("diag_step");
    if (diag_num <= 0) return;
    PL_ENFORCE(diag_step >= 0 && (diag_num - 1) * (diag_step + 1) < n,
               errors::InvalidArgument("op `%s` attributes `diag_num`, `diag_step`: the last "
                                       "diagonal index %lld is outside the %lld elements of Out",
                                       ctx.Type(),
                                       static_cast<long long>((diag_num - 1) * (diag_step + 1)),
                                       static_cast<long long>(n)));
    const T diag_val = static_cast<T>(ctx.Attr<float>("diag_val"));
    for (int64_t k = 0; k < diag_num; ++k) o[k * (diag_step + 1)] = diag_val;
  }
};

template <typename T>
struct GaussianRandomKernel {
  static void Compute(const ExecutionContext& ctx) {
    CheckStd(ctx);
    const double mean = ctx.Attr<float>("mean");
    const double std_dev = ctx.Attr<float>("std");
    T* o = AllocOut<T>(ctx);
    const int64_t n = ctx.Output("Out")->numel();
    RandomSource source(platform::ResolveSeed(ctx.Attr<int>("seed")));
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(mean + std_dev * source.Normal());
  }
};

// The standard normal CDF.
double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

template <typename T>
struct TruncatedGaussianRandomKernel {
  static void Compute(const ExecutionContext& ctx) {
    CheckStd(ctx);
    const double mean = ctx.Attr<float>("mean");
    const double std_dev = ctx.Attr<float>("std");
    const double a = ctx.Attr<float>("a"), b = ctx.Attr<float>("b");
    PL_ENFORCE(std::isfinite(a) && std::isfinite(b) && a <= b,
               errors::InvalidArgument("op `%s` attributes `a` and `b`: expected finite bounds "
                                       "with a <= b, received a %g, b %g",
                                       ctx.Type(), a, b));
    const T lo = static_cast<T>(a), hi = static_cast<T>(b);
    T* o = ctx.Output("Out")->mutable_data<T>(ctx.GetPlace());
    const int64_t n = ctx.Output("Out")->numel();
    if (std_dev == 0) {
      std::fill(o, o + n, static_cast<T>(std::min(std::max(mean, a), b)));
      return;
    }
    RandomSource source(platform::ResolveSeed(ctx.Attr<int>("seed")));
    const double cdf_a = NormalCdf((a - mean) / std_dev), cdf_b = NormalCdf((b - mean) / std_dev);
    if (cdf_b - cdf_a >= 0.25) {
      for (int64_t i = 0; i < n; ++i) {
        T v;
        do {
          v = static_cast<T>(mean + std_dev * source.Normal());
        } while (v < lo || v > hi);
        o[i] = v;
      }
      return;
    }
    // Far in a tail, where drawing again would rarely land inside.
    const ErfinvFunctor<double> erfinv;
    for (int64_t i = 0; i < n; ++i) {
      const double u = cdf_a + source.Uniform() * (cdf_b - cdf_a);
      const double v = mean + std_dev * std::sqrt(2.0) * erfinv(2 * u - 1);
      o[i] = std::min(std::max(static_cast<T>(v), lo), hi);
    }
  }
};

template <typename T>
struct RandintKernel {
  static void Compute(const ExecutionContext& ctx) {
    const int64_t low = ctx.Attr<int>("low"), high = ctx.Attr<int>("high");
    PL_ENFORCE(low < high, errors::InvalidArgument("op `%s` attributes `low`, `high`: expected "
                                                   "low < high, received %lld >= %lld",
                                                   ctx.Type(), static_cast<long long>(low),
                                                   static_cast<long long>(high)));
    T* o = AllocOut<T>(ctx);
    const int64_t n = ctx.Output("Out")->numel();
    RandomSource source(platform::ResolveSeed(ctx.Attr<int>("seed")));
    const auto span = static_cast<uint64_t>(high - low);
    for (int64_t i = 0; i < n; ++i)
      o[i] = static_cast<T>(low + static_cast<int64_t>(source.Below(span)));
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRandomOps) {
  framework::RegisterOp<RandomOp, UniformRandomOpMaker>("uniform_random")
      .InferShape(RandomInferShape)
      .InferVarType(RandomInferVarType);
  RegisterPlainCpuFloatKernels<UniformRandomKernel>("uniform_random");

  framework::RegisterOp<RandomOp, GaussianRandomOpMaker>("gaussian_random")
      .InferShape(RandomInferShape)
      .InferVarType(RandomInferVarType)
      .Checkpoint(
          "Upgrade gaussian_random add new inputs [ShapeTensor] and [ShapeTensorList] "
          "and modify the attribute of [shape]",
          framework::OpVersionDesc()
              .NewInput("ShapeTensor", "the shape as a 1-D tensor, overriding `shape`")
              .NewInput("ShapeTensorList", "the shape as 1-element tensors, overriding `shape`")
              .ModifyAttr("shape", "int64 dims, default empty (read from the inputs)",
                          std::vector<int64_t>{}));
  RegisterPlainCpuFloatKernels<GaussianRandomKernel>("gaussian_random");

  framework::RegisterOp<RandomOp, TruncatedGaussianRandomOpMaker>("truncated_gaussian_random")
      .Checkpoint("add attributes a and b: the truncation bounds, absolute",
                  framework::OpVersionDesc()
                      .NewAttr("a", "lowest value kept", -2.0f)
                      .NewAttr("b", "highest value kept", 2.0f))
      .InferShape(RandomInferShape)
      .InferVarType(RandomInferVarType);
  RegisterPlainCpuFloatKernels<TruncatedGaussianRandomKernel>("truncated_gaussian_random");

  framework::RegisterOp<RandomOp, RandintOpMaker>("randint")
      .InferShape(RandomInferShape)
      .InferVarType(RandomInferVarType);
  RegisterPlainCpuKernels<RandintKernel, int32_t, int64_t>("randint");
}

}  // namespace operators
}  // namespace paddle_like
