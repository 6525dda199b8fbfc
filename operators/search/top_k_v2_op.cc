// top_k_v2: the k largest (or smallest) values along any axis and their indices, what
// paddle.topk saves; and top_k_v2_grad, its gradient, which PaddlePaddle's training programs
// hold too. Larger first with a NaN above every number; with largest = false the smaller first
// and a NaN below every number; equal values and, with sorted = false, the order of the k come
// out as PaddlePaddle's CPU kernel leaves them (paddle_line_order.h).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/search/paddle_line_order.h"
#include "operators/search/top_k_op.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "top_k_v2";
constexpr char kGradOp[] = "top_k_v2_grad";

class TopKV2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input of any rank (0-D counts as one value).");
    AddInput("K", "Optional 1-element int32 (or int64) tensor; overrides attribute `k`.")
        .AsDispensable();
    AddOutput("Out", "The k values of each line along `axis`: X's dims with that one k.");
    AddOutput("Indices", "int64 positions of Out's values along `axis` of X.");
    AddAttr<int>("k", "How many values to keep per line (1 <= k <= X's dim `axis`).").SetDefault(1);
    AddAttr<int>("axis", "The dim searched; negative values count from the end.").SetDefault(-1);
    AddAttr<bool>("largest", "The largest values (else the smallest).").SetDefault(true);
    AddAttr<bool>("sorted", "Sorted output; else the k in the order of PaddlePaddle's selection.")
        .SetDefault(true);
    AddComment(R"DOC(
TopK operator (version 2), along `axis`:

$$Out_{\ldots, j, \ldots} = X_{\ldots, Indices_{\ldots, j, \ldots}, \ldots}, \quad
j < k$$

where Indices lists the positions of the k largest values of each line (the k smallest
when largest is false), best first. A NaN ranks above every number (below with largest
false); equal values go by increasing position. Gradient (op `top_k_v2_grad`):
$$dX_{\ldots, Indices_{\ldots, j, \ldots}, \ldots} = dOut_{\ldots, j, \ldots}$$ and 0
elsewhere.
)DOC");
  }
};

class TopKV2GradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X (only its dims are read).").AsNoNeedBuffer();
    AddInput("Indices", "The forward op's Indices.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's dims.");
    AddAttr<int>("k", "As in `top_k_v2` (Indices gives the count).").SetDefault(1);
    AddAttr<int>("axis", "As in `top_k_v2`.").SetDefault(-1);
    AddAttr<bool>("largest", "As in `top_k_v2` (not read).").SetDefault(true);
    AddAttr<bool>("sorted", "As in `top_k_v2` (not read).").SetDefault(true);
    AddComment(R"DOC(
Gradient of `top_k_v2`: each dOut value goes back to the position Indices names,
$$dX_{\ldots, Indices_{\ldots, j, \ldots}, \ldots} = dOut_{\ldots, j, \ldots}$$ and 0 elsewhere.
)DOC");
  }
};

class TopKV2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void CheckK(const std::string& op, int64_t k, int64_t n, const DDim& x, const char* origin) {
  PL_ENFORCE(k >= 1 && (n < 0 || k <= n),
             errors::InvalidArgument("op `%s` %s: expected k in [1, %lld] (the searched dim of "
                                     "input `X` %s), received %lld",
                                     op, origin, static_cast<long long>(n), x.ToString(),
                                     static_cast<long long>(k)));
}

DDim WithK(const DDim& x, const LineView& v, int64_t k) {
  if (x.size() == 0) return x;
  DDim out = x;
  out[v.axis] = k;
  return out;
}

void TopKV2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->RequireOutput("Indices");
  const DDim x = ctx->GetInputDim("X");
  const LineView v = ViewAround(ctx->OpType(), x, ctx->Attr<int>("axis"));
  int64_t k = -1;
  if (ctx->HasInput("K")) {
    if (ctx->IsRuntime()) return;  // The kernel reads K.
  } else {
    k = ctx->Attr<int>("k");
    CheckK(ctx->OpType(), k, x.size() == 0 ? 1 : x[v.axis], x, "attribute `k`");
  }
  ctx->SetOutputDim("Out", WithK(x, v, k));
  ctx->SetOutputDim("Indices", WithK(x, v, k));
}

void TopKV2InferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  ctx->SetOutputDataType("Indices", DataType::INT64);
}

