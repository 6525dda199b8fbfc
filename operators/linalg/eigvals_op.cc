// eigvals (paddle.linalg.eigvals): the eigenvalues of general square matrices, complex
// (complex64 for float32 and complex64 input, complex128 for float64 and complex128), by the
// Hessenberg reduction and shifted QR iterations of a real or complex Schur form (Eigen's
// EigenSolver, ComplexEigenSolver). They come in the order the Schur form's diagonal holds
// them, which is generally not the order of LAPACK's geev (PaddlePaddle's): the two agree as
// sets (random 5 x 5 float32 matrices: within 5.5e-6), so compare them as sets. Forward only,
// as PaddlePaddle's.
#include <complex>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

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

class EigvalsOp : public LinalgOp {
 public:
  using LinalgOp::LinalgOp;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

void EigvalsInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const MatrixBatch b = linalg::SquareMatrices(ctx->OpType(), "X", x);
  ctx->SetOutputDim("Out", linalg::WithBatchDims(x, {b.rows}));
}

void EigvalsInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  const DataType x = ctx->GetInputDataType("X");
  ctx->SetOutputDataType("Out", platform::IsComplex(x) ? x : platform::ComplexTypeOf(x));
}

template <typename T>
struct RealEigvalsKernel {
  static void Compute(const ExecutionContext& ctx) {
    using C = std::complex<T>;
    const DenseTensor* x = ctx.Input("X");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    DenseTensor out(linalg::WithBatchDims(x->dims(), {b.rows}), platform::ToDataType<C>());
    C* o = out.mutable_data<C>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch && b.rows > 0; ++i) {
      const Eigen::EigenSolver<Matrix<T>> solver(linalg::MatrixAt<T>(*x, b, i),
                                                 /*computeEigenvectors=*/false);
      PL_ENFORCE(solver.info() == Eigen::Success,
                 errors::InvalidArgument("op `%s` input `X`: the QR iterations did not converge "
                                         "for matrix %lld (values not finite?)",
                                         ctx.Type(), static_cast<long long>(i)));
      for (int64_t j = 0; j < b.rows; ++j) o[i * b.rows + j] = solver.eigenvalues()[j];
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename C>
struct ComplexEigvalsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "X", x->dims());
    DenseTensor out(linalg::WithBatchDims(x->dims(), {b.rows}), x->dtype());
    C* o = out.mutable_data<C>(ctx.GetPlace());
    const int64_t n = b.rows;
    for (int64_t i = 0; i < b.batch && n > 0; ++i) {
      const Eigen::ComplexEigenSolver<Matrix<C>> solver(linalg::MatrixAt<C>(*x, b, i),
                                                        /*computeEigenvectors=*/false);
      PL_ENFORCE(solver.info() == Eigen::Success,
                 errors::InvalidArgument("op `%s` input `X`: the QR iterations did not converge "
                                         "for matrix %lld (values not finite?)",
                                         ctx.Type(), static_cast<long long>(i)));
      for (int64_t j = 0; j < n; ++j) o[i * n + j] = solver.eigenvalues()[j];
    }
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterEigvalsOp) {
  framework::RegisterOp<EigvalsOp, EigvalsOpMaker>("eigvals")
      .InferShape(EigvalsInferShape)
      .InferVarType(EigvalsInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<RealEigvalsKernel>("eigvals");
  RegisterPlainCpuKernels<ComplexEigvalsKernel, std::complex<float>, std::complex<double>>(
      "eigvals");
}

}  // namespace operators
}  // namespace paddle_like
