// qr, svd and svdvals of batches of matrices, with fused backwards.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class QrOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., M, N].");
    AddOutput("Q", "[..., M, K] (reduced), [..., M, M] (complete), [0] (r); K = min(M, N).");
    AddOutput("R", "[..., K, N] (reduced, r) or [..., M, N] (complete): upper triangular.");
    AddAttr<std::string>("mode", "reduced, complete or r (R only).")
        .SetDefault("reduced")
        .InEnum({"reduced", "complete", "r"});
    AddComment(R"DOC(
QR decomposition of each matrix by Householder reflections (LAPACK's sign convention):
$$X = Q R, \quad Q^T Q = I, \quad R \text{ upper triangular}$$
Gradient, by the fused op qr_grad (not for mode r, nor complete with M > N): for M >= N,
$$B = dQ + Q \operatorname{copyltu}(R \, dR^T - dQ^T Q), \quad dX = B R^{-T}$$
with copyltu(M) the symmetric matrix of M's lower triangle; for M < N, X = [X_1 | X_2] and
R = [R_1 | R_2] split at column M: $dX_2 = Q \, dR_2$ and dX_1 by the formula above with
$dQ + X_2 dR_2^T$ and $dR_1$.
)DOC");
  }
};

class SvdOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., M, N].");
    AddOutput("U", "[..., M, K], or [..., M, M] with full_matrices; K = min(M, N).");
    AddOutput("S", "[..., K]: the singular values, descending.");
    AddOutput("VH", "[..., K, N], or [..., N, N] with full_matrices.");
    AddAttr<bool>("full_matrices", "Give the square U and VH.").SetDefault(false);
    AddComment(R"DOC(
Singular value decomposition of each matrix (two-sided Jacobi rotations):
$$X = U \operatorname{diag}(S) \, VH, \quad S_1 \ge S_2 \ge \dots \ge 0$$
The signs of the singular vectors are those of the algorithm; compare U diag(S) VH, not U.
Gradient, by the fused op svd_grad (full_matrices only for square X): with V = VH^T,
$E_{jk} = S_k^2 - S_j^2$ off the diagonal and skew(A) = A - A^T,
$$dX = U \left[\frac{skew(U^T dU)}{E} S + S \frac{skew(V^T dV)}{E} + \operatorname{diag}(dS)
\right] V^T + (I - U U^T) dU S^{-1} V^T + U S^{-1} dV^T (I - V V^T)$$
)DOC");
  }
};

// PaddlePaddle's svdvals (slots in lower case, as it registered them).
class SvdvalsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "[..., M, N].");
    AddOutput("s", "[..., K]: the singular values, descending; K = min(M, N).");
    AddComment(R"DOC(
Singular values of each matrix (svd's S without the singular vectors):
$$x = U \operatorname{diag}(s) \, V^T, \quad s_1 \ge s_2 \ge \dots \ge 0$$
Gradient, by the fused op svdvals_grad (which decomposes x again):
$$dx = U \operatorname{diag}(ds) \, V^T$$
)DOC");
  }
};

// ---------------------------------------------------------------- qr

struct QrDims {
  DDim q, r;
};

QrDims QrShape(const std::string& op, const DDim& x, const std::string& mode) {
  const MatrixBatch b = linalg::Matrices(op, "X", x);
  const int64_t k = MinDim(b.rows, b.cols);
  if (mode == "complete") {
    return {linalg::WithBatchDims(x, {b.rows, b.rows}), linalg::WithBatchDims(x, {b.rows, b.cols})};
  }
  const DDim r = linalg::WithBatchDims(x, {k, b.cols});
  return {mode == "r" ? DDim({0}) : linalg::WithBatchDims(x, {b.rows, k}), r};
}

void QrInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  const QrDims d = QrShape(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attr<std::string>("mode"));
  if (ctx->HasOutput("Q")) ctx->SetOutputDim("Q", d.q);
  ctx->RequireOutput("R");
  ctx->SetOutputDim("R", d.r);
}

template <typename T>
struct QrKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const std::string mode = ctx.Attr<std::string>("mode");
    const QrDims d = QrShape(ctx.Type(), x->dims(), mode);
    const MatrixBatch b = linalg::Matrices(ctx.Type(), "X", x->dims());
    const bool complete = mode == "complete";
    const int64_t q_cols = complete ? b.rows : std::min(b.rows, b.cols);
    const int64_t r_rows = q_cols;
    DenseTensor q(d.q, x->dtype()), r(d.r, x->dtype());
    T* qd = q.mutable_data<T>(ctx.GetPlace());
    T* rd = r.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      MatrixMap<T> r_i(rd + i * r_rows * b.cols, r_rows, b.cols);
      if (b.rows == 0 || b.cols == 0) {
        r_i.setZero();
        if (mode != "r") MatrixMap<T>(qd + i * b.rows * q_cols, b.rows, q_cols).setIdentity();
        continue;
      }
      const Eigen::HouseholderQR<Matrix<T>> qr(MatrixAt<T>(*x, b, i));
      r_i = qr.matrixQR().topRows(r_rows).template triangularView<Eigen::Upper>();
      if (mode != "r") {
        MatrixMap<T>(qd + i * b.rows * q_cols, b.rows, q_cols) =
            qr.householderQ() * Matrix<T>::Identity(b.rows, q_cols);
      }
    }
    if (DenseTensor* o = ctx.Output("Q")) *o = std::move(q);
    *ctx.Output("R") = std::move(r);
  }
};

