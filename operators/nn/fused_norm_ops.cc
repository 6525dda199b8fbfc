// fused_rms_norm_quant and fused_bias_residual_layernorm: PaddlePaddle's fused normalisations
// of transformer blocks (paddle.incubate.nn.functional.fused_rms_norm / fused_layer_norm),
// which add a residual (and a bias) before normalising, optionally hand that sum on, and
// optionally quantise the result to int8. Inference ops: no gradient (rms_norm and
// layer_norm train).
//
// Rows are x's dims before begin_norm_axis, columns the dims from it on; statistics are
// accumulated in double. As in PaddlePaddle's kernels, `bias` is added only together with a
// residual (without one it is ignored).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kRmsOp[] = "fused_rms_norm_quant";
constexpr char kLayerOp[] = "fused_bias_residual_layernorm";

// The inputs and attributes both ops share.
class FusedNormOpMakerBase : public OpProtoAndCheckerMaker {
 protected:
  void AddCommonSlots(bool weight_dispensable) {
    AddInput("x", "The input; its dims from begin_norm_axis on form each normalised row.");
    AddInput("bias", "Added with the residual, per column ([cols] values).").AsDispensable();
    AddInput("residual", "Added to x before normalising, x's shape.").AsDispensable();
    framework::SlotBuilder weight =
        AddInput("norm_weight", "Scale of each column ([cols] values).");
    if (weight_dispensable) weight.AsDispensable();
    AddInput("norm_bias", "Added after normalising, per column.").AsDispensable();
    AddAttr<float>("epsilon", "Added to the mean square (variance) before the square root.");
    AddAttr<int>("begin_norm_axis", "The first normalised dim (negative: counted from the end).");
    AddAttr<float>("quant_scale",
                   "> 0: out is int8, round(max_bound * quant_scale * y) clipped to [min_bound, "
                   "max_bound].")
        .SetDefault(-1.0f);
    AddAttr<int>("quant_round_type", "0: round half to even, 1: round half away from zero.")
        .SetDefault(0)
        .InEnum({0, 1});
    AddAttr<float>("quant_max_bound", "Upper bound of the quantised values.").SetDefault(0.0f);
    AddAttr<float>("quant_min_bound", "Lower bound of the quantised values.").SetDefault(0.0f);
  }
};

class FusedRmsNormQuantOpMaker : public FusedNormOpMakerBase {
 public:
  void Make() override {
    AddCommonSlots(false);
    AddOutput("out", "The normalised rows, x's shape (int8 when quant_scale > 0).");
    AddOutput("residual_out", "x + residual (+ bias), given a residual.").AsDispensable();
    AddOutput("inv_var", "1 / RMS of each row, [rows].");
    AddComment(R"DOC(
RMS normalisation of each row r of t (c columns), t = x + residual + bias when a residual is
given (residual_out = t), else t = x:
$$inv\_var_r = \frac{1}{\sqrt{\frac{1}{c} \sum_i t_{r,i}^2 + \epsilon}}, \qquad out_{r,i} = t_{r,i} \cdot inv\_var_r \cdot w_i + b_i$$
with w = norm_weight and b = norm_bias (0 when absent). With quant_scale > 0, out is int8:
round(quant_max_bound * quant_scale * out) clipped to [quant_min_bound, quant_max_bound].
)DOC");
  }
};

