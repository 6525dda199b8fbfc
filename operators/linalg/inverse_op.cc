// inverse and matrix_power on batches of square matrices. inverse's gradient is written with
// matmul_v2 and scale, so it differentiates again; matrix_power has a fused backward.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class InverseOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "[..., N, N]: a batch of square matrices.");
    AddOutput("Output", "Input's shape: the inverse of each matrix.");
    AddComment(R"DOC(
Inverse of each square matrix of the batch, by LU decomposition with partial pivoting:
$$Output = Input^{-1}$$
A matrix with a zero pivot is refused with an error naming its index in the batch.
Gradient, with matmul_v2 and scale (so it differentiates again):
$$dInput = -Output^T \cdot dOutput \cdot Output^T$$
)DOC");
  }
};

class MatrixPowerOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., N, N]: a batch of square matrices.");
    AddOutput("Out", "X's shape.");
    AddAttr<int>("n", "The exponent; negative powers invert X first, 0 gives the identity.");
    AddComment(R"DOC(
Integer power of each square matrix, by repeated squaring:
$$Out = X^n \;(n > 0), \quad I \;(n = 0), \quad (X^{-1})^{-n} \;(n < 0)$$
Gradient, by the fused op matrix_power_grad: with A = X and m = n (or A = X^{-1} and m = -n),
$$dA = \sum_{k=0}^{m-1} (A^k)^T \, dOut \, (A^{m-1-k})^T, \quad dX = dA \;(n > 0), \quad
dX = -A^T dA A^T \;(n < 0)$$ and dX = 0 for n = 0.
)DOC");
  }
};

// ---------------------------------------------------------------- inverse

void InverseInferShape(InferShapeContext* ctx) {
  linalg::SameSquareMatricesInferShape(ctx, "Input", "Output");
}

template <typename T>
struct InverseKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "Input", in->dims());
    DenseTensor out(in->dims(), in->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      MatrixAt(o, b, i) = linalg::InverseOrThrow<T>(ctx.Type(), "Input", MatrixAt<T>(*in, b, i), i);
    }
    *ctx.Output("Output") = std::move(out);
  }
};

void InverseGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Input")) return;
  const std::vector<std::string> left = {g->NewTemp("inverse_grad_left")};
  const std::vector<std::string> product = {g->NewTemp("inverse_grad_product")};
  g->AddOp("matmul_v2", {{"X", g->Output("Output")}, {"Y", g->OutputGrad("Output")}},
           {{"Out", left}}, {{"trans_x", true}, {"trans_y", false}});
  g->AddOp("matmul_v2", {{"X", left}, {"Y", g->Output("Output")}}, {{"Out", product}},
           {{"trans_x", false}, {"trans_y", true}});
  g->AddOp("scale", {{"X", product}}, {{"Out", g->InputGrad("Input")}},
           {{"scale", -1.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
}

// PaddlePaddle's inverse_grad, for programs that carry it.
void InverseGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Output@GRAD");
  linalg::InputGradLikeOutputInferShape(ctx, "Input", "Output");
}

template <typename T>
struct InverseGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* inv = ctx.Input("Output");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    CheckSameShape(ctx.Type(), "Output@GRAD", dout->dims(), "Output", inv->dims());
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "Output", inv->dims());
    DenseTensor dx(inv->dims(), inv->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      const ConstMatrixMap<T> a = MatrixAt<T>(*inv, b, i);
      MatrixAt(g, b, i) = -(a.transpose() * MatrixAt<T>(*dout, b, i) * a.transpose());
    }
    *ctx.Output("Input@GRAD") = std::move(dx);
  }
};

// ---------------------------------------------------------------- matrix_power

template <typename T>
Matrix<T> Power(Matrix<T> base, int64_t m) {
  Matrix<T> result = Matrix<T>::Identity(base.rows(), base.cols());
  while (m > 0) {
    if (m & 1) result = result * base;
    m >>= 1;
    if (m > 0) base = base * base;
  }
  return result;
}

void MatrixPowerInferShape(InferShapeContext* ctx) {
  linalg::SameSquareMatricesInferShape(ctx, "X", "Out");
}

template <typename T>
struct MatrixPowerKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const int n = ctx.Attr<int>("n");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      Matrix<T> base = MatrixAt<T>(*x, b, i);
      if (n < 0) base = linalg::InverseOrThrow<T>(ctx.Type(), "X", base, i);
      MatrixAt(o, b, i) = Power<T>(std::move(base), n < 0 ? -static_cast<int64_t>(n) : n);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void MatrixPowerGradInferShape(InferShapeContext* ctx) { linalg::InputGradsInferShape(ctx, {"X"}); }

template <typename T>
struct MatrixPowerGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "X", x->dims());
    const int n = ctx.Attr<int>("n");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    DenseTensor dx(x->dims(), x->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    const int64_t m = n < 0 ? -static_cast<int64_t>(n) : n;
    for (int64_t i = 0; i < b.batch; ++i) {
      if (m == 0) {
        MatrixAt(g, b, i).setZero();
        continue;
      }
      Matrix<T> a = MatrixAt<T>(*x, b, i);
      if (n < 0) a = linalg::InverseOrThrow<T>(ctx.Type(), "X", a, i);
      // powers[k] = A^k for k < m.
      std::vector<Matrix<T>> powers = {Matrix<T>::Identity(b.rows, b.rows)};
      for (int64_t k = 1; k < m; ++k) powers.push_back(powers.back() * a);
      const ConstMatrixMap<T> grad_out = MatrixAt<T>(*dout, b, i);
      Matrix<T> da = Matrix<T>::Zero(b.rows, b.rows);
      for (int64_t k = 0; k < m; ++k) {
        da.noalias() += powers[k].transpose() * grad_out * powers[m - 1 - k].transpose();
      }
      if (n < 0) da = -(a.transpose() * da * a.transpose());
      MatrixAt(g, b, i) = da;
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterInverseOps) {
  framework::RegisterOp<LinalgOp, InverseOpMaker>("inverse")
      .InferShape(InverseInferShape)
      .GradOpMaker(InverseGradMaker);
  RegisterPlainCpuFloatKernels<InverseKernel>("inverse");
  const framework::FusedGradDecl inverse_grad{
      {"Output"}, {"Output"}, {"Input"}, R"DOC($$dInput = -Output^T dOutput Output^T$$)DOC"};
  framework::RegisterFusedGradOp("inverse", inverse_grad).InferShape(InverseGradInferShape);
  RegisterPlainCpuFloatKernels<InverseGradKernel>("inverse_grad");

  const framework::FusedGradDecl matrix_power_grad{
      {"X", "Out"},
      {"Out"},
      {"X"},
      R"DOC($$dX = \sum_{k=0}^{n-1} (X^k)^T dOut (X^{n-1-k})^T$$ (through X^{-1} for n < 0))DOC"};
  linalg::RegisterWithFusedGrad<MatrixPowerOpMaker, MatrixPowerKernel, MatrixPowerGradKernel>(
      "matrix_power", MatrixPowerInferShape, matrix_power_grad, MatrixPowerGradInferShape);
}

}  // namespace operators
}  // namespace paddle_like
