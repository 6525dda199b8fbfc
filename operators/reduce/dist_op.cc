// dist (paddle.dist): the p-norm of X - Y over every element, X and Y broadcast NumPy-style;
// with a fused backward. Sums run in double in element order.
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/math/reduce.h"
#include "operators/op_family.h"
#include "operators/reduce/p_norm_util.h"

namespace paddle_like {
namespace operators {
namespace {

class DistOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Any shape that broadcasts with Y's.");
    AddInput("Y", "Any shape that broadcasts with X's.");
    AddOutput("Out", "0-D: the norm.");
    AddAttr<float>("p", "The norm's order: any real, +-inf (max / min of |X - Y|), 0 (count).")
        .SetDefault(2.0f);
    AddComment(R"DOC(
The p-norm of the difference, with X and Y broadcast (NumPy's rule), z = X - Y:

$$Out = \left(\sum |z|^p\right)^{1/p}, \quad p = \infty: \max |z|, \quad p = -\infty:
\min |z|, \quad p = 0: \#\{z \ne 0\}$$

Gradient, by the fused op dist_grad (summed over broadcast dims):
$$dX = -dY = dOut \cdot \frac{\mathrm{sign}(z) |z|^{p-1}}{\max(Out^{p-1}, 10^{-12})}$$;
for p = +-inf, dOut sign(z) where |z| = Out, else 0; for p = 0, 0.
)DOC");
  }
};

class DistOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

void DistInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  math::ComputeBroadcastDims(ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Y"), -1);
  ctx->SetOutputDim("Out", DDim(std::vector<int64_t>{}));
}

// z = X - Y over the broadcast shape, in double.
template <typename T>
std::vector<double> Difference(const ExecutionContext& ctx, math::BroadcastDims* bd) {
  const DenseTensor* x = ctx.Input("X");
  const DenseTensor* y = ctx.Input("Y");
  *bd = math::ComputeBroadcastDims(ctx.Type(), x->dims(), y->dims(), -1);
  const math::BroadcastPlan plan = math::MakeBroadcastPlan(*bd);
  std::vector<double> z(static_cast<size_t>(plan.numel));
  if (plan.numel == 0) return z;
  const T* a = x->data<T>();
  const T* b = y->data<T>();
  math::ForEachBroadcastRun(plan, 0, plan.numel, [&](int64_t o, int64_t xo, int64_t yo, int64_t n) {
    for (int64_t k = 0; k < n; ++k) {
      z[o + k] = static_cast<double>(a[xo + k * plan.x_inner_stride()]) -
                 static_cast<double>(b[yo + k * plan.y_inner_stride()]);
    }
  });
  return z;
}

double Norm(const std::vector<double>& z, double p) {
  PNormAccumulator norm(p);
  for (double v : z) norm.Add(v);
  return norm.Norm();
}

template <typename T>
struct DistKernel {
  static void Compute(const ExecutionContext& ctx) {
    math::BroadcastDims bd;
    const std::vector<double> z = Difference<T>(ctx, &bd);
    DenseTensor out(DDim(std::vector<int64_t>{}), ctx.Input("X")->dtype());
    *out.mutable_data<T>(ctx.GetPlace()) = static_cast<T>(Norm(z, ctx.Attr<float>("p")));
    *ctx.Output("Out") = std::move(out);
  }
};

void DistGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Y"}) {
    const std::string grad = std::string(slot) + "@GRAD";
    if (ctx->HasOutput(grad)) ctx->SetOutputDim(grad, ctx->GetInputDim(slot));
  }
}

template <typename T>
struct DistGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    math::BroadcastDims bd;
    const std::vector<double> z = Difference<T>(ctx, &bd);
    const DenseTensor* norm_t = ctx.Input("Out");
    const DenseTensor* dout_t = ctx.Input("Out@GRAD");
    for (const auto& [slot, t] :
         {std::pair<const char*, const DenseTensor*>{"Out", norm_t}, {"Out@GRAD", dout_t}}) {
      PL_ENFORCE(t->numel() == 1,
                 errors::InvalidArgument("op `%s` input `%s`: expected one element (0-D), "
                                         "received shape %s",
                                         ctx.Type(), slot, t->dims().ToString()));
    }
    const double p = ctx.Attr<float>("p");
    const double norm = static_cast<double>(*norm_t->data<T>());
    const double g = static_cast<double>(*dout_t->data<T>());
    const double denom = PNormGradDenominator(norm, p, 1e-12);
    std::vector<T> dz(z.size()), neg(z.size());
    for (size_t i = 0; i < z.size(); ++i) {
      const double d = PNormElementGrad(z[i], norm, g, p, denom);
      dz[i] = static_cast<T>(d);
      neg[i] = static_cast<T>(-d);
    }
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const auto sum_to = [&](const char* slot, const DDim& aligned, const std::vector<T>& v) {
      DenseTensor* o = ctx.Output(std::string(slot) + "@GRAD");
      if (o == nullptr) return;
      const DenseTensor* in = ctx.Input(slot);
      DenseTensor grad(in->dims(), in->dtype());
      T* gp = grad.mutable_data<T>(ctx.GetPlace());
      if (grad.numel() > 0)
        math::SumToShape(dev, v.empty() ? nullptr : v.data(), bd.out, aligned, gp);
      *o = std::move(grad);
    };
    sum_to("X", bd.x, dz);
    sum_to("Y", bd.y, neg);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterDistOp) {
  const framework::FusedGradDecl dist_grad{
      {"X", "Y", "Out"},
      {"Out"},
      {"X", "Y"},
      R"DOC($$dX = -dY = dOut \cdot \mathrm{sign}(z) |z|^{p-1} / \max(Out^{p-1}, 10^{-12})$$)DOC"};
  framework::RegisterOp<DistOp, DistOpMaker>("dist")
      .InferShape(DistInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(dist_grad));
  RegisterPlainCpuFloatKernels<DistKernel>("dist");
  framework::RegisterFusedGradOp("dist", dist_grad).InferShape(DistGradInferShape);
  RegisterPlainCpuFloatKernels<DistGradKernel>("dist_grad");
}

}  // namespace operators
}  // namespace paddle_like
