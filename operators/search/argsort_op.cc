// argsort: each line along `axis` sorted, with the positions the values came from
// (paddle.argsort, paddle.sort); and argsort_grad, which sends Out@GRAD back to those
// positions. Ascending puts a NaN after every number, descending before; equal values keep
// their order with `stable`, else come out as PaddlePaddle's CPU kernel leaves them
// (paddle_line_order.h).
#include <algorithm>
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

constexpr char kOp[] = "argsort";
constexpr char kGradOp[] = "argsort_grad";

class ArgsortOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input of any rank (0-D counts as one value).");
    AddOutput("Out", "X with each line along `axis` sorted.");
    AddOutput("Indices", "int64 positions along `axis` of X of Out's values.");
    AddAttr<int>("axis", "The dim sorted; negative values count from the end.").SetDefault(-1);
    AddAttr<bool>("descending", "Largest first (else smallest first).").SetDefault(false);
    AddAttr<bool>("stable",
                  "Keep equal values in their order (else as PaddlePaddle's sort "
                  "leaves them).")
        .SetDefault(false);
    AddComment(R"DOC(
Argsort operator, along `axis`:

$$Out_{\ldots, j, \ldots} = X_{\ldots, Indices_{\ldots, j, \ldots}, \ldots}$$

with Indices the permutation that sorts each line (ascending, or descending), equal values
in their original order; a NaN goes after every number ascending, before descending.

Gradient (op `argsort_grad`): $$dX_{\ldots, Indices_{\ldots, j, \ldots}, \ldots} =
dOut_{\ldots, j, \ldots}$$
)DOC");
  }
};

class ArgsortGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X (only its dims are read).").AsNoNeedBuffer();
    AddInput("Indices", "The forward op's Indices.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X.");
    AddAttr<int>("axis", "As in `argsort`.").SetDefault(-1);
    AddAttr<bool>("descending", "As in `argsort` (not read).").SetDefault(false);
    AddAttr<bool>("stable", "As in `argsort` (not read).").SetDefault(false);
    AddComment(R"DOC(
Gradient of `argsort`: $$dX_{\ldots, Indices_{\ldots, j, \ldots}, \ldots} = dOut_{\ldots, j,
\ldots}$$ (Indices is a permutation of each line, so every element receives one value).
)DOC");
  }
};

class ArgsortOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void ArgsortInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->RequireOutput("Indices");
  const DDim x = ctx->GetInputDim("X");
  ViewAround(ctx->OpType(), x, ctx->Attr<int>("axis"));
  ctx->SetOutputDim("Out", x);
  ctx->SetOutputDim("Indices", x);
  ctx->ShareLoD("X", "Out");
}

void ArgsortInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  ctx->SetOutputDataType("Indices", DataType::INT64);
}

template <typename T>
struct ArgsortKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const LineView l = ViewAround(kOp, x->dims(), ctx.Attr<int>("axis"));
    const bool descending = ctx.Attr<bool>("descending");
    DenseTensor out(x->dims(), x->dtype()), indices(x->dims(), DataType::INT64);
    T* o = out.mutable_data<T>(ctx.GetPlace());
    int64_t* idx = indices.mutable_data<int64_t>(ctx.GetPlace());
    const T* in = x->data<T>();
    const bool stable = ctx.Attr<bool>("stable");
    std::vector<ValueIndex<T>> line;
    for (int64_t p = 0; p < l.outer; ++p) {
      for (int64_t q = 0; q < l.inner; ++q) {
        const int64_t base = p * l.n * l.inner + q;
        FillLine<T>(
            l.n, [&](int64_t j) { return in[base + j * l.inner]; }, &line);
        OrderArgsort(&line, descending, stable);
        for (int64_t j = 0; j < l.n; ++j) {
          o[base + j * l.inner] = line[j].first;
          idx[base + j * l.inner] = line[j].second;
        }
      }
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
    *ctx.Output("Indices") = std::move(indices);
  }
};

void ArgsortGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Indices", "Out@GRAD"}) ctx->RequireInput(slot);
  ctx->RequireOutput("X@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

void ArgsortGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("X@GRAD", ctx->GetInputDataType("Out@GRAD"));
}

template <typename T>
struct ArgsortGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim dims = ctx.Input("X")->dims();
    const DenseTensor* indices = ctx.Input("Indices");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    PL_ENFORCE(
        indices->dims() == dims && dout->dims() == dims && indices->dtype() == DataType::INT64,
        errors::InvalidArgument("op `%s` inputs `Indices` and `Out@GRAD`: expected int64 "
                                "Indices and Out@GRAD of X's shape %s, received %s %s and "
                                "%s",
                                kGradOp, dims.ToString(), platform::DataTypeName(indices->dtype()),
                                indices->dims().ToString(), dout->dims().ToString()));
    const LineView l = ViewAround(kGradOp, dims, ctx.Attr<int>("axis"));
    DenseTensor dx(dims, dout->dtype());
    T* o = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + dims.numel(), T(0));
    const int64_t* idx = indices->data<int64_t>();
    const T* g = dout->data<T>();
    for (int64_t p = 0; p < l.outer; ++p) {
      for (int64_t q = 0; q < l.inner; ++q) {
        const int64_t base = p * l.n * l.inner + q;
        for (int64_t j = 0; j < l.n; ++j) {
          const int64_t src = idx[base + j * l.inner];
          PL_ENFORCE(src >= 0 && src < l.n,
                     errors::InvalidArgument("op `%s` input `Indices`: expected values in [0, "
                                             "%s), received %s",
                                             kGradOp, std::to_string(l.n), std::to_string(src)));
          o[base + src * l.inner] += g[base + j * l.inner];
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

void ArgsortGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(
      kGradOp,
      {{"X", g->Input("X")}, {"Indices", g->Output("Indices")}, {"Out@GRAD", g->OutputGrad("Out")}},
      {{"X@GRAD", g->InputGrad("X")}}, {{"axis", g->Attr<int>("axis")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterArgsortOp) {
  framework::RegisterOp<ArgsortOp, ArgsortOpMaker>(kOp)
      .InferShape(ArgsortInferShape)
      .InferVarType(ArgsortInferVarType)
      .GradOpMaker(ArgsortGradMaker)
      .Checkpoint(
          "stable sorting on request",
          framework::OpVersionDesc().NewAttr("stable", "Keep equal values in their order.", false));
  RegisterPlainCpuKernels<ArgsortKernel, float, double, int32_t, int64_t, int16_t, uint8_t>(kOp);
  framework::RegisterOp<ArgsortOp, ArgsortGradOpMaker>(kGradOp)
      .InferShape(ArgsortGradInferShape)
      .InferVarType(ArgsortGradInferVarType);
  RegisterPlainCpuFloatKernels<ArgsortGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
