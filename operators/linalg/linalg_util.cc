#include "operators/linalg/linalg_util.h"

#include "platform/enforce.h"

namespace paddle_like {
namespace operators {
namespace linalg {

MatrixBatch Matrices(const std::string& op, const std::string& slot, const framework::DDim& dims) {
  PL_ENFORCE(dims.size() >= 2,
             errors::InvalidArgument("op `%s` input `%s`: expected a tensor of rank >= 2 ([..., "
                                     "M, N]), received %s",
                                     op, slot, dims.ToString()));
  MatrixBatch b;
  b.rows = dims[dims.size() - 2];
  b.cols = dims[dims.size() - 1];
  b.batch = 1;
  for (int i = 0; i + 2 < dims.size(); ++i) {
    if (dims[i] < 0 || b.batch < 0) {
      b.batch = -1;
    } else {
      b.batch *= dims[i];
    }
  }
  return b;
}

MatrixBatch SquareMatrices(const std::string& op, const std::string& slot,
                           const framework::DDim& dims) {
  const MatrixBatch b = Matrices(op, slot, dims);
  PL_ENFORCE(b.rows < 0 || b.cols < 0 || b.rows == b.cols,
             errors::InvalidArgument("op `%s` input `%s`: expected square matrices ([..., N, "
                                     "N]), received %s",
                                     op, slot, dims.ToString()));
  return b;
}

std::vector<int64_t> BatchDims(const framework::DDim& dims) {
  std::vector<int64_t> batch;
  for (int i = 0; i + 2 < dims.size(); ++i) batch.push_back(dims[i]);
  return batch;
}

framework::DDim WithBatchDims(const framework::DDim& matrices, const std::vector<int64_t>& tail) {
  std::vector<int64_t> dims = BatchDims(matrices);
  dims.insert(dims.end(), tail.begin(), tail.end());
  return framework::DDim(dims);
}

void SameSquareMatricesInferShape(framework::InferShapeContext* ctx, const std::string& in,
                                  const std::string& out) {
  ctx->RequireInput(in);
  ctx->RequireOutput(out);
  const framework::DDim dims = ctx->GetInputDim(in);
  SquareMatrices(ctx->OpType(), in, dims);
  ctx->SetOutputDim(out, dims);
}

void InputGradsInferShape(framework::InferShapeContext* ctx,
                          const std::vector<std::string>& slots) {
  for (const std::string& slot : slots) {
    const std::string grad = slot + "@GRAD";
    if (!ctx->HasOutput(grad)) continue;
    ctx->RequireInput(slot);
    ctx->SetOutputDim(grad, ctx->GetInputDim(slot));
  }
}

void InputGradLikeOutputInferShape(framework::InferShapeContext* ctx, const std::string& in,
                                   const std::string& out) {
  ctx->RequireInput(out);
  const std::string grad = in + "@GRAD";
  if (ctx->HasOutput(grad)) ctx->SetOutputDim(grad, ctx->GetInputDim(out));
}

MatmulV2Shape AnalyzeSolve(const std::string& op, const std::string& a_slot,
                           const framework::DDim& a, const std::string& b_slot,
                           const framework::DDim& b) {
  SquareMatrices(op, a_slot, a);
  Matrices(op, b_slot, b);
  return AnalyzeMatmulV2(op, a, b, false, false);
}

void SolveInferShape(framework::InferShapeContext* ctx, const std::string& a_slot,
                     const std::string& b_slot) {
  ctx->RequireInput(a_slot);
  ctx->RequireInput(b_slot);
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", AnalyzeSolve(ctx->OpType(), a_slot, ctx->GetInputDim(a_slot), b_slot,
                                        ctx->GetInputDim(b_slot))
                               .out_dims);
}

template <typename T>
Eigen::PartialPivLU<Matrix<T>> LuOrThrow(const std::string& op, const std::string& slot,
                                         const Eigen::Ref<const Matrix<T>>& a, int64_t index) {
  Eigen::PartialPivLU<Matrix<T>> lu(a);
  const T min_pivot = lu.matrixLU().diagonal().cwiseAbs().minCoeff();
  if (!(min_pivot > T(0) && std::isfinite(static_cast<double>(min_pivot)))) {
    const std::string which =
        index < 0 ? std::string("a matrix") : "matrix " + std::to_string(index);
    throw errors::InvalidArgument(
        "op `%s` input `%s`: %s of the batch is singular (its LU "
        "decomposition has a pivot of %g)",
        op, slot, which, static_cast<double>(min_pivot));
  }
  return lu;
}

template <typename T>
Matrix<T> InverseOrThrow(const std::string& op, const std::string& slot,
                         const Eigen::Ref<const Matrix<T>>& a, int64_t index) {
  if (a.rows() == 0) return Matrix<T>(0, 0);
  return LuOrThrow<T>(op, slot, a, index).inverse();
}

#define PL_INSTANTIATE_LU(T)                                                                \
  template Eigen::PartialPivLU<Matrix<T>> LuOrThrow<T>(                                     \
      const std::string&, const std::string&, const Eigen::Ref<const Matrix<T>>&, int64_t); \
  template Matrix<T> InverseOrThrow<T>(const std::string&, const std::string&,              \
                                       const Eigen::Ref<const Matrix<T>>&, int64_t);
PL_INSTANTIATE_LU(float)
PL_INSTANTIATE_LU(double)
#undef PL_INSTANTIATE_LU

}  // namespace linalg
}  // namespace operators
}  // namespace paddle_like
