// Activation ops (relu, sigmoid, tanh, exp, log, sin, cos, square, sign): one op class, one
// maker template and one kernel template, instantiated per tag of activation_op.h, and the
// grad maker of each tag. Also PaddlePaddle's fused grad op types (relu_grad, sigmoid_grad,
// tanh_grad, exp_grad, square_grad), so that programs it built run here.
#include "operators/activation/activation_op.h"

#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {
namespace {

template <typename Tag>
class ActivationOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    std::string doc = std::string("Activation operator `") + Tag::kType + "`.\n\n$$" +
                      Tag::kFormula + "$$\n\napplied elementwise.";
    if (Tag::kNote[0] != '\0') doc += std::string(" ") + Tag::kNote;
    doc += std::string("\n\nGradient:\n\n$$") + Tag::kGradFormula + "$$";
    AddComment(doc + "\n");
  }
};

class ActivationOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

template <typename Tag>
struct ActivationCpuKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      DenseTensor* out = ctx.Output("Out");
      const typename Tag::template Functor<T> f{};
      const T* in = x->data<T>();
      T* o = out->mutable_data<T>(ctx.GetPlace());
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          x->numel(), 1 << 14, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
          });
    }
  };
};

// Helpers that emit one forward op into a grad maker's backward ops, with every semantic
// attribute given explicitly.
using framework::GradOpBuilder;
using Names = std::vector<std::string>;

// out = type(x) for an activation op.
void EmitUnary(GradOpBuilder* g, const std::string& type, const Names& x, const Names& out) {
  g->AddOp(type, {{"X", x}}, {{"Out", out}});
}

// out = x * y, elementwise (same shapes).
void EmitMul(GradOpBuilder* g, const Names& x, const Names& y, const Names& out) {
  g->AddOp("elementwise_mul", {{"X", x}, {"Y", y}}, {{"Out", out}}, {{"axis", -1}});
}

// out = scale * x + bias.
void EmitScale(GradOpBuilder* g, const Names& x, float scale, float bias, const Names& out) {
  g->AddOp("scale", {{"X", x}}, {{"Out", out}},
           {{"scale", scale}, {"bias", bias}, {"bias_after_scale", true}});
}

Names Temp(GradOpBuilder* g, const std::string& hint) { return {g->NewTemp(hint)}; }

}  // namespace

// Grad makers: dOut is g->OutputGrad("Out"), dX is g->InputGrad("X"). Each names only the
// forward variables its formula reads.

void ReluTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  // sign(relu(x)) is 1 where x > 0, else 0.
  const Names mask = Temp(g, "sign_out");
  EmitUnary(g, "sign", g->Output("Out"), mask);
  EmitMul(g, g->OutputGrad("Out"), mask, g->InputGrad("X"));
}

void SigmoidTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names one_minus_out = Temp(g, "one_minus_out");
  EmitScale(g, g->Output("Out"), -1.0f, 1.0f, one_minus_out);
  const Names slope = Temp(g, "slope");
  EmitMul(g, g->Output("Out"), one_minus_out, slope);
  EmitMul(g, g->OutputGrad("Out"), slope, g->InputGrad("X"));
}

void TanhTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names out_squared = Temp(g, "out_squared");
  EmitUnary(g, "square", g->Output("Out"), out_squared);
  const Names slope = Temp(g, "slope");
  EmitScale(g, out_squared, -1.0f, 1.0f, slope);
  EmitMul(g, g->OutputGrad("Out"), slope, g->InputGrad("X"));
}

void ExpTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  EmitMul(g, g->OutputGrad("Out"), g->Output("Out"), g->InputGrad("X"));
}

void LogTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("elementwise_div", {{"X", g->OutputGrad("Out")}, {"Y", g->Input("X")}},
           {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
}

void SinTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names cos_x = Temp(g, "cos");
  EmitUnary(g, "cos", g->Input("X"), cos_x);
  EmitMul(g, g->OutputGrad("Out"), cos_x, g->InputGrad("X"));
}

void CosTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names sin_x = Temp(g, "sin");
  EmitUnary(g, "sin", g->Input("X"), sin_x);
  const Names product = Temp(g, "dout_sin");
  EmitMul(g, g->OutputGrad("Out"), sin_x, product);
  EmitScale(g, product, -1.0f, 0.0f, g->InputGrad("X"));
}

void SquareTag::MakeGrad(GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const Names two_x = Temp(g, "two_x");
  EmitScale(g, g->Input("X"), 2.0f, 0.0f, two_x);
  EmitMul(g, g->OutputGrad("Out"), two_x, g->InputGrad("X"));
}

// Zero almost everywhere: nothing flows back.
void SignTag::MakeGrad(GradOpBuilder*) {}

// ---------------------------------------------------------------- PaddlePaddle grad op types

namespace {

// `<type>_grad`: reads Tag::kGradDep (Out or X) and Out@GRAD, writes X@GRAD. paddle_like's
// own backward pass uses the grad makers above instead; these ops are not differentiable.
template <typename Tag>
class ActivationGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput(Tag::kGradDep, std::string("The forward op's ") + Tag::kGradDep + ".");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.");
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(std::string("Gradient of `") + Tag::kType +
               "` as PaddlePaddle's programs hold it (fused kernel, first order only), "
               "elementwise from " +
               Tag::kGradDep + " and dOut = Out@GRAD:\n\n$$" + Tag::kGradFormula + "$$\n");
  }
};

template <typename Tag>
void ActivationGradInferShape(InferShapeContext* ctx) {
  UnaryGradInferShape(ctx, Tag::kGradDep);
}

template <typename Tag>
struct ActivationGradCpuKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor dep = *ctx.Input(Tag::kGradDep);
      const DenseTensor dout = *ctx.Input("Out@GRAD");
      PL_ENFORCE(dep.numel() == dout.numel(),
                 errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of `%s` "
                                         "%s, received %s",
                                         ctx.Type(), Tag::kGradDep, dep.dims().ToString(),
                                         dout.dims().ToString()));
      DenseTensor* dx = ctx.Output("X@GRAD");
      dx->Resize(dep.dims());
      T* o = dx->mutable_data<T>(ctx.GetPlace());
      if (dep.numel() == 0) return;
      const T* d = dep.data<T>();
      const T* g = dout.data<T>();
      const typename Tag::template GradFunctor<T> f{};
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          dep.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) o[i] = f(d[i], g[i]);
          });
    }
  };
};

void RegisterActivationGradOps() {
  ForEachActivationWithGradOp([](auto tag) {
    using Tag = decltype(tag);
    const std::string type = std::string(Tag::kType) + "_grad";
    framework::RegisterOp<ActivationOp, ActivationGradOpMaker<Tag>>(type).InferShape(
        ActivationGradInferShape<Tag>);
    RegisterPlainCpuFloatKernels<ActivationGradCpuKernel<Tag>::template Kernel>(type);
  });
}

}  // namespace

void RegisterActivationOps() {
  ForEachActivation([](auto tag) {
    using Tag = decltype(tag);
    framework::RegisterOp<ActivationOp, ActivationOpMaker<Tag>>(Tag::kType)
        .InferShape(SameShapeInferShape)
        .GradOpMaker(&Tag::MakeGrad);
    RegisterPlainCpuFloatKernels<ActivationCpuKernel<Tag>::template Kernel>(Tag::kType);
  });
  RegisterActivationGradOps();
}

}  // namespace operators
}  // namespace paddle_like
