// lu_solve (paddle.linalg.lu_solve): A out = b, A^T out = b ("T") or A^H out = b ("C", the
// same for real values) from A's LU factorization as `lu` writes it: the packed factors
// (L unit lower below the diagonal, U upper) and LAPACK's 1-based pivots (row i was swapped
// with row pivots[i] - 1, in order: A = P L U). Batch dims of b and lu broadcast as
// matmul_v2's; pivots have lu's batch dims. With a fused backward.
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class LuSolveOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("b", "[..., M, K]: the right-hand sides.");
    AddInput("lu", "[..., M, M]: packed L (unit lower, below the diagonal) and U (upper).");
    AddInput("pivots", "int32 or int64 [..., M] (lu's batch dims): LAPACK's 1-based row swaps.");
    AddOutput("out", "[broadcast batch, M, K]: the solutions.");
    AddAttr<std::string>("trans", "N: A out = b; T: A^T out = b; C: A^H out = b.")
        .SetDefault("N")
        .InEnum({"N", "T", "C"});
    AddComment(R"DOC(
Solves $$A \cdot out = b$$ (trans N) or $$A^T \cdot out = b$$ (T, C) with A = P L U given by
its LU factors (PaddlePaddle's slots in lower case):
$$out = U^{-1} L^{-1} P^T b \quad \text{or} \quad out = P L^{-T} U^{-T} b$$
Gradient, by the fused op lu_solve_grad (summed over broadcast batch dims): with
$db = A^{-T} dout$ and $dA = -db \, out^T$ (trans N; $db = A^{-1} dout$ and
$dA = -out \, db^T$ for T),
$$dlu = \operatorname{tril}(P^T dA \, U^T, -1) + \operatorname{triu}(L^T P^T dA)$$
)DOC");
  }
};

// The row swaps of one matrix's pivots, 0-based and checked.
std::vector<int64_t> Swaps(const ExecutionContext& ctx, const DenseTensor& pivots, int64_t batch,
                           int64_t m) {
  std::vector<int64_t> swaps(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    const int64_t p = pivots.dtype() == DataType::INT32 ? pivots.data<int32_t>()[batch * m + i]
                                                        : pivots.data<int64_t>()[batch * m + i];
    PL_ENFORCE(
        p >= 1 && p <= m,
        errors::InvalidArgument("op `%s` input `pivots`: expected 1-based rows in [1, %lld], "
                                "received %lld at matrix %lld, row %lld",
                                ctx.Type(), static_cast<long long>(m), static_cast<long long>(p),
                                static_cast<long long>(batch), static_cast<long long>(i)));
    swaps[i] = p - 1;
  }
  return swaps;
}

// P^T x (the swaps in order) or P x (in reverse order), on the rows of x.
template <typename T>
void ApplySwaps(const std::vector<int64_t>& swaps, bool inverse, Matrix<T>* x) {
  const int64_t m = static_cast<int64_t>(swaps.size());
  for (int64_t k = 0; k < m; ++k) {
    const int64_t i = inverse ? m - 1 - k : k;
    if (swaps[i] != i) x->row(i).swap(x->row(swaps[i]));
  }
}

// Solves A x = b (transposed: A^T x = b) with A = P L U packed in `lu`.
template <typename T>
Matrix<T> LuSolve(const ConstMatrixMap<T>& lu, const std::vector<int64_t>& swaps, bool transposed,
                  const Eigen::Ref<const Matrix<T>>& b) {
  Matrix<T> x = b;
  if (!transposed) {
    ApplySwaps(swaps, false, &x);
    lu.template triangularView<Eigen::UnitLower>().solveInPlace(x);
    lu.template triangularView<Eigen::Upper>().solveInPlace(x);
  } else {
    lu.transpose().template triangularView<Eigen::Lower>().solveInPlace(x);
    lu.transpose().template triangularView<Eigen::UnitUpper>().solveInPlace(x);
    ApplySwaps(swaps, true, &x);
  }
  return x;
}

// The checks and the matrix index of lu behind each system of a solve.
struct LuSystems {
  const DenseTensor* lu;
  const DenseTensor* pivots;
  int64_t m;
  bool transposed;

