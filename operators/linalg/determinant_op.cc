// determinant and slogdeterminant of batches of square matrices, with fused backwards.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class DeterminantOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "[..., N, N]: a batch of square matrices.");
    AddOutput("Out", "The batch dims of Input ([] for one matrix).");
    AddComment(R"DOC(
Determinant of each square matrix of the batch: $$Out = \det(Input)$$
Gradient, by the fused op determinant_grad: $$dInput = dOut \cdot \operatorname{adj}(Input)^T$$
which is $dOut \cdot Out \cdot Input^{-T}$ for an invertible matrix; for a singular one the
adjugate comes from the singular value decomposition (it is 0 when the rank is below N - 1).
)DOC");
  }
};

class SlogDeterminantOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "[..., N, N]: a batch of square matrices.");
    AddOutput("Out", "[2, ...]: the signs (Out[0]) and log absolute determinants (Out[1]).");
    AddComment(R"DOC(
Sign and natural logarithm of the absolute determinant of each square matrix, from the LU
decomposition with partial pivoting (no overflow for large matrices):
$$Out[0] = \operatorname{sign}(\det Input), \quad Out[1] = \log |\det Input|$$
A singular matrix gives sign 0 and -inf. Gradient, by the fused op slogdeterminant_grad (the
sign has none): $$dInput = dOut[1] \cdot Input^{-T}$$
)DOC");
  }
};

// adj(A) = det(U) det(V) V adj(S) U^T for A = U S V^T, with adj(S) = diag(prod_{j != i} s_j):
// defined for singular matrices too, where det(A) A^{-1} is not.
template <typename T>
Matrix<T> AdjugateBySvd(const Matrix<T>& a) {
  const Eigen::JacobiSVD<Matrix<T>> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const auto& s = svd.singularValues();
  const int64_t n = a.rows();
  Eigen::Matrix<T, Eigen::Dynamic, 1> adj_s(n);
  for (int64_t i = 0; i < n; ++i) {
    T p = T(1);
    for (int64_t j = 0; j < n; ++j) {
      if (j != i) p *= s[j];
    }
    adj_s[i] = p;
  }
  const T orientation = svd.matrixU().determinant() * svd.matrixV().determinant();
  return orientation * svd.matrixV() * adj_s.asDiagonal() * svd.matrixU().transpose();
}

// ---------------------------------------------------------------- determinant

void DeterminantInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  const DDim dims = ctx->GetInputDim("Input");
  linalg::SquareMatrices(ctx->OpType(), "Input", dims);
  ctx->SetOutputDim("Out", DDim(linalg::BatchDims(dims)));
}

template <typename T>
struct DeterminantKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "Input", in->dims());
    DenseTensor out(DDim(linalg::BatchDims(in->dims())), in->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      o[i] = b.rows == 0 ? T(1) : MatrixAt<T>(*in, b, i).determinant();
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void DeterminantGradInferShape(InferShapeContext* ctx) {
  linalg::InputGradsInferShape(ctx, {"Input"});
}

template <typename T>
struct DeterminantGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "Input", in->dims());
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out",
                   DDim(linalg::BatchDims(in->dims())));
    DenseTensor dx(in->dims(), in->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    const T* gout = dout->numel() > 0 ? dout->data<T>() : nullptr;
    for (int64_t i = 0; i < b.batch; ++i) {
      if (b.rows == 0) continue;
      const Matrix<T> a = MatrixAt<T>(*in, b, i);
      const Eigen::PartialPivLU<Matrix<T>> lu(a);
      const T det = lu.determinant();
      if (det != T(0) && std::isfinite(static_cast<double>(det))) {
        MatrixAt(g, b, i) = (gout[i] * det) * lu.inverse().transpose();
      } else {
        MatrixAt(g, b, i) = gout[i] * AdjugateBySvd<T>(a).transpose();
      }
    }
    *ctx.Output("Input@GRAD") = std::move(dx);
  }
};

// ---------------------------------------------------------------- slogdeterminant

DDim SlogDeterminantDims(const DDim& input) {
  std::vector<int64_t> dims = {2};
  for (int64_t d : linalg::BatchDims(input)) dims.push_back(d);
  return DDim(dims);
}

void SlogDeterminantInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  const DDim dims = ctx->GetInputDim("Input");
  linalg::SquareMatrices(ctx->OpType(), "Input", dims);
  ctx->SetOutputDim("Out", SlogDeterminantDims(dims));
}

template <typename T>
struct SlogDeterminantKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "Input", in->dims());
    DenseTensor out(SlogDeterminantDims(in->dims()), in->dtype());
    T* sign = out.mutable_data<T>(ctx.GetPlace());
    T* logabs = sign + b.batch;
    for (int64_t i = 0; i < b.batch; ++i) {
      sign[i] = T(1);
      logabs[i] = T(0);
      if (b.rows == 0) continue;
      const Eigen::PartialPivLU<Matrix<T>> lu(MatrixAt<T>(*in, b, i));
      T s = lu.permutationP().determinant();
      T sum = T(0);
      for (int64_t k = 0; k < b.rows; ++k) {
        const T u = lu.matrixLU()(k, k);
        if (u < T(0)) s = -s;
        if (u == T(0)) s = T(0);
        sum += std::log(std::abs(u));
      }
      sign[i] = s;
      logabs[i] = s == T(0) ? -std::numeric_limits<T>::infinity() : sum;
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct SlogDeterminantGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const MatrixBatch b = linalg::SquareMatrices(ctx.Type(), "Input", in->dims());
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", SlogDeterminantDims(in->dims()));
    DenseTensor dx(in->dims(), in->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    // Only log|det| (the second half of Out) has a gradient.
    const T* glog = dout->numel() > 0 ? dout->data<T>() + b.batch : nullptr;
    for (int64_t i = 0; i < b.batch; ++i) {
      if (b.rows == 0) continue;
      // A singular matrix gives inf or nan, as log|det| has no finite derivative there.
      const Eigen::PartialPivLU<Matrix<T>> lu(MatrixAt<T>(*in, b, i));
      MatrixAt(g, b, i) = glog[i] * lu.inverse().transpose();
    }
    *ctx.Output("Input@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterDeterminantOps) {
  const framework::FusedGradDecl determinant_grad{
      {"Input", "Out"}, {"Out"}, {"Input"}, R"DOC($$dInput = dOut \cdot adj(Input)^T$$)DOC"};
  linalg::RegisterWithFusedGrad<DeterminantOpMaker, DeterminantKernel, DeterminantGradKernel>(
      "determinant", DeterminantInferShape, determinant_grad, DeterminantGradInferShape);

  const framework::FusedGradDecl slogdeterminant_grad{
      {"Input", "Out"}, {"Out"}, {"Input"}, R"DOC($$dInput = dOut[1] \cdot Input^{-T}$$)DOC"};
  linalg::RegisterWithFusedGrad<SlogDeterminantOpMaker, SlogDeterminantKernel,
                                SlogDeterminantGradKernel>(
      "slogdeterminant", SlogDeterminantInferShape, slogdeterminant_grad,
      DeterminantGradInferShape);
}

}  // namespace operators
}  // namespace paddle_like
