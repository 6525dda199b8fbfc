// layer_norm: normalisation over the trailing dims of each row, and its fused gradient op
// layer_norm_grad.
//
// X is viewed as [left, right] with left = prod(dims[:begin_norm_axis]). Row statistics are
// summed in double in element order; column sums of the gradient run row by row, one task per
// column, so results do not depend on the number of threads.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/nn/layer_norm_util.h"
#include "operators/nn/nn_op_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class LayerNormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input of rank > begin_norm_axis.");
    AddInput("Scale", "Optional scale gamma, 1-D of size prod(X.dims[begin_norm_axis:]).")
        .AsDispensable();
    AddInput("Bias", "Optional shift beta, 1-D of size prod(X.dims[begin_norm_axis:]).")
        .AsDispensable();
    AddOutput("Y", "The normalised result, with the shape and LoD of X.");
    AddOutput("Mean", "Mean of each row, shape [prod(X.dims[:begin_norm_axis])].").AsIntermediate();
    AddOutput("Variance", "Biased variance of each row, shape [prod(X.dims[:begin_norm_axis])].")
        .AsIntermediate();
    AddAttr<float>("epsilon", "Added to the variance before the square root.")
        .SetDefault(1e-5f)
        .InRange(0.0f, 1e-3f);
    AddAttr<int>("begin_norm_axis",
                 "X is flattened to [prod(dims[:begin_norm_axis]), prod(dims[begin_norm_axis:])] "
                 "and each row is normalised.")
        .SetDefault(1)
        .GreaterThan(0);
    AddAttr<bool>("is_test", "Inference mode (no effect on the CPU kernel).")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Layer normalisation operator. With X flattened to [left, right] at begin_norm_axis, for
each row i over its H = right values:

$$\mu_i = \frac{1}{H} \sum_j X_{ij}, \quad \sigma_i^2 = \frac{1}{H} \sum_j (X_{ij} - \mu_i)^2,
\quad Y_{ij} = \gamma_j \frac{X_{ij} - \mu_i}{\sqrt{\sigma_i^2 + \epsilon}} + \beta_j$$

gamma = Scale (1 when absent), beta = Bias (0 when absent). Mean = mu and Variance = sigma^2.

Gradient (fused op `layer_norm_grad`, first order only), with
$\hat{x} = (X - \mu) / \sqrt{\sigma^2 + \epsilon}$ and $g = dY \cdot \gamma$:
$$dBias_j = \sum_i dY_{ij}, \quad dScale_j = \sum_i dY_{ij} \hat{x}_{ij}$$
$$dX_{ij} = \frac{1}{\sqrt{\sigma_i^2 + \epsilon}} \left(g_{ij} - \frac{1}{H}\sum_k g_{ik}
- \hat{x}_{ij} \frac{1}{H} \sum_k g_{ik} \hat{x}_{ik}\right)$$
)DOC");
  }
};

class LayerNormGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Scale", "The forward op's Scale, when it had one.").AsDispensable();
    AddInput("Mean", "The forward op's Mean.");
    AddInput("Variance", "The forward op's Variance.");
    AddInput("Bias", "Not read; accepted because PaddlePaddle's programs pass it.")
        .AsDispensable();
    AddInput("Y@GRAD", "Gradient of the forward op's Y.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.").AsDispensable();
    AddOutput("Scale@GRAD", "Gradient of Scale.").AsDispensable();
    AddOutput("Bias@GRAD", "Gradient of Bias.").AsDispensable();
    AddAttr<float>("epsilon", "As in `layer_norm`.").SetDefault(1e-5f).InRange(0.0f, 1e-3f);
    AddAttr<int>("begin_norm_axis", "As in `layer_norm`.").SetDefault(1).GreaterThan(0);
    AddComment(R"DOC(
Gradient of `layer_norm` (fused kernel, not differentiable again). Per row i, with
$r_i = 1 / \sqrt{Variance_i + \epsilon}$, $\hat{x} = (X - Mean) r$ and $g = dY \cdot \gamma$:
$$dX_{ij} = r_i \left(g_{ij} - \overline{g_{i}} - \hat{x}_{ij} \overline{(g \hat{x})_{i}}\right),
\quad dScale_j = \sum_i dY_{ij} \hat{x}_{ij}, \quad dBias_j = \sum_i dY_{ij}$$
where the overline is the mean over the row.
)DOC");
  }
};

