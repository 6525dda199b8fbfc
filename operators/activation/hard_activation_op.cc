// hard_sigmoid and hard_swish: the piecewise-linear activations of mobile networks
// (PP-LCNet, MobileNetV3), with PaddlePaddle's fused grad op types hard_sigmoid_grad and
// hard_swish_grad (first order only).
#include <algorithm>
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kHardSigmoid[] = "hard_sigmoid";
constexpr char kHardSwish[] = "hard_swish";
constexpr char kHardSigmoidGrad[] = "hard_sigmoid_grad";
constexpr char kHardSwishGrad[] = "hard_swish_grad";

class HardSigmoidOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<float>("slope", "Slope of the linear part.").SetDefault(0.2f);
    AddAttr<float>("offset", "Value of the linear part at X = 0.").SetDefault(0.5f);
    AddComment(R"DOC(
Hard sigmoid activation operator, elementwise:

$$Out = \max(0, \min(1, slope \cdot X + offset))$$

Gradient (op hard_sigmoid_grad, reads Out):
$$dX = dOut \cdot slope \text{ where } 0 < Out < 1, \text{ else } 0$$
)DOC");
  }
};

class HardSwishOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<float>("threshold", "Upper clip of X + offset.").SetDefault(6.0f);
    AddAttr<float>("scale", "Divisor of the product.").SetDefault(6.0f);
    AddAttr<float>("offset", "Shift of X before clipping.").SetDefault(3.0f);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Hard swish activation operator, elementwise:

$$Out = \frac{X \cdot \min(\max(0, X + offset), threshold)}{scale}$$

Gradient (op hard_swish_grad, reads X):
$$dX = dOut \cdot \begin{cases} 0 & X + offset \le 0 \\ (2X + offset) / scale &
0 < X + offset < threshold \\ threshold / scale & X + offset \ge threshold \end{cases}$$
)DOC");
  }
};

class HardActivationOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// Out[i] = f(X[i]) for the functor the kernel builds from the op's attributes.
template <typename T, typename F>
void ApplyElementwise(const ExecutionContext& ctx, const F& f) {
  const DenseTensor x = *ctx.Input("X");
  DenseTensor* out = ctx.Output("Out");
  out->Resize(x.dims());
  out->set_lod(x.lod());
  T* o = out->mutable_data<T>(ctx.GetPlace());
  if (x.numel() == 0) return;
  const T* in = x.data<T>();
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
      });
}

// X@GRAD[i] = dOut[i] * slope(Like[i]), where `like` is the forward value the grad reads.
template <typename T, typename F>
void ApplyGrad(const ExecutionContext& ctx, const char* op, const char* like, const F& slope) {
  const DenseTensor v = *ctx.Input(like);
  const DenseTensor dout = *ctx.Input("Out@GRAD");
  PL_ENFORCE(v.dims() == dout.dims(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of %s %s, "
                                     "received %s",
                                     op, like, v.dims().ToString(), dout.dims().ToString()));
  DenseTensor* dx = ctx.Output("X@GRAD");
  dx->Resize(v.dims());
  T* o = dx->mutable_data<T>(ctx.GetPlace());
  if (v.numel() == 0) return;
  const T* in = v.data<T>();
  const T* g = dout.data<T>();
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      v.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = g[i] * slope(in[i]);
      });
}

template <typename T>
struct HardSigmoidKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T slope = static_cast<T>(ctx.Attr<float>("slope"));
    const T offset = static_cast<T>(ctx.Attr<float>("offset"));
    ApplyElementwise<T>(ctx, [=](T x) {
      return std::max(T(0), std::min(T(1), slope * x + offset));
    });
  }
};

template <typename T>
struct HardSigmoidGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T slope = static_cast<T>(ctx.Attr<float>("slope"));
    ApplyGrad<T>(ctx, kHardSigmoidGrad, "Out",
                 [=](T out) { return out > T(0) && out < T(1) ? slope : T(0); });
  }
};

template <typename T>
struct HardSwishKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T threshold = static_cast<T>(ctx.Attr<float>("threshold"));
    const T scale = static_cast<T>(ctx.Attr<float>("scale"));
    const T offset = static_cast<T>(ctx.Attr<float>("offset"));
    ApplyElementwise<T>(ctx, [=](T x) {
      return x * std::min(std::max(T(0), x + offset), threshold) / scale;
    });
  }
};

