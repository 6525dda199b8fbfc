// flatten_contiguous_range: merges the dims [start_axis, stop_axis] of X into one, and
// flatten_contiguous_range_grad, its backward (X@GRAD = Out@GRAD with X's dims from XShape).
// Also the 1.x forms flatten2 and flatten, which make X a matrix at `axis`, with their grads
// flatten2_grad (X's dims from XShape, like flatten_contiguous_range_grad) and flatten_grad
// (X's dims from X, whose data it does not read).
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

// flatten2 and flatten (1.x): X as the matrix [prod(X.dims[:axis]), prod(X.dims[axis:])].
class Flatten2OpMaker : public OpProtoAndCheckerMaker {
 public:
  explicit Flatten2OpMaker(bool with_xshape = true) : with_xshape_(with_xshape) {}
  void Make() override {
    AddInput("X", "Tensor to flatten.");
    AddOutput("Out", "X as a matrix: [prod(X.dims[:axis]), prod(X.dims[axis:])].");
    if (with_xshape_) {
      AddOutput("XShape", "[0] + X.dims; carries no data, kept for the grad op.")
          .AsIntermediate()
          .AsDispensable();
    }
    AddAttr<int>("axis", "Dims before `axis` make the rows, the rest the columns; in [0, rank].")
        .SetDefault(1);
    AddComment(R"DOC(
Flatten X into a matrix (PaddlePaddle 1.x's flatten / flatten2).

$$Out.dims = [\textstyle\prod_{i<axis} X.dims[i],\ \prod_{i \ge axis} X.dims[i]]$$

with an empty product 1, so axis = 0 gives [1, numel]. The elements keep their row-major
order. Example: X of shape [3, 2, 4, 4] with axis = 2 gives [6, 16].

Gradient: $$dX = \mathrm{reshape}(dOut, X.dims)$$ (flatten2_grad reads X's dims from
XShape; flatten_grad from X, without its data); the grad op's own gradient flattens again.
)DOC");
  }

 private:
  bool with_xshape_;
};

class FlattenV1OpMaker : public Flatten2OpMaker {
 public:
  FlattenV1OpMaker() : Flatten2OpMaker(false) {}
};

class Flatten2GradOpMaker : public OpProtoAndCheckerMaker {
 public:
  explicit Flatten2GradOpMaker(bool v1 = false) : v1_(v1) {}
  void Make() override {
    if (v1_) {
      AddInput("X", "The forward op's X (only its dims are read).").AsNoNeedBuffer();
    } else {
      AddInput("XShape", "The forward op's XShape: [0] + X.dims, no data.").AsNoNeedBuffer();
      AddInput("X", "Not read; accepted because PaddlePaddle's programs may pass it.")
          .AsDispensable()
          .AsNoNeedBuffer();
    }
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X: Out@GRAD with X's dims.");
    AddAttr<int>("axis", "The forward op's axis; read by this op's gradient.").SetDefault(1);
    AddComment(R"DOC(
Gradient of flatten2 / flatten: $$X@GRAD = \mathrm{reshape}(Out@GRAD, X.dims)$$
)DOC");
  }