  explicit LuSystems(const ExecutionContext& ctx)
      : lu(ctx.Input("lu")), pivots(ctx.Input("pivots")) {
    const MatrixBatch mb = linalg::SquareMatrices(ctx.Type(), "lu", lu->dims());
    m = mb.rows;
    transposed = ctx.Attr<std::string>("trans") != "N";
    PL_ENFORCE(pivots->dtype() == DataType::INT32 || pivots->dtype() == DataType::INT64,
               errors::InvalidArgument("op `%s` input `pivots`: expected int32 or int64, "
                                       "received %s",
                                       ctx.Type(), platform::DataTypeName(pivots->dtype())));
    std::vector<int64_t> want = linalg::BatchDims(lu->dims());
    want.push_back(m);
    CheckSameShape(ctx.Type(), "pivots", pivots->dims(), "lu's batch dims and M", DDim(want));
  }

  // The index in lu of the matrix `a` (a view into lu's buffer) of one broadcast system.
  template <typename T>
  int64_t IndexOf(const ConstMatrixMap<T>& a) const {
    return m == 0 ? 0 : (a.data() - lu->data<T>()) / (m * m);
  }
};

void LuSolveInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("b");
  ctx->RequireInput("lu");
  ctx->RequireInput("pivots");
  ctx->RequireOutput("out");
  const DDim lu = ctx->GetInputDim("lu");
  linalg::SquareMatrices(ctx->OpType(), "lu", lu);
  ctx->SetOutputDim(
      "out", linalg::AnalyzeSolve(ctx->OpType(), "lu", lu, "b", ctx->GetInputDim("b")).out_dims);
}

template <typename T>
struct LuSolveKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* b = ctx.Input("b");
    const LuSystems s(ctx);
    *ctx.Output("out") = linalg::SolveSystems<T>(
        ctx, *s.lu, "lu", *b, "b",
        [&](const ConstMatrixMap<T>& lu, const ConstMatrixMap<T>& rhs) -> Matrix<T> {
          return LuSolve<T>(lu, Swaps(ctx, *s.pivots, s.IndexOf<T>(lu), s.m), s.transposed, rhs);
        });
  }
};

template <typename T>
struct LuSolveGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* b = ctx.Input("b");
    const LuSystems s(ctx);
    DenseTensor dlu, db;
    linalg::SolveSystemsGrad<T>(
        ctx, {s.lu, b, ctx.Input("out"), ctx.Input("out@GRAD")}, "lu", "b",
        [&](const ConstMatrixMap<T>& lu, const ConstMatrixMap<T>& out,
            const ConstMatrixMap<T>& dout, Matrix<T>* grad_lu, Matrix<T>* grad_b) {
          const std::vector<int64_t> swaps = Swaps(ctx, *s.pivots, s.IndexOf<T>(lu), s.m);
          // The system's own gradients, then A's through A = P L U to the packed factors.
          *grad_b = LuSolve<T>(lu, swaps, !s.transposed, dout);
          Matrix<T> da = s.transposed ? Matrix<T>(-out * grad_b->transpose())
                                      : Matrix<T>(-(*grad_b) * out.transpose());
          ApplySwaps(swaps, false, &da);  // P^T dA
          const Matrix<T> l = lu.template triangularView<Eigen::UnitLower>();
          const Matrix<T> u = lu.template triangularView<Eigen::Upper>();
          const Matrix<T> dl = da * u.transpose();
          const Matrix<T> du = l.transpose() * da;
          *grad_lu = Matrix<T>(dl.template triangularView<Eigen::StrictlyLower>()) +
                     Matrix<T>(du.template triangularView<Eigen::Upper>());
        },
        &dlu, &db);
    if (DenseTensor* o = ctx.Output("lu@GRAD")) *o = std::move(dlu);
    if (DenseTensor* o = ctx.Output("b@GRAD")) *o = std::move(db);
  }
};

void LuSolveGradInferShape(InferShapeContext* ctx) {
  linalg::InputGradsInferShape(ctx, {"b", "lu"});
}

}  // namespace

PL_REGISTER_OPS(RegisterLuSolveOp) {
  const framework::FusedGradDecl lu_solve_grad{{"b", "lu", "pivots", "out"},
                                               {"out"},
                                               {"b", "lu"},
                                               R"DOC($$db = A^{-T} dout, \; dA = -db \, out^T, \;
dlu = \operatorname{tril}(P^T dA \, U^T, -1) + \operatorname{triu}(L^T P^T dA)$$)DOC"};
  linalg::RegisterWithFusedGrad<LuSolveOpMaker, LuSolveKernel, LuSolveGradKernel>(
      "lu_solve", LuSolveInferShape, lu_solve_grad, LuSolveGradInferShape);
}

}  // namespace operators
}  // namespace paddle_like