RowLayout CheckedRows(const std::string& op, const DDim& x, int axis) {
  PL_ENFORCE(
      axis >= 1 && axis < x.size(),
      errors::InvalidArgument("op `%s` attribute `begin_norm_axis`: expected a value in "
                              "[1, %s) (the rank of input `X` %s), received %s",
                              op, std::to_string(x.size()), x.ToString(), std::to_string(axis)));
  return RowLayout{Product(x, 0, axis), Product(x, axis, x.size())};
}

void CheckParam(const std::string& op, const char* slot, const DDim& d, int64_t right) {
  PL_ENFORCE(d.size() == 1 && (d[0] < 0 || right < 0 || d[0] == right),
             errors::InvalidArgument("op `%s` input `%s`: expected shape %s (the size of the "
                                     "normalised dims of input `X`), received %s",
                                     op, slot, DDim({right}).ToString(), d.ToString()));
}

void LayerNormInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  for (const char* slot : {"Y", "Mean", "Variance"}) ctx->RequireOutput(slot);
  const DDim x = ctx->GetInputDim("X");
  const RowLayout rows = CheckedRows(ctx->OpType(), x, ctx->Attr<int>("begin_norm_axis"));
  for (const char* slot : {"Scale", "Bias"}) {
    if (ctx->HasInput(slot)) CheckParam(ctx->OpType(), slot, ctx->GetInputDim(slot), rows.right);
  }
  ctx->SetOutputDim("Y", x);
  ctx->ShareLoD("X", "Y");
  ctx->SetOutputDim("Mean", DDim({rows.left}));
  ctx->SetOutputDim("Variance", DDim({rows.left}));
}

void LayerNormInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType x = ctx->GetInputDataType("X");
  for (const char* slot : {"Y", "Mean", "Variance"}) ctx->SetOutputDataType(slot, x);
}

// The values of an optional 1-D parameter as doubles, `fill` when absent.
template <typename T>
std::vector<double> ParamValues(const DenseTensor* t, int64_t n, double fill) {
  if (t == nullptr) return std::vector<double>(static_cast<size_t>(n), fill);
  const T* p = t->data<T>();
  return std::vector<double>(p, p + n);
}

// Writes `v` into `out` as a 1-D tensor of T, when `out` is given.
template <typename T>
void WriteVector(const std::vector<double>& v, const platform::Place& place, DenseTensor* out) {
  if (out == nullptr) return;
  out->Resize(DDim({static_cast<int64_t>(v.size())}));
  T* o = out->mutable_data<T>(place);
  for (size_t j = 0; j < v.size(); ++j) o[j] = static_cast<T>(v[j]);
}

}  // namespace

RowLayout CheckLayerNormInputs(const ExecutionContext& ctx) {
  const RowLayout rows =
      CheckedRows(kLayerNormOp, ctx.Input("X")->dims(), ctx.Attr<int>("begin_norm_axis"));
  for (const char* slot : {"Scale", "Bias"}) {
    if (const DenseTensor* t = ctx.Input(slot)) {
      CheckParam(kLayerNormOp, slot, t->dims(), rows.right);
    }
  }
  return rows;
}

RowLayout CheckLayerNormGradInputs(const ExecutionContext& ctx) {
  const DDim& x = ctx.Input("X")->dims();
  const DDim& dy = ctx.Input("Y@GRAD")->dims();
  const RowLayout rows = CheckedRows(kLayerNormGradOp, x, ctx.Attr<int>("begin_norm_axis"));
  PL_ENFORCE(dy == x, errors::InvalidArgument("op `%s` input `Y@GRAD`: expected the shape of X "
                                              "%s, received %s",
                                              kLayerNormGradOp, x.ToString(), dy.ToString()));
  for (const char* slot : {"Mean", "Variance"}) {
    const DDim d = ctx.Input(slot)->dims();
    PL_ENFORCE(d.numel() == rows.left,
               errors::InvalidArgument("op `%s` input `%s`: expected shape %s, received %s",
                                       kLayerNormGradOp, slot, DDim({rows.left}).ToString(),
                                       d.ToString()));
  }
  if (const DenseTensor* s = ctx.Input("Scale")) {
    CheckParam(kLayerNormGradOp, "Scale", s->dims(), rows.right);
  }
  return rows;
}

