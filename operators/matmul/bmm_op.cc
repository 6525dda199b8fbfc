// bmm: batched matrix product of two rank-3 tensors with the same batch (paddle.bmm). Its
// gradients are written with matmul_v2, so every order is differentiable.
#include <complex>
#include <string>

#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/matmul/matmul_compute.h"
#include "operators/matmul/matmul_shape.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "bmm";

class BmmOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[B, M, K].");
    AddInput("Y", "[B, K, N].");
    AddOutput("Out", "[B, M, N].");
    AddComment(R"DOC(
Batched matrix product operator: for each b of the B matrices,

$$Out_b = X_b \cdot Y_b$$

Gradients, written with matmul_v2: $$dX_b = dOut_b \cdot Y_b^T, \quad dY_b = X_b^T \cdot dOut_b$$
with complex X and Y conjugated in those products (conj ops).
)DOC");
  }
};

class BmmOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// matmul_v2's analysis after bmm's own rules: rank 3 each, equal batches (no broadcast).
MatmulV2Shape AnalyzeBmm(const std::string& op, const DDim& x, const DDim& y) {
  PL_ENFORCE(x.size() == 3 && y.size() == 3,
             errors::InvalidArgument("op `%s` inputs `X` and `Y`: expected rank 3 each ([B, M, "
                                     "K] and [B, K, N]), received %s and %s",
                                     op, x.ToString(), y.ToString()));
  PL_ENFORCE(x[0] < 0 || y[0] < 0 || x[0] == y[0],
             errors::InvalidArgument("op `%s` inputs `X` and `Y`: expected the same batch, "
                                     "received %s and %s",
                                     op, x.ToString(), y.ToString()));
  return AnalyzeMatmulV2(op, x, y, false, false);
}

void BmmInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim(
      "Out", AnalyzeBmm(ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Y")).out_dims);
}

template <typename T>
struct BmmKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    CheckOperandTypes(kOp, *x, *y, platform::ToDataType<T>());
    const MatmulV2Shape s = AnalyzeBmm(kOp, x->dims(), y->dims());
    DenseTensor out(s.out_dims, x->dtype());
    MatmulV2Forward<T>(ctx.device_context<platform::CPUDeviceContext>(), s, x->data<T>(),
                       y->data<T>(), T(1), out.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("Out") = std::move(out);
  }
};

void BmmGradMaker(framework::GradOpBuilder* g) {
  const auto matmul = [g](const std::vector<std::string>& a, const std::vector<std::string>& b,
                          bool ta, bool tb, const std::vector<std::string>& out) {
    g->AddOp("matmul_v2", {{"X", a}, {"Y", b}}, {{"Out", out}}, {{"trans_x", ta}, {"trans_y", tb}});
  };
  // Complex operands enter conjugated (the gradient of a real loss by z = a + ib being
  // dL/da + i dL/db).
  if (g->WantsInputGrad("X")) {
    matmul(g->OutputGrad("Out"), {framework::ConjugatedIfComplex(g, g->Input("Y")[0])}, false, true,
           g->InputGrad("X"));
  }
  if (g->WantsInputGrad("Y")) {
    matmul({framework::ConjugatedIfComplex(g, g->Input("X")[0])}, g->OutputGrad("Out"), true, false,
           g->InputGrad("Y"));
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterBmmOp) {
  framework::RegisterOp<BmmOp, BmmOpMaker>(kOp).InferShape(BmmInferShape).GradOpMaker(BmmGradMaker);
  RegisterPlainCpuKernels<BmmKernel, float, double, std::complex<float>, std::complex<double>>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