template <typename T>
struct HardSwishGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T threshold = static_cast<T>(ctx.Attr<float>("threshold"));
    const T scale = static_cast<T>(ctx.Attr<float>("scale"));
    const T offset = static_cast<T>(ctx.Attr<float>("offset"));
    ApplyGrad<T>(ctx, kHardSwishGrad, "X", [=](T x) {
      if (x + offset <= T(0)) return T(0);
      // The clipped piece is X * threshold / scale. PaddlePaddle's kernel writes 1 here,
      // which agrees for its defaults (threshold == scale) and no others.
      if (x + offset >= threshold) return threshold / scale;
      return (T(2) * x + offset) / scale;
    });
  }
};

// The fused grad op `<type>_grad` reading `like` (X or Out) and Out@GRAD, with the
// forward op's attributes named in `attrs`.
void EmitFusedGrad(framework::GradOpBuilder* g, const std::string& like,
                   std::initializer_list<const char*> attrs) {
  if (!g->WantsInputGrad("X")) return;
  framework::AttributeMap grad_attrs;
  for (const char* name : attrs) {
    if (g->Forward().HasAttr(name)) grad_attrs[name] = g->Forward().GetAttr(name);
  }
  g->AddOp(g->ForwardType() + "_grad",
           {{like, like == "X" ? g->Input("X") : g->Output("Out")},
            {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}}, grad_attrs);
}

void HardSigmoidGradMaker(framework::GradOpBuilder* g) {
  EmitFusedGrad(g, "Out", {"slope", "offset"});
}

void HardSwishGradMaker(framework::GradOpBuilder* g) {
  EmitFusedGrad(g, "X", {"threshold", "scale", "offset"});
}

class HardSigmoidGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Out", "The forward op's Out.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with Out's shape.");
    AddAttr<float>("slope", "As in `hard_sigmoid`.").SetDefault(0.2f);
    AddAttr<float>("offset", "As in `hard_sigmoid`.").SetDefault(0.5f);
    AddComment(R"DOC(
Gradient of `hard_sigmoid` (fused kernel, first order only):
$$dX = dOut \cdot slope \text{ where } 0 < Out < 1, \text{ else } 0$$
)DOC");
  }
};

class HardSwishGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.");
    AddAttr<float>("threshold", "As in `hard_swish`.").SetDefault(6.0f);
    AddAttr<float>("scale", "As in `hard_swish`.").SetDefault(6.0f);
    AddAttr<float>("offset", "As in `hard_swish`.").SetDefault(3.0f);
    AddComment(R"DOC(
Gradient of `hard_swish` (fused kernel, first order only):
$$dX = dOut \cdot \begin{cases} 0 & X + offset \le 0 \\ (2X + offset) / scale &
0 < X + offset < threshold \\ threshold / scale & X + offset \ge threshold \end{cases}$$
)DOC");
  }
};

}  // namespace

void RegisterHardActivationOps() {
  framework::RegisterOp<HardActivationOp, HardSigmoidOpMaker>(kHardSigmoid)
      .InferShape(SameShapeInferShape)
      .GradOpMaker(HardSigmoidGradMaker);
  RegisterPlainCpuFloatKernels<HardSigmoidKernel>(kHardSigmoid);
  framework::RegisterOp<HardActivationOp, HardSigmoidGradOpMaker>(kHardSigmoidGrad)
      .InferShape([](InferShapeContext* ctx) { UnaryGradInferShape(ctx, "Out"); });
  RegisterPlainCpuFloatKernels<HardSigmoidGradKernel>(kHardSigmoidGrad);

  framework::RegisterOp<HardActivationOp, HardSwishOpMaker>(kHardSwish)
      .InferShape(SameShapeInferShape)
      .GradOpMaker(HardSwishGradMaker);
  RegisterPlainCpuFloatKernels<HardSwishKernel>(kHardSwish);
  framework::RegisterOp<HardActivationOp, HardSwishGradOpMaker>(kHardSwishGrad)
      .InferShape([](InferShapeContext* ctx) { UnaryGradInferShape(ctx, "X"); });
  RegisterPlainCpuFloatKernels<HardSwishGradKernel>(kHardSwishGrad);
}

}  // namespace operators
}  // namespace paddle_like
