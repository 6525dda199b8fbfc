// solve (paddle.linalg.solve): X Out = Y for square X by LU with partial pivoting, batch dims
// broadcast as matmul_v2's; a Y that is a vector (or a batch of vectors) gives vectors. With a
// fused backward.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class SolveOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., M, M]: the square matrices A.");
    AddInput("Y",
             "[..., M, K]: the right-hand sides B; or vectors: [M], or X's shape without its "
             "last dim.");
    AddOutput("Out", "[broadcast batch, M, K] ([broadcast batch, M] for vectors).");
    AddComment(R"DOC(
Solves $$X \cdot Out = Y$$ for each matrix of the batch (LU with partial pivoting). A Y of
rank 1, or of X's shape without its last dim, holds vectors: it is read as [..., M, 1] and
Out drops that 1. A singular X is refused.
Gradient, by the fused op solve_grad (summed over broadcast batch dims):
$$dY = X^{-T} dOut, \quad dX = -dY \, Out^T$$
)DOC");
  }
};

// Whether Y holds vectors: rank 1, or X's dims without the last (PaddlePaddle's rule).
bool HoldsVectors(const DDim& x, const DDim& y) {
  if (y.size() == 1) return true;
  if (y.size() != x.size() - 1) return false;
  for (int i = 0; i < y.size(); ++i) {
    if (x[i] >= 0 && y[i] >= 0 && x[i] != y[i]) return false;
  }
  return true;
}

DDim AsMatrices(const DDim& y) {
  std::vector<int64_t> dims = y.ToVector();
  dims.push_back(1);
  return DDim(dims);
}

DDim WithoutLastDim(const DDim& d) {
  std::vector<int64_t> dims = d.ToVector();
  dims.pop_back();
  return DDim(dims);
}

void SolveInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X"), y = ctx->GetInputDim("Y");
  linalg::SquareMatrices(ctx->OpType(), "X", x);
  const bool vectors = HoldsVectors(x, y);
  const DDim out =
      linalg::AnalyzeSolve(ctx->OpType(), "X", x, "Y", vectors ? AsMatrices(y) : y).out_dims;
  ctx->SetOutputDim("Out", vectors ? WithoutLastDim(out) : out);
}

// `t` sharing its buffer, with dims `dims`.
DenseTensor Viewed(const DenseTensor& t, const DDim& dims) {
  DenseTensor view = t;
  view.Resize(dims);
  return view;
}

template <typename T>
struct SolveKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    const bool vectors = HoldsVectors(x->dims(), y->dims());
    const std::string op = ctx.Type();
    DenseTensor out = linalg::SolveSystems<T>(
        ctx, *x, "X", vectors ? Viewed(*y, AsMatrices(y->dims())) : *y, "Y",
        [&op](const ConstMatrixMap<T>& a, const ConstMatrixMap<T>& b) -> Matrix<T> {
          return linalg::LuOrThrow<T>(op, "X", a, -1).solve(b);
        });
    if (vectors) out.Resize(WithoutLastDim(out.dims()));
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct SolveGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    const bool vectors = HoldsVectors(x->dims(), y->dims());
    const DenseTensor y_m = vectors ? Viewed(*y, AsMatrices(y->dims())) : *y;
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const DenseTensor out_m = vectors ? Viewed(*out, AsMatrices(out->dims())) : *out;
    const DenseTensor dout_m = vectors ? Viewed(*dout, AsMatrices(dout->dims())) : *dout;
    const std::string op = ctx.Type();
    DenseTensor dx, dy;
    linalg::SolveSystemsGrad<T>(
        ctx, {x, &y_m, &out_m, &dout_m}, "X", "Y",
        [&op](const ConstMatrixMap<T>& a, const ConstMatrixMap<T>& sol, const ConstMatrixMap<T>& g,
              Matrix<T>* grad_a, Matrix<T>* grad_b) {
          *grad_b = linalg::LuOrThrow<T>(op, "X", a.transpose(), -1).solve(g);
          *grad_a = -(*grad_b) * sol.transpose();
        },
        &dx, &dy);
    if (vectors) dy.Resize(y->dims());
    if (DenseTensor* o = ctx.Output("X@GRAD")) *o = std::move(dx);
    if (DenseTensor* o = ctx.Output("Y@GRAD")) *o = std::move(dy);
  }
};

void SolveGradInferShape(InferShapeContext* ctx) { linalg::InputGradsInferShape(ctx, {"X", "Y"}); }

}  // namespace

PL_REGISTER_OPS(RegisterSolveOp) {
  const framework::FusedGradDecl solve_grad{
      {"X", "Y", "Out"},
      {"Out"},
      {"X", "Y"},
      R"DOC($$dY = X^{-T} dOut, \quad dX = -dY \, Out^T$$)DOC"};
  linalg::RegisterWithFusedGrad<SolveOpMaker, SolveKernel, SolveGradKernel>(
      "solve", SolveInferShape, solve_grad, SolveGradInferShape);
}

}  // namespace operators
}  // namespace paddle_like
