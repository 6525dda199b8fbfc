// cholesky and triangular_solve, with fused backwards. triangular_solve broadcasts the batch
// dims of its two inputs as matmul_v2 does.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class CholeskyOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X",
             "[..., N, N]: symmetric positive definite matrices (the lower triangle is read).");
    AddOutput("Out", "X's shape: the triangular factors.");
    AddAttr<bool>("upper",
                  "Give the upper factor U (X = U^T U) instead of the lower L (X = L L^T).")
        .SetDefault(false);
    AddComment(R"DOC(
Cholesky factor of each symmetric positive definite matrix, from its lower triangle:
$$X = L L^T \;(upper = false), \quad X = U^T U \;(upper = true, U = L^T)$$
A matrix that is not positive definite is refused with an error naming its index.
Gradient, by the fused op cholesky_grad (symmetric, as X is): with
$\Phi$ the lower triangle with its diagonal halved,
$$S = L^{-T} \, \Phi(L^T dL) \, L^{-1}, \quad dX = (S + S^T) / 2$$
)DOC");
  }
};

class TriangularSolveOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., M, M]: triangular matrices (the other triangle is not read).");
    AddInput("Y", "[..., M, K]: right-hand sides; batch dims broadcast with X's.");
    AddOutput("Out", "[broadcast batch, M, K].");
    AddAttr<bool>("upper", "X is upper (true) or lower (false) triangular.").SetDefault(true);
    AddAttr<bool>("transpose", "Solve with X^T instead of X.").SetDefault(false);
    AddAttr<bool>("unitriangular", "Take X's diagonal as ones (it is not read).").SetDefault(false);
    AddComment(R"DOC(
Solves triangular systems by substitution: $$op(X) \cdot Out = Y, \quad op(X) = X \text{ or }
X^T$$
Gradient, by the fused op triangular_solve_grad (summed over broadcast batch dims):
$$dY = op(X)^{-T} dOut, \quad dX = -dY \, Out^T \;(\text{or } -Out \, dY^T \text{ when
transposed})$$ restricted to X's triangle (without the diagonal when unitriangular).
)DOC");
  }
};

// ---------------------------------------------------------------- cholesky

void CholeskyInferShape(InferShapeContext* ctx) {
  linalg::SameSquareMatricesInferShape(ctx, "X", "Out");
}

template <typename T>
struct CholeskyKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const bool upper = ctx.Attr<bool>("upper");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      if (b.rows == 0) continue;
      const Eigen::LLT<Matrix<T>> llt(MatrixAt<T>(*x, b, i));
      PL_ENFORCE(llt.info() == Eigen::Success,
                 errors::InvalidArgument("op `%s` input `X`: matrix %d of the batch is not "
                                         "positive definite (the Cholesky decomposition failed)",
                                         ctx.Type(), i));
      const Matrix<T> lower = llt.matrixL();
      if (upper) {
        MatrixAt(o, b, i) = lower.transpose();
      } else {
        MatrixAt(o, b, i) = lower;
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void CholeskyGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Out@GRAD");
  linalg::InputGradLikeOutputInferShape(ctx, "X", "Out");
}

