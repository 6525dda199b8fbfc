// sequence_scatter: row i of X plus the updates that sequence i of Ids and Updates names
// (fluid's sequence_scatter), and its fused backward.
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_scatter";

class SequenceScatterOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, D].");
    AddInput("Ids", "int32/int64 [M, 1] with a LoD of N sequences: columns of X.");
    AddInput("Updates", "X's type, [M, 1], the values added (Ids' LoD).");
    AddOutput("Out", "X's shape: X with the updates added.");
    AddComment(R"DOC(
Sequence scatter: with sequence i of Ids and Updates the rows s_i .. s_{i+1} - 1,
$$Out[i, Ids_r] = X[i, Ids_r] + \sum Updates_r$$
over those r, X elsewhere. Example: X = [[1, 1, 1]], Ids = [[0], [2], [0]], Updates =
[[0.5], [2], [1]], one sequence -> Out = [[2.5, 1, 3]].

Gradient, by the fused op sequence_scatter_grad: dX = dOut, dUpdates_r = dOut[i, Ids_r].
)DOC");
  }
};

class SequenceScatterOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void SequenceScatterInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Ids", "Updates"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() == 2, errors::InvalidArgument("op `%s` input `X`: expected rank 2 [N, D], "
                                                    "received %s",
                                                    ctx->OpType(), x.ToString()));
  ctx->SetOutputDim("Out", x);
}

// Per row of Ids: the element of X (row i, column Ids_r) it updates.
std::vector<int64_t> Targets(const ExecutionContext& ctx, const DDim& x) {
  const DenseTensor* ids = ctx.Input("Ids");
  const DenseTensor* updates = ctx.Input("Updates");
  const std::vector<size_t>& lod = SequenceOffsets(kOp, "Ids", *ids, 1);
  PL_ENFORCE(static_cast<int64_t>(lod.size()) - 1 == x[0],
             errors::InvalidArgument("op `%s` input `Ids`: expected %lld sequences (X's rows), "
                                     "received LoD %s",
                                     kOp, static_cast<long long>(x[0]),
                                     framework::LoDToString(ids->lod())));
  PL_ENFORCE(updates->numel() == ids->numel() && ids->numel() == static_cast<int64_t>(lod.back()),
             errors::InvalidArgument("op `%s` input `Updates`: expected %lld values (Ids' rows), "
                                     "received shape %s",
                                     kOp, static_cast<long long>(ids->numel()),
                                     updates->dims().ToString()));
  const std::vector<int64_t> cols = ReadIntValues(*ids, kOp, "Ids");
  std::vector<int64_t> at(cols.size());
  for (size_t i = 0; i + 1 < lod.size(); ++i) {
    for (size_t r = lod[i]; r < lod[i + 1]; ++r) {
      PL_ENFORCE(cols[r] >= 0 && cols[r] < x[1],
                 errors::InvalidArgument("op `%s` input `Ids`: value %lld at row %zu is not a "
                                         "column of X (width %lld)",
                                         kOp, static_cast<long long>(cols[r]), r,
                                         static_cast<long long>(x[1])));
      at[r] = static_cast<int64_t>(i) * x[1] + cols[r];
    }
  }
  return at;
}

template <typename T>
struct SequenceScatterKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const std::vector<int64_t> at = Targets(ctx, x->dims());
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (out.numel() > 0) std::memcpy(o, x->data<T>(), sizeof(T) * out.numel());
    const T* u = ctx.Input("Updates")->template data<T>();
    for (size_t r = 0; r < at.size(); ++r) o[at[r]] += u[r];
    *ctx.Output("Out") = std::move(out);
  }
};

void SequenceScatterGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Out@GRAD");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  if (ctx->HasOutput("Updates@GRAD")) {
    ctx->SetOutputDim("Updates@GRAD", ctx->GetInputDim("Updates"));
    ctx->ShareLoD("Updates", "Updates@GRAD");
  }
}

template <typename T>
struct SequenceScatterGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    PL_ENFORCE(dout->dims() == x->dims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected X's shape %s, "
                                       "received %s",
                                       ctx.Type(), x->dims().ToString(), dout->dims().ToString()));
    const std::vector<int64_t> at = Targets(ctx, x->dims());
    const T* d = dout->data<T>();
    if (DenseTensor* dx = ctx.Output("X@GRAD")) {
      DenseTensor g(x->dims(), dout->dtype());
      if (g.numel() > 0) std::memcpy(g.mutable_data<T>(ctx.GetPlace()), d, sizeof(T) * g.numel());
      *dx = std::move(g);
    }
    if (DenseTensor* du = ctx.Output("Updates@GRAD")) {
      const DenseTensor* updates = ctx.Input("Updates");
      DenseTensor g(updates->dims(), dout->dtype());
      T* gu = g.mutable_data<T>(ctx.GetPlace());
      for (size_t r = 0; r < at.size(); ++r) gu[r] = d[at[r]];
      g.set_lod(updates->lod());
      *du = std::move(g);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequenceScatterOp) {
  const framework::FusedGradDecl grad{{"X", "Ids", "Updates"},
                                      {"Out"},
                                      {"X", "Updates"},
                                      R"DOC($$dX = dOut, \quad dUpdates_r = dOut[i, Ids_r]$$)DOC"};
  framework::RegisterOp<SequenceScatterOp, SequenceScatterOpMaker>(kOp)
      .InferShape(SequenceScatterInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<SequenceScatterKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(SequenceScatterGradInferShape);
  RegisterPlainCpuFloatKernels<SequenceScatterGradKernel>("sequence_scatter_grad");
}

}  // namespace operators
}  // namespace paddle_like
