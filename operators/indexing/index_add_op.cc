// index_add: X with slices of AddValue added at the positions Index names along one axis
// (repeated positions add up). Its gradient is written with ops: dX = dOut and
// dAddValue = index_select(dOut, Index, axis).
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

constexpr char kOp[] = "index_add";

class IndexAddOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor added to.");
    AddInput("Index", "1-D int32 or int64: positions along `axis`, each in [-n, n).");
    AddInput("AddValue", "X's shape with dim `axis` of Index's length; X's dtype.");
    AddOutput("Out", "X's shape.");
    AddAttr<int>("axis", "The dim indexed (negative counts from the end).").SetDefault(0);
    AddComment(R"DOC(
Index add along `axis`:
$$Out = X, \quad Out[\ldots, Index_i, \ldots] \mathrel{+}= AddValue[\ldots, i, \ldots]$$
(a negative index counts from the end; repeated indices add up). Example: X = zeros [3],
Index = [0, 2, 0], AddValue = [1, 2, 3] -> [4, 0, 2].

Gradient (written with ops): $$dX = dOut, \quad dAddValue = \mathrm{index\_select}(dOut, Index, axis)$$
)DOC");
  }
};

class IndexAddOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

void CheckShapes(const std::string& op, const DDim& x, const DDim& index, const DDim& add,
                 int axis) {
  PL_ENFORCE(index.size() == 1, errors::InvalidArgument("op `%s` input `Index`: expected a 1-D "
                                                        "tensor, received %s",
                                                        op, index.ToString()));
  DDim want = x;
  if (x.size() > 0) want[axis] = index[0];
  bool ok = add.size() == want.size();
  for (int i = 0; ok && i < add.size(); ++i) ok = add[i] < 0 || want[i] < 0 || add[i] == want[i];
  PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `AddValue`: expected shape %s (X's with "
                                         "dim %d of Index's length), received %s",
                                         op, want.ToString(), axis, add.ToString()));
}

void IndexAddInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Index", "AddValue"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const int axis = x.size() == 0 ? 0
                                 : NormalizeAxis(ctx->OpType(), "attribute `axis`",
                                                 ctx->Attr<int>("axis"), x.size());
  CheckShapes(ctx->OpType(), x, ctx->GetInputDim("Index"), ctx->GetInputDim("AddValue"), axis);
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct IndexAddKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index = ctx.Input("Index");
    const DenseTensor* add = ctx.Input("AddValue");
    const LineView v = ViewAround(ctx.Type(), x->dims(), ctx.Attr<int>("axis"));
    CheckShapes(ctx.Type(), x->dims(), index->dims(), add->dims(), v.axis);
    const std::vector<int64_t> ids =
        ReadIndices(ctx.Type(), "Index", *index, v.n, /*allow_negative=*/true);
    DenseTensor out;
    CopyTensor(*x, ctx.GetPlace(), &out);
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* a = add->numel() > 0 ? add->data<T>() : nullptr;
    const int64_t k = static_cast<int64_t>(ids.size());
    for (int64_t i = 0; i < k; ++i) {
      const int64_t at = ids[i];
      for (int64_t outer = 0; outer < v.outer; ++outer) {
        T* dst = o + (outer * v.n + at) * v.inner;
        const T* src = a + (outer * k + i) * v.inner;
        for (int64_t j = 0; j < v.inner; ++j) dst[j] += src[j];
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void IndexAddGradMaker(framework::GradOpBuilder* g) {
  if (g->WantsInputGrad("X")) {
    g->AddOp("assign", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}});
  }
  if (g->WantsInputGrad("AddValue")) {
    g->AddOp("index_select", {{"X", g->OutputGrad("Out")}, {"Index", g->Input("Index")}},
             {{"Out", g->InputGrad("AddValue")}}, {{"dim", g->Attr<int>("axis")}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterIndexAddOp) {
  framework::RegisterOp<IndexAddOp, IndexAddOpMaker>(kOp)
      .InferShape(IndexAddInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(IndexAddGradMaker);
  RegisterPlainCpuNumericKernels<IndexAddKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
