// lstsq (paddle.linalg.lstsq): least-squares solutions of X Solution = Y for batches of
// M x N matrices X and M x K right-hand sides Y, by the method PaddlePaddle names after the
// LAPACK driver it calls, each computed here in double precision with Eigen:
// - gels: QR (M >= N) or the LQ minimum-norm solution (M < N) of a full-rank X;
// - gelsy: a complete orthogonal decomposition with column pivoting, the rank from the
//   pivots (|R_ii| > rcond |R_11|) where LAPACK estimates the condition of R's leading block
//   (the same rank except near the threshold);
// - gelsd, gelss: the SVD, singular values above rcond * sigma_max kept.
// The outputs follow PaddlePaddle's kernel: Residuals (the squared 2-norms of Y's columns'
// residuals, [..., K]) only where M > N and the driver is not gelsy, for gelsd and gelss only
// when every matrix has full rank N, else an empty [0]; Rank (int32, [...]) except for gels
// ([0]); SingularValues ([..., min(M, N)]) for gelsd and gelss only ([0] otherwise). No
// gradient, as PaddlePaddle's.
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

using MatrixD = Eigen::MatrixXd;

class LstsqOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., M, N]: the matrices (float or double).");
    AddInput("Y", "[..., M, K]: the right-hand sides, X's batch dims and dtype.");
    AddOutput("Solution", "[..., N, K].");
    AddOutput("Residuals",
              "[..., K] squared residual norms where M > N (not for gelsy; for gelsd and gelss "
              "only when every X has full rank), else [0].")
        .AsDispensable();
    AddOutput("Rank", "int32 [...]: the effective ranks ([0] for gels).");
    AddOutput("SingularValues", "[..., min(M, N)], descending, for gelsd and gelss; else [0].");
    AddAttr<float>("rcond",
                   "Relative threshold of the rank: singular values (gelsy: pivots) at or below "
                   "rcond times the largest count as zero; < 0: the dtype's epsilon.")
        .SetDefault(0.0f);
    AddAttr<std::string>("driver", "gels, gelsy, gelsd or gelss (see above).")
        .SetDefault("gelsy")
        .InEnum({"gels", "gelsy", "gelsd", "gelss"});
    AddComment(R"DOC(
Least squares: for each matrix X and right-hand side Y,
$$Solution = \arg\min_S \|X S - Y\|_F$$
the one of least norm where several minimise it (gelsy, gelsd, gelss; gels assumes full rank),
$$Residuals_k = \|X \, Solution_{:,k} - Y_{:,k}\|_2^2$$
)DOC");
  }
};

class LstsqOp : public LinalgOp {
 public:
  using LinalgOp::LinalgOp;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

struct LstsqShape {
  MatrixBatch x;
  int64_t k = 0;
  std::vector<int64_t> batch;
};

LstsqShape AnalyzeLstsq(const std::string& op, const DDim& x, const DDim& y) {
  LstsqShape s;
  s.x = linalg::Matrices(op, "X", x);
  const MatrixBatch yb = linalg::Matrices(op, "Y", y);
  s.k = yb.cols;
  s.batch = linalg::BatchDims(x);
  const std::vector<int64_t> y_batch = linalg::BatchDims(y);
  bool same = s.batch.size() == y_batch.size();
  for (size_t i = 0; same && i < s.batch.size(); ++i) {
    same = s.batch[i] == y_batch[i] || s.batch[i] < 0 || y_batch[i] < 0;
  }
  PL_ENFORCE(same && (s.x.rows == yb.rows || s.x.rows < 0 || yb.rows < 0),
             errors::InvalidArgument("op `%s` input `Y`: expected [..., M, K] with X's batch dims "
                                     "and M (X is %s), received %s",
                                     op, x.ToString(), y.ToString()));
  return s;
}

bool HasSingularValues(const std::string& driver) { return driver == "gelsd" || driver == "gelss"; }

void LstsqInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Solution");
  const DDim x = ctx->GetInputDim("X");
  const LstsqShape s = AnalyzeLstsq(ctx->OpType(), x, ctx->GetInputDim("Y"));
  const std::string driver = ctx->Attr<std::string>("driver");
  ctx->SetOutputDim("Solution", linalg::WithBatchDims(x, {s.x.cols, s.k}));
  if (ctx->HasOutput("Residuals")) {
    // Known only at run time for gelsd and gelss (they depend on the ranks).
    const bool tall = s.x.rows > s.x.cols && s.x.cols >= 0;
    ctx->SetOutputDim("Residuals",
                      driver != "gelsy" && tall ? linalg::WithBatchDims(x, {s.k}) : DDim{0});
  }
  if (ctx->HasOutput("Rank")) {
    ctx->SetOutputDim("Rank", driver == "gels" ? DDim{0} : DDim(s.batch));
  }
  if (ctx->HasOutput("SingularValues")) {
    ctx->SetOutputDim("SingularValues", HasSingularValues(driver)
                                            ? linalg::WithBatchDims(x, {MinDim(s.x.rows, s.x.cols)})
                                            : DDim{0});
  }
}

void LstsqInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType x = ctx->GetInputDataType("X");
  for (const char* slot : {"Solution", "Residuals", "SingularValues"}) {
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, x);
  }
  ctx->SetOutputKind("Rank", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Rank", DataType::INT32);
}

// One system's answer.
struct LeastSquares {
  MatrixD solution;  // N x K
  int64_t rank = 0;
  Eigen::VectorXd sv;  // gelsd, gelss
};

// gels: X has full rank. M >= N: X = Q R, Solution = R^-1 (Q^T Y)_{1:N}; M < N: X^T = Q R,
// Solution = Q_{:,1:M} R^-T Y (the least-norm solution).
MatrixD SolveFullRank(const MatrixD& a, const MatrixD& b) {
  const int64_t m = a.rows(), n = a.cols();
  if (m >= n) {
    const Eigen::HouseholderQR<MatrixD> qr(a);
    const MatrixD qtb = qr.householderQ().transpose() * b;
    return qr.matrixQR().topLeftCorner(n, n).triangularView<Eigen::Upper>().solve(qtb.topRows(n));
  }
  const Eigen::HouseholderQR<MatrixD> qr(a.transpose());
  const MatrixD z =
      qr.matrixQR().topLeftCorner(m, m).triangularView<Eigen::Upper>().transpose().solve(b);
  MatrixD padded = MatrixD::Zero(n, b.cols());
  padded.topRows(m) = z;
  return qr.householderQ() * padded;
}

LeastSquares Solve(const std::string& driver, const MatrixD& a, const MatrixD& b, double rcond) {
  LeastSquares r;
  const int64_t m = a.rows(), n = a.cols(), k = b.cols();
  if (m == 0 || n == 0) {  // Nothing to fit: the least-norm solution is 0.
    r.solution = MatrixD::Zero(n, k);
    r.sv = Eigen::VectorXd(0);
    return r;
  }
  if (driver == "gels") {
    r.solution = SolveFullRank(a, b);
    r.rank = std::min(m, n);
  } else if (driver == "gelsy") {
    Eigen::CompleteOrthogonalDecomposition<MatrixD> cod;
    cod.setThreshold(std::max(rcond, 0.0));
    cod.compute(a);
    r.rank = cod.rank();
    r.solution = cod.solve(b);
  } else {
    const Eigen::BDCSVD<MatrixD> svd(a, Eigen::ComputeThinU | Eigen::ComputeThinV);
    r.sv = svd.singularValues();
    const double cut = rcond * r.sv(0);
    while (r.rank < r.sv.size() && r.sv(r.rank) > cut) ++r.rank;
    const int64_t q = r.rank;
    const Eigen::VectorXd inv = r.sv.head(q).cwiseInverse();
    r.solution =
        svd.matrixV().leftCols(q) * inv.asDiagonal() * (svd.matrixU().leftCols(q).transpose() * b);
  }
  return r;
}

