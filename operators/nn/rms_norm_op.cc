// rms_norm: root-mean-square normalisation over the trailing dims (LLaMA-style models), with
// an optional elementwise scale, and its fused first-order gradient rms_norm_grad.
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "rms_norm";

class RmsNormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "Input whose trailing dims are `normalized_shape`.");
    AddInput("scale", "Elementwise scale of shape `normalized_shape`.").AsDispensable();
    AddOutput("y", "The normalised x, x's shape.");
    AddOutput("invvar", "1 / RMS of each row: x's dims before the normalised ones.");
    AddAttr<std::vector<int64_t>>("normalized_shape",
                                  "The trailing dims of x normalised together (at least one).");
    AddAttr<float>("epsilon", "Added to the mean square before the square root.").SetDefault(1e-5f);
    AddComment(R"DOC(
RMS normalisation of each row r of x (its last len(normalized_shape) dims, H elements),
accumulated in double:
$$invvar_r = \frac{1}{\sqrt{\frac{1}{H} \sum_{i} x_{r,i}^2 + \epsilon}}, \qquad y_{r,i} = x_{r,i} \cdot invvar_r \cdot scale_i$$
(scale = 1 when absent). Gradient (fused op rms_norm_grad, first order), with g = dy scale and
the forward's invvar; invvar passes no gradient:
$$dx_{r,i} = invvar_r \, g_{r,i} - x_{r,i} \, invvar_r^3 \frac{1}{H} \sum_j g_{r,j} x_{r,j}, \qquad dscale_i = \sum_r dy_{r,i} \, x_{r,i} \, invvar_r$$
)DOC");
  }
};

class RmsNormOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "x");
  }
};

// The index of x's first normalised dim, after checking normalized_shape (and scale's dims
// when given) against x. Unknown dims (-1, build time) match anything.
int RmsNormBegin(const std::string& op, const DDim& x, const std::vector<int64_t>& shape,
                 const DDim* scale) {
  const int k = static_cast<int>(shape.size());
  auto matches = [](int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; };
  bool ok = k >= 1 && k <= x.size();
  for (int i = 0; ok && i < k; ++i) ok = matches(x[x.size() - k + i], shape[i]);
  PL_ENFORCE(ok, errors::InvalidArgument("op `%s` attribute `normalized_shape`: expected the "
                                         "trailing dims of input `x` (%s), received %s",
                                         op, x.ToString(), DDim(shape).ToString()));
  if (scale != nullptr) {
    bool same = scale->size() == k;
    for (int i = 0; same && i < k; ++i) same = matches((*scale)[i], shape[i]);
    PL_ENFORCE(same, errors::InvalidArgument("op `%s` input `scale`: expected shape %s "
                                             "(normalized_shape), received %s",
                                             op, DDim(shape).ToString(), scale->ToString()));
  }
  return x.size() - k;
}

DDim LeadingDims(const DDim& x, int begin) {
  const std::vector<int64_t> all = x.ToVector();
  return DDim(std::vector<int64_t>(all.begin(), all.begin() + begin));
}

void RmsNormInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireOutput("y");
  const DDim x = ctx->GetInputDim("x");
  DDim scale;
  if (ctx->HasInput("scale")) scale = ctx->GetInputDim("scale");
  const int begin =
      RmsNormBegin(ctx->OpType(), x, ctx->Attr<std::vector<int64_t>>("normalized_shape"),
                   ctx->HasInput("scale") ? &scale : nullptr);
  ctx->SetOutputDim("y", x);
  ctx->ShareLoD("x", "y");
  if (ctx->HasOutput("invvar")) ctx->SetOutputDim("invvar", LeadingDims(x, begin));
}

template <typename T>
struct RmsNormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("x");
    const DenseTensor* scale_t = ctx.Input("scale");
    const int begin =
        RmsNormBegin(ctx.Type(), x_t->dims(), ctx.Attr<std::vector<int64_t>>("normalized_shape"),
                     scale_t == nullptr ? nullptr : &scale_t->dims());
    const double eps = ctx.Attr<float>("epsilon");
    const DDim leading = LeadingDims(x_t->dims(), begin);
    const int64_t rows = leading.numel();
    const int64_t h = rows == 0 ? 0 : x_t->numel() / rows;
    DenseTensor y(x_t->dims(), x_t->dtype()), invvar(leading, x_t->dtype());
    T* yp = y.mutable_data<T>(ctx.GetPlace());
    T* rp = invvar.mutable_data<T>(ctx.GetPlace());
    if (x_t->numel() > 0) {
      const T* x = x_t->data<T>();
      const T* s = scale_t == nullptr ? nullptr : scale_t->data<T>();
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          rows, 1, [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
              const T* xr = x + r * h;
              double sum = 0;
              for (int64_t i = 0; i < h; ++i) sum += static_cast<double>(xr[i]) * xr[i];
              const double inv = 1.0 / std::sqrt(sum / static_cast<double>(h) + eps);
              rp[r] = static_cast<T>(inv);
              for (int64_t i = 0; i < h; ++i) {
                const double v = xr[i] * inv;
                yp[r * h + i] = static_cast<T>(s == nullptr ? v : v * s[i]);
              }
            }
          });
    }
    *ctx.Output("y") = std::move(y);
    if (DenseTensor* out = ctx.Output("invvar")) *out = std::move(invvar);
  }
};

void RmsNormGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireInput("invvar");
  ctx->RequireInput("y@GRAD");
  if (ctx->HasOutput("x@GRAD")) ctx->SetOutputDim("x@GRAD", ctx->GetInputDim("x"));
  if (ctx->HasOutput("scale@GRAD")) ctx->SetOutputDim("scale@GRAD", ctx->GetInputDim("scale"));
}

// With g = dy * scale and the forward's invvar per row:
// dx = invvar * g - x * invvar^3 * mean(g * x), dscale = sum over rows of dy * x * invvar.
template <typename T>
struct RmsNormGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("x");
    const DenseTensor* scale_t = ctx.Input("scale");
    const DenseTensor* inv_t = ctx.Input("invvar");
    const DenseTensor* dy_t = ctx.Input("y@GRAD");
    const int begin =
        RmsNormBegin(ctx.Type(), x_t->dims(), ctx.Attr<std::vector<int64_t>>("normalized_shape"),
                     scale_t == nullptr ? nullptr : &scale_t->dims());
    const DDim leading = LeadingDims(x_t->dims(), begin);
    CheckSameShape(ctx.Type(), "invvar", inv_t->dims(), "x's leading dims", leading);
    CheckSameShape(ctx.Type(), "y@GRAD", dy_t->dims(), "x", x_t->dims());
    const int64_t rows = leading.numel();
    const int64_t h = rows == 0 ? 0 : x_t->numel() / rows;
    DenseTensor dx(x_t->dims(), x_t->dtype());
    T* dxp = dx.mutable_data<T>(ctx.GetPlace());
    std::vector<double> dscale(static_cast<size_t>(h), 0.0);
    if (x_t->numel() > 0) {
      const T* x = x_t->data<T>();
      const T* s = scale_t == nullptr ? nullptr : scale_t->data<T>();
      const T* inv = inv_t->data<T>();
      const T* dy = dy_t->data<T>();
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          rows, 1, [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
              const T* xr = x + r * h;
              const T* gr = dy + r * h;
              const double ir = inv[r];
              double gx = 0;
              for (int64_t i = 0; i < h; ++i) gx += gr[i] * (s == nullptr ? 1.0 : s[i]) * xr[i];
              const double k = ir * ir * ir * gx / static_cast<double>(h);
              for (int64_t i = 0; i < h; ++i) {
                const double g = gr[i] * (s == nullptr ? 1.0 : static_cast<double>(s[i]));
                dxp[r * h + i] = static_cast<T>(ir * g - xr[i] * k);
              }
            }
          });
      // Rows in order, so the sums repeat whatever the thread count.
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < h; ++i) {
          dscale[i] += static_cast<double>(dy[r * h + i]) * x[r * h + i] * inv[r];
        }
      }
    }
    if (DenseTensor* out = ctx.Output("x@GRAD")) *out = std::move(dx);
    if (DenseTensor* out = ctx.Output("scale@GRAD")) {
      DenseTensor ds(scale_t->dims(), x_t->dtype());
      T* d = ds.mutable_data<T>(ctx.GetPlace());
      for (int64_t i = 0; i < h; ++i) d[i] = static_cast<T>(dscale[i]);
      *out = std::move(ds);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRmsNormOp) {
  const framework::FusedGradDecl kGrad{
      {"x", "scale", "invvar"},
      {"y"},
      {"x", "scale"},
      R"DOC($$dx = invvar \cdot g - x \cdot invvar^3 \cdot \frac{1}{H} \sum_i g_i x_i, \quad g = dy \cdot scale, \qquad dscale = \sum_r dy_r \cdot x_r \cdot invvar_r$$)DOC"};
  framework::RegisterOp<RmsNormOp, RmsNormOpMaker>(kOp)
      .InferShape(RmsNormInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        OutputDataTypeOf("x", "y")(ctx);
        if (ctx->HasOutput("invvar")) OutputDataTypeOf("x", "invvar")(ctx);
      })
      .GradOpMaker(framework::FusedGradMaker(kGrad));
  RegisterPlainCpuFloatKernels<RmsNormKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, kGrad).InferShape(RmsNormGradInferShape);
  RegisterPlainCpuFloatKernels<RmsNormGradKernel>("rms_norm_grad");
}

}  // namespace operators
}  // namespace paddle_like
