// index_sample: per row of X, the values at the row's indices (paddle.index_sample); and
// index_sample_grad, which adds Out@GRAD back at those positions (repeated indices sum).
#include <algorithm>
#include <string>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "index_sample";
constexpr char kGradOp[] = "index_sample_grad";

class IndexSampleOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, M].");
    AddInput("Index", "int32 or int64 [N, K], values in [0, M).");
    AddOutput("Out", "[N, K], X's dtype.");
    AddComment(R"DOC(
Index sample operator: $$Out_{ij} = X_{i, Index_{ij}}$$

Gradient (op `index_sample_grad`): $$dX_{im} = \sum_{j : Index_{ij} = m} dOut_{ij}$$
)DOC");
  }
};

class IndexSampleGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X (only its dims are read).").AsNoNeedBuffer();
    AddInput("Index", "The forward op's Index.");
    AddInput("Out@GRAD", "Gradient of Out.");
    AddOutput("X@GRAD", "Gradient of X.");
    AddComment(R"DOC(
Gradient of `index_sample`: $$dX_{im} = \sum_{j : Index_{ij} = m} dOut_{ij}$$ summed in
increasing j.
)DOC");
  }
};

class IndexSampleOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "Index" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

void CheckShapes(const std::string& op, const DDim& x, const DDim& index) {
  PL_ENFORCE(x.size() == 2 && index.size() == 2 && (x[0] < 0 || index[0] < 0 || x[0] == index[0]),
             errors::InvalidArgument("op `%s` inputs `X` and `Index`: expected [N, M] and [N, "
                                     "K], received %s and %s",
                                     op, x.ToString(), index.ToString()));
}

void IndexSampleInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Index");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X"), index = ctx->GetInputDim("Index");
  CheckShapes(ctx->OpType(), x, index);
  ctx->SetOutputDim("Out", index);
}

// Index[i, j] as int64, checked to lie in [0, m).
int64_t IndexAt(const std::string& op, const DenseTensor& index, int64_t e, int64_t m) {
  const int64_t v = index.dtype() == DataType::INT64
                        ? index.data<int64_t>()[e]
                        : static_cast<int64_t>(index.data<int32_t>()[e]);
  PL_ENFORCE(v >= 0 && v < m,
             errors::InvalidArgument("op `%s` input `Index`: expected values in [0, %s), "
                                     "received %s",
                                     op, std::to_string(m), std::to_string(v)));
  return v;
}

void CheckIndexType(const std::string& op, const DenseTensor& index) {
  PL_ENFORCE(index.dtype() == DataType::INT64 || index.dtype() == DataType::INT32,
             errors::InvalidArgument("op `%s` input `Index`: expected int32 or int64, received %s",
                                     op, platform::DataTypeName(index.dtype())));
}

template <typename T>
struct IndexSampleKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index = ctx.Input("Index");
    CheckShapes(kOp, x->dims(), index->dims());
    CheckIndexType(kOp, *index);
    const int64_t n = index->dims()[0], k = index->dims()[1], m = x->dims()[1];
    DenseTensor out(index->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < k; ++j) o[i * k + j] = in[i * m + IndexAt(kOp, *index, i * k + j, m)];
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void IndexSampleGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Index", "Out@GRAD"}) ctx->RequireInput(slot);
  ctx->RequireOutput("X@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

void IndexSampleGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("X@GRAD", ctx->GetInputDataType("Out@GRAD"));
}

template <typename T>
struct IndexSampleGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim x = ctx.Input("X")->dims();
    const DenseTensor* index = ctx.Input("Index");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckShapes(kGradOp, x, index->dims());
    CheckIndexType(kGradOp, *index);
    PL_ENFORCE(dout->dims() == index->dims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected Index's shape %s, "
                                       "received %s",
                                       kGradOp, index->dims().ToString(), dout->dims().ToString()));
    const int64_t n = index->dims()[0], k = index->dims()[1], m = x[1];
    DenseTensor dx(x, dout->dtype());
    T* o = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + x.numel(), T(0));
    const T* g = dout->data<T>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < k; ++j)
        o[i * m + IndexAt(kGradOp, *index, i * k + j, m)] += g[i * k + j];
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

void IndexSampleGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(kGradOp,
           {{"X", g->Input("X")}, {"Index", g->Input("Index")}, {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterIndexSampleOp) {
  framework::RegisterOp<IndexSampleOp, IndexSampleOpMaker>(kOp)
      .InferShape(IndexSampleInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(IndexSampleGradMaker);
  RegisterPlainCpuKernels<IndexSampleKernel, float, double, int32_t, int64_t>(kOp);
  framework::RegisterOp<IndexSampleOp, IndexSampleGradOpMaker>(kGradOp)
      .InferShape(IndexSampleGradInferShape)
      .InferVarType(IndexSampleGradInferVarType);
  RegisterPlainCpuFloatKernels<IndexSampleGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
