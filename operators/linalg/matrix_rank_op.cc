// matrix_rank: the number of singular values (absolute eigenvalues of a symmetric matrix)
// above a tolerance, per matrix of a batch.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class MatrixRankOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., M, N].");
    AddInput("TolTensor", "Absolute tolerances, broadcast against X's batch dims.").AsDispensable();
    AddOutput("Out", "int64 ranks: X's batch dims broadcast with TolTensor's.");
    AddAttr<float>("tol",
                   "The absolute tolerance when use_default_tol is false and there is "
                   "no TolTensor.")
        .SetDefault(0.0f);
    AddAttr<bool>("hermitian", "X is symmetric: its absolute eigenvalues are its singular values.")
        .SetDefault(false);
    AddAttr<bool>("use_default_tol", "Use the relative tolerance eps * max(M, N).")
        .SetDefault(true);
    AddComment(R"DOC(
Rank of each matrix: the number of its singular values $\sigma_i$ above the tolerance
$$tol = \max(atol, \; rtol \cdot \sigma_{max})$$
with atol the TolTensor (or the attribute tol when use_default_tol is false, else 0) and rtol
= eps(dtype) * max(M, N) when use_default_tol is true (else 0).
)DOC");
  }
};

struct RankShape {
  MatrixBatch matrices;
  std::vector<int64_t> batch, tol, out;  // tol: TolTensor's dims, right-aligned to out.
};

RankShape AnalyzeRank(const std::string& op, const DDim& x, const DDim* tol, bool hermitian) {
  RankShape s;
  s.matrices = hermitian ? linalg::SquareMatrices(op, "X", x) : linalg::Matrices(op, "X", x);
  s.batch = linalg::BatchDims(x);
  if (tol == nullptr) {
    s.out = s.batch;
    return s;
  }
  s.tol = tol->ToVector();
  const size_t rank = std::max(s.batch.size(), s.tol.size());
  s.batch.insert(s.batch.begin(), rank - s.batch.size(), 1);
  s.tol.insert(s.tol.begin(), rank - s.tol.size(), 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a = s.batch[i], b = s.tol[i];
    PL_ENFORCE(a == b || a == 1 || b == 1 || a < 0 || b < 0,
               errors::InvalidArgument("op `%s` input `TolTensor`: dims %s do not broadcast with "
                                       "the batch dims of X %s",
                                       op, tol->ToString(), x.ToString()));
    s.out.push_back(a == 1 ? b : (b == 1 ? a : std::max(a, b)));
  }
  return s;
}

void MatrixRankInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim tol = ctx->HasInput("TolTensor") ? ctx->GetInputDim("TolTensor") : DDim();
  ctx->SetOutputDim("Out", DDim(AnalyzeRank(ctx->OpType(), ctx->GetInputDim("X"),
                                            ctx->HasInput("TolTensor") ? &tol : nullptr,
                                            ctx->Attr<bool>("hermitian"))
                                    .out));
}

void MatrixRankInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", DataType::INT64);
}

// The flat index into a tensor of `dims` (right-aligned, 1s broadcast) of the element at
// the flat index `flat` of a tensor of `out` dims.
int64_t BroadcastIndex(int64_t flat, const std::vector<int64_t>& out,
                       const std::vector<int64_t>& dims) {
  int64_t index = 0, stride = 1;
  for (size_t d = out.size(); d-- > 0;) {
    const int64_t coord = flat % out[d];
    flat /= out[d];
    if (dims[d] != 1) index += coord * stride;
    stride *= dims[d];
  }
  return index;
}

template <typename T>
struct MatrixRankKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* tol_tensor = ctx.Input("TolTensor");
    const bool hermitian = ctx.Attr<bool>("hermitian");
    const bool default_tol = ctx.Attr<bool>("use_default_tol");
    const DDim tol_dims = tol_tensor != nullptr ? tol_tensor->dims() : DDim();
    const RankShape s =
        AnalyzeRank(ctx.Type(), x->dims(), tol_tensor != nullptr ? &tol_dims : nullptr, hermitian);
    const MatrixBatch& b = s.matrices;
    // The singular values of each matrix of X.
    std::vector<std::vector<T>> values(static_cast<size_t>(b.batch));
    for (int64_t i = 0; i < b.batch; ++i) {
      if (b.size() == 0) continue;
      const Matrix<T> m = linalg::MatrixAt<T>(*x, b, i);
      Eigen::Matrix<T, Eigen::Dynamic, 1> sv;
      if (hermitian) {
        sv = Eigen::SelfAdjointEigenSolver<Matrix<T>>(m, Eigen::EigenvaluesOnly)
                 .eigenvalues()
                 .cwiseAbs();
      } else {
        sv = Eigen::JacobiSVD<Matrix<T>>(m).singularValues();
      }
      values[i].assign(sv.data(), sv.data() + sv.size());
    }
    const std::vector<double> tols =
        tol_tensor != nullptr ? ReadTolerances(ctx, *tol_tensor) : std::vector<double>{};
    const double rtol = default_tol ? std::numeric_limits<T>::epsilon() *
                                          static_cast<double>(std::max(b.rows, b.cols))
                                    : 0.0;
    const double attr_tol = default_tol ? 0.0 : ctx.Attr<float>("tol");
    DenseTensor out(DDim(s.out), DataType::INT64);
    int64_t* o = out.mutable_data<int64_t>(ctx.GetPlace());
    for (int64_t k = 0; k < out.numel(); ++k) {
      const std::vector<T>& sv = values[BroadcastIndex(k, s.out, s.batch)];
      const double atol = tol_tensor != nullptr ? tols[BroadcastIndex(k, s.out, s.tol)] : attr_tol;
      const double largest = sv.empty() ? 0.0 : *std::max_element(sv.begin(), sv.end());
      const double tol = std::max(atol, rtol * largest);
      o[k] = std::count_if(sv.begin(), sv.end(), [tol](T v) { return v > tol; });
    }
    *ctx.Output("Out") = std::move(out);
  }

  static std::vector<double> ReadTolerances(const ExecutionContext& ctx, const DenseTensor& t) {
    PL_ENFORCE(t.dtype() == DataType::FLOAT32 || t.dtype() == DataType::FLOAT64,
               errors::InvalidArgument("op `%s` input `TolTensor`: expected float32 or float64, "
                                       "received %s",
                                       ctx.Type(), platform::DataTypeName(t.dtype())));
    std::vector<double> v(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) {
      v[i] = t.dtype() == DataType::FLOAT32 ? t.data<float>()[i] : t.data<double>()[i];
    }
    return v;
  }
};

class MatrixRankOp : public LinalgOp {
 public:
  using LinalgOp::LinalgOp;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMatrixRankOp) {
  framework::RegisterOp<MatrixRankOp, MatrixRankOpMaker>("matrix_rank")
      .InferShape(MatrixRankInferShape)
      .InferVarType(MatrixRankInferVarType);
  RegisterPlainCpuFloatKernels<MatrixRankKernel>("matrix_rank");
}

}  // namespace operators
}  // namespace paddle_like
