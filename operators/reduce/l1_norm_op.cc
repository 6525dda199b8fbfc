// l1_norm: the sum of the absolute values of all elements, as a 0-D tensor. The gradient is
// written with sign and elementwise_mul.
#include <cmath>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "l1_norm";

class L1NormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "0-D tensor (dims []) with X's dtype.");
    AddComment(R"DOC(
L1 norm of all elements of X, summed in double in a fixed order (an empty X gives 0):
$$Out = \sum_i |X_i|$$
Gradient, written with differentiable ops (0 at X_i = 0):
$$dX = \mathrm{sign}(X) \cdot dOut$$
)DOC");
  }
};

class L1NormOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void L1NormInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", DDim());
}

template <typename T>
struct L1NormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("X");
    const T* x = x_t->numel() > 0 ? x_t->data<T>() : nullptr;
    double sum = 0;
    for (int64_t i = 0; i < x_t->numel(); ++i) sum += std::abs(static_cast<double>(x[i]));
    DenseTensor out(DDim(), x_t->dtype());
    out.mutable_data<T>(ctx.GetPlace())[0] = static_cast<T>(sum);
    *ctx.Output("Out") = std::move(out);
  }
};

void L1NormGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string sign = g->NewTemp("sign_x");
  g->AddOp("sign", {{"X", g->Input("X")}}, {{"Out", {sign}}});
  g->AddOp("elementwise_mul", {{"X", {sign}}, {"Y", g->OutputGrad("Out")}},
           {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
}

}  // namespace

PL_REGISTER_OPS(RegisterL1NormOp) {
  framework::RegisterOp<L1NormOp, L1NormOpMaker>(kOp)
      .InferShape(L1NormInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(L1NormGradMaker);
  RegisterPlainCpuFloatKernels<L1NormKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
