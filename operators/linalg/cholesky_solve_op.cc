// cholesky_solve: solves A Out = X for A given by its Cholesky factor Y, with a fused backward.
// The batch dims of X and Y broadcast as matmul_v2's do.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/matmul/matmul_shape.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

using linalg::ConstMatrixMap;
using linalg::LinalgOp;
using linalg::Matrix;
using linalg::MatrixMap;

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

// Y [.., M, M] and X [.., M, K] under matmul_v2's batch broadcasting (Y first).
MatmulV2Shape AnalyzeCholeskySolve(const std::string& op, const DDim& x, const DDim& y) {
  return linalg::AnalyzeSolve(op, "Y", y, "X", x);
}

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
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    CheckOperandTypes(ctx.Type(), *x, *y, platform::ToDataType<T>());
    const MatmulV2Shape s = AnalyzeCholeskySolve(ctx.Type(), x->dims(), y->dims());
    const bool upper = ctx.Attr<bool>("upper");
    std::vector<int64_t> y_off, x_off;
    s.BatchOffsets(&y_off, &x_off);
    DenseTensor out(s.out_dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t p = 0; p < s.BatchCount() && s.M > 0 && s.N > 0; ++p) {
      const ConstMatrixMap<T> factor(y->data<T>() + y_off[p], s.M, s.M);
      const ConstMatrixMap<T> rhs(x->data<T>() + x_off[p], s.M, s.N);
      MatrixMap<T>(o + p * s.M * s.N, s.M, s.N) = SolveWithFactor<T>(factor, rhs, upper);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void CholeskySolveGradInferShape(InferShapeContext* ctx) {
  linalg::InputGradsInferShape(ctx, {"X", "Y"});
}

template <typename T>
struct CholeskySolveGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const MatmulV2Shape s = AnalyzeCholeskySolve(ctx.Type(), x->dims(), y->dims());
    CheckSameShape(ctx.Type(), "Out", out->dims(), "Out", s.out_dims);
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", s.out_dims);
    const bool upper = ctx.Attr<bool>("upper");
    std::vector<int64_t> y_off, x_off;
    s.BatchOffsets(&y_off, &x_off);
    DenseTensor dx(x->dims(), x->dtype()), dy(y->dims(), y->dtype());
    T* gx = dx.mutable_data<T>(ctx.GetPlace());
    T* gy = dy.mutable_data<T>(ctx.GetPlace());
    std::fill(gx, gx + dx.numel(), T(0));
    std::fill(gy, gy + dy.numel(), T(0));
    for (int64_t p = 0; p < s.BatchCount() && s.M > 0 && s.N > 0; ++p) {
      const ConstMatrixMap<T> factor(y->data<T>() + y_off[p], s.M, s.M);
      const ConstMatrixMap<T> sol(out->data<T>() + p * s.M * s.N, s.M, s.N);
      const ConstMatrixMap<T> g(dout->data<T>() + p * s.M * s.N, s.M, s.N);
      const Matrix<T> grad_x = SolveWithFactor<T>(factor, g, upper);
      MatrixMap<T>(gx + x_off[p], s.M, s.N) += grad_x;
      const Matrix<T> sym = grad_x * sol.transpose() + sol * grad_x.transpose();
      const Matrix<T> tri = upper ? Matrix<T>(factor.template triangularView<Eigen::Upper>())
                                  : Matrix<T>(factor.template triangularView<Eigen::Lower>());
      const Matrix<T> grad_y = upper ? Matrix<T>(-(tri * sym)) : Matrix<T>(-(sym * tri));
      MatrixMap<T> gy_p(gy + y_off[p], s.M, s.M);
      if (upper) {
        gy_p += grad_y.template triangularView<Eigen::Upper>().toDenseMatrix();
      } else {
        gy_p += grad_y.template triangularView<Eigen::Lower>().toDenseMatrix();
      }
    }
    if (DenseTensor* o = ctx.Output("X@GRAD")) *o = std::move(dx);
    if (DenseTensor* o = ctx.Output("Y@GRAD")) *o = std::move(dy);
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
