// top_k (version 1): the k largest values along the last dim and their indices, and
// top_k_grad, which scatters the gradient of the values back.
#include "operators/search/top_k_op.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/search/paddle_line_order.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "top_k";
constexpr char kGradOp[] = "top_k_grad";

class TopKOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input of rank >= 1; searched along its last dim.");
    AddInput("K", "Optional 1-element int32 (or int64) tensor; overrides attribute `k`.")
        .AsDispensable();
    AddOutput("Out",
              "The k largest values of each row, in decreasing order: X's dims with "
              "last dim k.");
    AddOutput("Indices", "int64 positions of Out's values in the last dim of X.");
    AddAttr<int>("k", "How many values to keep per row (1 <= k <= X's last dim).").SetDefault(1);
    AddComment(R"DOC(
Top-k operator (version 1), along the last dim of X.

$$Out_{i, :} = \mathrm{sort\_desc}(X_{i, :})[0:k], \quad X_{i, Indices_{i,j}} = Out_{i,j}$$

Equal values keep their order (the smaller index first); NaN ranks above every number.
Example: X [[1, 3, 2, 3]], k = 2 -> Out [[3, 3]], Indices [[1, 3]].

Gradient, by the fused op top_k_grad (reads X's dims, Indices and Out@GRAD; first order
only): $$dX_{i, Indices_{i,j}} = dOut_{i,j}$$ and 0 elsewhere.
)DOC");
  }
};

class TopKGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X (only its dims are read).").AsNoNeedBuffer();
    AddInput("Indices", "The forward op's Indices.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's dims.");
    AddComment(R"DOC(
Gradient of top_k (fused kernel, not differentiable again):
$$dX_{i, Indices_{i,j}} = dOut_{i,j}$$ and 0 elsewhere.
)DOC");
  }
};

class TopKOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // The kernel follows X, not the integer K.
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X";
    return InputDataType(ctx, slot);
  }
};

void CheckK(const std::string& op, int64_t k, const DDim& x, const char* origin) {
  const int64_t last = x[x.size() - 1];
  PL_ENFORCE(k >= 1 && (last < 0 || k <= last),
             errors::InvalidArgument("op `%s` %s: expected k in [1, %lld] (the last dim of input "
                                     "`X` %s), received %lld",
                                     op, origin, static_cast<long long>(last), x.ToString(),
                                     static_cast<long long>(k)));
}

void CheckRank(const std::string& op, const DDim& x) {
  PL_ENFORCE(x.size() >= 1,
             errors::InvalidArgument("op `%s` input `X`: expected rank >= 1, received shape %s", op,
                                     x.ToString()));
}

// top_k_grad reads one row of Indices per row of X: Indices must have X's dims but the last
// (unknown dims, -1, pass at build time).
void CheckIndicesRows(const std::string& op, const DDim& x, const DDim& idx) {
  bool ok = idx.size() == x.size();
  for (int i = 0; ok && i + 1 < x.size(); ++i) ok = idx[i] < 0 || x[i] < 0 || idx[i] == x[i];
  PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `Indices`: expected the dims of input "
                                         "`X` %s but the last, received %s",
                                         op, x.ToString(), idx.ToString()));
}

void TopKInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->RequireOutput("Indices");
  const DDim x = ctx->GetInputDim("X");
  CheckRank(ctx->OpType(), x);
  DDim out = x;
  if (ctx->HasInput("K")) {
    if (ctx->IsRuntime()) return;  // The kernel reads K.
    out[out.size() - 1] = -1;
  } else {
    const int k = ctx->Attr<int>("k");
    CheckK(ctx->OpType(), k, x, "attribute `k`");
    out[out.size() - 1] = k;
  }
  ctx->SetOutputDim("Out", out);
  ctx->SetOutputDim("Indices", out);
  ctx->ShareLoD("X", "Out");
  ctx->ShareLoD("X", "Indices");
}

void TopKInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputKind("Indices", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  ctx->SetOutputDataType("Indices", DataType::INT64);
}

// Whether a ranks before b: larger first, NaN above numbers.
}  // namespace

TopKShape PrepareTopK(const ExecutionContext& ctx) {
  const DenseTensor* x_t = ctx.Input("X");
  const DDim x_dims = x_t->dims();
  CheckRank(kOp, x_dims);
  int64_t k = ctx.Attr<int>("k");
  if (const DenseTensor* k_t = ctx.Input("K")) {
    PL_ENFORCE(k_t->numel() == 1,
               errors::InvalidArgument("op `%s` input `K`: expected 1 element, received shape "
                                       "%s",
                                       kOp, k_t->dims().ToString()));
    k = ReadIntValues(*k_t, kOp, "K")[0];
    CheckK(kOp, k, x_dims, "input `K`");
  } else {
    CheckK(kOp, k, x_dims, "attribute `k`");
  }
  DDim out_dims = x_dims;
  out_dims[out_dims.size() - 1] = k;
  DenseTensor* out_t = ctx.Output("Out");
  DenseTensor* idx_t = ctx.Output("Indices");
  out_t->Resize(out_dims);
  idx_t->Resize(out_dims);
  out_t->set_lod(x_t->lod());
  idx_t->set_lod(x_t->lod());
  return {x_dims[x_dims.size() - 1], k, framework::Product(x_dims, 0, x_dims.size() - 1)};
}