// ---------------------------------------------------------------- svd

void SvdInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  const DDim x = ctx->GetInputDim("X");
  const MatrixBatch b = linalg::Matrices(ctx->OpType(), "X", x);
  const bool full = ctx->Attr<bool>("full_matrices");
  const int64_t k = MinDim(b.rows, b.cols);
  ctx->SetOutputDim("U", linalg::WithBatchDims(x, {b.rows, full ? b.rows : k}));
  ctx->SetOutputDim("S", linalg::WithBatchDims(x, {k}));
  ctx->SetOutputDim("VH", linalg::WithBatchDims(x, {full ? b.cols : k, b.cols}));
}

template <typename T>
struct SvdKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const bool full = ctx.Attr<bool>("full_matrices");
    const MatrixBatch b = linalg::Matrices(ctx.Type(), "X", x->dims());
    const int64_t k = std::min(b.rows, b.cols);
    const int64_t u_cols = full ? b.rows : k, v_rows = full ? b.cols : k;
    DenseTensor u(linalg::WithBatchDims(x->dims(), {b.rows, u_cols}), x->dtype());
    DenseTensor s(linalg::WithBatchDims(x->dims(), {k}), x->dtype());
    DenseTensor vh(linalg::WithBatchDims(x->dims(), {v_rows, b.cols}), x->dtype());
    T* ud = u.mutable_data<T>(ctx.GetPlace());
    T* sd = s.mutable_data<T>(ctx.GetPlace());
    T* vd = vh.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      MatrixMap<T> u_i(ud + i * b.rows * u_cols, b.rows, u_cols);
      MatrixMap<T> vh_i(vd + i * v_rows * b.cols, v_rows, b.cols);
      if (k == 0) {
        u_i.setIdentity();
        vh_i.setIdentity();
        continue;
      }
      const Eigen::JacobiSVD<Matrix<T>> svd(MatrixAt<T>(*x, b, i),
                                            full ? (Eigen::ComputeFullU | Eigen::ComputeFullV)
                                                 : (Eigen::ComputeThinU | Eigen::ComputeThinV));
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(sd + i * k, k) = svd.singularValues();
      u_i = svd.matrixU();
      vh_i = svd.matrixV().transpose();
    }
    *ctx.Output("U") = std::move(u);
    *ctx.Output("S") = std::move(s);
    *ctx.Output("VH") = std::move(vh);
  }
};

// ---------------------------------------------------------------- svdvals

void SvdvalsInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  const DDim x = ctx->GetInputDim("x");
  const MatrixBatch b = linalg::Matrices(ctx->OpType(), "x", x);
  ctx->SetOutputDim("s", linalg::WithBatchDims(x, {MinDim(b.rows, b.cols)}));
}

template <typename T>
struct SvdvalsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const MatrixBatch b = linalg::Matrices(ctx.Type(), "x", x->dims());
    const int64_t k = std::min(b.rows, b.cols);
    DenseTensor s(linalg::WithBatchDims(x->dims(), {k}), x->dtype());
    T* sd = s.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; k > 0 && i < b.batch; ++i) {
      const Eigen::JacobiSVD<Matrix<T>> svd(MatrixAt<T>(*x, b, i));
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(sd + i * k, k) = svd.singularValues();
    }
    *ctx.Output("s") = std::move(s);
  }
};

// dx = U diag(ds) V^T from the thin decomposition of x.
template <typename T>
struct SvdvalsGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DenseTensor* ds = ctx.Input("s@GRAD");
    const MatrixBatch b = linalg::Matrices(ctx.Type(), "x", x->dims());
    const int64_t k = std::min(b.rows, b.cols);
    CheckSameShape(ctx.Type(), "s@GRAD", ds->dims(), "s", linalg::WithBatchDims(x->dims(), {k}));
    DenseTensor dx(x->dims(), x->dtype());
    T* dxd = dx.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      MatrixMap<T> dx_i = MatrixAt<T>(dxd, b, i);
      if (k == 0) {
        dx_i.setZero();
        continue;
      }
      const Eigen::JacobiSVD<Matrix<T>> svd(MatrixAt<T>(*x, b, i),
                                            Eigen::ComputeThinU | Eigen::ComputeThinV);
      const Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>> dsv(ds->data<T>() + i * k, k);
      dx_i = svd.matrixU() * dsv.asDiagonal() * svd.matrixV().transpose();
    }
    *ctx.Output("x@GRAD") = std::move(dx);
  }
};