 private:
  bool v1_;
};

class FlattenV1GradOpMaker : public Flatten2GradOpMaker {
 public:
  FlattenV1GradOpMaker() : Flatten2GradOpMaker(true) {}
};

// The kernel follows X (forward) or Out@GRAD (backward; XShape holds no data).
class FlattenOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X";
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

// flatten2 / flatten: [prod(x[:axis]), prod(x[axis:])], each -1 when a dim in it is unknown.
DDim MatrixDims(const std::string& op, const DDim& x, int axis) {
  PL_ENFORCE(axis >= 0 && axis <= x.size(),
             errors::InvalidArgument("op `%s` attribute `axis`: expected a value in [0, %d] for "
                                     "input `X` of shape %s, received %d",
                                     op, x.size(), x.ToString(), axis));
  return DDim({framework::Product(x, 0, axis), framework::Product(x, axis, x.size())});
}

// Out's dims `out`, and what both families set after them: XShape ([0] + X.dims) and, when
// the first dim stays, X's LoD.
void SetFlattenOutputs(InferShapeContext* ctx, const DDim& x, const DDim& out) {
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

void FlattenInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  SetFlattenOutputs(ctx, x,
                    FlattenDims(ctx->OpType(), x, ctx->Attr<int>("start_axis"),
                                ctx->Attr<int>("stop_axis")));
}

void MatrixFlattenInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  SetFlattenOutputs(ctx, x, MatrixDims(ctx->OpType(), x, ctx->Attr<int>("axis")));
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
    if (DenseTensor* xshape = ctx.HasOutput("XShape") ? ctx.Output("XShape") : nullptr) {
      xshape->set_lod({});
      xshape->mutable_data<T>(ctx.GetPlace());  // 0 elements: marks it as produced.
    }
    if (out == x) return;  // In place: infer-shape already gave X its new dims.
    const bool keep_lod =
        out->dims().size() > 0 && x->dims().size() > 0 && out->dims()[0] == x->dims()[0];
    out->set_lod(keep_lod ? x->lod() : framework::LoD{});
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (x->numel() > 0) {
      platform::Copy(ctx.GetPlace(), o, x->place(), x->data<T>(), x->numel() * sizeof(T));
    }
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
  const bool from_x = !ctx->HasInput("XShape");  // flatten_grad reads X's dims from X.
  ctx->RequireInput(from_x ? "X" : "XShape");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim x =
      from_x ? ctx->GetInputDim("X") : DimsFromXShape(ctx->GetInputDim("XShape"));
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
    const DDim x_dims = ctx.HasInput("XShape") ? DimsFromXShape(ctx.Input("XShape")->dims())
                                               : ctx.Input("X")->dims();
    PL_ENFORCE(x_dims.numel() == dout->numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld elements (X has "
                                       "shape %s), received shape %s",
                                       ctx.Type(), static_cast<long long>(x_dims.numel()),
                                       x_dims.ToString(), dout->dims().ToString()));
    dx->Resize(x_dims);
    if (dx == dout) return;  // In place: only the dims change.
    dx->set_lod({});
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    if (dout->numel() > 0) {
      platform::Copy(ctx.GetPlace(), o, dout->place(), dout->data<T>(), dout->numel() * sizeof(T));
    }
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

framework::AttributeMap AxisAttr(const framework::GradOpBuilder& g) {
  framework::AttributeMap attrs;
  if (g.Forward().HasAttr("axis")) attrs["axis"] = g.Forward().GetAttr("axis");
  return attrs;
}

// flatten2 -> flatten2_grad(XShape, Out@GRAD); flatten -> flatten_grad(X, Out@GRAD), X's
// dims only. Their gradients flatten the gradient of X@GRAD again.
void Flatten2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const bool v1 = g->ForwardType() == "flatten";
  if (!v1) {
    PL_ENFORCE(!g->Output("XShape").empty(),
               errors::InvalidArgument("op `flatten2` output `XShape`: the gradient reads X's "
                                       "dims from XShape, but the op producing `%s` has none",
                                       g->Output("Out").empty() ? "" : g->Output("Out")[0]));
  }
  g->AddOp(g->ForwardType() + "_grad",
           {{v1 ? "X" : "XShape", v1 ? g->Input("X") : g->Output("XShape")},
            {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}}, AxisAttr(*g));
}

void Flatten2GradGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Out@GRAD")) return;
  g->AddOp("flatten2", {{"X", g->OutputGrad("X@GRAD")}},
           {{"Out", g->InputGrad("Out@GRAD")}, {"XShape", {g->NewTemp("xshape")}}}, AxisAttr(*g));
}

// One op of the flatten family with its kernels, and its grad op with its kernels.
template <typename Maker, typename GradMaker>
void RegisterFlattenFamilyOp(const std::string& type, framework::InferShapeFn infer_shape,
                             framework::GradOpMakerFn grad_maker,
                             framework::GradOpMakerFn grad_grad_maker) {
  framework::RegisterOp<FlattenOp, Maker>(type)
      .InferShape(std::move(infer_shape))
      .InferVarType(FlattenInferVarType)
      .GradOpMaker(std::move(grad_maker));
  RegisterPlainElementKernelsOnEveryDevice<FlattenKernel>(type);
  framework::RegisterOp<FlattenOp, GradMaker>(type + "_grad")
      .InferShape(FlattenGradInferShape)
      .InferVarType(FlattenGradInferVarType)
      .GradOpMaker(std::move(grad_grad_maker));
  RegisterPlainKernelsOnEveryDevice<FlattenGradKernel, float, double, std::complex<float>,
                                    std::complex<double>>(type + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterFlatten2Ops) {
  RegisterFlattenFamilyOp<Flatten2OpMaker, Flatten2GradOpMaker>(
      "flatten2", MatrixFlattenInferShape, Flatten2GradMaker, Flatten2GradGradMaker);
  RegisterFlattenFamilyOp<FlattenV1OpMaker, FlattenV1GradOpMaker>(
      "flatten", MatrixFlattenInferShape, Flatten2GradMaker, Flatten2GradGradMaker);
}

PL_REGISTER_OPS(RegisterFlattenContiguousRangeOp) {
  RegisterFlattenFamilyOp<FlattenOpMaker, FlattenGradOpMaker>(kOp, FlattenInferShape,
                                                              FlattenGradMaker,
                                                              FlattenGradGradMaker);
}

}  // namespace operators
}  // namespace paddle_like
