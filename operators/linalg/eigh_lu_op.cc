// eigh and eigvalsh (symmetric eigendecompositions, with fused backwards) and lu (LU with
// partial pivoting, forward only).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class EighOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., N, N]: symmetric matrices (one triangle is read).");
    AddOutput("Eigenvalues", "[..., N], ascending.");
    AddOutput("Eigenvectors", "[..., N, N]: column j belongs to eigenvalue j.");
    AddAttr<std::string>("UPLO", "The triangle read: L (lower) or U (upper).")
        .SetDefault("L")
        .InEnum({"L", "U"});
    AddComment(R"DOC(
Eigenvalues and eigenvectors of symmetric matrices:
$$X = V \operatorname{diag}(w) V^T, \quad w_1 \le \dots \le w_N$$
Gradient, by the fused op eigh_grad, symmetric as X is: with $F_{ij} = 1 / (w_j - w_i)$ off
the diagonal and 0 on it, $$G = V (\operatorname{diag}(dw) + F \circ (V^T dV)) V^T, \quad dX =
(G + G^T) / 2$$
)DOC");
  }
};

class EigvalshOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., N, N]: symmetric matrices (one triangle is read).");
    AddOutput("Eigenvalues", "[..., N], ascending.");
    AddOutput("Eigenvectors", "[..., N, N]: kept for the gradient.");
    AddAttr<std::string>("UPLO", "The triangle read: L (lower) or U (upper).")
        .SetDefault("L")
        .InEnum({"L", "U"});
    AddAttr<bool>("is_test", "Inference only (the eigenvectors are still written).")
        .SetDefault(false);
    AddComment(R"DOC(
Eigenvalues of symmetric matrices, ascending: $$X = V \operatorname{diag}(w) V^T$$
Gradient, by the fused op eigvalsh_grad: $$dX = V \operatorname{diag}(dw) V^T$$
)DOC");
  }
};

class LuOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., M, N].");
    AddOutput("Out",
              "[..., M, N]: L below the diagonal (unit diagonal implied) and U on and above.");
    AddOutput("Pivots", "[..., min(M, N)] int32: row i was swapped with row Pivots[i] (1-based).");
    AddOutput("Infos", "[...] int32: 0, or k when U[k-1, k-1] is exactly zero (the first such k).");
    AddAttr<bool>("pivots", "Partial pivoting; only true is supported on the CPU.")
        .SetDefault(true);
    AddComment(R"DOC(
LU decomposition with partial pivoting (LAPACK getrf): $$P X = L U$$ with the largest absolute
value of each column below the diagonal as its pivot (the first one on ties).
)DOC");
  }
};

// ---------------------------------------------------------------- eigh, eigvalsh

void EighInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  const DDim x = ctx->GetInputDim("X");
  const MatrixBatch b = linalg::SquareMatrices(ctx->OpType(), "X", x);
  ctx->RequireOutput("Eigenvalues");
  ctx->SetOutputDim("Eigenvalues", linalg::WithBatchDims(x, {b.rows}));
  if (ctx->HasOutput("Eigenvectors")) ctx->SetOutputDim("Eigenvectors", x);
}

template <typename T>
struct EighKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const bool upper = ctx.Attr<std::string>("UPLO") == "U";
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    DenseTensor w(linalg::WithBatchDims(x->dims(), {b.rows}), x->dtype());
    DenseTensor v(x->dims(), x->dtype());
    T* wd = w.mutable_data<T>(ctx.GetPlace());
    T* vd = v.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      if (b.rows == 0) continue;
      // The solver reads the lower triangle; mirror the upper one into it for UPLO = U.
      Matrix<T> a = MatrixAt<T>(*x, b, i);
      if (upper) a = a.template triangularView<Eigen::Upper>().transpose();
      const Eigen::SelfAdjointEigenSolver<Matrix<T>> eig(a);
      PL_ENFORCE(eig.info() == Eigen::Success,
                 errors::InvalidArgument("op `%s` input `X`: the eigenvalues of matrix %d of the "
                                         "batch did not converge (is it finite?)",
                                         ctx.Type(), i));
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(wd + i * b.rows, b.rows) = eig.eigenvalues();
      MatrixAt(vd, b, i) = eig.eigenvectors();
    }
    *ctx.Output("Eigenvalues") = std::move(w);
    if (DenseTensor* o = ctx.Output("Eigenvectors")) *o = std::move(v);
  }
};

void EighGradInferShape(InferShapeContext* ctx) {
  linalg::InputGradLikeOutputInferShape(ctx, "X", "Eigenvectors");
}

// G = V (diag(dw) + F o (V^T dV)) V^T, symmetrized; without dV (eigvalsh) only the first term.
template <typename T>
void EighGrad(const ExecutionContext& ctx, bool with_vector_grad) {
  const DenseTensor* v = ctx.Input("Eigenvectors");
  const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "Eigenvectors", v->dims());
  const DenseTensor* w = with_vector_grad ? ctx.Input("Eigenvalues") : nullptr;
  const DenseTensor* dw = ctx.Input("Eigenvalues@GRAD");
  const DenseTensor* dv = with_vector_grad ? ctx.Input("Eigenvectors@GRAD") : nullptr;
  const DDim w_dims = linalg::WithBatchDims(v->dims(), {b.rows});
  CheckSameShape(ctx.Type(), "Eigenvalues@GRAD", dw->dims(), "Eigenvalues", w_dims);
  if (dv != nullptr)
    CheckSameShape(ctx.Type(), "Eigenvectors@GRAD", dv->dims(), "Eigenvectors", v->dims());
  DenseTensor dx(v->dims(), v->dtype());
  T* g = dx.mutable_data<T>(ctx.GetPlace());
  for (int64_t i = 0; i < b.batch; ++i) {
    if (b.rows == 0) continue;
    const ConstMatrixMap<T> vec = MatrixAt<T>(*v, b, i);
    Matrix<T> inner = Matrix<T>::Zero(b.rows, b.rows);
    if (dv != nullptr) {
      inner = vec.transpose() * MatrixAt<T>(*dv, b, i);
      const T* wi = w->data<T>() + i * b.rows;
      for (int64_t r = 0; r < b.rows; ++r) {
        for (int64_t c = 0; c < b.rows; ++c)
          inner(r, c) = r == c ? T(0) : inner(r, c) / (wi[c] - wi[r]);
      }
    }
    const T* dwi = dw->data<T>() + i * b.rows;
    for (int64_t r = 0; r < b.rows; ++r) inner(r, r) += dwi[r];
    const Matrix<T> full = vec * inner * vec.transpose();
    MatrixAt(g, b, i) = (full + full.transpose()) * T(0.5);
  }
  *ctx.Output("X@GRAD") = std::move(dx);
}

