// scatter: rows of X replaced (or accumulated) from Updates at the row indices Ids
// (paddle.scatter); scatter_nd_add: Updates added into X at N-d indices
// (paddle.scatter_nd_add). Their gradients are written with gather, gather_nd, scatter and
// fill_any_like, so every order is differentiable.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/indexing/index_util.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kScatter[] = "scatter";
constexpr char kScatterNdAdd[] = "scatter_nd_add";

class ScatterOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor written into, [M, ...].");
    AddInput("Ids", "int32 or int64 row indices in [0, M): 1-D [N] (or [N, 1]).");
    AddInput("Updates", "The rows written, [N, ...] (X's trailing dims).");
    AddOutput("Out", "X with the rows written, X's shape.");
    AddAttr<bool>("overwrite",
                  "Replace the rows (the last update of a row repeated in Ids wins); false adds "
                  "every update of a row onto zero.")
        .SetDefault(true);
    AddComment(R"DOC(
Scatter operator. Out = X, then for each i in order:

$$Out[Ids_i] = Updates_i \quad (overwrite), \qquad
Out[r] = \sum_{i : Ids_i = r} Updates_i \text{ for every row r in Ids} \quad (\lnot overwrite)$$

Gradients, written with differentiable ops (as PaddlePaddle's scatter_grad):
$$dUpdates = \mathrm{gather}(dOut, Ids), \quad
dX = \mathrm{scatter}(dOut, Ids, 0) \text{ (dOut with the rows in Ids zeroed)}$$
)DOC");
  }
};

class ScatterNdAddOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor added into, rank R.");
    AddInput("Index", "int32 or int64 [..., K] with K <= R: positions in X's first K dims.");
    AddInput("Updates", "Index.dims[:-1] + X.dims[K:].");
    AddOutput("Out", "X with the updates added, X's shape.");
    AddComment(R"DOC(
Scatter-nd-add operator: Out = X, then for every position p of Index.dims[:-1]

$$Out[Index_p, \ldots] \mathrel{+}= Updates[p, \ldots]$$

(repeated positions add up, in order). Gradients, written with differentiable ops:
$$dX = dOut, \quad dUpdates = \mathrm{gather\_nd}(dOut, Index)$$
)DOC");
  }
};

// The kernel follows X, not the integer indices.
class ScatterOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "Ids" && slot != "Index" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

// The number of ids of scatter's Ids, checked against X and Updates.
int64_t CheckScatter(const std::string& op, const DDim& x, const DDim& ids, const DDim& updates) {
  PL_ENFORCE(ids.size() == 1 || (ids.size() == 2 && ids[1] == 1),
             errors::InvalidArgument("op `%s` input `Ids`: expected [N] or [N, 1], received %s", op,
                                     ids.ToString()));
  PL_ENFORCE(
      x.size() >= 1 && updates.size() == x.size() &&
          (updates[0] < 0 || ids[0] < 0 || updates[0] == ids[0]),
      errors::InvalidArgument("op `%s` input `Updates`: expected [%s, X's trailing dims] for "
                              "X %s, received %s",
                              op, std::to_string(ids[0]), x.ToString(), updates.ToString()));
  for (int d = 1; d < x.size(); ++d) {
    PL_ENFORCE(x[d] < 0 || updates[d] < 0 || x[d] == updates[d],
               errors::InvalidArgument("op `%s` input `Updates`: expected X's trailing dims (X "
                                       "%s), received %s",
                                       op, x.ToString(), updates.ToString()));
  }
  return ids[0];
}

void ScatterInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Ids", "Updates"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckScatter(ctx->OpType(), x, ctx->GetInputDim("Ids"), ctx->GetInputDim("Updates"));
  ctx->SetOutputDim("Out", x);
}