template <typename T>
struct LstsqKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    CheckOperandTypes(ctx.Type(), *x, *y, platform::ToDataType<T>());
    const LstsqShape s = AnalyzeLstsq(ctx.Type(), x->dims(), y->dims());
    const std::string& driver = ctx.Attr<std::string>("driver");
    const float attr_rcond = ctx.Attr<float>("rcond");
    const double rcond =
        attr_rcond < 0 ? static_cast<double>(std::numeric_limits<T>::epsilon()) : attr_rcond;
    const int64_t m = s.x.rows, n = s.x.cols, k = s.k, batch = s.x.batch;
    const MatrixBatch yb{batch, m, k};
    for (int64_t i = 0; i < x->numel(); ++i) {
      PL_ENFORCE(std::isfinite(static_cast<double>(x->data<T>()[i])),
                 errors::InvalidArgument("op `%s` input `X`: expected finite values, received "
                                         "%g at element %lld",
                                         ctx.Type(), static_cast<double>(x->data<T>()[i]),
                                         static_cast<long long>(i)));
    }
    DenseTensor solution(linalg::WithBatchDims(x->dims(), {n, k}), x->dtype());
    T* sol = solution.mutable_data<T>(ctx.GetPlace());
    const int64_t q = std::min(m, n);
    std::vector<int32_t> ranks(static_cast<size_t>(batch));
    std::vector<T> svs(static_cast<size_t>(batch * q)), residuals(static_cast<size_t>(batch * k));
    for (int64_t i = 0; i < batch; ++i) {
      const MatrixD a = MatrixAt<T>(*x, s.x, i).template cast<double>();
      const MatrixD b = MatrixAt<T>(*y, yb, i).template cast<double>();
      const LeastSquares r = Solve(driver, a, b, rcond);
      MatrixMap<T>(sol + i * n * k, n, k) = r.solution.cast<T>();
      ranks[i] = static_cast<int32_t>(r.rank);
      for (int64_t j = 0; j < r.sv.size(); ++j) svs[i * q + j] = static_cast<T>(r.sv(j));
      if (m > n) {
        const Eigen::RowVectorXd norms = (a * r.solution - b).colwise().squaredNorm();
        for (int64_t j = 0; j < k; ++j) residuals[i * k + j] = static_cast<T>(norms(j));
      }
    }
    const bool full_rank =
        std::all_of(ranks.begin(), ranks.end(), [n](int32_t r) { return r == n; });
    const bool with_residuals = m > n && driver != "gelsy" && (driver == "gels" || full_rank);
    const auto emit = [&](const char* slot, const DDim& dims, DataType dtype, const void* data) {
      DenseTensor* out = ctx.Output(slot);
      if (out == nullptr) return;
      DenseTensor t(dims, dtype);
      void* p = t.mutable_data(ctx.GetPlace(), dtype);
      if (t.numel() > 0) std::memcpy(p, data, t.numel() * platform::SizeOf(dtype));
      *out = std::move(t);
    };
    emit("Residuals", with_residuals ? linalg::WithBatchDims(x->dims(), {k}) : DDim{0}, x->dtype(),
         residuals.data());
    emit("Rank", driver == "gels" ? DDim{0} : DDim(s.batch), DataType::INT32, ranks.data());
    emit("SingularValues",
         HasSingularValues(driver) ? linalg::WithBatchDims(x->dims(), {q}) : DDim{0}, x->dtype(),
         svs.data());
    *ctx.Output("Solution") = std::move(solution);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLstsqOp) {
  framework::RegisterOp<LstsqOp, LstsqOpMaker>("lstsq")
      .InferShape(LstsqInferShape)
      .InferVarType(LstsqInferVarType)
      .GradOpMaker(framework::NoGradient)
      .Checkpoint("output Residuals (PaddlePaddle 2.5)",
                  framework::OpVersionDesc().NewOutput(
                      "Residuals", "the squared residual norms of the solutions"));
  RegisterPlainCpuFloatKernels<LstsqKernel>("lstsq");
}

}  // namespace operators
}  // namespace paddle_like