template <typename T>
struct CholeskyGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", out->dims());
    const bool upper = ctx.Attr<bool>("upper");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "Out", out->dims());
    DenseTensor dx(out->dims(), out->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      if (b.rows == 0) continue;
      Matrix<T> l = MatrixAt<T>(*out, b, i);
      Matrix<T> dl = MatrixAt<T>(*dout, b, i);
      if (upper) {
        l.transposeInPlace();
        dl.transposeInPlace();
      }
      l = l.template triangularView<Eigen::Lower>();
      dl = dl.template triangularView<Eigen::Lower>();
      Matrix<T> phi = (l.transpose() * dl).template triangularView<Eigen::Lower>();
      phi.diagonal() *= T(0.5);
      // S = L^{-T} phi L^{-1}: two triangular solves.
      // S = L^{-T} phi L^{-1}: with U = L^T, A = U^{-1} phi and S^T = U^{-1} A^T.
      const Matrix<T> u = l.transpose();
      const Matrix<T> left = u.template triangularView<Eigen::Upper>().solve(phi);
      const Matrix<T> s =
          u.template triangularView<Eigen::Upper>().solve(left.transpose()).transpose();
      MatrixAt(g, b, i) = (s + s.transpose()) * T(0.5);
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// ---------------------------------------------------------------- triangular_solve

struct TriangularFlags {
  bool upper = true, transpose = false, unit = false;
};

TriangularFlags ReadFlags(const ExecutionContext& ctx) {
  return {ctx.Attr<bool>("upper"), ctx.Attr<bool>("transpose"), ctx.Attr<bool>("unitriangular")};
}

void TriangularSolveInferShape(InferShapeContext* ctx) { linalg::SolveInferShape(ctx, "X", "Y"); }

// op(A)^{-1} B for the triangle of A that `f` names.
template <typename T>
Matrix<T> SolveTriangular(const Eigen::Ref<const Matrix<T>>& a,
                          const Eigen::Ref<const Matrix<T>>& rhs, const TriangularFlags& f) {
  // op(A) = A^T turns the upper triangle into a lower one.
  const bool upper_op = f.upper != f.transpose;
  const Matrix<T> m = f.transpose ? Matrix<T>(a.transpose()) : Matrix<T>(a);
  if (upper_op) {
    return f.unit ? Matrix<T>(m.template triangularView<Eigen::UnitUpper>().solve(rhs))
                  : Matrix<T>(m.template triangularView<Eigen::Upper>().solve(rhs));
  }
  return f.unit ? Matrix<T>(m.template triangularView<Eigen::UnitLower>().solve(rhs))
                : Matrix<T>(m.template triangularView<Eigen::Lower>().solve(rhs));
}

template <typename T>
struct TriangularSolveKernel {
  static void Compute(const ExecutionContext& ctx) {
    const TriangularFlags f = ReadFlags(ctx);
    linalg::RunSolve<T>(ctx, "X", "Y",
                        [&f](const ConstMatrixMap<T>& a, const ConstMatrixMap<T>& b) {
                          return SolveTriangular<T>(a, b, f);
                        });
  }
};

void TriangularSolveGradInferShape(InferShapeContext* ctx) {
  linalg::InputGradsInferShape(ctx, {"X", "Y"});
}

template <typename T>
struct TriangularSolveGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const TriangularFlags f = ReadFlags(ctx);
    TriangularFlags adjoint = f;
    adjoint.transpose = !f.transpose;
    linalg::RunSolveGrad<T>(
        ctx, "X", "Y",
        [&](const ConstMatrixMap<T>& a, const ConstMatrixMap<T>& sol, const ConstMatrixMap<T>& g,
            Matrix<T>* grad_x, Matrix<T>* grad_y) {
          *grad_y = SolveTriangular<T>(a, g, adjoint);
          const Matrix<T> full = f.transpose ? Matrix<T>(-(sol * grad_y->transpose()))
                                             : Matrix<T>(-(*grad_y * sol.transpose()));
          *grad_x = f.upper ? Matrix<T>(full.template triangularView<Eigen::Upper>())
                            : Matrix<T>(full.template triangularView<Eigen::Lower>());
          if (f.unit) grad_x->diagonal().setZero();
        });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterCholeskyOps) {
  const framework::FusedGradDecl cholesky_grad{
      {"Out"},
      {"Out"},
      {"X"},
      R"DOC($$S = L^{-T} \Phi(L^T dL) L^{-1}, \quad dX = (S + S^T) / 2$$)DOC"};
  linalg::RegisterWithFusedGrad<CholeskyOpMaker, CholeskyKernel, CholeskyGradKernel>(
      "cholesky", CholeskyInferShape, cholesky_grad, CholeskyGradInferShape);

  const framework::FusedGradDecl triangular_solve_grad{
      {"X", "Y", "Out"},
      {"Out"},
      {"X", "Y"},
      R"DOC($$dY = op(X)^{-T} dOut, \quad dX = -dY \, Out^T$$ (X's triangle))DOC"};
  linalg::RegisterWithFusedGrad<TriangularSolveOpMaker, TriangularSolveKernel,
                                TriangularSolveGradKernel>(
      "triangular_solve", TriangularSolveInferShape, triangular_solve_grad,
      TriangularSolveGradInferShape);
}

}  // namespace operators
}  // namespace paddle_like
