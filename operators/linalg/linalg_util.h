// Batched matrices for the linear-algebra ops: a tensor [..., rows, cols] holds `batch`
// row-major matrices, viewed one at a time as Eigen maps. The shape checks are shared by the
// ops' shape inference (dims may be -1 at program-build time) and their kernels.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "framework/ddim.h"
#include "framework/dense_tensor.h"
#include "framework/fused_grad_op.h"
#include "framework/operator.h"
#include "operators/common.h"
#include "operators/matmul/matmul_shape.h"

namespace paddle_like {
namespace operators {
namespace linalg {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatrixMap = Eigen::Map<Matrix<T>>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const Matrix<T>>;

// The op class of the linear-algebra ops.
class LinalgOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// min(m, n), or -1 when either is unknown (at program-build time).
inline int64_t MinDim(int64_t m, int64_t n) { return m < 0 || n < 0 ? -1 : std::min(m, n); }

struct MatrixBatch {
  int64_t batch = 0, rows = 0, cols = 0;  // -1 where a dim is unknown.
  int64_t size() const { return rows * cols; }
};

// [..., rows, cols] of rank >= 2, else InvalidArgumentError "op `op` input `slot`: expected
// a tensor of rank >= 2 ([..., M, N]), received [..]".
MatrixBatch Matrices(const std::string& op, const std::string& slot, const framework::DDim& dims);
// Matrices, each square where both dims are known.
MatrixBatch SquareMatrices(const std::string& op, const std::string& slot,
                           const framework::DDim& dims);

// All dims but the last two.
std::vector<int64_t> BatchDims(const framework::DDim& dims);
// The batch dims of `matrices` followed by `tail`.
framework::DDim WithBatchDims(const framework::DDim& matrices, const std::vector<int64_t>& tail);

// Shape inference of an op whose output `out` has the shape of its input `in` of square
// matrices.
void SameSquareMatricesInferShape(framework::InferShapeContext* ctx, const std::string& in,
                                  const std::string& out);

// Shape inference of a fused grad op: `<slot>@GRAD` takes the dims of input `slot`, for each of
// `slots` whose gradient the op writes.
void InputGradsInferShape(framework::InferShapeContext* ctx, const std::vector<std::string>& slots);

// Shape inference of a fused grad op that reads a forward output instead of the input (the
// input's shape is the output's): `<in>@GRAD`, when written, takes the dims of `out`.
void InputGradLikeOutputInferShape(framework::InferShapeContext* ctx, const std::string& in,
                                   const std::string& out);

// Registers the linear-algebra op `type` (LinalgOp, MakerT) with KernelT<float> and
// KernelT<double>, and its fused grad op `<type>_grad` per `grad` with GradKernelT's.
template <typename MakerT, template <typename> class KernelT, template <typename> class GradKernelT>
void RegisterWithFusedGrad(const std::string& type, framework::InferShapeFn infer_shape,
                           const framework::FusedGradDecl& grad,
                           framework::InferShapeFn grad_infer_shape) {
  framework::RegisterOp<LinalgOp, MakerT>(type)
      .InferShape(std::move(infer_shape))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<KernelT>(type);
  framework::RegisterFusedGradOp(type, grad).InferShape(std::move(grad_infer_shape));
  RegisterPlainCpuFloatKernels<GradKernelT>(type + "_grad");
}

// The systems A Out = B of the solve ops: A [.., M, M] of input `a_slot`, B [.., M, K] of input
// `b_slot`, their batch dims broadcast as matmul_v2's for A B (offsets of A as its X, of B as
// its Y).
MatmulV2Shape AnalyzeSolve(const std::string& op, const std::string& a_slot,
                           const framework::DDim& a, const std::string& b_slot,
                           const framework::DDim& b);
// Shape inference of Out for such a solve.
void SolveInferShape(framework::InferShapeContext* ctx, const std::string& a_slot,
                     const std::string& b_slot);

// Out_p = solve(A_p, B_p) for every broadcast batch p of a solve op (AnalyzeSolve), written to
// output Out; `solve` returns a Matrix<T> [M, K] from the two ConstMatrixMap<T>.
template <typename T, typename Solve>
void RunSolve(const framework::ExecutionContext& ctx, const std::string& a_slot,
              const std::string& b_slot, Solve&& solve);
// RunSolve on the tensors `a` and `b` (of inputs `a_slot` and `b_slot`), returning Out.
template <typename T, typename Solve>
framework::DenseTensor SolveSystems(const framework::ExecutionContext& ctx,
                                    const framework::DenseTensor& a, const std::string& a_slot,
                                    const framework::DenseTensor& b, const std::string& b_slot,
                                    Solve&& solve);

// The backward of a solve op: grads(A_p, Out_p, dOut_p, &dA_p, &dB_p) gives the gradients of
// one system (Matrix<T>), summed over broadcast batches into `<a_slot>@GRAD` and
// `<b_slot>@GRAD` (written where wanted).
template <typename T, typename Grads>
void RunSolveGrad(const framework::ExecutionContext& ctx, const std::string& a_slot,
                  const std::string& b_slot, Grads&& grads);
// The tensors of a solve op's backward: its inputs, Out and dOut.
struct SolveGradTensors {
  const framework::DenseTensor *a, *b, *out, *dout;
};
// RunSolveGrad on the given tensors, returning dA and dB in `da` and `db`.
template <typename T, typename Grads>
void SolveSystemsGrad(const framework::ExecutionContext& ctx, const SolveGradTensors& t,
                      const std::string& a_slot, const std::string& b_slot, Grads&& grads,
                      framework::DenseTensor* da, framework::DenseTensor* db);

// Matrix `i` of a tensor holding the matrices `b`.
template <typename T>
ConstMatrixMap<T> MatrixAt(const framework::DenseTensor& t, const MatrixBatch& b, int64_t i) {
  return ConstMatrixMap<T>(t.numel() > 0 ? t.data<T>() + i * b.size() : nullptr, b.rows, b.cols);
}
template <typename T>
MatrixMap<T> MatrixAt(T* data, const MatrixBatch& b, int64_t i) {
  return MatrixMap<T>(data + i * b.size(), b.rows, b.cols);
}

// The LU decomposition with partial pivoting of the square `a`; InvalidArgumentError naming
// the op, the slot and the matrix's index in the batch (`index` < 0: not known) when a pivot
// is zero (or not finite): a singular matrix, as PaddlePaddle refuses it.
template <typename T>
Eigen::PartialPivLU<Matrix<T>> LuOrThrow(const std::string& op, const std::string& slot,
                                         const Eigen::Ref<const Matrix<T>>& a, int64_t index);

// The inverse of the square `a` through LuOrThrow.
template <typename T>
Matrix<T> InverseOrThrow(const std::string& op, const std::string& slot,
                         const Eigen::Ref<const Matrix<T>>& a, int64_t index);

template <typename T, typename Solve>
framework::DenseTensor SolveSystems(const framework::ExecutionContext& ctx,
                                    const framework::DenseTensor& a, const std::string& a_slot,
                                    const framework::DenseTensor& b, const std::string& b_slot,
                                    Solve&& solve) {
  CheckOperandTypes(ctx.Type(), a, b, platform::ToDataType<T>());
  const MatmulV2Shape s = AnalyzeSolve(ctx.Type(), a_slot, a.dims(), b_slot, b.dims());
  std::vector<int64_t> a_off, b_off;
  s.BatchOffsets(&a_off, &b_off);
  framework::DenseTensor out(s.out_dims, a.dtype());
  T* o = out.mutable_data<T>(ctx.GetPlace());
  for (int64_t p = 0; p < s.BatchCount() && s.M > 0 && s.N > 0; ++p) {
    MatrixMap<T>(o + p * s.M * s.N, s.M, s.N) =
        solve(ConstMatrixMap<T>(a.data<T>() + a_off[p], s.M, s.M),
              ConstMatrixMap<T>(b.data<T>() + b_off[p], s.M, s.N));
  }
  return out;
}

template <typename T, typename Solve>
void RunSolve(const framework::ExecutionContext& ctx, const std::string& a_slot,
              const std::string& b_slot, Solve&& solve) {
  *ctx.Output("Out") = SolveSystems<T>(ctx, *ctx.Input(a_slot), a_slot, *ctx.Input(b_slot), b_slot,
                                       std::forward<Solve>(solve));
}

template <typename T, typename Grads>
void SolveSystemsGrad(const framework::ExecutionContext& ctx, const SolveGradTensors& t,
                      const std::string& a_slot, const std::string& b_slot, Grads&& grads,
                      framework::DenseTensor* da, framework::DenseTensor* db) {
  const MatmulV2Shape s = AnalyzeSolve(ctx.Type(), a_slot, t.a->dims(), b_slot, t.b->dims());
  CheckSameShape(ctx.Type(), "Out", t.out->dims(), "Out", s.out_dims);
  CheckSameShape(ctx.Type(), "Out@GRAD", t.dout->dims(), "Out", s.out_dims);
  std::vector<int64_t> a_off, b_off;
  s.BatchOffsets(&a_off, &b_off);
  *da = framework::DenseTensor(t.a->dims(), t.a->dtype());
  *db = framework::DenseTensor(t.b->dims(), t.b->dtype());
  T* ga = da->mutable_data<T>(ctx.GetPlace());
  T* gb = db->mutable_data<T>(ctx.GetPlace());
  std::fill(ga, ga + da->numel(), T(0));
  std::fill(gb, gb + db->numel(), T(0));
  Matrix<T> grad_a, grad_b;
  for (int64_t p = 0; p < s.BatchCount() && s.M > 0 && s.N > 0; ++p) {
    grads(ConstMatrixMap<T>(t.a->data<T>() + a_off[p], s.M, s.M),
          ConstMatrixMap<T>(t.out->data<T>() + p * s.M * s.N, s.M, s.N),
          ConstMatrixMap<T>(t.dout->data<T>() + p * s.M * s.N, s.M, s.N), &grad_a, &grad_b);
    MatrixMap<T>(ga + a_off[p], s.M, s.M) += grad_a;
    MatrixMap<T>(gb + b_off[p], s.M, s.N) += grad_b;
  }
}

template <typename T, typename Grads>
void RunSolveGrad(const framework::ExecutionContext& ctx, const std::string& a_slot,
                  const std::string& b_slot, Grads&& grads) {
  framework::DenseTensor da, db;
  SolveSystemsGrad<T>(
      ctx, {ctx.Input(a_slot), ctx.Input(b_slot), ctx.Input("Out"), ctx.Input("Out@GRAD")}, a_slot,
      b_slot, std::forward<Grads>(grads), &da, &db);
  if (framework::DenseTensor* o = ctx.Output(a_slot + "@GRAD")) *o = std::move(da);
  if (framework::DenseTensor* o = ctx.Output(b_slot + "@GRAD")) *o = std::move(db);
}

}  // namespace linalg

// The linalg op files name these often enough to drop the prefix.
using linalg::ConstMatrixMap;
using linalg::LinalgOp;
using linalg::Matrix;
using linalg::MatrixAt;
using linalg::MatrixBatch;
using linalg::MatrixMap;
using linalg::MinDim;

}  // namespace operators
}  // namespace paddle_like
