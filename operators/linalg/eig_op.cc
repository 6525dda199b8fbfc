// eig and eigvals (paddle.linalg.eig, paddle.linalg.eigvals): eigenvalues and eigenvectors of
// general square matrices, complex (complex64 for float32 and complex64 input, complex128 for
// float64 and complex128), computed in double precision by the Hessenberg reduction and
// shifted QR iterations of a real or complex Schur form (Eigen's EigenSolver,
// ComplexEigenSolver).
//
// Order: the eigenvalues come in the order the Schur form's diagonal holds them, which is
// generally not the order of LAPACK's geev (PaddlePaddle's); the two agree as sets (random
// 5 x 5 float32 matrices: within 5.5e-6), so compare them as sets.
// Eigenvectors: each column has unit 2-norm and its component of largest modulus (the first
// of equal ones) real and positive. LAPACK makes that component real for complex vectors but
// leaves a real vector's sign as it comes, so a column may differ from PaddlePaddle's by a
// phase (a sign for real ones).
//
// Gradient (eig only; fused op eig_grad, reading the outputs only): with D = V^H dV,
// made real on its diagonal by the phase condition above (dV += G with
// G_{k_j j} = -i Im(D_jj) / V_{k_j j}, k_j the column's largest component), and
// E_ij = conj(L_j) - conj(L_i),
//   dX = V^{-H} (diag(dL) + (D - V^H V diag(Re D_jj)) / E  off the diagonal) V^H,
// its real part for a real X. For a loss that does not depend on the eigenvectors' phases
// G = 0 and this is the usual formula (PyTorch's, PaddlePaddle's).
#include <cmath>
#include <complex>
#include <string>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

using Complex = std::complex<double>;
using ComplexMatrix = Eigen::MatrixXcd;
using ComplexVector = Eigen::VectorXcd;

// The complex type of the outputs for an X of element type T.
template <typename T>
struct ComplexOf {
  using type = std::complex<T>;
  static constexpr bool kInputComplex = false;
};
template <typename T>
struct ComplexOf<std::complex<T>> {
  using type = std::complex<T>;
  static constexpr bool kInputComplex = true;
};

class EigvalsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., N, N]: square matrices (float, double, complex64, complex128).");
    AddOutput("Out", "[..., N]: their eigenvalues, complex.");
    AddComment(R"DOC(
Eigenvalues of each square matrix: the roots of $$\det(X - \lambda I) = 0$$
in the order of the diagonal of X's Schur form (complex conjugate pairs of a real X
together, the one with the positive imaginary part first). No gradient.
)DOC");
  }
};

class EigOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., N, N]: square matrices (float, double, complex64, complex128).");
    AddOutput("Eigenvalues", "[..., N]: complex, in eigvals' order.");
    AddOutput("Eigenvectors",
              "[..., N, N]: complex; column j belongs to eigenvalue j, unit 2-norm, its largest "
              "component real and positive.");
    AddComment(R"DOC(
Eigendecomposition of each square matrix:
$$X V = V \operatorname{diag}(L)$$
Gradient: $$dX = V^{-H} \left(\operatorname{diag}(dL) + \frac{V^H dV - V^H V
\operatorname{diag}(\operatorname{Re}(V^H dV)_{jj})}{\bar L_j - \bar L_i}\right) V^H$$
(off the diagonal; dV first adjusted to the phase condition), the real part for a real X.
)DOC");
  }
};

class EigOp : public LinalgOp {
 public:
  using LinalgOp::LinalgOp;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

DataType ComplexDataTypeOf(DataType x) {
  return platform::IsComplex(x) ? x : platform::ComplexTypeOf(x);
}

void EigvalsInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const MatrixBatch b = linalg::SquareMatrices(ctx->OpType(), "X", x);
  ctx->SetOutputDim("Out", linalg::WithBatchDims(x, {b.rows}));
}

void EigvalsInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ComplexDataTypeOf(ctx->GetInputDataType("X")));
}

void EigInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Eigenvalues");
  ctx->RequireOutput("Eigenvectors");
  const DDim x = ctx->GetInputDim("X");
  const MatrixBatch b = linalg::SquareMatrices(ctx->OpType(), "X", x);
  ctx->SetOutputDim("Eigenvalues", linalg::WithBatchDims(x, {b.rows}));
  ctx->SetOutputDim("Eigenvectors", x);
}

void EigInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType c = ComplexDataTypeOf(ctx->GetInputDataType("X"));
  for (const char* slot : {"Eigenvalues", "Eigenvectors"}) {
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, c);
  }
}

void ThrowNotConverged(const ExecutionContext& ctx, int64_t i) {
  PL_THROW(
      errors::InvalidArgument("op `%s` input `X`: the QR iterations did not converge for "
                              "matrix %lld (values not finite?)",
                              ctx.Type(), static_cast<long long>(i)));
}