template <typename T>
struct ScatterKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* ids = ctx.Input("Ids");
    const DenseTensor* updates = ctx.Input("Updates");
    CheckScatter(kScatter, x->dims(), ids->dims(), updates->dims());
    const int64_t rows = x->dims()[0], row = x->numel() / std::max<int64_t>(rows, 1);
    const std::vector<int64_t> index = ReadIndices(kScatter, "Ids", *ids, rows, false);
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    const T* u = updates->data<T>();
    std::copy(in, in + x->numel(), o);
    if (ctx.Attr<bool>("overwrite")) {
      for (size_t i = 0; i < index.size(); ++i)
        std::copy(u + i * row, u + (i + 1) * row, o + index[i] * row);
    } else {
      for (int64_t r : index) std::fill(o + r * row, o + (r + 1) * row, T(0));
      for (size_t i = 0; i < index.size(); ++i) {
        for (int64_t j = 0; j < row; ++j) o[index[i] * row + j] += u[i * row + j];
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void ScatterGradMaker(framework::GradOpBuilder* g) {
  const auto dout = g->OutputGrad("Out");
  if (g->WantsInputGrad("Updates")) {
    g->AddOp("gather", {{"X", dout}, {"Index", g->Input("Ids")}},
             {{"Out", g->InputGrad("Updates")}}, {{"axis", 0}});
  }
  if (g->WantsInputGrad("X")) {
    const std::string zeros = g->NewTemp("zero_updates");
    g->AddOp("fill_any_like", {{"X", g->Input("Updates")}}, {{"Out", {zeros}}},
             {{"value", 0.0f}, {"dtype", -1}});
    g->AddOp(kScatter, {{"X", dout}, {"Ids", g->Input("Ids")}, {"Updates", {zeros}}},
             {{"Out", g->InputGrad("X")}}, {{"overwrite", true}});
  }
}

// The index depth K of scatter_nd_add, checked against X and Updates.
int64_t CheckScatterNd(const std::string& op, const DDim& x, const DDim& index,
                       const DDim& updates) {
  PL_ENFORCE(index.size() >= 1 && index[index.size() - 1] <= x.size(),
             errors::InvalidArgument("op `%s` input `Index`: expected [..., K] with K <= %d (the "
                                     "rank of X %s), received %s",
                                     op, x.size(), x.ToString(), index.ToString()));
  const int64_t k = index[index.size() - 1];
  std::vector<int64_t> want(index.ToVector());
  want.pop_back();
  for (int d = static_cast<int>(k); d < x.size(); ++d) want.push_back(x[d]);
  PL_ENFORCE(
      updates.HasUnknown() || index.HasUnknown() || x.HasUnknown() || updates == DDim(want),
      errors::InvalidArgument("op `%s` input `Updates`: expected %s (Index's dims but "
                              "the last, then X's dims from %s on), received %s",
                              op, DDim(want).ToString(), std::to_string(k), updates.ToString()));
  return k;
}

void ScatterNdAddInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Index", "Updates"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckScatterNd(ctx->OpType(), x, ctx->GetInputDim("Index"), ctx->GetInputDim("Updates"));
  ctx->SetOutputDim("Out", x);
}

template <typename T>
struct ScatterNdAddKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index = ctx.Input("Index");
    const DenseTensor* updates = ctx.Input("Updates");
    const DDim xd = x->dims();
    const int64_t k = CheckScatterNd(kScatterNdAdd, xd, index->dims(), updates->dims());
    // Each position of Index addresses a slice of `slice` elements of X.
    int64_t slice = 1;
    for (int d = static_cast<int>(k); d < xd.size(); ++d) slice *= xd[d];
    const int64_t positions = k > 0 ? index->numel() / k : index->numel();
    const std::vector<int64_t> flat = ReadIntValues(*index, kScatterNdAdd, "Index");
    DenseTensor out(xd, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    const T* u = updates->data<T>();
    std::copy(in, in + x->numel(), o);
    for (int64_t p = 0; p < positions; ++p) {
      int64_t offset = 0;
      for (int64_t d = 0; d < k; ++d) {
        int64_t i = flat[p * k + d];
        PL_ENFORCE(
            i >= -xd[d] && i < xd[d],
            errors::InvalidArgument("op `%s` input `Index`: expected values in [%s, %s) "
                                    "for dim %s of X %s, received %s",
                                    kScatterNdAdd, std::to_string(-xd[d]), std::to_string(xd[d]),
                                    std::to_string(d), xd.ToString(), std::to_string(i)));
        if (i < 0) i += xd[d];
        offset = offset * xd[d] + i;
      }
      for (int64_t j = 0; j < slice; ++j) o[offset * slice + j] += u[p * slice + j];
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void ScatterNdAddGradMaker(framework::GradOpBuilder* g) {
  const auto dout = g->OutputGrad("Out");
  if (g->WantsInputGrad("X")) g->AddOp("assign", {{"X", dout}}, {{"Out", g->InputGrad("X")}});
  if (g->WantsInputGrad("Updates")) {
    g->AddOp("gather_nd", {{"X", dout}, {"Index", g->Input("Index")}},
             {{"Out", g->InputGrad("Updates")}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterScatterOps) {
  framework::RegisterOp<ScatterOp, ScatterOpMaker>(kScatter)
      .InferShape(ScatterInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(ScatterGradMaker);
  RegisterPlainCpuKernels<ScatterKernel, float, double, int32_t, int64_t>(kScatter);
  framework::RegisterOp<ScatterOp, ScatterNdAddOpMaker>(kScatterNdAdd)
      .InferShape(ScatterNdAddInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(ScatterNdAddGradMaker);
  RegisterPlainCpuKernels<ScatterNdAddKernel, float, double, int32_t, int64_t>(kScatterNdAdd);
}

}  // namespace operators
}  // namespace paddle_like
