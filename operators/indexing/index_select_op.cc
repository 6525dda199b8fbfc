// index_select: slices of X along dim `dim` picked by a 1-D index; its gradient adds the
// output gradient slices back (PaddlePaddle's fused op index_select_grad).
#include <algorithm>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/indexing/index_util.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "index_select";

class IndexSelectOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to select from.");
    AddInput("Index", "1-D int32 or int64 indices into dim `dim` of X.");
    AddOutput("Out", "X with dim `dim` replaced by the length of Index, X's dtype.");
    AddAttr<int>("dim", "The dim of X indexed (negative counts from the end).").SetDefault(0);
    AddComment(R"DOC(
IndexSelect operator.

$$Out[\ldots, i, \ldots] = X[\ldots, Index[i], \ldots] \quad \text{(position } dim\text{)}$$

Each index must be in [-X.dims[dim], X.dims[dim]) (negative counts from the end). Example:
X [[1, 2, 3], [4, 5, 6]], Index [2, 0], dim 1 -> Out [[3, 1], [6, 4]].

Gradient (fused op `index_select_grad`):
$$dX[\ldots, j, \ldots] = \sum_{i:\ Index[i] = j} dOut[\ldots, i, \ldots]$$
)DOC");
  }
};

class IndexSelectOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

}  // namespace

DDim IndexSelectDims(const std::string& op, const DDim& x, const DDim& index, int dim) {
  PL_ENFORCE(index.size() == 1 || (index.size() == 2 && (index[1] == 1 || index[1] < 0)),
             errors::InvalidArgument("op `%s` input `Index`: expected a 1-D tensor, received "
                                     "shape %s",
                                     op, index.ToString()));
  std::vector<int64_t> out = x.ToVector();
  out[dim] = index[0];
  return DDim(out);
}

namespace {

void IndexSelectInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Index");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const int dim = NormalizeAxis(ctx->OpType(), "attribute `dim`", ctx->Attr<int>("dim"), x.size());
  ctx->SetOutputDim("Out", IndexSelectDims(ctx->OpType(), x, ctx->GetInputDim("Index"), dim));
}

template <typename T>
struct IndexSelectKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index_t = ctx.Input("Index");
    const int dim = NormalizeAxis(kOp, "attribute `dim`", ctx.Attr<int>("dim"), x->dims().size());
    const DDim out_dims = IndexSelectDims(kOp, x->dims(), index_t->dims(), dim);
    const std::vector<int64_t> index =
        ReadIndices(kOp, "Index", *index_t, x->dims()[dim], /*allow_negative=*/true);
    const AxisSplit s = SplitAtAxis(x->dims(), dim);
    DenseTensor fresh(out_dims, x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    GatherSlices(in, s, index, out);
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct IndexSelectGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index_t = ctx.Input("Index");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const int dim = NormalizeAxis(ctx.Type(), "attribute `dim`", ctx.Attr<int>("dim"),
                                  x->dims().size());
    const DDim want = IndexSelectDims(ctx.Type(), x->dims(), index_t->dims(), dim);
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    const std::vector<int64_t> index =
        ReadIndices(ctx.Type(), "Index", *index_t, x->dims()[dim], /*allow_negative=*/true);
    const AxisSplit s = SplitAtAxis(x->dims(), dim);
    DenseTensor fresh(x->dims(), dout->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
    ScatterAddSlices(g, s, index, dx);
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterIndexSelectOp) {
  const framework::FusedGradDecl grad{
      {"X", "Index"},
      {"Out"},
      {"X"},
      R"DOC($$dX[\ldots, j, \ldots] = \sum_{i:\ Index[i] = j} dOut[\ldots, i, \ldots]$$)DOC"};
  framework::RegisterOp<IndexSelectOp, IndexSelectOpMaker>(kOp)
      .InferShape(IndexSelectInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<IndexSelectKernel, float, double, int32_t, int64_t, bool,
                          std::complex<float>, std::complex<double>>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireOutput("X@GRAD");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuKernels<IndexSelectGradKernel, float, double, std::complex<float>,
                          std::complex<double>>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
