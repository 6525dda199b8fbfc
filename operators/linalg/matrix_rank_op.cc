// matrix_rank and matrix_rank_atol_rtol: the number of singular values (absolute eigenvalues
// of a symmetric matrix) above a tolerance, per matrix of a batch.
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

// A tolerance input: its slot and dims (null when absent).
struct ToleranceDims {
  const char* slot;
  const DDim* dims;
};

struct RankShape {
  MatrixBatch matrices;
  // X's batch dims and each tolerance's dims (empty when absent), right-aligned to out.
  std::vector<int64_t> batch, out;
  std::vector<std::vector<int64_t>> tols;
};

// The matrices of input `x_slot` and the output dims: X's batch dims broadcast with each
// present tolerance's dims.
RankShape AnalyzeRank(const std::string& op, const char* x_slot, const DDim& x,
                      const std::vector<ToleranceDims>& tols, bool hermitian) {
  RankShape s;
  s.matrices = hermitian ? linalg::SquareMatrices(op, x_slot, x) : linalg::Matrices(op, x_slot, x);
  s.batch = linalg::BatchDims(x);
  size_t rank = s.batch.size();
  for (const ToleranceDims& t : tols) {
    if (t.dims != nullptr) rank = std::max(rank, static_cast<size_t>(t.dims->size()));
  }
  s.batch.insert(s.batch.begin(), rank - s.batch.size(), 1);
  s.out = s.batch;
  for (const ToleranceDims& t : tols) {
    std::vector<int64_t> d;
    if (t.dims != nullptr) {
      d = t.dims->ToVector();
      d.insert(d.begin(), rank - d.size(), 1);
      for (size_t i = 0; i < rank; ++i) {
        const int64_t a = s.out[i], b = d[i];
        PL_ENFORCE(a == b || a == 1 || b == 1 || a < 0 || b < 0,
                   errors::InvalidArgument("op `%s` input `%s`: dims %s do not broadcast with "
                                           "the batch dims of %s %s",
                                           op, t.slot, t.dims->ToString(), x_slot, x.ToString()));
        s.out[i] = a == 1 ? b : (b == 1 ? a : std::max(a, b));
      }
    }
    s.tols.push_back(std::move(d));
  }
  return s;
}

void MatrixRankInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim tol = ctx->HasInput("TolTensor") ? ctx->GetInputDim("TolTensor") : DDim();
  ctx->SetOutputDim("Out",
                    DDim(AnalyzeRank(ctx->OpType(), "X", ctx->GetInputDim("X"),
                                     {{"TolTensor", ctx->HasInput("TolTensor") ? &tol : nullptr}},
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

// The singular values (absolute eigenvalues when `hermitian`) of each matrix of x.
template <typename T>
std::vector<std::vector<T>> SingularValuesOf(const DenseTensor& x, const MatrixBatch& b,
                                             bool hermitian) {
  std::vector<std::vector<T>> values(static_cast<size_t>(b.batch));
  for (int64_t i = 0; i < b.batch; ++i) {
    if (b.size() == 0) continue;
    const Matrix<T> m = linalg::MatrixAt<T>(x, b, i);
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
  return values;
}

// The values of tolerance input `slot` (float32 or float64) as doubles.
std::vector<double> ReadTolerances(const ExecutionContext& ctx, const char* slot,
                                   const DenseTensor& t) {
  PL_ENFORCE(t.dtype() == DataType::FLOAT32 || t.dtype() == DataType::FLOAT64,
             errors::InvalidArgument("op `%s` input `%s`: expected float32 or float64, "
                                     "received %s",
                                     ctx.Type(), slot, platform::DataTypeName(t.dtype())));
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    v[i] = t.dtype() == DataType::FLOAT32 ? t.data<float>()[i] : t.data<double>()[i];
  }
  return v;
}

// The number of values of `sv` above max(atol, rtol * max(sv)).
template <typename T>
int64_t CountAbove(const std::vector<T>& sv, double atol, double rtol) {
  const double largest = sv.empty() ? 0.0 : *std::max_element(sv.begin(), sv.end());
  const double tol = std::max(atol, rtol * largest);
  return std::count_if(sv.begin(), sv.end(), [tol](T v) { return v > tol; });
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
        AnalyzeRank(ctx.Type(), "X", x->dims(),
                    {{"TolTensor", tol_tensor != nullptr ? &tol_dims : nullptr}}, hermitian);
    const MatrixBatch& b = s.matrices;
    const std::vector<std::vector<T>> values = SingularValuesOf<T>(*x, b, hermitian);
    const std::vector<double> tols = tol_tensor != nullptr
                                         ? ReadTolerances(ctx, "TolTensor", *tol_tensor)
                                         : std::vector<double>{};
    const double rtol = default_tol ? std::numeric_limits<T>::epsilon() *
                                          static_cast<double>(std::max(b.rows, b.cols))
                                    : 0.0;
    const double attr_tol = default_tol ? 0.0 : ctx.Attr<float>("tol");
    DenseTensor out(DDim(s.out), DataType::INT64);
    int64_t* o = out.mutable_data<int64_t>(ctx.GetPlace());
    for (int64_t k = 0; k < out.numel(); ++k) {
      const double atol =
          tol_tensor != nullptr ? tols[BroadcastIndex(k, s.out, s.tols[0])] : attr_tol;
      o[k] = CountAbove(values[BroadcastIndex(k, s.out, s.batch)], atol, rtol);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

// ---------------------------------------------------------------- matrix_rank_atol_rtol

// PaddlePaddle's matrix_rank_atol_rtol (paddle.linalg.matrix_rank with atol or rtol; slots in
// lower case, as it registered them).
class MatrixRankAtolRtolOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "[..., M, N].");
    AddInput("atol", "Absolute tolerances, broadcast against x's batch dims.");
    AddInput("rtol", "Relative tolerances, broadcast against x's batch dims.").AsDispensable();
    AddOutput("out", "int64 ranks: x's batch dims broadcast with atol's and rtol's.");
    AddAttr<bool>("hermitian", "x is symmetric: its absolute eigenvalues are its singular values.")
        .SetDefault(false);
    AddComment(R"DOC(
Rank of each matrix: the number of its singular values $\sigma_i$ above
$$tol = \max(atol, \; rtol \cdot \sigma_{max})$$
Without rtol, rtol = 0 where atol > 0 and eps(dtype) * max(M, N) elsewhere.
)DOC");
  }
};

void MatrixRankAtolRtolInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireInput("atol");
  ctx->RequireOutput("out");
  const DDim atol = ctx->GetInputDim("atol");
  const DDim rtol = ctx->HasInput("rtol") ? ctx->GetInputDim("rtol") : DDim();
  ctx->SetOutputDim(
      "out", DDim(AnalyzeRank(ctx->OpType(), "x", ctx->GetInputDim("x"),
                              {{"atol", &atol}, {"rtol", ctx->HasInput("rtol") ? &rtol : nullptr}},
                              ctx->Attr<bool>("hermitian"))
                      .out));
}

template <typename T>
struct MatrixRankAtolRtolKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DenseTensor* atol = ctx.Input("atol");
    const DenseTensor* rtol = ctx.Input("rtol");
    const bool hermitian = ctx.Attr<bool>("hermitian");
    const DDim atol_dims = atol->dims();
    const DDim rtol_dims = rtol != nullptr ? rtol->dims() : DDim();
    const RankShape s = AnalyzeRank(
        ctx.Type(), "x", x->dims(),
        {{"atol", &atol_dims}, {"rtol", rtol != nullptr ? &rtol_dims : nullptr}}, hermitian);
    const MatrixBatch& b = s.matrices;
    const std::vector<std::vector<T>> values = SingularValuesOf<T>(*x, b, hermitian);
    const std::vector<double> atols = ReadTolerances(ctx, "atol", *atol);
    const std::vector<double> rtols =
        rtol != nullptr ? ReadTolerances(ctx, "rtol", *rtol) : std::vector<double>{};
    const double default_rtol =
        std::numeric_limits<T>::epsilon() * static_cast<double>(std::max(b.rows, b.cols));
    DenseTensor out(DDim(s.out), DataType::INT64);
    int64_t* o = out.mutable_data<int64_t>(ctx.GetPlace());
    for (int64_t k = 0; k < out.numel(); ++k) {
      const double a = atols[BroadcastIndex(k, s.out, s.tols[0])];
      const double r = rtol != nullptr ? rtols[BroadcastIndex(k, s.out, s.tols[1])]
                                       : (a > 0 ? 0.0 : default_rtol);
      o[k] = CountAbove(values[BroadcastIndex(k, s.out, s.batch)], a, r);
    }
    *ctx.Output("out") = std::move(out);
  }
};

void MatrixRankAtolRtolInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("out", DataType::INT64);
}

class MatrixRankAtolRtolOp : public LinalgOp {
 public:
  using LinalgOp::LinalgOp;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "x");
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
  framework::RegisterOp<MatrixRankAtolRtolOp, MatrixRankAtolRtolOpMaker>("matrix_rank_atol_rtol")
      .InferShape(MatrixRankAtolRtolInferShape)
      .InferVarType(MatrixRankAtolRtolInferVarType);
  RegisterPlainCpuFloatKernels<MatrixRankAtolRtolKernel>("matrix_rank_atol_rtol");
}

}  // namespace operators
}  // namespace paddle_like