// Matrix i of X (real T or complex) as a complex double matrix.
template <typename T>
ComplexMatrix ComplexMatrixAt(const DenseTensor& x, const MatrixBatch& b, int64_t i) {
  return MatrixAt<T>(x, b, i).template cast<Complex>();
}

// The eigenvalues (and, when `vectors`, the unit eigenvectors in the phase described above) of
// matrix i of X of element type T.
template <typename T>
void Decompose(const ExecutionContext& ctx, const DenseTensor& x, const MatrixBatch& b, int64_t i,
               bool vectors, ComplexVector* values, ComplexMatrix* v) {
  const auto m = MatrixAt<T>(x, b, i);
  for (int64_t e = 0; e < m.size(); ++e) {
    PL_ENFORCE(
        std::isfinite(std::abs(m.data()[e])),
        errors::InvalidArgument("op `%s` input `X`: expected finite values, matrix %lld "
                                "holds a non-finite one at element %lld",
                                ctx.Type(), static_cast<long long>(i), static_cast<long long>(e)));
  }
  if constexpr (ComplexOf<T>::kInputComplex) {
    const Eigen::ComplexEigenSolver<ComplexMatrix> solver(ComplexMatrixAt<T>(x, b, i), vectors);
    if (solver.info() != Eigen::Success) ThrowNotConverged(ctx, i);
    *values = solver.eigenvalues();
    if (vectors) *v = solver.eigenvectors();
  } else {
    const Eigen::EigenSolver<Eigen::MatrixXd> solver(MatrixAt<T>(x, b, i).template cast<double>(),
                                                     vectors);
    if (solver.info() != Eigen::Success) ThrowNotConverged(ctx, i);
    *values = solver.eigenvalues();
    if (vectors) *v = solver.eigenvectors();
  }
  if (!vectors) return;
  for (int64_t j = 0; j < v->cols(); ++j) {
    auto column = v->col(j);
    column /= column.norm();
    Eigen::Index k = 0;
    column.cwiseAbs().maxCoeff(&k);
    column *= std::conj(column(k)) / std::abs(column(k));
    column(k) = Complex(column(k).real(), 0);  // Exactly real.
  }
}

