// flatten_contiguous_range: merges the dims [start_axis, stop_axis] of X into one, and
// flatten_contiguous_range_grad, its backward (X@GRAD = Out@GRAD with X's dims from XShape).
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "flatten_contiguous_range";
constexpr char kGradOp[] = "flatten_contiguous_range_grad";

class FlattenOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor to flatten.");
    AddOutput("Out", "X with dims [start_axis, stop_axis] merged into one.");
    AddOutput("XShape", "[0] + X.dims; carries no data, kept for the grad op.")
        .AsIntermediate()
        .AsDispensable();
    AddAttr<int>("start_axis", "First dim to merge; negative values count from the end.")
        .SetDefault(1);
    AddAttr<int>("stop_axis", "Last dim to merge (inclusive); negative values count from the end.")
        .SetDefault(1);
    AddComment(R"DOC(
Flatten a contiguous range of dims.

$$Out.dims = X.dims[:s] + [\textstyle\prod_{i=s}^{e} X.dims[i]] + X.dims[e+1:]$$

with s = start_axis, e = stop_axis (after adding the rank to negative values; s <= e).
The elements keep their row-major order. Example: X of shape [2, 3, 4, 5] with
start_axis = 1, stop_axis = 2 gives [2, 12, 5]; with 0 and -1, [120]. A 0-D X (axes 0 or -1)
gives [1].

Gradient: $$dX = \mathrm{reshape}(dOut, XShape.dims[1:])$$ by flatten_contiguous_range_grad,
which reads only XShape and Out@GRAD; its own gradient is flatten_contiguous_range again, so
higher orders work.
)DOC");
  }
};

class FlattenGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("XShape", "The forward op's XShape: [0] + X.dims, no data.").AsNoNeedBuffer();
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X: Out@GRAD with X's dims.");
    AddAttr<int>("start_axis", "The forward op's start_axis; read by this op's gradient.")
        .SetDefault(1);
    AddAttr<int>("stop_axis", "The forward op's stop_axis; read by this op's gradient.")
        .SetDefault(1);
    AddComment(R"DOC(
Gradient of flatten_contiguous_range.

$$X@GRAD = \mathrm{reshape}(Out@GRAD, XShape.dims[1:])$$

Its gradient is flatten_contiguous_range of the gradient of X@GRAD with the same axes.
)DOC");
  }
};

// The kernel follows X (forward) or Out@GRAD (backward; XShape holds no data).
class FlattenOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("X") ? "X" : "Out@GRAD";
    return InputDataType(ctx, slot);
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

int NormalizeAxis(const std::string& op, const char* attr, int axis, int rank) {
  const int r = rank == 0 ? 1 : rank;
  PL_ENFORCE(axis >= -r && axis < r,
             errors::InvalidArgument("op `%s` attribute `%s`: expected a value in [%d, %d) for "
                                     "input `X` of rank %d, received %d",
                                     op, attr, -r, r, rank, axis));
  return axis < 0 ? axis + r : axis;
}

DDim FlattenDims(const std::string& op, const DDim& x, int start_attr, int stop_attr) {
  const int rank = x.size();
  const int start = NormalizeAxis(op, "start_axis", start_attr, rank);
  const int stop = NormalizeAxis(op, "stop_axis", stop_attr, rank);
  if (rank == 0) return DDim({1});
  PL_ENFORCE(start <= stop,
             errors::InvalidArgument("op `%s` attribute `stop_axis`: expected a dim >= "
                                     "start_axis %d (given %d), received %d (given %d) for input "
                                     "`X` of shape %s",
                                     op, start, start_attr, stop, stop_attr, x.ToString()));
  std::vector<int64_t> out;
  for (int i = 0; i < start; ++i) out.push_back(x[i]);
  out.push_back(framework::Product(x, start, stop + 1));  // -1 when a merged dim is unknown.
  for (int i = stop + 1; i < rank; ++i) out.push_back(x[i]);
  return DDim(out);
}

void FlattenInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const DDim out =
      FlattenDims(ctx->OpType(), x, ctx->Attr<int>("start_axis"), ctx->Attr<int>("stop_axis"));
  ctx->SetOutputDim("Out", out);
  if (ctx->HasOutput("XShape")) {
    std::vector<int64_t> xs = x.ToVector();
    xs.insert(xs.begin(), 0);
    PL_ENFORCE(xs.size() <= static_cast<size_t>(DDim::kMaxRank),
               errors::InvalidArgument("op `%s` output `XShape`: input `X` of rank %d leaves no "
                                       "room for the leading 0",
                                       ctx->OpType(), x.size()));
    ctx->SetOutputDim("XShape", DDim(xs));
  }
  if (x.size() > 0 && out[0] == x[0]) ctx->ShareLoD("X", "Out");
}

void FlattenInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType dtype = ctx->GetInputDataType("X");
  for (const char* slot : {"Out", "XShape"}) {
    if (!ctx->HasOutput(slot)) continue;
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, dtype);
  }
}

template <typename T>
struct FlattenKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    if (DenseTensor* xshape = ctx.Output("XShape")) {
      xshape->set_lod({});
      xshape->mutable_data<T>(ctx.GetPlace());  // 0 elements: marks it as produced.
    }
    if (out == x) return;  // In place: infer-shape already gave X its new dims.
    const bool keep_lod =
        out->dims().size() > 0 && x->dims().size() > 0 && out->dims()[0] == x->dims()[0];
    out->set_lod(keep_lod ? x->lod() : framework::LoD{});
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (x->numel() > 0) std::memcpy(o, x->data<T>(), x->numel() * sizeof(T));
  }
};

// ---- flatten_contiguous_range_grad ----

DDim DimsFromXShape(const DDim& xshape) {
  PL_ENFORCE(xshape.size() >= 1,
             errors::InvalidArgument("op `%s` input `XShape`: expected rank >= 1 ([0] + X.dims), "
                                     "received shape %s",
                                     kGradOp, xshape.ToString()));
  return framework::Slice(xshape, 1, xshape.size());
}

void FlattenGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("XShape");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim x = DimsFromXShape(ctx->GetInputDim("XShape"));
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  PL_ENFORCE(x.numel() < 0 || dout.numel() < 0 || x.numel() == dout.numel(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld elements (X has "
                                     "shape %s), received shape %s",
                                     ctx->OpType(), static_cast<long long>(x.numel()), x.ToString(),
                                     dout.ToString()));
  ctx->SetOutputDim("X@GRAD", x);
}

void FlattenGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("X@GRAD", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("X@GRAD", ctx->GetInputDataType("Out@GRAD"));
}

template <typename T>
struct FlattenGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    DenseTensor* dx = ctx.Output("X@GRAD");
    const DDim x_dims = DimsFromXShape(ctx.Input("XShape")->dims());
    PL_ENFORCE(x_dims.numel() == dout->numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld elements (X has "
                                       "shape %s), received shape %s",
                                       kGradOp, static_cast<long long>(x_dims.numel()),
                                       x_dims.ToString(), dout->dims().ToString()));
    dx->Resize(x_dims);
    if (dx == dout) return;  // In place: only the dims change.
    dx->set_lod({});
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    if (dout->numel() > 0) std::memcpy(o, dout->data<T>(), dout->numel() * sizeof(T));
  }
};

framework::AttributeMap AxisAttrs(const framework::GradOpBuilder& g) {
  framework::AttributeMap attrs;
  for (const char* name : {"start_axis", "stop_axis"}) {
    if (g.Forward().HasAttr(name)) attrs[name] = g.Forward().GetAttr(name);
  }
  return attrs;
}

// flatten_contiguous_range -> flatten_contiguous_range_grad(XShape, Out@GRAD); X is not read.
void FlattenGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  PL_ENFORCE(!g->Output("XShape").empty(),
             errors::InvalidArgument("op `%s` output `XShape`: the gradient reads X's dims from "
                                     "XShape, but the op producing `%s` has none",
                                     kOp, g->Output("Out").empty() ? "" : g->Output("Out")[0]));
  g->AddOp(kGradOp, {{"XShape", g->Output("XShape")}, {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}}, AxisAttrs(*g));
}

// The grad op is linear in Out@GRAD: its gradient flattens the gradient of X@GRAD again.
void FlattenGradGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Out@GRAD")) return;
  g->AddOp(kOp, {{"X", g->OutputGrad("X@GRAD")}},
           {{"Out", g->InputGrad("Out@GRAD")}, {"XShape", {g->NewTemp("xshape")}}}, AxisAttrs(*g));
}

}  // namespace

PL_REGISTER_OPS(RegisterFlattenContiguousRangeOp) {
  framework::RegisterOp<FlattenOp, FlattenOpMaker>(kOp)
      .InferShape(FlattenInferShape)
      .InferVarType(FlattenInferVarType)
      .GradOpMaker(FlattenGradMaker);
  RegisterPlainCpuKernels<FlattenKernel, float, double, int32_t, int64_t, bool, uint8_t, int8_t>(
      kOp);
  framework::RegisterOp<FlattenOp, FlattenGradOpMaker>(kGradOp)
      .InferShape(FlattenGradInferShape)
      .InferVarType(FlattenGradInferVarType)
      .GradOpMaker(FlattenGradGradMaker);
  RegisterPlainCpuKernels<FlattenGradKernel, float, double>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
