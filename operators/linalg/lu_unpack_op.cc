// lu_unpack: the permutation, L and U of lu's packed output, with a fused backward.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class LuUnpackOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[..., M, N]: lu's Out (L below the diagonal, U on and above).");
    AddInput("Pivots", "[..., min(M, N)] int32: lu's 1-based row swaps.");
    AddOutput("Pmat", "[..., M, M]: the permutation P with X = P L U ([0] without unpack_pivots).");
    AddOutput("L",
              "[..., M, K]: unit lower triangular ([0] without unpack_ludata); K = min(M, N).");
    AddOutput("U", "[..., K, N]: upper triangular ([0] without unpack_ludata).");
    AddAttr<bool>("unpack_ludata", "Write L and U.").SetDefault(true);
    AddAttr<bool>("unpack_pivots", "Write Pmat.").SetDefault(true);
    AddComment(R"DOC(
Unpacks an LU decomposition with partial pivoting: the original matrix is $$P \, L \, U$$
where P undoes the row swaps (row j was swapped with row Pivots[j] - 1, for j = 0, 1, ...).
Gradient, by the fused op lu_unpack_grad: $$dX = \operatorname{tril}(dL, -1) +
\operatorname{triu}(dU)$$ (Pivots and Pmat have none).
)DOC");
  }
};

struct UnpackDims {
  DDim pmat, l, u;
  int64_t k = 0;
};

UnpackDims AnalyzeUnpack(const std::string& op, const DDim& x, const DDim& pivots, bool ludata,
                         bool perm) {
  const MatrixBatch b = linalg::Matrices(op, "X", x);
  UnpackDims d;
  d.k = MinDim(b.rows, b.cols);
  CheckSameShape(op, "Pivots", pivots, "X", linalg::WithBatchDims(x, {d.k}));
  d.pmat = perm ? linalg::WithBatchDims(x, {b.rows, b.rows}) : DDim({0});
  d.l = ludata ? linalg::WithBatchDims(x, {b.rows, d.k}) : DDim({0});
  d.u = ludata ? linalg::WithBatchDims(x, {d.k, b.cols}) : DDim({0});
  return d;
}

void LuUnpackInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Pivots");
  const UnpackDims d =
      AnalyzeUnpack(ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Pivots"),
                    ctx->Attr<bool>("unpack_ludata"), ctx->Attr<bool>("unpack_pivots"));
  if (ctx->HasOutput("Pmat")) ctx->SetOutputDim("Pmat", d.pmat);
  if (ctx->HasOutput("L")) ctx->SetOutputDim("L", d.l);
  if (ctx->HasOutput("U")) ctx->SetOutputDim("U", d.u);
}

void LuUnpackInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType t = ctx->GetInputDataType("X");
  for (const char* slot : {"Pmat", "L", "U"}) ctx->SetOutputDataType(slot, t);
}