template <typename T>
struct EighGradKernel {
  static void Compute(const ExecutionContext& ctx) { EighGrad<T>(ctx, true); }
};

template <typename T>
struct EigvalshGradKernel {
  static void Compute(const ExecutionContext& ctx) { EighGrad<T>(ctx, false); }
};

// ---------------------------------------------------------------- lu

void LuInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const MatrixBatch b = linalg::Matrices(ctx->OpType(), "X", x);
  ctx->SetOutputDim("Out", x);
  if (ctx->HasOutput("Pivots")) {
    ctx->SetOutputDim("Pivots", linalg::WithBatchDims(x, {MinDim(b.rows, b.cols)}));
  }
  if (ctx->HasOutput("Infos")) ctx->SetOutputDim("Infos", DDim(linalg::BatchDims(x)));
}

void LuInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  ctx->SetOutputDataType("Pivots", DataType::INT32);
  ctx->SetOutputDataType("Infos", DataType::INT32);
}

// getrf on one row-major M x N matrix in place; 1-based pivots; returns LAPACK's info.
template <typename T>
int32_t LuInPlace(MatrixMap<T> a, int32_t* pivots) {
  const int64_t m = a.rows(), n = a.cols(), k = std::min(m, n);
  int32_t info = 0;
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    for (int64_t r = j + 1; r < m; ++r) {
      if (std::abs(a(r, j)) > std::abs(a(p, j))) p = r;
    }
    pivots[j] = static_cast<int32_t>(p + 1);
    if (a(p, j) == T(0)) {
      if (info == 0) info = static_cast<int32_t>(j + 1);
      continue;
    }
    if (p != j) a.row(p).swap(a.row(j));
    const T inv = T(1) / a(j, j);
    for (int64_t r = j + 1; r < m; ++r) a(r, j) *= inv;
    if (j + 1 < n && j + 1 < m) {
      a.bottomRightCorner(m - j - 1, n - j - 1).noalias() -=
          a.col(j).tail(m - j - 1) * a.row(j).tail(n - j - 1);
    }
  }
  return info;
}

template <typename T>
struct LuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    PL_ENFORCE(ctx.Attr<bool>("pivots"),
               errors::Unimplemented("op `%s` attribute `pivots`: LU without pivoting is not "
                                     "implemented on the CPU (expected true, received false)",
                                     ctx.Type()));
    const MatrixBatch b = linalg::Matrices(ctx.Type(), "X", x->dims());
    const int64_t k = std::min(b.rows, b.cols);
    DenseTensor out(x->dims(), x->dtype());
    DenseTensor pivots(linalg::WithBatchDims(x->dims(), {k}), DataType::INT32);
    DenseTensor infos(DDim(linalg::BatchDims(x->dims())), DataType::INT32);
    T* o = out.mutable_data<T>(ctx.GetPlace());
    int32_t* piv = pivots.mutable_data<int32_t>(ctx.GetPlace());
    int32_t* info = infos.mutable_data<int32_t>(ctx.GetPlace());
    if (x->numel() > 0) std::copy(x->data<T>(), x->data<T>() + x->numel(), o);
    for (int64_t i = 0; i < b.batch; ++i) {
      info[i] = b.size() == 0 ? 0 : LuInPlace<T>(MatrixAt(o, b, i), piv + i * k);
    }
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* t = ctx.Output("Pivots")) *t = std::move(pivots);
    if (DenseTensor* t = ctx.Output("Infos")) *t = std::move(infos);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterEighLuOps) {
  framework::RegisterOp<LinalgOp, LuOpMaker>("lu")
      .InferShape(LuInferShape)
      .InferVarType(LuInferVarType);
  RegisterPlainCpuFloatKernels<LuKernel>("lu");

  const framework::FusedGradDecl eigh_grad{
      {"Eigenvalues", "Eigenvectors"},
      {"Eigenvalues", "Eigenvectors"},
      {"X"},
      R"DOC($$G = V (diag(dw) + F \circ (V^T dV)) V^T, \quad dX = (G + G^T) / 2$$)DOC"};
  linalg::RegisterWithFusedGrad<EighOpMaker, EighKernel, EighGradKernel>(
      "eigh", EighInferShape, eigh_grad, EighGradInferShape);

  const framework::FusedGradDecl eigvalsh_grad{
      {"Eigenvectors"}, {"Eigenvalues"}, {"X"}, R"DOC($$dX = V diag(dw) V^T$$)DOC"};
  linalg::RegisterWithFusedGrad<EigvalshOpMaker, EighKernel, EigvalshGradKernel>(
      "eigvalsh", EighInferShape, eigvalsh_grad, EighGradInferShape);
}

}  // namespace operators
}  // namespace paddle_like