class FusedBiasResidualLayerNormOpMaker : public FusedNormOpMakerBase {
 public:
  void Make() override {
    AddCommonSlots(true);
    AddOutput("out", "The normalised rows, x's shape (int8 when quant_scale > 0).");
    AddOutput("residual_out", "x + residual_alpha * residual (+ bias), given a residual.")
        .AsDispensable();
    AddOutput("mean", "Mean of each row, [rows], float32.");
    AddOutput("variance", "1 / sqrt(variance + epsilon) of each row, [rows], float32.");
    AddAttr<float>("residual_alpha", "Weight of the residual.").SetDefault(1.0f);
    AddComment(R"DOC(
Layer normalisation of each row r of t (c columns), t = x + residual_alpha * residual + bias
when a residual is given (residual_out = t), else t = x:
$$\mu_r = \frac{1}{c} \sum_i t_{r,i}, \quad \rho_r = \frac{1}{\sqrt{\frac{1}{c} \sum_i (t_{r,i} - \mu_r)^2 + \epsilon}}, \quad out_{r,i} = (t_{r,i} - \mu_r) \, \rho_r \, w_i + b_i$$
with w = norm_weight (1 when absent) and b = norm_bias (0 when absent); mean = mu and
variance = rho (the inverse standard deviation, as PaddlePaddle's kernels write it). Without
norm_weight and norm_bias no normalisation happens: out = x + residual_alpha * residual + bias
(bias added even without a residual). With quant_scale > 0, out is int8 as in
fused_rms_norm_quant.
)DOC");
  }
};

// Rows and columns of x for begin_norm_axis (negative counted from the end).
struct Rows {
  int begin = 0;
  int64_t rows = 0, cols = 0;
};

Rows RowsOf(const std::string& op, const DDim& x, int begin_norm_axis) {
  const int rank = x.size();
  const int begin = begin_norm_axis < 0 ? begin_norm_axis + rank : begin_norm_axis;
  PL_ENFORCE(rank >= 1 && begin >= 0 && begin < rank,
             errors::InvalidArgument("op `%s` attribute `begin_norm_axis`: expected a dim of "
                                     "input `x` (rank %d, shape %s), received %d",
                                     op, rank, x.ToString(), begin_norm_axis));
  Rows r;
  r.begin = begin;
  r.rows = 1;
  r.cols = 1;
  for (int i = 0; i < rank; ++i) (i < begin ? r.rows : r.cols) *= x[i];
  return r;
}

// A per-column input must hold `cols` values (unknown dims, -1, pass at build time).
void CheckColumns(const std::string& op, const std::string& slot, const DDim& dims, int64_t cols) {
  const int64_t n = dims.numel();
  PL_ENFORCE(n < 0 || cols < 0 || n == cols,
             errors::InvalidArgument("op `%s` input `%s`: expected %lld values (one per "
                                     "normalised column), received shape %s",
                                     op, slot, static_cast<long long>(cols), dims.ToString()));
}

bool Quantized(const framework::AttributeMap& attrs) {
  const auto it = attrs.find("quant_scale");
  if (it == attrs.end()) return false;
  const float* scale = std::get_if<float>(&it->second);
  return scale != nullptr && *scale > 0.0f;
}

void FusedNormInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireOutput("out");
  const std::string op = ctx->OpType();
  const DDim x = ctx->GetInputDim("x");
  const Rows r = RowsOf(op, x, ctx->Attr<int>("begin_norm_axis"));
  const bool known = x.numel() >= 0;
  for (const char* slot : {"bias", "norm_weight", "norm_bias"}) {
    if (ctx->HasInput(slot)) CheckColumns(op, slot, ctx->GetInputDim(slot), known ? r.cols : -1);
  }
  if (ctx->HasInput("residual"))
    CheckSameShape(op, "residual", ctx->GetInputDim("residual"), "x", x);
  ctx->SetOutputDim("out", x);
  if (ctx->HasOutput("residual_out")) {
    ctx->SetOutputDim("residual_out", ctx->HasInput("residual") ? x : DDim({0}));
  }
  for (const char* stat : {"inv_var", "mean", "variance"}) {
    if (ctx->HasOutput(stat)) ctx->SetOutputDim(stat, DDim({known ? r.rows : -1}));
  }
}

void FusedNormInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType x = ctx->GetInputDataType("x");
  ctx->SetOutputDataType("out", Quantized(ctx->Attrs()) ? DataType::INT8 : x);
  if (ctx->HasOutput("residual_out")) ctx->SetOutputDataType("residual_out", x);
  if (ctx->HasOutput("inv_var")) ctx->SetOutputDataType("inv_var", x);
  for (const char* stat : {"mean", "variance"}) {
    if (ctx->HasOutput(stat)) ctx->SetOutputDataType(stat, DataType::FLOAT32);
  }
}

class FusedNormOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "x");
  }
};

