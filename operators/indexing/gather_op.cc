// gather: slices of X along one axis picked by an index list; gather_grad (PaddlePaddle's
// fused op, also our backward) adds the output gradient slices back.
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

constexpr char kOp[] = "gather";

class GatherOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to gather from.");
    AddInput("Index", "int32 or int64 indices: 1-D, [N, 1], or 0-D (one slice, axis dropped).");
    AddInput("Axis", "One-element int32/int64 tensor; overrides the attribute `axis`.")
        .AsDispensable();
    AddOutput("Out", "X with dim `axis` replaced by the number of indices, X's dtype.");
    AddAttr<int>("axis", "The dim of X indexed (negative counts from the end).").SetDefault(0);
    AddAttr<bool>("overwrite",
                  "Gradient of repeated indices: true keeps one, false adds them (here they "
                  "are always added, which is the gradient).")
        .SetDefault(true);
    AddComment(R"DOC(
Gather operator.

$$Out[\ldots, i, \ldots] = X[\ldots, Index[i], \ldots] \quad \text{(position } axis\text{)}$$

Each index must be in [0, X.dims[axis]). Example: X [[1, 2], [3, 4], [5, 6]], Index [2, 0],
axis 0 -> Out [[5, 6], [1, 2]]. A 0-D Index removes the axis.

Gradient (fused op `gather_grad`): dX is zero except at the gathered slices, where the
gradients of every use of a slice add up:
$$dX[\ldots, j, \ldots] = \sum_{i:\ Index[i] = j} dOut[\ldots, i, \ldots]$$
)DOC");
  }
};

// The kernel follows X; Index and Axis are never cast.
class GatherOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

}  // namespace

DDim GatherDims(const std::string& op, const DDim& x, const DDim& index, int axis) {
  PL_ENFORCE(index.size() <= 1 || (index.size() == 2 && (index[1] == 1 || index[1] < 0)),
             errors::InvalidArgument("op `%s` input `Index`: expected a 0-D, 1-D or [N, 1] "
                                     "tensor, received shape %s",
                                     op, index.ToString()));
  std::vector<int64_t> out = x.ToVector();
  if (index.size() == 0) {
    out.erase(out.begin() + axis);
  } else {
    out[axis] = index[0];
  }
  return DDim(out);
}

int GatherAxis(const ExecutionContext& ctx, int rank) {
  if (ctx.HasInput("Axis")) {
    const std::vector<int64_t> v = ReadIntValues(*ctx.Input("Axis"), ctx.Type(), "Axis");
    PL_ENFORCE(v.size() == 1, errors::InvalidArgument("op `%s` input `Axis`: expected one "
                                                      "element, received %zu",
                                                      ctx.Type(), v.size()));
    return NormalizeAxis(ctx.Type(), "input `Axis`", v[0], rank);
  }
  return NormalizeAxis(ctx.Type(), "attribute `axis`", ctx.Attr<int>("axis"), rank);
}

namespace {

void GatherInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Index");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const DDim index = ctx->GetInputDim("Index");
  if (ctx->HasInput("Axis")) {
    if (ctx->IsRuntime()) return;  // The kernel reads the axis.
    const int64_t rank = x.size() - (index.size() == 0 ? 1 : 0);
    ctx->SetOutputDim("Out", UnknownDims(ctx->OpType(), "input `X`", rank));
    return;
  }
  const int axis = NormalizeAxis(ctx->OpType(), "attribute `axis`", ctx->Attr<int>("axis"), x.size());
  ctx->SetOutputDim("Out", GatherDims(ctx->OpType(), x, index, axis));
}

template <typename T>
struct GatherKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index_t = ctx.Input("Index");
    const int axis = GatherAxis(ctx, x->dims().size());
    const DDim out_dims = GatherDims(ctx.Type(), x->dims(), index_t->dims(), axis);
    const std::vector<int64_t> index =
        ReadIndices(ctx.Type(), "Index", *index_t, x->dims()[axis], /*allow_negative=*/false);
    const AxisSplit s = SplitAtAxis(x->dims(), axis);
    DenseTensor fresh(out_dims, x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    GatherSlices(in, s, index, out);
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct GatherGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index_t = ctx.Input("Index");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const int axis = GatherAxis(ctx, x->dims().size());
    const DDim want = GatherDims(ctx.Type(), x->dims(), index_t->dims(), axis);
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    const std::vector<int64_t> index =
        ReadIndices(ctx.Type(), "Index", *index_t, x->dims()[axis], /*allow_negative=*/false);
    const AxisSplit s = SplitAtAxis(x->dims(), axis);
    DenseTensor fresh(x->dims(), dout->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
    ScatterAddSlices(g, s, index, dx);
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterGatherOp) {
  const framework::FusedGradDecl grad{
      {"X", "Index", "Axis"},
      {"Out"},
      {"X"},
      R"DOC($$dX[\ldots, j, \ldots] = \sum_{i:\ Index[i] = j} dOut[\ldots, i, \ldots]$$)DOC"};
  framework::RegisterOp<GatherOp, GatherOpMaker>(kOp)
      .InferShape(GatherInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad))
      .Checkpoint("gather with an axis",
                  framework::OpVersionDesc()
                      .NewInput("Axis", "one-element tensor giving the axis to gather along")
                      .NewAttr("axis", "the axis to gather along", 0));
  RegisterPlainCpuElementKernels<GatherKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireOutput("X@GRAD");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuKernels<GatherGradKernel, float, double, std::complex<float>,
                          std::complex<double>>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