template <typename T>
void LayerNormPlainCompute(const ExecutionContext& ctx) {
  const RowLayout rows = CheckLayerNormInputs(ctx);
  const DenseTensor x = *ctx.Input("X");
  const std::vector<double> gamma = ParamValues<T>(ctx.Input("Scale"), rows.right, 1.0);
  const std::vector<double> beta = ParamValues<T>(ctx.Input("Bias"), rows.right, 0.0);
  const double epsilon = ctx.Attr<float>("epsilon");
  const platform::Place place = ctx.GetPlace();
  DenseTensor* y = ctx.Output("Y");
  DenseTensor* mean = ctx.Output("Mean");
  DenseTensor* var = ctx.Output("Variance");
  y->Resize(x.dims());
  y->set_lod(x.lod());
  mean->Resize(DDim({rows.left}));
  var->Resize(DDim({rows.left}));
  const T* in = x.data<T>();
  T* o = y->mutable_data<T>(place);
  T* mo = mean->mutable_data<T>(place);
  T* vo = var->mutable_data<T>(place);
  const int64_t h = rows.right;
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      rows.left, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(h, 1)),
      [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const T* row = in + i * h;
          double s = 0;
          for (int64_t j = 0; j < h; ++j) s += static_cast<double>(row[j]);
          const double mu = h > 0 ? s / static_cast<double>(h) : 0.0;
          double ss = 0;
          for (int64_t j = 0; j < h; ++j) {
            const double d = static_cast<double>(row[j]) - mu;
            ss += d * d;
          }
          const double sigma2 = h > 0 ? ss / static_cast<double>(h) : 0.0;
          const double r = 1.0 / std::sqrt(sigma2 + epsilon);
          for (int64_t j = 0; j < h; ++j) {
            o[i * h + j] =
                static_cast<T>((static_cast<double>(row[j]) - mu) * r * gamma[j] + beta[j]);
          }
          mo[i] = static_cast<T>(mu);
          vo[i] = static_cast<T>(sigma2);
        }
      });
}

template void LayerNormPlainCompute<float>(const ExecutionContext& ctx);
template void LayerNormPlainCompute<double>(const ExecutionContext& ctx);

namespace {

template <typename T>
struct LayerNormKernel {
  static void Compute(const ExecutionContext& ctx) { LayerNormPlainCompute<T>(ctx); }
};

void LayerNormGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Mean", "Variance", "Y@GRAD"}) ctx->RequireInput(slot);
  const DDim x = ctx->GetInputDim("X");
  const RowLayout rows = CheckedRows(ctx->OpType(), x, ctx->Attr<int>("begin_norm_axis"));
  const DDim dy = ctx->GetInputDim("Y@GRAD");
  PL_ENFORCE(x.HasUnknown() || dy.HasUnknown() || x == dy,
             errors::InvalidArgument("op `%s` input `Y@GRAD`: expected the shape of X %s, "
                                     "received %s",
                                     ctx->OpType(), x.ToString(), dy.ToString()));
  if (ctx->HasOutput("X@GRAD")) {
    ctx->SetOutputDim("X@GRAD", x);
    ctx->ShareLoD("X", "X@GRAD");
  }
  for (const char* slot : {"Scale@GRAD", "Bias@GRAD"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDim(slot, DDim({rows.right}));
  }
}

void LayerNormGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType x = ctx->GetInputDataType("X");
  for (const char* slot : {"X@GRAD", "Scale@GRAD", "Bias@GRAD"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDataType(slot, x);
  }
}

}  // namespace