// The quantisation of PaddlePaddle's fused kernels.
struct Quantizer {
  double scale = 0, lo = 0, hi = 0;
  bool half_even = true;
  explicit Quantizer(const ExecutionContext& ctx)
      : scale(static_cast<double>(ctx.Attr<float>("quant_max_bound")) *
              ctx.Attr<float>("quant_scale")),
        lo(ctx.Attr<float>("quant_min_bound")),
        hi(ctx.Attr<float>("quant_max_bound")),
        half_even(ctx.Attr<int>("quant_round_type") == 0) {
    PL_ENFORCE(lo <= hi && lo >= -128 && hi <= 127,
               errors::InvalidArgument("op `%s` attributes `quant_min_bound`, `quant_max_bound`: "
                                       "expected -128 <= min <= max <= 127 (int8), received "
                                       "[%g, %g]",
                                       ctx.Type(), lo, hi));
  }
  int8_t operator()(double y) const {
    const float v = static_cast<float>(scale * y);
    double q = half_even ? std::nearbyint(v) : std::round(v);
    q = q > hi ? hi : q;
    q = q < lo ? lo : q;
    return static_cast<int8_t>(q);
  }
};

// What both kernels read: x, the per-column inputs and the residual, checked.
template <typename T>
struct FusedNormInputs {
  Rows r;
  const T* x = nullptr;
  const T* bias = nullptr;
  const T* residual = nullptr;
  const T* weight = nullptr;
  const T* norm_bias = nullptr;

  explicit FusedNormInputs(const ExecutionContext& ctx) {
    const DenseTensor* xt = ctx.Input("x");
    r = RowsOf(ctx.Type(), xt->dims(), ctx.Attr<int>("begin_norm_axis"));
    x = xt->data<T>();
    auto column = [&](const char* slot) -> const T* {
      const DenseTensor* t = ctx.Input(slot);
      if (t == nullptr) return nullptr;
      CheckColumns(ctx.Type(), slot, t->dims(), r.cols);
      return t->data<T>();
    };
    bias = column("bias");
    weight = column("norm_weight");
    norm_bias = column("norm_bias");
    if (const DenseTensor* res = ctx.Input("residual")) {
      CheckSameShape(ctx.Type(), "residual", res->dims(), "x", xt->dims());
      residual = res->data<T>();
    }
  }
  // Row i's t = x + alpha * residual (+ bias) into `t`; the residual_out row when given.
  void Sum(int64_t i, double alpha, std::vector<double>* t, T* residual_out) const {
    const int64_t base = i * r.cols;
    for (int64_t c = 0; c < r.cols; ++c) {
      double v = x[base + c];
      if (residual != nullptr) {
        v += alpha * static_cast<double>(residual[base + c]);
        if (bias != nullptr) v += bias[c];
        if (residual_out != nullptr) residual_out[base + c] = static_cast<T>(v);
      }
      (*t)[c] = v;
    }
  }
};

// Writes out row i from the normalised values y(c) (float or int8).
template <typename T, typename Fn>
void WriteRow(const ExecutionContext& ctx, int64_t i, int64_t cols, DenseTensor* out,
              const Quantizer* quant, Fn y) {
  if (quant != nullptr) {
    int8_t* o = out->data<int8_t>() + i * cols;
    for (int64_t c = 0; c < cols; ++c) o[c] = (*quant)(y(c));
  } else {
    T* o = out->data<T>() + i * cols;
    for (int64_t c = 0; c < cols; ++c) o[c] = static_cast<T>(y(c));
  }
  (void)ctx;
}

// Allocates out (int8 when quantising) and residual_out (given a residual).
template <typename T>
T* AllocOutputs(const ExecutionContext& ctx, const FusedNormInputs<T>& in, bool quantized) {
  DenseTensor* out = ctx.Output("out");
  const DDim& dims = ctx.Input("x")->dims();
  out->Resize(dims);
  if (quantized) {
    out->mutable_data<int8_t>(ctx.GetPlace());
  } else {
    out->mutable_data<T>(ctx.GetPlace());
  }
  DenseTensor* res = ctx.Output("residual_out");
  if (res == nullptr) return nullptr;
  res->Resize(in.residual != nullptr ? dims : DDim({0}));
  T* p = res->mutable_data<T>(ctx.GetPlace());
  return in.residual != nullptr ? p : nullptr;
}