template <typename T>
struct TopKV2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("X");
    const DDim x_dims = x_t->dims();
    const LineView v = ViewAround(kOp, x_dims, ctx.Attr<int>("axis"));
    int64_t k = ctx.Attr<int>("k");
    const char* origin = "attribute `k`";
    if (const DenseTensor* k_t = ctx.Input("K")) {
      PL_ENFORCE(k_t->numel() == 1,
                 errors::InvalidArgument("op `%s` input `K`: expected 1 element, received shape "
                                         "%s",
                                         kOp, k_t->dims().ToString()));
      k = ReadIntValues(*k_t, kOp, "K")[0];
      origin = "input `K`";
    }
    CheckK(kOp, k, v.n, x_dims, origin);
    const bool largest = ctx.Attr<bool>("largest");
    DenseTensor out_t(WithK(x_dims, v, k), x_t->dtype());
    DenseTensor idx_t(WithK(x_dims, v, k), DataType::INT64);
    T* out = out_t.mutable_data<T>(ctx.GetPlace());
    int64_t* idx = idx_t.mutable_data<int64_t>(ctx.GetPlace());
    const T* x = x_t->data<T>();
    const bool sorted = ctx.Attr<bool>("sorted");
    std::vector<ValueIndex<T>> line;
    for (int64_t o = 0; o < v.outer; ++o) {
      for (int64_t i = 0; i < v.inner; ++i) {
        FillLine<T>(
            v.n, [&](int64_t j) { return x[(o * v.n + j) * v.inner + i]; }, &line);
        OrderTopK(&line, k, largest, sorted);
        for (int64_t j = 0; j < k; ++j) {
          out[(o * k + j) * v.inner + i] = line[j].first;
          idx[(o * k + j) * v.inner + i] = line[j].second;
        }
      }
    }
    *ctx.Output("Out") = std::move(out_t);
    *ctx.Output("Indices") = std::move(idx_t);
  }
};

void TopKV2GradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Indices");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct TopKV2GradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim x_dims = ctx.Input("X")->dims();
    const DenseTensor* idx_t = ctx.Input("Indices");
    const DenseTensor* dout_t = ctx.Input("Out@GRAD");
    const LineView v = ViewAround(kGradOp, x_dims, ctx.Attr<int>("axis"));
    const int64_t k = idx_t->dims().size() == 0 ? 1 : idx_t->dims()[v.axis];
    PL_ENFORCE(
        idx_t->dtype() == DataType::INT64 && idx_t->dims() == dout_t->dims() &&
            idx_t->dims() == WithK(x_dims, v, k),
        errors::InvalidArgument("op `%s` input `Indices`: expected int64 of the shape of "
                                "`Out@GRAD` %s (X %s with k along axis %d), received %s "
                                "%s",
                                kGradOp, dout_t->dims().ToString(), x_dims.ToString(), v.axis,
                                DataTypeName(idx_t->dtype()), idx_t->dims().ToString()));
    DenseTensor dx_t(x_dims, dout_t->dtype());
    T* dx = dx_t.mutable_data<T>(ctx.GetPlace());
    if (dx_t.numel() > 0) std::memset(dx, 0, sizeof(T) * dx_t.numel());
    const int64_t* idx = idx_t->data<int64_t>();
    const T* dout = dout_t->data<T>();
    for (int64_t o = 0; o < v.outer; ++o) {
      for (int64_t j = 0; j < k; ++j) {
        for (int64_t i = 0; i < v.inner; ++i) {
          const int64_t c = idx[(o * k + j) * v.inner + i];
          PL_ENFORCE(c >= 0 && c < v.n,
                     errors::InvalidArgument("op `%s` input `Indices`: expected values in [0, "
                                             "%lld), received %lld",
                                             kGradOp, static_cast<long long>(v.n),
                                             static_cast<long long>(c)));
          dx[(o * v.n + c) * v.inner + i] += dout[(o * k + j) * v.inner + i];
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx_t);
  }
};

void TopKV2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(
      kGradOp,
      {{"X", g->Input("X")}, {"Indices", g->Output("Indices")}, {"Out@GRAD", g->OutputGrad("Out")}},
      {{"X@GRAD", g->InputGrad("X")}},
      {{"axis", g->Attr<int>("axis")},
       {"k", g->Attr<int>("k")},
       {"largest", g->Attr<bool>("largest")},
       {"sorted", g->Attr<bool>("sorted")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterTopKV2Op) {
  framework::RegisterOp<TopKV2Op, TopKV2OpMaker>(kOp)
      .InferShape(TopKV2InferShape)
      .InferVarType(TopKV2InferVarType)
      .GradOpMaker(TopKV2GradMaker);
  RegisterPlainCpuKernels<TopKV2Kernel, float, double, int32_t, int64_t>(kOp);
  framework::RegisterOp<TopKV2Op, TopKV2GradOpMaker>(kGradOp).InferShape(TopKV2GradInferShape);
  RegisterPlainCpuFloatKernels<TopKV2GradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