class LuUnpackOp : public LinalgOp {
 public:
  using LinalgOp::LinalgOp;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

template <typename T>
struct LuUnpackKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* pivots = ctx.Input("Pivots");
    PL_ENFORCE(pivots->dtype() == DataType::INT32,
               errors::InvalidArgument("op `%s` input `Pivots`: expected int32, received %s",
                                       ctx.Type(), platform::DataTypeName(pivots->dtype())));
    const bool ludata = ctx.Attr<bool>("unpack_ludata");
    const bool perm = ctx.Attr<bool>("unpack_pivots");
    const UnpackDims d = AnalyzeUnpack(ctx.Type(), x->dims(), pivots->dims(), ludata, perm);
    const MatrixBatch b = linalg::Matrices(ctx.Type(), "X", x->dims());
    const int64_t k = d.k;
    DenseTensor pmat(d.pmat, x->dtype()), l(d.l, x->dtype()), u(d.u, x->dtype());
    T* pd = pmat.mutable_data<T>(ctx.GetPlace());
    T* ld = l.mutable_data<T>(ctx.GetPlace());
    T* ud = u.mutable_data<T>(ctx.GetPlace());
    const int32_t* piv = pivots->numel() > 0 ? pivots->data<int32_t>() : nullptr;
    for (int64_t i = 0; i < b.batch; ++i) {
      if (ludata) {
        const auto packed = MatrixAt<T>(*x, b, i);
        auto li = MatrixAt(ld, {b.batch, b.rows, k}, i);
        auto ui = MatrixAt(ud, {b.batch, k, b.cols}, i);
        li = packed.leftCols(k).template triangularView<Eigen::StrictlyLower>();
        li.topRows(k).diagonal().setOnes();
        ui = packed.topRows(k).template triangularView<Eigen::Upper>();
      }
      if (perm) {
        // rows[r]: the row of X that row r of the pivoted matrix came from.
        std::vector<int64_t> rows(static_cast<size_t>(b.rows));
        std::iota(rows.begin(), rows.end(), 0);
        for (int64_t j = 0; j < k; ++j) {
          const int64_t p = piv[i * k + j] - 1;
          PL_ENFORCE(p >= j && p < b.rows,
                     errors::InvalidArgument("op `%s` input `Pivots`: entry %d of matrix %d "
                                             "is %d, expected a row in [%d, %d] (1-based)",
                                             ctx.Type(), j, i, p + 1, j + 1, b.rows));
          std::swap(rows[j], rows[p]);
        }
        auto pi = MatrixAt(pd, {b.batch, b.rows, b.rows}, i);
        pi.setZero();
        for (int64_t r = 0; r < b.rows; ++r) pi(rows[r], r) = T(1);
      }
    }
    if (DenseTensor* o = ctx.Output("Pmat")) *o = std::move(pmat);
    if (DenseTensor* o = ctx.Output("L")) *o = std::move(l);
    if (DenseTensor* o = ctx.Output("U")) *o = std::move(u);
  }
};

void LuUnpackGradInferShape(InferShapeContext* ctx) { linalg::InputGradsInferShape(ctx, {"X"}); }

template <typename T>
struct LuUnpackGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const MatrixBatch b = linalg::Matrices(ctx.Type(), "X", x->dims());
    const int64_t k = std::min(b.rows, b.cols);
    const DenseTensor* dl = ctx.Input("L@GRAD");
    const DenseTensor* du = ctx.Input("U@GRAD");
    CheckSameShape(ctx.Type(), "L@GRAD", dl->dims(), "L",
                   linalg::WithBatchDims(x->dims(), {b.rows, k}));
    CheckSameShape(ctx.Type(), "U@GRAD", du->dims(), "U",
                   linalg::WithBatchDims(x->dims(), {k, b.cols}));
    DenseTensor dx(x->dims(), x->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < b.batch; ++i) {
      auto gi = MatrixAt(g, b, i);
      gi.setZero();
      gi.leftCols(k) += MatrixAt<T>(*dl, {b.batch, b.rows, k}, i)
                            .template triangularView<Eigen::StrictlyLower>()
                            .toDenseMatrix();
      gi.topRows(k) += MatrixAt<T>(*du, {b.batch, k, b.cols}, i)
                           .template triangularView<Eigen::Upper>()
                           .toDenseMatrix();
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLuUnpackOp) {
  const framework::FusedGradDecl lu_unpack_grad{
      {"X"},
      {"L", "U"},
      {"X"},
      R"DOC($$dX = \operatorname{tril}(dL, -1) + \operatorname{triu}(dU)$$)DOC"};
  framework::RegisterOp<LuUnpackOp, LuUnpackOpMaker>("lu_unpack")
      .InferShape(LuUnpackInferShape)
      .InferVarType(LuUnpackInferVarType)
      .GradOpMaker(framework::FusedGradMaker(lu_unpack_grad));
  RegisterPlainCpuFloatKernels<LuUnpackKernel>("lu_unpack");
  framework::RegisterFusedGradOp("lu_unpack", lu_unpack_grad).InferShape(LuUnpackGradInferShape);
  RegisterPlainCpuFloatKernels<LuUnpackGradKernel>("lu_unpack_grad");
}

}  // namespace operators
}  // namespace paddle_like