template <typename T>
struct FusedRmsNormQuantKernel {
  static void Compute(const ExecutionContext& ctx) {
    const FusedNormInputs<T> in(ctx);
    PL_ENFORCE(in.weight != nullptr,
               errors::NotFound("op `%s` input `norm_weight`: required but not given", kRmsOp));
    const bool quantized = ctx.Attr<float>("quant_scale") > 0.0f;
    const std::optional<Quantizer> quant =
        quantized ? std::optional<Quantizer>(Quantizer(ctx)) : std::nullopt;
    T* residual_out = AllocOutputs(ctx, in, quantized);
    DenseTensor* inv_var = ctx.Output("inv_var");
    inv_var->Resize(DDim({in.r.rows}));
    T* iv = inv_var->mutable_data<T>(ctx.GetPlace());
    DenseTensor* out = ctx.Output("out");
    const double eps = ctx.Attr<float>("epsilon");
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        in.r.rows, 1, [&](int64_t begin, int64_t end) {
          std::vector<double> t(static_cast<size_t>(in.r.cols));
          for (int64_t i = begin; i < end; ++i) {
            in.Sum(i, 1.0, &t, residual_out);
            double sq = 0;
            for (double v : t) sq += v * v;
            const double inv = 1.0 / std::sqrt(sq / static_cast<double>(in.r.cols) + eps);
            iv[i] = static_cast<T>(inv);
            WriteRow<T>(ctx, i, in.r.cols, out, quant ? &*quant : nullptr, [&](int64_t c) {
              return t[c] * inv * in.weight[c] + (in.norm_bias != nullptr ? in.norm_bias[c] : 0.0);
            });
          }
        });
  }
};

template <typename T>
struct FusedBiasResidualLayerNormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const FusedNormInputs<T> in(ctx);
    const bool quantized = ctx.Attr<float>("quant_scale") > 0.0f;
    const std::optional<Quantizer> quant =
        quantized ? std::optional<Quantizer>(Quantizer(ctx)) : std::nullopt;
    T* residual_out = AllocOutputs(ctx, in, quantized);
    DenseTensor* mean = ctx.Output("mean");
    DenseTensor* variance = ctx.Output("variance");
    mean->Resize(DDim({in.r.rows}));
    variance->Resize(DDim({in.r.rows}));
    float* mp = mean->mutable_data<float>(ctx.GetPlace());
    float* vp = variance->mutable_data<float>(ctx.GetPlace());
    DenseTensor* out = ctx.Output("out");
    const double eps = ctx.Attr<float>("epsilon");
    const double alpha = ctx.Attr<float>("residual_alpha");
    // No weight and no bias: the sum alone, bias added whether or not a residual is.
    const bool sum_only = in.weight == nullptr && in.norm_bias == nullptr;
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        in.r.rows, 1, [&](int64_t begin, int64_t end) {
          std::vector<double> t(static_cast<size_t>(in.r.cols));
          for (int64_t i = begin; i < end; ++i) {
            in.Sum(i, alpha, &t, residual_out);
            if (sum_only && in.residual == nullptr && in.bias != nullptr) {
              for (int64_t c = 0; c < in.r.cols; ++c) t[c] += in.bias[c];
            }
            double mu = 0;
            for (double v : t) mu += v;
            mu /= static_cast<double>(in.r.cols);
            double var = 0;
            for (double v : t) var += (v - mu) * (v - mu);
            const double rho = 1.0 / std::sqrt(var / static_cast<double>(in.r.cols) + eps);
            mp[i] = static_cast<float>(mu);
            vp[i] = static_cast<float>(rho);
            WriteRow<T>(ctx, i, in.r.cols, out, quant ? &*quant : nullptr, [&](int64_t c) {
              if (sum_only) return t[c];
              return (t[c] - mu) * rho * (in.weight != nullptr ? in.weight[c] : 1.0) +
                     (in.norm_bias != nullptr ? in.norm_bias[c] : 0.0);
            });
          }
        });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFusedNormOps) {
  framework::RegisterOp<FusedNormOp, FusedRmsNormQuantOpMaker>(kRmsOp)
      .InferShape(FusedNormInferShape)
      .InferVarType(FusedNormInferVarType);
  RegisterPlainCpuFloatKernels<FusedRmsNormQuantKernel>(kRmsOp);
  framework::RegisterOp<FusedNormOp, FusedBiasResidualLayerNormOpMaker>(kLayerOp)
      .InferShape(FusedNormInferShape)
      .InferVarType(FusedNormInferVarType);
  RegisterPlainCpuFloatKernels<FusedBiasResidualLayerNormKernel>(kLayerOp);
}

}  // namespace operators
}  // namespace paddle_like
