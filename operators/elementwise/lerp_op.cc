// lerp: linear interpolation X + Weight * (Y - X), the three inputs broadcast as in NumPy. The
// gradient is written with differentiable ops (reduce_as sums each one back to its input's
// shape).
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "lerp";

class LerpOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The start.");
    AddInput("Y", "The end, X's dtype.");
    AddInput("Weight", "The interpolation weights, X's dtype.");
    AddOutput("Out", "The broadcast shape of X, Y and Weight.");
    AddComment(R"DOC(
Linear interpolation, elementwise with NumPy broadcasting of the three inputs:

$$Out = X + Weight \cdot (Y - X)$$

Example: X = [0, 0], Y = [10, 20], Weight = [0.5] -> [5, 10].

Gradient (written with differentiable ops, each summed back to its input's shape):
$$dX = dOut \cdot (1 - Weight), \quad dY = dOut \cdot Weight, \quad dWeight = dOut \cdot (Y - X)$$
)DOC");
  }
};

class LerpOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

DDim LerpOutDims(const std::string& op, const DDim& x, const DDim& y, const DDim& w) {
  const DDim xy = math::ComputeBroadcastDims(op, x, y, -1).out;
  return math::ComputeBroadcastDims(op, xy, w, -1).out;
}

void LerpInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Y", "Weight"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", LerpOutDims(ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Y"),
                                       ctx->GetInputDim("Weight")));
}

template <typename T>
struct LerpKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* w = ctx.Input("Weight");
    const DDim out_dims = LerpOutDims(ctx.Type(), x->dims(), y->dims(), w->dims());
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const int64_t n = out_dims.numel();
    // Each input broadcast to Out's shape.
    const auto expand = [&](const DenseTensor* t, const char* slot) {
      std::vector<T> full(static_cast<size_t>(n));
      if (n > 0) {
        const DDim aligned = math::AlignInside(ctx.Type(), "Out", out_dims, slot, t->dims(), -1);
        math::BroadcastTo(dev, t->template data<T>(), aligned, out_dims, full.data());
      }
      return full;
    };
    const std::vector<T> a = expand(x, "X"), b = expand(y, "Y"), c = expand(w, "Weight");
    DenseTensor out(out_dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < n; ++i) o[i] = a[i] + c[i] * (b[i] - a[i]);
    *ctx.Output("Out") = std::move(out);
  }
};

void LerpGradMaker(framework::GradOpBuilder* g) {
  const bool dx = g->WantsInputGrad("X"), dy = g->WantsInputGrad("Y"),
             dw = g->WantsInputGrad("Weight");
  if (!dx && !dy && !dw) return;
  const std::vector<std::string> dout = g->OutputGrad("Out");
  const auto temp = [g](const char* hint) { return std::vector<std::string>{g->NewTemp(hint)}; };
  const auto mul = [g](const std::vector<std::string>& a, const std::vector<std::string>& b,
                       const std::vector<std::string>& out) {
    g->AddOp("elementwise_mul", {{"X", a}, {"Y", b}}, {{"Out", out}}, {{"axis", -1}});
  };
  // Sums an Out-shaped value back to the shape of input `slot`.
  const auto reduce_to = [g](const std::vector<std::string>& v, const char* slot) {
    g->AddOp("reduce_as", {{"X", v}, {"Target", g->Input(slot)}}, {{"Out", g->InputGrad(slot)}},
             {{"axis", -1}});
  };
  const auto dout_w = temp("dout_weight");
  mul(dout, g->Input("Weight"), dout_w);
  if (dy) reduce_to(dout_w, "Y");
  if (dx) {
    const auto rest = temp("dout_one_minus_weight");
    g->AddOp("elementwise_sub", {{"X", dout}, {"Y", dout_w}}, {{"Out", rest}}, {{"axis", -1}});
    reduce_to(rest, "X");
  }
  if (dw) {
    const auto diff = temp("y_minus_x"), prod = temp("dout_y_minus_x");
    g->AddOp("elementwise_sub", {{"X", g->Input("Y")}, {"Y", g->Input("X")}}, {{"Out", diff}},
             {{"axis", -1}});
    mul(dout, diff, prod);
    reduce_to(prod, "Weight");
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterLerpOp) {
  framework::RegisterOp<LerpOp, LerpOpMaker>(kOp)
      .InferShape(LerpInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(LerpGradMaker);
  RegisterPlainCpuFloatKernels<LerpKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