template <typename T>
struct EigvalsKernel {
  static void Compute(const ExecutionContext& ctx) {
    using C = typename ComplexOf<T>::type;
    const DenseTensor* x = ctx.Input("X");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    DenseTensor out(linalg::WithBatchDims(x->dims(), {b.rows}), platform::ToDataType<C>());
    C* o = out.mutable_data<C>(ctx.GetPlace());
    ComplexVector values;
    ComplexMatrix unused;
    for (int64_t i = 0; i < b.batch && b.rows > 0; ++i) {
      Decompose<T>(ctx, *x, b, i, false, &values, &unused);
      for (int64_t j = 0; j < b.rows; ++j) o[i * b.rows + j] = static_cast<C>(values(j));
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct EigKernel {
  static void Compute(const ExecutionContext& ctx) {
    using C = typename ComplexOf<T>::type;
    const DenseTensor* x = ctx.Input("X");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    const int64_t n = b.rows;
    DenseTensor w(linalg::WithBatchDims(x->dims(), {n}), platform::ToDataType<C>());
    DenseTensor v(x->dims(), platform::ToDataType<C>());
    C* wd = w.mutable_data<C>(ctx.GetPlace());
    C* vd = v.mutable_data<C>(ctx.GetPlace());
    ComplexVector values;
    ComplexMatrix vectors;
    for (int64_t i = 0; i < b.batch && n > 0; ++i) {
      Decompose<T>(ctx, *x, b, i, true, &values, &vectors);
      for (int64_t j = 0; j < n; ++j) wd[i * n + j] = static_cast<C>(values(j));
      MatrixAt(vd, b, i) = vectors.cast<C>();
    }
    *ctx.Output("Eigenvalues") = std::move(w);
    *ctx.Output("Eigenvectors") = std::move(v);
  }
};

// One matrix's gradient (see the top of the file).
ComplexMatrix EigGrad(const ComplexVector& l, const ComplexMatrix& v, const ComplexVector* dl,
                      const ComplexMatrix* dv) {
  const int64_t n = v.rows();
  const ComplexMatrix vh = v.adjoint();
  ComplexMatrix inner = ComplexMatrix::Zero(n, n);
  if (dv != nullptr) {
    ComplexMatrix adjusted = *dv;
    const ComplexMatrix d = vh * *dv;
    for (int64_t j = 0; j < n; ++j) {
      Eigen::Index k = 0;
      v.col(j).cwiseAbs().maxCoeff(&k);
      adjusted(k, j) -= Complex(0, d(j, j).imag() / v(k, j).real());
    }
    inner = vh * adjusted;
    Eigen::VectorXd scale(n);
    for (int64_t j = 0; j < n; ++j) scale(j) = inner(j, j).real();
    inner -= vh * (v * scale.asDiagonal());
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        if (r != c) inner(r, c) /= std::conj(l(c)) - std::conj(l(r));
      }
    }
  }
  for (int64_t j = 0; j < n; ++j) inner(j, j) = dl != nullptr ? (*dl)(j) : Complex(0);
  return vh.partialPivLu().solve(inner * vh);
}

// The fused eig_grad kernel on the outputs' complex type C (the kernel key follows them);
// X@GRAD takes X's dtype, real or complex (X is read for its metadata only).
template <typename C>
struct EigGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    using R = typename C::value_type;
    const DenseTensor* v = ctx.Input("Eigenvectors");
    const DenseTensor* l = ctx.Input("Eigenvalues");
    const DenseTensor* dl = ctx.Input("Eigenvalues@GRAD");
    const DenseTensor* dv = ctx.Input("Eigenvectors@GRAD");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "Eigenvectors", v->dims());
    const int64_t n = b.rows;
    const DDim l_dims = linalg::WithBatchDims(v->dims(), {n});
    CheckSameShape(ctx.Type(), "Eigenvalues", l->dims(), "Eigenvalues", l_dims);
    if (dl != nullptr) {
      CheckSameShape(ctx.Type(), "Eigenvalues@GRAD", dl->dims(), "Eigenvalues", l_dims);
    }
    if (dv != nullptr) {
      CheckSameShape(ctx.Type(), "Eigenvectors@GRAD", dv->dims(), "Eigenvectors", v->dims());
    }
    const DataType x_type = ctx.InputVar("X")->Get<DenseTensor>().dtype();
    const bool real = !platform::IsComplex(x_type);
    DenseTensor dx(v->dims(), real ? platform::ToDataType<R>() : platform::ToDataType<C>());
    R* g_real = real ? dx.mutable_data<R>(ctx.GetPlace()) : nullptr;
    C* g_complex = real ? nullptr : dx.mutable_data<C>(ctx.GetPlace());
    const auto vector_at = [&](const DenseTensor& t, int64_t i) {
      return Eigen::Map<const Eigen::Matrix<C, Eigen::Dynamic, 1>>(t.data<C>() + i * n, n)
          .template cast<Complex>()
          .eval();
    };
    for (int64_t i = 0; i < b.batch && n > 0; ++i) {
      const ComplexVector li = vector_at(*l, i);
      const ComplexVector dli = dl != nullptr ? vector_at(*dl, i) : ComplexVector();
      const ComplexMatrix dvi = dv != nullptr ? ComplexMatrixAt<C>(*dv, b, i) : ComplexMatrix();
      const ComplexMatrix gi =
          EigGrad(li, ComplexMatrixAt<C>(*v, b, i), dl != nullptr ? &dli : nullptr,
                  dv != nullptr ? &dvi : nullptr);
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < n; ++c) {
          const int64_t at = (i * n + r) * n + c;
          if (real) {
            g_real[at] = static_cast<R>(gi(r, c).real());
          } else {
            g_complex[at] = static_cast<C>(gi(r, c));
          }
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterEigOps) {
  framework::RegisterOp<EigOp, EigvalsOpMaker>("eigvals")
      .InferShape(EigvalsInferShape)
      .InferVarType(EigvalsInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuKernels<EigvalsKernel, float, double, std::complex<float>, std::complex<double>>(
      "eigvals");

  const framework::FusedGradDecl eig_grad{{"X", "Eigenvalues", "Eigenvectors"},
                                          {"Eigenvalues", "Eigenvectors"},
                                          {"X"},
                                          R"DOC($$dX = V^{-H} \left(\operatorname{diag}(dL) +
\frac{V^H dV - V^H V \operatorname{diag}(\operatorname{Re}(V^H dV)_{jj})}{\bar L_j - \bar L_i}\right) V^H$$
off the diagonal, dV first adjusted to the phase condition (see eig))DOC",
                                          {"X"}};
  framework::RegisterOp<EigOp, EigOpMaker>("eig")
      .InferShape(EigInferShape)
      .InferVarType(EigInferVarType)
      .GradOpMaker(framework::FusedGradMaker(eig_grad));
  RegisterPlainCpuKernels<EigKernel, float, double, std::complex<float>, std::complex<double>>(
      "eig");
  framework::RegisterFusedGradOp("eig", eig_grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("Eigenvectors");
    if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("Eigenvectors"));
  });
  RegisterPlainCpuKernels<EigGradKernel, std::complex<float>, std::complex<double>>("eig_grad");
}

}  // namespace operators
}  // namespace paddle_like