void SvdvalsGradInferShape(InferShapeContext* ctx) { linalg::InputGradsInferShape(ctx, {"x"}); }

// ---------------------------------------------------------------- qr_grad

// B = dQ + Q copyltu(R dR^T - dQ^T Q), dX = B R^{-T}: the gradient of a QR with Q [M, N] and
// square R [N, N] (M >= N).
template <typename T>
Matrix<T> QrGradTall(const Matrix<T>& q, const Matrix<T>& r, const Matrix<T>& dq,
                     const Matrix<T>& dr) {
  const Matrix<T> m = r * dr.transpose() - dq.transpose() * q;
  Matrix<T> lower = m.template triangularView<Eigen::StrictlyLower>();
  Matrix<T> copyltu = lower + lower.transpose();
  copyltu.diagonal() = m.diagonal();
  const Matrix<T> b = dq + q * copyltu;
  // dX R^T = B  <=>  R dX^T = B^T.
  return r.template triangularView<Eigen::Upper>().solve(b.transpose()).transpose();
}

void DecompositionGradInferShape(InferShapeContext* ctx) {
  linalg::InputGradsInferShape(ctx, {"X"});
}

template <typename T>
struct QrGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const std::string mode = ctx.Attr<std::string>("mode");
    const MatrixBatch b = linalg::Matrices(ctx.Type(), "X", x->dims());
    PL_ENFORCE(mode != "r" && !(mode == "complete" && b.rows > b.cols),
               errors::Unimplemented("op `%s` attribute `mode`: the gradient of a QR "
                                     "decomposition needs Q, and Q of mode complete is not "
                                     "determined by X when M > N (expected reduced, or "
                                     "complete with M <= N; received %s with X %s)",
                                     ctx.Type(), mode, x->dims().ToString()));
    const QrDims d = QrShape(ctx.Type(), x->dims(), mode);
    const DenseTensor* q = ctx.Input("Q");
    const DenseTensor* r = ctx.Input("R");
    const DenseTensor* dq = ctx.Input("Q@GRAD");
    const DenseTensor* dr = ctx.Input("R@GRAD");
    CheckSameShape(ctx.Type(), "Q", q->dims(), "Q", d.q);
    CheckSameShape(ctx.Type(), "R", r->dims(), "R", d.r);
    CheckSameShape(ctx.Type(), "Q@GRAD", dq->dims(), "Q", d.q);
    CheckSameShape(ctx.Type(), "R@GRAD", dr->dims(), "R", d.r);
    const int64_t k = std::min(b.rows, b.cols);
    const MatrixBatch qb{b.batch, b.rows, k}, rb{b.batch, k, b.cols};
    DenseTensor dx(x->dims(), x->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      if (b.size() == 0) continue;
      const Matrix<T> qi = MatrixAt<T>(*q, qb, i), ri = MatrixAt<T>(*r, rb, i);
      const Matrix<T> dqi = MatrixAt<T>(*dq, qb, i), dri = MatrixAt<T>(*dr, rb, i);
      if (b.rows >= b.cols) {
        MatrixAt(g, b, i) = QrGradTall<T>(qi, ri, dqi, dri);
        continue;
      }
      // M < N: X = [X1 | X2], R = [R1 | R2] with X1 = Q R1 square and X2 = Q R2.
      const int64_t m = b.rows;
      const ConstMatrixMap<T> xi = MatrixAt<T>(*x, b, i);
      const Matrix<T> x2 = xi.rightCols(b.cols - m);
      const Matrix<T> dr2 = dri.rightCols(b.cols - m);
      MatrixMap<T> gi = MatrixAt(g, b, i);
      gi.leftCols(m) =
          QrGradTall<T>(qi, ri.leftCols(m), dqi + x2 * dr2.transpose(), dri.leftCols(m));
      gi.rightCols(b.cols - m) = qi * dr2;
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// ---------------------------------------------------------------- svd_grad

template <typename T>
struct SvdGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const MatrixBatch b = linalg::Matrices(ctx.Type(), "X", x->dims());
    PL_ENFORCE(!ctx.Attr<bool>("full_matrices") || b.rows == b.cols,
               errors::Unimplemented("op `%s` attribute `full_matrices`: the extra singular "
                                     "vectors of a non-square X are not determined by X, so "
                                     "they have no gradient (expected false or a square X, "
                                     "received true with X %s)",
                                     ctx.Type(), x->dims().ToString()));
    const int64_t k = std::min(b.rows, b.cols);
    const MatrixBatch ub{b.batch, b.rows, k}, vb{b.batch, k, b.cols};
    const DDim s_dims = linalg::WithBatchDims(x->dims(), {k});
    const DenseTensor* u = ctx.Input("U");
    const DenseTensor* s = ctx.Input("S");
    const DenseTensor* vh = ctx.Input("VH");
    const DenseTensor* du = ctx.Input("U@GRAD");
    const DenseTensor* ds = ctx.Input("S@GRAD");
    const DenseTensor* dvh = ctx.Input("VH@GRAD");
    const DDim u_dims = linalg::WithBatchDims(x->dims(), {b.rows, k});
    const DDim vh_dims = linalg::WithBatchDims(x->dims(), {k, b.cols});
    CheckSameShape(ctx.Type(), "U", u->dims(), "U", u_dims);
    CheckSameShape(ctx.Type(), "U@GRAD", du->dims(), "U", u_dims);
    CheckSameShape(ctx.Type(), "S", s->dims(), "S", s_dims);
    CheckSameShape(ctx.Type(), "S@GRAD", ds->dims(), "S", s_dims);
    CheckSameShape(ctx.Type(), "VH", vh->dims(), "VH", vh_dims);
    CheckSameShape(ctx.Type(), "VH@GRAD", dvh->dims(), "VH", vh_dims);
    DenseTensor dx(x->dims(), x->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
    for (int64_t i = 0; i < b.batch; ++i) {
      if (k == 0) {
        MatrixAt(g, b, i).setZero();
        continue;
      }
      const Matrix<T> ui = MatrixAt<T>(*u, ub, i), dui = MatrixAt<T>(*du, ub, i);
      const Matrix<T> vi = Matrix<T>(MatrixAt<T>(*vh, vb, i)).transpose();
      const Matrix<T> dvi = Matrix<T>(MatrixAt<T>(*dvh, vb, i)).transpose();
      const Vector si = Eigen::Map<const Vector>(s->data<T>() + i * k, k);
      const Vector dsi = Eigen::Map<const Vector>(ds->data<T>() + i * k, k);
      const Matrix<T> ut_du = ui.transpose() * dui, vt_dv = vi.transpose() * dvi;
      Matrix<T> inner = dsi.asDiagonal();
      for (int64_t r = 0; r < k; ++r) {
        for (int64_t c = 0; c < k; ++c) {
          if (r == c) continue;
          const T e = si[c] * si[c] - si[r] * si[r];
          // (skew(U^T dU) / E) S + S (skew(V^T dV) / E), element (r, c).
          inner(r, c) +=
              (ut_du(r, c) - ut_du(c, r)) / e * si[c] + si[r] * (vt_dv(r, c) - vt_dv(c, r)) / e;
        }
      }
      Matrix<T> grad = ui * inner * vi.transpose();
      const Vector inv_s = si.cwiseInverse();
      if (b.rows > k) {
        const Matrix<T> du_proj = dui - ui * ut_du;  // (I - U U^T) dU
        grad += du_proj * inv_s.asDiagonal() * vi.transpose();
      }
      if (b.cols > k) {
        const Matrix<T> dv_proj = dvi - vi * vt_dv;  // (I - V V^T) dV
        grad += ui * inv_s.asDiagonal() * dv_proj.transpose();
      }
      MatrixAt(g, b, i) = grad;
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterQrSvdOps) {
  const framework::FusedGradDecl qr_grad{
      {"X", "Q", "R"},
      {"Q", "R"},
      {"X"},
      R"DOC($$dX = (dQ + Q \operatorname{copyltu}(R dR^T - dQ^T Q)) R^{-T}$$ (M >= N))DOC"};
  linalg::RegisterWithFusedGrad<QrOpMaker, QrKernel, QrGradKernel>("qr", QrInferShape, qr_grad,
                                                                   DecompositionGradInferShape);

  const framework::FusedGradDecl svd_grad{
      {"X", "U", "S", "VH"},
      {"U", "S", "VH"},
      {"X"},
      R"DOC($$dX = U [skew(U^T dU) / E \, S + S \, skew(V^T dV) / E + diag(dS)] V^T + \dots$$)DOC"};
  linalg::RegisterWithFusedGrad<SvdOpMaker, SvdKernel, SvdGradKernel>(
      "svd", SvdInferShape, svd_grad, DecompositionGradInferShape);

  const framework::FusedGradDecl svdvals_grad{
      {"x"}, {"s"}, {"x"}, R"DOC($$dx = U \operatorname{diag}(ds) \, V^T$$)DOC"};
  linalg::RegisterWithFusedGrad<SvdvalsOpMaker, SvdvalsKernel, SvdvalsGradKernel>(
      "svdvals", SvdvalsInferShape, svdvals_grad, SvdvalsGradInferShape);
}

}  // namespace operators
}  // namespace paddle_like
