// fill_diagonal_tensor: X with the diagonals of its 2-D slices over dims dim1 and dim2
// replaced by the values of Y (paddle.Tensor.fill_diagonal_tensor). The gradient is written
// with fill_diagonal_tensor and diagonal, so every order differentiates again.
#include <algorithm>
#include <cstring>
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/diagonal_plan.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "fill_diagonal_tensor";
constexpr DiagonalNames kNames{"X", "dim1", "dim2"};

class FillDiagonalTensorOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Rank >= 2.");
    AddInput("Y",
             "The new diagonals, X's dtype: X's dims without dim1 and dim2, then the diagonal's "
             "length (the shape `diagonal` gives).");
    AddOutput("Out", "X's shape and dtype.");
    AddAttr<int64_t>("offset", "Which diagonal: 0 the main one, > 0 above it, < 0 below.")
        .SetDefault(0);
    AddAttr<int>("dim1", "The first dim of the 2-D slices (negative counts from the end).")
        .SetDefault(0);
    AddAttr<int>("dim2", "The second dim of the 2-D slices, other than dim1.").SetDefault(1);
    AddComment(R"DOC(
Fill diagonal with a tensor: with k = offset and r the dims other than dim1 and dim2,
$$Out[r; i + \max(-k, 0), i + \max(k, 0)] = Y[r, i]$$
and Out = X elsewhere. Example: X = zeros(2, 3), Y = [1, 2], k = 0 -> [[1, 0, 0], [0, 2, 0]].

Y may also have leading dims of 1 (the same values in the same order).

Gradient (written with differentiable ops): dX = fill_diagonal_tensor(dOut, 0), dY =
expand_as(diagonal(dOut, k, dim1, dim2), Y).
)DOC");
  }
};

class FillDiagonalTensorOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

DiagonalPlan PlanOf(const std::string& op, const DDim& x, const framework::AttributeMap& attrs) {
  return PlanDiagonal(op, kNames, x, std::get<int64_t>(attrs.at("offset")),
                      std::get<int>(attrs.at("dim1")), std::get<int>(attrs.at("dim2")));
}

// PaddlePaddle also takes Y with leading dims of 1 (paddle.diagonal_scatter passes a matrix
// a [1, n] Y): the same values in the same order.
bool WithLeadingOnes(const DDim& want, const DDim& y) {
  const int extra = y.size() - want.size();
  if (extra <= 0) return false;
  for (int d = 0; d < y.size(); ++d) {
    if (d < extra ? y[d] != 1 : y[d] != want[d - extra]) return false;
  }
  return true;
}

void CheckY(const std::string& op, const DiagonalPlan& p, const DDim& y, bool known_only) {
  const DDim want = p.out_dims(false);
  bool ok = want.size() == y.size();
  for (int d = 0; ok && d < y.size(); ++d) {
    ok = want[d] == y[d] || (known_only && (want[d] < 0 || y[d] < 0));
  }
  PL_ENFORCE(ok || WithLeadingOnes(want, y),
             errors::InvalidArgument("op `%s` input `Y`: expected shape %s (X's dims without "
                                     "dim1 and dim2, then the diagonal's length; leading dims of "
                                     "1 allowed), received %s",
                                     op, want.ToString(), y.ToString()));
}

void FillDiagonalTensorInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckY(ctx->OpType(), PlanOf(ctx->OpType(), x, ctx->Attrs()), ctx->GetInputDim("Y"),
         !ctx->IsRuntime());
  ctx->SetOutputDim("Out", x);
}

template <typename T>
struct FillDiagonalTensorKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DiagonalPlan p = PlanOf(ctx.Type(), x->dims(), ctx.op().Attrs());
    CheckY(ctx.Type(), p, y->dims(), false);
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (x->numel() > 0) std::memcpy(o, x->data<T>(), sizeof(T) * x->numel());
    const T* v = y->numel() > 0 ? y->data<T>() : nullptr;
    ForEachDiagonalElement(p, [&](int64_t at, int64_t flat, int64_t) { o[at] = v[flat]; });
    *ctx.Output("Out") = std::move(out);
  }
};

void FillDiagonalTensorGradMaker(framework::GradOpBuilder* g) {
  const int64_t offset = g->Attr<int64_t>("offset");
  const int dim1 = g->Attr<int>("dim1"), dim2 = g->Attr<int>("dim2");
  if (g->WantsInputGrad("X")) {
    const std::vector<std::string> zeros{g->NewTemp("zero_diagonals")};
    g->AddOp("fill_zeros_like", {{"X", g->Input("Y")}}, {{"Out", zeros}});
    g->AddOp(kOp, {{"X", g->OutputGrad("Out")}, {"Y", zeros}}, {{"Out", g->InputGrad("X")}},
             {{"offset", offset}, {"dim1", dim1}, {"dim2", dim2}});
  }
  if (g->WantsInputGrad("Y")) {
    // expand_as gives the diagonals Y's leading dims of 1, if it has any (a copy otherwise).
    const std::vector<std::string> diagonals{g->NewTemp("diagonals")};
    g->AddOp("diagonal", {{"Input", g->OutputGrad("Out")}}, {{"Out", diagonals}},
             {{"offset", static_cast<int>(offset)}, {"axis1", dim1}, {"axis2", dim2}});
    g->AddOp("expand_as_v2", {{"X", diagonals}, {"Y", g->Input("Y")}},
             {{"Out", g->InputGrad("Y")}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterFillDiagonalTensorOp) {
  framework::RegisterOp<FillDiagonalTensorOp, FillDiagonalTensorOpMaker>(kOp)
      .InferShape(FillDiagonalTensorInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(FillDiagonalTensorGradMaker);
  RegisterPlainCpuKernels<FillDiagonalTensorKernel, float, double, int32_t, int64_t, bool>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
