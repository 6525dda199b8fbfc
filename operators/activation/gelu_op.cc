// gelu: the Gaussian error linear unit, exact (erf) or tanh-approximated, and its fused
// gradient op gelu_grad.
#include <cmath>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "gelu";
constexpr char kGradOp[] = "gelu_grad";

// sqrt(2 / pi) and 1 / sqrt(2 pi).
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kCubic = 0.044715;

template <typename T>
struct GeluFunctor {
  bool approximate;
  T operator()(T x) const {
    if (approximate) {
      const T t =
          std::tanh(static_cast<T>(kSqrt2OverPi) * (x + static_cast<T>(kCubic) * x * x * x));
      return static_cast<T>(0.5) * x * (static_cast<T>(1) + t);
    }
    return static_cast<T>(0.5) * x * (static_cast<T>(1) + std::erf(x * static_cast<T>(kInvSqrt2)));
  }
};

// d gelu(x) / dx.
template <typename T>
struct GeluDerivative {
  bool approximate;
  T operator()(T x) const {
    if (approximate) {
      const T x2 = x * x;
      const T t = std::tanh(static_cast<T>(kSqrt2OverPi) * x *
                            (static_cast<T>(1) + static_cast<T>(kCubic) * x2));
      const T dt =
          static_cast<T>(kSqrt2OverPi) * (static_cast<T>(1) + static_cast<T>(3 * kCubic) * x2);
      return static_cast<T>(0.5) * (static_cast<T>(1) + t) +
             static_cast<T>(0.5) * x * (static_cast<T>(1) - t * t) * dt;
    }
    const T cdf =
        static_cast<T>(0.5) * (static_cast<T>(1) + std::erf(x * static_cast<T>(kInvSqrt2)));
    const T pdf = static_cast<T>(kInvSqrt2Pi) * std::exp(static_cast<T>(-0.5) * x * x);
    return cdf + x * pdf;
  }
};

class GeluOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<bool>("approximate", "Use the tanh approximation instead of erf.").SetDefault(false);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
GELU activation operator, elementwise. Exact form (approximate = false):

$$Out = \frac{X}{2} \left(1 + \mathrm{erf}\left(\frac{X}{\sqrt{2}}\right)\right)$$

tanh approximation (approximate = true):

$$Out = \frac{X}{2} \left(1 + \tanh\left(\sqrt{2 / \pi} \, (X + 0.044715 X^3)\right)\right)$$

Gradient (fused op `gelu_grad`, first order only), with Phi and phi the standard normal
cdf and pdf, and t the tanh above:
$$dX = dOut \cdot \left(\Phi(X) + X \phi(X)\right)$$
$$dX = dOut \cdot \left(\frac{1 + t}{2} + \frac{X}{2} (1 - t^2) \sqrt{2 / \pi} \, (1 + 3 \cdot 0.044715 X^2)\right)$$
)DOC");
  }
};

class GeluGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.");
    AddAttr<bool>("approximate", "As in `gelu`.").SetDefault(false);
    AddComment(R"DOC(
Gradient of `gelu` (fused kernel, not differentiable again):
$$dX = dOut \cdot \frac{d\,\mathrm{gelu}(X)}{dX}$$
with the derivative of the erf or the tanh form, as in `gelu`.
)DOC");
  }
};

class GeluOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

template <typename T>
struct GeluKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const GeluFunctor<T> f{ctx.Attr<bool>("approximate")};
    const T* in = x.data<T>();
    out->Resize(x.dims());
    out->set_lod(x.lod());
    T* o = out->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x.numel(), 1 << 13, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
        });
  }
};

void GeluGradInferShape(InferShapeContext* ctx) { UnaryGradInferShape(ctx, "X"); }

template <typename T>
struct GeluGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    PL_ENFORCE(x.dims() == dout.dims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of X %s, "
                                       "received %s",
                                       kGradOp, x.dims().ToString(), dout.dims().ToString()));
    DenseTensor* dx = ctx.Output("X@GRAD");
    const GeluDerivative<T> f{ctx.Attr<bool>("approximate")};
    const T* in = x.data<T>();
    const T* g = dout.data<T>();
    dx->Resize(x.dims());
    dx->set_lod(x.lod());
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x.numel(), 1 << 13, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = g[i] * f(in[i]);
        });
  }
};

// One fused gelu_grad op reading X and dOut.
void GeluGradMaker(framework::GradOpBuilder* g) {
  framework::AttributeMap attrs;
  if (g->Forward().HasAttr("approximate")) {
    attrs["approximate"] = g->Forward().GetAttr("approximate");
  }
  g->AddOp(kGradOp, {{"X", g->Input("X")}, {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}}, attrs);
}

}  // namespace

void RegisterGeluOp() {
  framework::RegisterOp<GeluOp, GeluOpMaker>(kOp)
      .InferShape(SameShapeInferShape)
      .GradOpMaker(GeluGradMaker);
  RegisterPlainCpuFloatKernels<GeluKernel>(kOp);
  framework::RegisterOp<GeluOp, GeluGradOpMaker>(kGradOp).InferShape(GeluGradInferShape);
  RegisterPlainCpuFloatKernels<GeluGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