TopKShape CheckTopKGradInputs(const ExecutionContext& ctx) {
  const DDim x_dims = ctx.Input("X")->dims();
  const DenseTensor* idx_t = ctx.Input("Indices");
  const DenseTensor* dout_t = ctx.Input("Out@GRAD");
  CheckRank(kGradOp, x_dims);
  PL_ENFORCE(
      idx_t->dtype() == DataType::INT64 && idx_t->dims() == dout_t->dims() &&
          idx_t->dims().size() == x_dims.size(),
      errors::InvalidArgument("op `%s` input `Indices`: expected int64 of the shape of "
                              "`Out@GRAD` %s, received %s %s",
                              kGradOp, dout_t->dims().ToString(),
                              platform::DataTypeName(idx_t->dtype()), idx_t->dims().ToString()));
  CheckIndicesRows(kGradOp, x_dims, idx_t->dims());
  return {x_dims[x_dims.size() - 1], idx_t->dims()[idx_t->dims().size() - 1],
          framework::Product(x_dims, 0, x_dims.size() - 1)};
}

void CheckTopKIndex(int64_t c, int64_t n) {
  PL_ENFORCE(c >= 0 && c < n, errors::InvalidArgument(
                                  "op `%s` input `Indices`: expected values in [0, %lld), "
                                  "received %lld",
                                  kGradOp, static_cast<long long>(n), static_cast<long long>(c)));
}

namespace {

template <typename T>
struct TopKKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("X");
    const TopKShape shape = PrepareTopK(ctx);
    const int64_t n = shape.n, k = shape.k, rows = shape.rows;
    DenseTensor* out_t = ctx.Output("Out");
    DenseTensor* idx_t = ctx.Output("Indices");
    const T* x = x_t->data<T>();
    T* out = out_t->mutable_data<T>(ctx.GetPlace());
    int64_t* idx = idx_t->mutable_data<int64_t>(ctx.GetPlace());
    std::vector<ValueIndex<T>> line;
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = x + r * n;
      FillLine<T>(
          n, [row](int64_t j) { return row[j]; }, &line);
      OrderTopK(&line, k, /*largest=*/true, /*sorted=*/true);
      for (int64_t j = 0; j < k; ++j) {
        idx[r * k + j] = line[j].second;
        out[r * k + j] = line[j].first;
      }
    }
  }
};

void TopKGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Indices");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim idx = ctx->GetInputDim("Indices");
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  PL_ENFORCE(idx.HasUnknown() || dout.HasUnknown() || idx == dout,
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of input "
                                     "`Indices` %s, received %s",
                                     ctx->OpType(), idx.ToString(), dout.ToString()));
  const DDim x = ctx->GetInputDim("X");
  CheckRank(ctx->OpType(), x);
  CheckIndicesRows(ctx->OpType(), x, idx);
  ctx->SetOutputDim("X@GRAD", x);
  ctx->ShareLoD("X", "X@GRAD");
}

void TopKGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("X@GRAD", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("X@GRAD", ctx->GetInputDataType("Out@GRAD"));
}

template <typename T>
struct TopKGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim x_dims = ctx.Input("X")->dims();
    const DenseTensor* idx_t = ctx.Input("Indices");
    const DenseTensor* dout_t = ctx.Input("Out@GRAD");
    const TopKShape shape = CheckTopKGradInputs(ctx);
    const int64_t n = shape.n, k = shape.k, rows = shape.rows;
    const int64_t* idx = idx_t->data<int64_t>();
    const T* dout = dout_t->data<T>();
    DenseTensor dx_t(x_dims, dout_t->dtype());
    T* dx = dx_t.mutable_data<T>(ctx.GetPlace());
    if (dx_t.numel() > 0) std::memset(dx, 0, sizeof(T) * dx_t.numel());
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < k; ++j) {
        const int64_t c = idx[r * k + j];
        CheckTopKIndex(c, n);
        dx[r * n + c] += dout[r * k + j];
      }
    }
    dx_t.set_lod(ctx.Input("X")->lod());
    *ctx.Output("X@GRAD") = std::move(dx_t);
  }
};

void TopKGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(
      kGradOp,
      {{"X", g->Input("X")}, {"Indices", g->Output("Indices")}, {"Out@GRAD", g->OutputGrad("Out")}},
      {{"X@GRAD", g->InputGrad("X")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterTopKOp) {
  framework::RegisterOp<TopKOp, TopKOpMaker>(kOp)
      .InferShape(TopKInferShape)
      .InferVarType(TopKInferVarType)
      .GradOpMaker(TopKGradMaker);
  RegisterPlainCpuKernels<TopKKernel, float, double, int32_t, int64_t>(kOp);
  framework::RegisterOp<TopKOp, TopKGradOpMaker>(kGradOp)
      .InferShape(TopKGradInferShape)
      .InferVarType(TopKGradInferVarType);
  RegisterPlainCpuFloatKernels<TopKGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
