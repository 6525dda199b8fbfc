// swiglu: the gated linear unit with a SiLU gate of LLM feed-forward blocks, on two inputs
// or on the two halves of one. The gradient is written with differentiable ops (sigmoid,
// scale, elementwise_mul, split, concat), so it differentiates again.
#include <cmath>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "swiglu";
using Names = std::vector<std::string>;

class SwigluOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x",
             "The gate input; without y, the gate and the value side by side in its last "
             "dim (of even size).");
    AddInput("y", "The value input, x's shape.").AsDispensable();
    AddOutput("out", "x's shape; without y, x's with the last dim halved.");
    AddComment(R"DOC(
SwiGLU, elementwise, with the SiLU gate silu(a) = a sigmoid(a):
$$out = \mathrm{silu}(x) \cdot y$$
Without y, x = [a, b] is split in two halves along its last dim and
$$out = \mathrm{silu}(a) \cdot b$$
Gradient, written with differentiable ops (x = a, y = b with one input, the two results
concatenated back):
$$da = dout \cdot b \cdot \sigma(a) \left(1 + a (1 - \sigma(a))\right), \qquad db = dout \cdot \mathrm{silu}(a)$$
)DOC");
  }
};

class SwigluOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "x");
  }
};

// out's dims: x's, or x's with the last dim halved when there is no y.
DDim SwigluOutDims(const std::string& op, const DDim& x, const DDim* y) {
  if (y != nullptr) {
    CheckSameShape(op, "y", *y, "x", x);
    return x;
  }
  PL_ENFORCE(x.size() >= 1 && x[x.size() - 1] % 2 == 0,
             errors::InvalidArgument("op `%s` input `x`: without `y`, expected a last dim of "
                                     "even size (the gate and the value halves), received %s",
                                     op, x.ToString()));
  std::vector<int64_t> out = x.ToVector();
  out.back() /= 2;
  return DDim(out);
}

void SwigluInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireOutput("out");
  const DDim x = ctx->GetInputDim("x");
  if (ctx->HasInput("y")) {
    const DDim y = ctx->GetInputDim("y");
    ctx->SetOutputDim("out", SwigluOutDims(ctx->OpType(), x, &y));
  } else {
    ctx->SetOutputDim("out", SwigluOutDims(ctx->OpType(), x, nullptr));
  }
}

template <typename T>
struct SwigluKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("x");
    const DenseTensor* y_t = ctx.Input("y");
    const DDim out_dims =
        SwigluOutDims(ctx.Type(), x_t->dims(), y_t == nullptr ? nullptr : &y_t->dims());
    DenseTensor out(out_dims, x_t->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const int64_t n = out.numel();
    if (n > 0) {
      const T* x = x_t->data<T>();
      // Rows of `half` gates, each followed by its `half` values when x holds both.
      const int64_t half = y_t != nullptr ? n : out_dims[out_dims.size() - 1];
      const T* y = y_t != nullptr ? y_t->data<T>() : x + half;
      const int64_t stride = y_t != nullptr ? 0 : half;  // x's extra offset per row.
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          n / half, 1, [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
              const T* a = x + r * (half + stride);
              const T* b = y + r * (half + stride);
              T* z = o + r * half;
              for (int64_t i = 0; i < half; ++i) z[i] = a[i] / (T(1) + std::exp(-a[i])) * b[i];
            }
          });
    }
    *ctx.Output("out") = std::move(out);
  }
};

// da = dout * b * sigmoid(a) * (1 + a * (1 - sigmoid(a))) and db = dout * silu(a), for the
// gate `a` and value `b` (variables of equal shape).
void AppendGatedGrad(framework::GradOpBuilder* g, const Names& a, const Names& b, const Names& dout,
                     const Names& da, const Names& db) {
  auto temp = [g](const std::string& hint) { return Names{g->NewTemp(hint)}; };
  auto mul = [g](const Names& x, const Names& y, const Names& out) {
    g->AddOp("elementwise_mul", {{"X", x}, {"Y", y}}, {{"Out", out}}, {{"axis", -1}});
  };
  auto scale = [g](const Names& x, float s, float bias, const Names& out) {
    g->AddOp("scale", {{"X", x}}, {{"Out", out}},
             {{"scale", s}, {"bias", bias}, {"bias_after_scale", true}});
  };
  const Names sig = temp("sigmoid_gate");
  g->AddOp("sigmoid", {{"X", a}}, {{"Out", sig}});
  if (!db.empty()) {
    const Names silu = temp("silu_gate");
    mul(a, sig, silu);
    mul(dout, silu, db);
  }
  if (!da.empty()) {
    const Names one_minus = temp("one_minus_sigmoid");
    scale(sig, -1.0f, 1.0f, one_minus);
    const Names a_one_minus = temp("gate_times_one_minus");
    mul(a, one_minus, a_one_minus);
    const Names inner = temp("one_plus");
    scale(a_one_minus, 1.0f, 1.0f, inner);
    const Names slope = temp("silu_slope");
    mul(sig, inner, slope);
    const Names dout_b = temp("dout_times_value");
    mul(dout, b, dout_b);
    mul(dout_b, slope, da);
  }
}

void SwigluGradMaker(framework::GradOpBuilder* g) {
  const bool want_x = g->WantsInputGrad("x");
  if (g->HasInput("y")) {
    const bool want_y = g->WantsInputGrad("y");
    if (!want_x && !want_y) return;
    AppendGatedGrad(g, g->Input("x"), g->Input("y"), g->OutputGrad("out"),
                    want_x ? g->InputGrad("x") : Names{}, want_y ? g->InputGrad("y") : Names{});
    return;
  }
  if (!want_x) return;
  const Names halves = {g->NewTemp("gate"), g->NewTemp("value")};
  g->AddOp("split", {{"X", g->Input("x")}}, {{"Out", halves}},
           {{"axis", -1}, {"num", 2}, {"sections", std::vector<int>{}}});
  const Names grads = {g->NewTemp("gate_grad"), g->NewTemp("value_grad")};
  AppendGatedGrad(g, {halves[0]}, {halves[1]}, g->OutputGrad("out"), {grads[0]}, {grads[1]});
  g->AddOp("concat", {{"X", grads}}, {{"Out", g->InputGrad("x")}}, {{"axis", -1}});
}

}  // namespace

PL_REGISTER_OPS(RegisterSwigluOp) {
  framework::RegisterOp<SwigluOp, SwigluOpMaker>(kOp)
      .InferShape(SwigluInferShape)
      .InferVarType(OutputDataTypeOf("x", "out"))
      .GradOpMaker(SwigluGradMaker);
  RegisterPlainCpuFloatKernels<SwigluKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
