// atan2: the angle of the point (X2, X1), elementwise over two tensors of one shape; integer
// inputs give float64, as in PaddlePaddle. The gradient is written with differentiable ops.
#include <cmath>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "atan2";

class Atan2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X1", "The y coordinates.");
    AddInput("X2", "The x coordinates, X1's shape and dtype.");
    AddOutput("Out", "The angles in (-pi, pi], X1's shape; float64 for integer inputs.");
    AddComment(R"DOC(
Atan2 operator, elementwise:

$$Out = \operatorname{atan2}(X1, X2) \in (-\pi, \pi]$$

the angle of the point (X2, X1) from the positive x axis. Example: X1 = [1, -1], X2 = [-1, 0]
-> [3 pi / 4, -pi / 2].

Gradient (written with differentiable ops, so it can be differentiated again):
$$dX1 = \frac{dOut \cdot X2}{X1^2 + X2^2}, \quad dX2 = -\frac{dOut \cdot X1}{X1^2 + X2^2}$$
)DOC");
  }
};

class Atan2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X1");
  }
};

bool IntegerType(DataType t) { return t == DataType::INT32 || t == DataType::INT64; }

void Atan2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X1");
  ctx->RequireInput("X2");
  ctx->RequireOutput("Out");
  CheckSameShape(ctx->OpType(), "X2", ctx->GetInputDim("X2"), "X1", ctx->GetInputDim("X1"));
  ctx->SetOutputDim("Out", ctx->GetInputDim("X1"));
  ctx->ShareLoD("X1", "Out");
}

void Atan2InferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType in = ctx->GetInputDataType("X1");
  ctx->SetOutputDataType("Out", IntegerType(in) ? DataType::FLOAT64 : in);
}

template <typename T>
struct Atan2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* y = ctx.Input("X1");
    const DenseTensor* x = ctx.Input("X2");
    CheckSameShape(ctx.Type(), "X2", x->dims(), "X1", y->dims());
    PL_ENFORCE(
        x->dtype() == y->dtype(),
        errors::InvalidArgument("op `%s` input `X2`: expected X1's dtype %s, received %s",
                                ctx.Type(), DataTypeName(y->dtype()), DataTypeName(x->dtype())));
    using OutT = std::conditional_t<std::is_integral_v<T>, double, T>;
    DenseTensor out(y->dims(), platform::ToDataType<OutT>());
    out.set_lod(y->lod());
    OutT* o = out.mutable_data<OutT>(ctx.GetPlace());
    const T* a = y->numel() > 0 ? y->data<T>() : nullptr;
    const T* b = x->numel() > 0 ? x->data<T>() : nullptr;
    for (int64_t i = 0; i < out.numel(); ++i) {
      o[i] = std::atan2(static_cast<OutT>(a[i]), static_cast<OutT>(b[i]));
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void Atan2GradMaker(framework::GradOpBuilder* g) {
  const bool d1 = g->WantsInputGrad("X1"), d2 = g->WantsInputGrad("X2");
  if (!d1 && !d2) return;
  const auto temp = [g](const char* hint) { return std::vector<std::string>{g->NewTemp(hint)}; };
  const auto mul = [g](const std::vector<std::string>& a, const std::vector<std::string>& b,
                       const std::vector<std::string>& out) {
    g->AddOp("elementwise_mul", {{"X", a}, {"Y", b}}, {{"Out", out}}, {{"axis", -1}});
  };
  const auto sq1 = temp("x1_squared"), sq2 = temp("x2_squared"), norm = temp("radius_squared");
  g->AddOp("square", {{"X", g->Input("X1")}}, {{"Out", sq1}});
  g->AddOp("square", {{"X", g->Input("X2")}}, {{"Out", sq2}});
  g->AddOp("elementwise_add", {{"X", sq1}, {"Y", sq2}}, {{"Out", norm}}, {{"axis", -1}});
  const auto ratio = temp("dout_over_radius_squared");
  g->AddOp("elementwise_div", {{"X", g->OutputGrad("Out")}, {"Y", norm}}, {{"Out", ratio}},
           {{"axis", -1}});
  if (d1) mul(ratio, g->Input("X2"), g->InputGrad("X1"));
  if (d2) {
    const auto part = temp("ratio_x1");
    mul(ratio, g->Input("X1"), part);
    g->AddOp("scale", {{"X", part}}, {{"Out", g->InputGrad("X2")}},
             {{"scale", -1.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterAtan2Op) {
  framework::RegisterOp<Atan2Op, Atan2OpMaker>(kOp)
      .InferShape(Atan2InferShape)
      .InferVarType(Atan2InferVarType)
      .GradOpMaker(Atan2GradMaker);
  RegisterPlainCpuNumericKernels<Atan2Kernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
