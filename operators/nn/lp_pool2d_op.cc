// lp_pool2d (paddle.nn.functional.lp_pool2d): the p-norm of each 2-D window, over the windows
// of pool2d (fixed, global or adaptive, with its paddings and ceil_mode); with a fused backward.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/nn/pool_planes.h"
#include "operators/nn/pool_window_attrs.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

constexpr char kOp[] = "lp_pool2d";

class LpPool2dOpMaker : public PoolWindowAttrMaker {
 public:
  void Make() override {
    AddInput("X", "Images [N, C, H, W] (NHWC: [N, H, W, C]).");
    AddOutput("Out", "Pooled images [N, C, H_out, W_out] (NHWC: [N, H_out, W_out, C]).");
    AddAttr<float>("norm_type", "p: any non-zero real; inf gives the window's maximum.");
    AddAttr<std::string>("pooling_type", "Not read (PaddlePaddle writes lp).").SetDefault("lp");
    AddAttr<bool>("exclusive", "Not read: the window's sum has no divisor.").SetDefault(true);
    AddWindowAttrs();
    AddComment(R"DOC(
Power-average pooling: over pool2d's windows W(y, x) (the padding adds nothing),
$$Out[n, c, y, x] = \Big(\sum_{(h, w) \in W(y, x)} X[n, c, h, w]^p\Big)^{1/p}$$
with X^p as written (a negative X and a fractional p give NaN, as in PaddlePaddle); p = inf
gives the window's maximum. A window lying wholly in the padding gives 0.

Gradient, by the fused op lp_pool2d_grad, summed over the windows holding each element:
$$dX = dOut \cdot X^{p-1} \, Out^{1-p}$$ (0 where Out = 0; p = inf: dOut to the first
element equal to Out).
)DOC");
  }
};

class LpPool2dOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

float NormType(const std::string& op, float p) {
  PL_ENFORCE(p != 0.0f && !std::isnan(p),
             errors::InvalidArgument("op `%s` attribute `norm_type`: expected a non-zero "
                                     "number, received %g",
                                     op, p));
  return p;
}

// pool2d's geometry of the same attributes (its sums: avg without the divisor).
Pool2dGeometry Geometry(const std::string& op, const DDim& x, framework::AttributeMap attrs) {
  attrs["pooling_type"] = std::string("avg");
  return ResolvePool2d(op, x, attrs);
}

void LpPool2dInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  NormType(ctx->OpType(), ctx->Attr<float>("norm_type"));
  ctx->SetOutputDim("Out",
                    Geometry(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attrs()).OutputDims());
}

template <typename T>
void LpPoolPlane(const Pool2dGeometry& g, double p, const T* x, T* y) {
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    int64_t h0, h1;
    g.Window(true, oy, &h0, &h1);
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      int64_t w0, w1;
      g.Window(false, ox, &w0, &w1);
      double r = 0.0;
      if (h0 < h1 && w0 < w1) {
        if (std::isinf(p)) {
          r = x[h0 * g.in_w + w0];
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) r = std::max<double>(r, x[h * g.in_w + w]);
          }
        } else {
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) r += std::pow(double(x[h * g.in_w + w]), p);
          }
          r = std::pow(r, 1.0 / p);
        }
      }
      y[oy * g.out_w + ox] = static_cast<T>(r);
    }
  }
}

template <typename T>
void LpPoolPlaneGrad(const Pool2dGeometry& g, double p, const T* x, const T* y, const T* dy,
                     T* dx) {
  std::vector<double> acc(static_cast<size_t>(g.in_h * g.in_w), 0.0);
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    int64_t h0, h1;
    g.Window(true, oy, &h0, &h1);
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      int64_t w0, w1;
      g.Window(false, ox, &w0, &w1);
      const double out = y[oy * g.out_w + ox], d = dy[oy * g.out_w + ox];
      if (h0 == h1 || w0 == w1) continue;
      if (std::isinf(p)) {
        bool found = false;
        for (int64_t h = h0; h < h1 && !found; ++h) {
          for (int64_t w = w0; w < w1 && !found; ++w) {
            found = x[h * g.in_w + w] == y[oy * g.out_w + ox];
            if (found) acc[h * g.in_w + w] += d;
          }
        }
        continue;
      }
      if (out == 0.0) continue;
      const double scale = d * std::pow(out, 1.0 - p);
      for (int64_t h = h0; h < h1; ++h) {
        for (int64_t w = w0; w < w1; ++w) {
          acc[h * g.in_w + w] += scale * std::pow(double(x[h * g.in_w + w]), p - 1.0);
        }
      }
    }
  }
  for (size_t i = 0; i < acc.size(); ++i) dx[i] = static_cast<T>(acc[i]);
}

int64_t PlaneWork(const Pool2dGeometry& g) {
  return g.out_h * g.out_w * (g.kernel_h * g.kernel_w + 1) + g.in_h * g.in_w;
}

template <typename T>
struct LpPool2dKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const Pool2dGeometry g = Geometry(ctx.Type(), x->dims(), ctx.op().Attrs());
    const double p = NormType(ctx.Type(), ctx.Attr<float>("norm_type"));
    DenseTensor out;
    PoolPlanes<T>(
        ctx, g, *x, PlaneWork(g), [&](const T* xp, T* yp) { LpPoolPlane(g, p, xp, yp); }, &out);
    *ctx.Output("Out") = std::move(out);
  }
};

void LpPool2dGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct LpPool2dGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const Pool2dGeometry g = Geometry(op, x->dims(), ctx.op().Attrs());
    const double p = NormType(op, ctx.Attr<float>("norm_type"));
    CheckGradInputShape(op, "Out", g.OutputDims(), out->dims());
    CheckGradInputShape(op, "Out@GRAD", g.OutputDims(), dout->dims());
    DenseTensor grad = PoolGradPlanes<T>(ctx, g, *x, *out, *dout, PlaneWork(g),
                                         [&](const T* xp, const T* yp, const T* dyp, T* dxp) {
                                           LpPoolPlaneGrad(g, p, xp, yp, dyp, dxp);
                                         });
    *ctx.Output("X@GRAD") = std::move(grad);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLpPool2dOp) {
  const framework::FusedGradDecl grad{
      {"X", "Out"},
      {"Out"},
      {"X"},
      R"DOC($$dX = \sum_{windows} dOut \cdot X^{p-1} Out^{1-p}$$)DOC"};
  framework::RegisterOp<LpPool2dOp, LpPool2dOpMaker>(kOp)
      .InferShape(LpPool2dInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<LpPool2dKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(LpPool2dGradInferShape);
  RegisterPlainCpuFloatKernels<LpPool2dGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