template <typename T>
void LayerNormGradPlainCompute(const ExecutionContext& ctx) {
  const RowLayout rows = CheckLayerNormGradInputs(ctx);
  const DenseTensor x = *ctx.Input("X");
  const DenseTensor dy = *ctx.Input("Y@GRAD");
  const int64_t h = rows.right;
  const std::vector<double> gamma = ParamValues<T>(ctx.Input("Scale"), h, 1.0);
  const T* mean = ctx.Input("Mean")->data<T>();
  const T* var = ctx.Input("Variance")->data<T>();
  const double epsilon = ctx.Attr<float>("epsilon");
  std::vector<double> r(static_cast<size_t>(rows.left));
  for (int64_t i = 0; i < rows.left; ++i) {
    r[i] = 1.0 / std::sqrt(static_cast<double>(var[i]) + epsilon);
  }
  const T* xd = x.data<T>();
  const T* g = dy.data<T>();
  const auto xhat = [&](int64_t i, int64_t j) {
    return (static_cast<double>(xd[i * h + j]) - static_cast<double>(mean[i])) * r[i];
  };
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
  const platform::Place place = ctx.GetPlace();
  DenseTensor* dscale = ctx.Output("Scale@GRAD");
  DenseTensor* dbias = ctx.Output("Bias@GRAD");
  if (dscale != nullptr || dbias != nullptr) {
    std::vector<double> sum_dy(static_cast<size_t>(h)), sum_dy_xhat(static_cast<size_t>(h));
    dev.ParallelFor(h, 1, [&](int64_t begin, int64_t end) {
      for (int64_t j = begin; j < end; ++j) {
        double a = 0, b = 0;
        for (int64_t i = 0; i < rows.left; ++i) {
          const double d = static_cast<double>(g[i * h + j]);
          a += d;
          b += d * xhat(i, j);
        }
        sum_dy[j] = a;
        sum_dy_xhat[j] = b;
      }
    });
    WriteVector<T>(sum_dy_xhat, place, dscale);
    WriteVector<T>(sum_dy, place, dbias);
  }
  DenseTensor* dx = ctx.Output("X@GRAD");
  if (dx == nullptr) return;
  dx->Resize(x.dims());
  dx->set_lod(x.lod());
  T* o = dx->mutable_data<T>(place);
  dev.ParallelFor(rows.left, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(h, 1)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i) {
                      double mean_g = 0, mean_gx = 0;
                      for (int64_t j = 0; j < h; ++j) {
                        const double gj = static_cast<double>(g[i * h + j]) * gamma[j];
                        mean_g += gj;
                        mean_gx += gj * xhat(i, j);
                      }
                      mean_g /= static_cast<double>(h);
                      mean_gx /= static_cast<double>(h);
                      for (int64_t j = 0; j < h; ++j) {
                        const double gj = static_cast<double>(g[i * h + j]) * gamma[j];
                        o[i * h + j] = static_cast<T>(r[i] * (gj - mean_g - xhat(i, j) * mean_gx));
                      }
                    }
                  });
}

template void LayerNormGradPlainCompute<float>(const ExecutionContext& ctx);
template void LayerNormGradPlainCompute<double>(const ExecutionContext& ctx);

namespace {

template <typename T>
struct LayerNormGradKernel {
  static void Compute(const ExecutionContext& ctx) { LayerNormGradPlainCompute<T>(ctx); }
};

// One fused layer_norm_grad op reading X, Scale, Mean, Variance and dY (not Bias or Y).
void LayerNormGradMaker(framework::GradOpBuilder* g) {
  framework::VariableNameMap inputs = {{"X", g->Input("X")},
                                       {"Mean", g->Output("Mean")},
                                       {"Variance", g->Output("Variance")},
                                       {"Y@GRAD", g->OutputGrad("Y")}};
  if (!g->Input("Scale").empty()) inputs["Scale"] = g->Input("Scale");
  g->AddOp(kLayerNormGradOp, inputs,
           {{"X@GRAD", g->InputGrad("X")},
            {"Scale@GRAD", g->InputGrad("Scale")},
            {"Bias@GRAD", g->InputGrad("Bias")}},
           PickAttrs(g->Forward(), {"epsilon", "begin_norm_axis"}));
}

}  // namespace

PL_REGISTER_OPS(RegisterLayerNormOp) {
  framework::RegisterOp<XTypedOp, LayerNormOpMaker>(kLayerNormOp)
      .InferShape(LayerNormInferShape)
      .InferVarType(LayerNormInferVarType)
      .GradOpMaker(LayerNormGradMaker);
  RegisterPlainCpuFloatKernels<LayerNormKernel>(kLayerNormOp);
  framework::RegisterOp<XTypedOp, LayerNormGradOpMaker>(kLayerNormGradOp)
      .InferShape(LayerNormGradInferShape)
      .InferVarType(LayerNormGradInferVarType);
  RegisterPlainCpuFloatKernels<LayerNormGradKernel>(kLayerNormGradOp);
}

}  // namespace operators
}  // namespace paddle_like
