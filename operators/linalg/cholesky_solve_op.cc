// cholesky_solve: solves A Out = X for A given by its Cholesky factor Y, with a fused backward.
// The batch dims of X and Y broadcast as matmul_v2's do.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class CholeskySolveOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., M, K]: right-hand sides.");
    AddInput("Y", "[..., M, M]: Cholesky factors (the other triangle is not read).");
    AddOutput("Out", "[broadcast batch, M, K].");
    AddAttr<bool>("upper",
                  "Y is the upper factor U (A = U^T U) instead of the lower L (A = L "
                  "L^T).")
        .SetDefault(false);
    AddComment(R"DOC(
Solves $$A \cdot Out = X, \quad A = Y Y^T \;(lower), \quad A = Y^T Y \;(upper)$$
by two triangular solves with the factor Y.
Gradient, by the fused op cholesky_solve_grad (summed over broadcast batch dims):
$$dX = A^{-1} dOut, \quad dY = -(dX \, Out^T + Out \, dX^T) \, Y \;(lower), \quad
dY = -Y (dX \, Out^T + Out \, dX^T) \;(upper)$$ restricted to Y's triangle.
)DOC");
  }
};

void CholeskySolveInferShape(InferShapeContext* ctx) { linalg::SolveInferShape(ctx, "Y", "X"); }

// A^{-1} B with A from the factor's triangle.
template <typename T>
Matrix<T> SolveWithFactor(const Eigen::Ref<const Matrix<T>>& factor,
                          const Eigen::Ref<const Matrix<T>>& b, bool upper) {
  const Matrix<T> l = upper ? Matrix<T>(factor.transpose()) : Matrix<T>(factor);
  const Matrix<T> half = l.template triangularView<Eigen::Lower>().solve(b);
  return l.transpose().template triangularView<Eigen::Upper>().solve(half);
}

template <typename T>
struct CholeskySolveKernel {
  static void Compute(const ExecutionContext& ctx) {
    const bool upper = ctx.Attr<bool>("upper");
    linalg::RunSolve<T>(ctx, "Y", "X",
                        [upper](const ConstMatrixMap<T>& factor, const ConstMatrixMap<T>& rhs) {
                          return SolveWithFactor<T>(factor, rhs, upper);
                        });
  }
};

void CholeskySolveGradInferShape(InferShapeContext* ctx) {
  linalg::InputGradsInferShape(ctx, {"X", "Y"});
}

template <typename T>
struct CholeskySolveGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const bool upper = ctx.Attr<bool>("upper");
    linalg::RunSolveGrad<T>(
        ctx, "Y", "X",
        [upper](const ConstMatrixMap<T>& factor, const ConstMatrixMap<T>& sol,
                const ConstMatrixMap<T>& g, Matrix<T>* grad_y, Matrix<T>* grad_x) {
          *grad_x = SolveWithFactor<T>(factor, g, upper);
          const Matrix<T> sym = *grad_x * sol.transpose() + sol * grad_x->transpose();
          if (upper) {
            const Matrix<T> tri = factor.template triangularView<Eigen::Upper>();
            *grad_y = (-(tri * sym)).template triangularView<Eigen::Upper>();
          } else {
            const Matrix<T> tri = factor.template triangularView<Eigen::Lower>();
            *grad_y = (-(sym * tri)).template triangularView<Eigen::Lower>();
          }
        });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterCholeskySolveOp) {
  const framework::FusedGradDecl cholesky_solve_grad{
      {"X", "Y", "Out"},
      {"Out"},
      {"X", "Y"},
      R"DOC($$dX = A^{-1} dOut, \quad dY = -(dX Out^T + Out dX^T) Y$$ (Y's triangle))DOC"};
  linalg::RegisterWithFusedGrad<CholeskySolveOpMaker, CholeskySolveKernel, CholeskySolveGradKernel>(
      "cholesky_solve", CholeskySolveInferShape, cholesky_solve_grad, CholeskySolveGradInferShape);
}

}  // namespace operators
}  // namespace paddle_like
