// reshape2: Out = X with new dims (same elements in the same row-major order), and
// reshape2_grad, its backward: X@GRAD = Out@GRAD with the dims of X (read from XShape).
// reshape, the first version (no XShape, in older programs), and its reshape_grad, which
// reads X's dims from X itself (its buffer is not needed), share the kernels.

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "reshape2";

// kV2: reshape2 (with XShape); else reshape, the first version.
template <bool kV2>
class Reshape2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor to reshape.");
    AddInput("Shape", "Optional 1-D int32 tensor with the new shape; overrides `shape`.")
        .AsDispensable();
    AddInput("ShapeTensor",
             "Optional list of 1-element int32/int64 tensors, one per dim; overrides `Shape` "
             "and `shape`.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Out", "X with the new shape.");
    if (kV2) {
      AddOutput("XShape", "[0] + X.dims; carries no data, kept for the grad op.")
          .AsIntermediate()
          .AsDispensable();
    }
    AddAttr<std::vector<int>>("shape",
                              "The new shape. 0 copies the dim of X at the same index; one dim "
                              "may be -1 and is inferred from the element count.")
        .SetDefault({});
    AddComment(kV2 ? kDoc : kV1Doc);
  }

 private:
  static constexpr const char* kV1Doc = R"DOC(
Reshape operator (version 1: reshape2 without XShape, found in older programs).

$$Out = \mathrm{reshape}(X, shape), \quad \mathrm{numel}(Out) = \mathrm{numel}(X)$$

The shape comes from ShapeTensor, else Shape, else the attribute `shape`, as in reshape2.

Gradient: $$dX = \mathrm{reshape}(dOut, X.dims)$$ by the op reshape_grad, which reads only X's
dims (its buffer can be freed after the forward pass) and Out@GRAD; its own gradient is a
reshape with this op's shape inputs.
)DOC";
  static constexpr const char* kDoc = R"DOC(
Reshape operator (version 2, with XShape).

$$Out = \mathrm{reshape}(X, shape), \quad \mathrm{numel}(Out) = \mathrm{numel}(X)$$

The shape comes from ShapeTensor, else Shape, else the attribute `shape`. Example: X of shape
[2, 3, 4] with shape = [0, -1] gives Out of shape [2, 12]; shape = [-1, 2, 2] gives [6, 2, 2].

Gradient: $$dX = \mathrm{reshape}(dOut, XShape.dims[1:])$$ by the op reshape2_grad, which reads
only XShape and Out@GRAD (X's buffer can be freed after the forward pass). reshape2_grad is
itself differentiable: its gradient is a reshape2 with this op's shape inputs.
)DOC";
};

class Reshape2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  // The kernel follows X, not the integer shape inputs.
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

// Resolves 0 and -1 entries of `shape` against `in`. `origin` names where the shape came
// from. At build time dims of `in` may be -1 (unknown); the result then may hold -1 too.
DDim ResolveShape(const std::string& op, const std::vector<int64_t>& shape, const DDim& in,
                  const std::string& origin) {
  PL_ENFORCE(shape.size() <= static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s` %s: expected at most %d dims, received %zu", op,
                                     origin, DDim::kMaxRank, shape.size()));
  std::vector<int64_t> out(shape.size(), -1);
  int infer_index = -1;
  int64_t known = 1;  // Product of the resolved dims other than the -1 one.
  bool unknown = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      PL_ENFORCE(infer_index < 0,
                 errors::InvalidArgument("op `%s` %s: expected at most one -1, received %s", op,
                                         origin, ListToString(shape)));
      infer_index = static_cast<int>(i);
      continue;
    }
    if (shape[i] == 0) {
      PL_ENFORCE(static_cast<int>(i) < in.size(),
                 errors::InvalidArgument("op `%s` %s: 0 at index %zu copies a dim of input `X`, "
                                         "but X has shape %s",
                                         op, origin, i, in.ToString()));
      out[i] = in[static_cast<int>(i)];
    } else {
      PL_ENFORCE(shape[i] > 0,
                 errors::InvalidArgument("op `%s` %s: expected dims > 0, 0 or -1, received %s", op,
                                         origin, ListToString(shape)));
      out[i] = shape[i];
    }
    unknown |= out[i] < 0;
  }
  // With the -1 entry still -1, the shape must be one a tensor can have: its known dims
  // multiplied must fit in int64 (so `known` below cannot overflow either).
  CheckShapeValues(op, origin, out, /*allow_unknown=*/true);
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] >= 0) known *= out[i];
  }
  const int64_t in_numel = in.numel();
  if (infer_index >= 0) {
    if (unknown || in_numel < 0) {
      out[infer_index] = -1;
    } else {
      PL_ENFORCE(known > 0,
                 errors::InvalidArgument("op `%s` %s: cannot infer the -1 dim of %s when the "
                                         "other dims multiply to 0",
                                         op, origin, ListToString(shape)));
      PL_ENFORCE(
          in_numel % known == 0,
          errors::InvalidArgument("op `%s` %s: cannot infer the -1 dim of %s, input `X` "
                                  "has %lld elements (shape %s), not a multiple of %lld",
                                  op, origin, ListToString(shape), static_cast<long long>(in_numel),
                                  in.ToString(), static_cast<long long>(known)));
      out[infer_index] = in_numel / known;
    }
  } else if (!unknown && in_numel >= 0) {
    PL_ENFORCE(known == in_numel,
               errors::InvalidArgument("op `%s` %s: expected %lld elements (input `X` has shape "
                                       "%s), received %s with %lld elements",
                                       op, origin, static_cast<long long>(in_numel), in.ToString(),
                                       ListToString(shape), static_cast<long long>(known)));
  }
  return DDim(out);
}

DDim XShapeDims(const DDim& x) {
  std::vector<int64_t> d = x.ToVector();
  d.insert(d.begin(), 0);
  PL_ENFORCE(d.size() <= static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s` output `XShape`: input `X` of rank %d leaves no "
                                     "room for the leading 0 (max rank %d)",
                                     kOp, x.size(), DDim::kMaxRank));
  return DDim(d);
}

void Reshape2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  if (ctx->HasOutput("XShape")) ctx->SetOutputDim("XShape", XShapeDims(x));
  if (ctx->HasInput("ShapeTensor") || ctx->HasInput("Shape")) {
    if (ctx->IsRuntime()) return;  // The kernel reads the values.
    // Build time: only the rank is known.
    int64_t rank = static_cast<int64_t>(ctx->InputSize("ShapeTensor"));
    if (rank == 0) rank = ctx->GetInputDim("Shape").numel();
    if (rank >= 0 && rank <= DDim::kMaxRank) {
      ctx->SetOutputDim("Out", DDim(std::vector<int64_t>(rank, -1)));
    }
    return;
  }
  const auto& attr = ctx->Attr<std::vector<int>>("shape");
  const DDim out = ResolveShape(ctx->OpType(), std::vector<int64_t>(attr.begin(), attr.end()), x,
                                "attribute `shape`");
  ctx->SetOutputDim("Out", out);
  if (!ctx->IsRuntime() && out.size() > 0 && x.size() > 0 && out[0] == x[0]) {
    ctx->ShareLoD("X", "Out");
  }
}

void Reshape2InferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType dtype = ctx->GetInputDataType("X");
  for (const char* slot : {"Out", "XShape"}) {
    if (!ctx->HasOutput(slot)) continue;
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, dtype);
  }
}

// The new shape given by the ShapeTensor list, else by Shape (one of them is given).
DDim ShapeFromTensors(const ExecutionContext& ctx, const DDim& x) {
  std::vector<int64_t> shape;
  if (ctx.HasInput("ShapeTensor")) {
    for (const DenseTensor* t : ctx.MultiInput("ShapeTensor")) {
      PL_ENFORCE(t->numel() == 1,
                 errors::InvalidArgument("op `%s` input `ShapeTensor`: expected 1-element "
                                         "tensors, received shape %s",
                                         ctx.Type(), t->dims().ToString()));
      shape.push_back(ReadIntValues(*t, ctx.Type(), "ShapeTensor")[0]);
    }
    return ResolveShape(ctx.Type(), shape, x, "input `ShapeTensor`");
  }
  const DenseTensor* t = ctx.Input("Shape");
  PL_ENFORCE(t->dims().size() == 1,
             errors::InvalidArgument("op `%s` input `Shape`: expected a 1-D tensor, received "
                                     "shape %s",
                                     ctx.Type(), t->dims().ToString()));
  return ResolveShape(ctx.Type(), ReadIntValues(*t, ctx.Type(), "Shape"), x, "input `Shape`");
}

template <typename T>
struct Reshape2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    if (DenseTensor* xshape = ctx.Output("XShape")) {
      xshape->set_lod({});
      xshape->mutable_data<T>(ctx.GetPlace());  // 0 elements: marks it as produced.
    }
    // Shape tensors are read here (run-time infer-shape leaves them to the kernel), before
    // an in-place Out (the variable of X) changes X's dims.
    if (ctx.HasInput("ShapeTensor") || ctx.HasInput("Shape")) {
      out->Resize(ShapeFromTensors(ctx, x->dims()));
    }
    if (out == x) return;  // In place: only the dims change.
    // The LoD describes dim 0, so it survives only when dim 0 does.
    const bool keep_lod =
        out->dims().size() > 0 && x->dims().size() > 0 && out->dims()[0] == x->dims()[0];
    out->set_lod(keep_lod ? x->lod() : framework::LoD{});
    // Out gets its own copy, as PaddlePaddle's reshape kernel does: nothing written to
    // Out later can reach X.
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (x->numel() > 0) {
      platform::Copy(ctx.GetPlace(), o, x->place(), x->data<T>(), x->numel() * sizeof(T));
    }
  }
};

// ---- reshape2_grad ----

constexpr char kGradOp[] = "reshape2_grad";

// kV2: reshape2_grad (X's dims from XShape); else reshape_grad (from X, its buffer unused).
template <bool kV2>
class Reshape2GradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    if (kV2) {
      AddInput("XShape", "XShape of the forward reshape2: [0] + X.dims, no data.").AsNoNeedBuffer();
    } else {
      AddInput("X", "The forward reshape's X; only its dims are read.").AsNoNeedBuffer();
    }
    AddInput("Out@GRAD", "Gradient of the forward output Out.");
    AddInput("Shape",
             "The forward reshape2's `Shape` input, when it had one; read only by the gradient "
             "of this op.")
        .AsDispensable();
    AddInput("ShapeTensor",
             "The forward reshape2's `ShapeTensor` inputs, when it had them; read only by the "
             "gradient of this op.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("X@GRAD", "Gradient of the forward input X: Out@GRAD with the dims of X.");
    AddAttr<std::vector<int>>("shape",
                              "The forward reshape2's `shape` attribute; read only by the "
                              "gradient of this op.")
        .SetDefault({});
    AddComment(R"DOC(
Gradient of reshape2 (reshape2_grad) and of reshape (reshape_grad).

$$X@GRAD = \mathrm{reshape}(Out@GRAD, X.dims)$$

X's dims come from XShape (reshape2_grad; XShape.dims[1:]) or from X (reshape_grad), whose
data is not read, so the forward X need not be kept. Its own gradient is the forward op
applied to the gradient of X@GRAD with the forward op's shape inputs and attribute, which
gives the dims of Out back.
)DOC");
  }
};

class Reshape2GradOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  // The kernel follows Out@GRAD; XShape holds no data.
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Out@GRAD");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

// X.dims from XShape's dims [0] + X.dims.
DDim DimsFromXShape(const DDim& xshape) {
  PL_ENFORCE(xshape.size() >= 1,
             errors::InvalidArgument("op `%s` input `XShape`: expected rank >= 1 ([0] + X.dims), "
                                     "received shape %s",
                                     kGradOp, xshape.ToString()));
  std::vector<int64_t> d = xshape.ToVector();
  d.erase(d.begin());
  return DDim(d);
}

// The grad op's slot holding X's dims: XShape (reshape2_grad) or X (reshape_grad).
bool HasXShape(const std::string& grad_op) { return grad_op == kGradOp; }

void Reshape2GradInferShape(InferShapeContext* ctx) {
  const bool v2 = HasXShape(ctx->OpType());
  ctx->RequireInput(v2 ? "XShape" : "X");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim x = v2 ? DimsFromXShape(ctx->GetInputDim("XShape")) : ctx->GetInputDim("X");
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  if (x.numel() >= 0 && dout.numel() >= 0) {
    PL_ENFORCE(x.numel() == dout.numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld elements (X has "
                                       "shape %s), received shape %s",
                                       ctx->OpType(), static_cast<long long>(x.numel()),
                                       x.ToString(), dout.ToString()));
  }
  ctx->SetOutputDim("X@GRAD", x);
}

void Reshape2GradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("X@GRAD", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("X@GRAD", ctx->GetInputDataType("Out@GRAD"));
}

template <typename T>
struct Reshape2GradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    DenseTensor* dx = ctx.Output("X@GRAD");
    const DDim x_dims = HasXShape(ctx.Type()) ? DimsFromXShape(ctx.Input("XShape")->dims())
                                              : ctx.Input("X")->dims();
    PL_ENFORCE(x_dims.numel() == dout->numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld elements (X has "
                                       "shape %s), received shape %s",
                                       ctx.Type(), static_cast<long long>(x_dims.numel()),
                                       x_dims.ToString(), dout->dims().ToString()));
    if (dx == dout) {  // In place: only the dims change.
      dx->Resize(x_dims);
      return;
    }
    dx->Resize(x_dims);
    dx->set_lod({});
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    if (dout->numel() > 0) {
      platform::Copy(ctx.GetPlace(), o, dout->place(), dout->data<T>(), dout->numel() * sizeof(T));
    }
  }
};

// Forward slots the gradient ops carry along: the shape inputs of reshape2.
void CopyShapeInputs(const framework::GradOpBuilder& g, framework::VariableNameMap* inputs) {
  for (const char* slot : {"Shape", "ShapeTensor"}) {
    if (g.HasInput(slot)) (*inputs)[slot] = g.Input(slot);
  }
}

// Attributes the gradient ops carry along: `shape` (when the forward op has it).
framework::AttributeMap ShapeAttr(const framework::GradOpBuilder& g) {
  framework::AttributeMap attrs;
  if (g.Forward().HasAttr("shape")) attrs["shape"] = g.Forward().GetAttr("shape");
  return attrs;
}

// reshape2 -> reshape2_grad(XShape, Out@GRAD) -> X@GRAD. X itself is not read.
// reshape -> reshape_grad(X, Out@GRAD) -> X@GRAD, reading only X's dims.
void Reshape2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  if (g->ForwardType() == "reshape") {
    framework::VariableNameMap inputs = {{"X", g->Input("X")}, {"Out@GRAD", g->OutputGrad("Out")}};
    CopyShapeInputs(*g, &inputs);
    g->AddOp("reshape_grad", inputs, {{"X@GRAD", g->InputGrad("X")}}, ShapeAttr(*g));
    return;
  }
  PL_ENFORCE(!g->Output("XShape").empty(),
             errors::InvalidArgument("op `%s` output `XShape`: the gradient reads X's dims from "
                                     "XShape, but the op producing `%s` has none",
                                     kOp, g->Output("Out").empty() ? "" : g->Output("Out")[0]));
  framework::VariableNameMap inputs = {{"XShape", g->Output("XShape")},
                                       {"Out@GRAD", g->OutputGrad("Out")}};
  CopyShapeInputs(*g, &inputs);
  g->AddOp(kGradOp, inputs, {{"X@GRAD", g->InputGrad("X")}}, ShapeAttr(*g));
}

// reshape2_grad is linear in Out@GRAD: the gradient of Out@GRAD is the gradient of X@GRAD
// reshaped like the forward op did (its `shape` resolves against X's dims).
void Reshape2GradGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Out@GRAD")) return;
  framework::VariableNameMap inputs = {{"X", g->OutputGrad("X@GRAD")}};
  CopyShapeInputs(*g, &inputs);
  if (g->ForwardType() == "reshape_grad") {
    g->AddOp("reshape", inputs, {{"Out", g->InputGrad("Out@GRAD")}}, ShapeAttr(*g));
    return;
  }
  g->AddOp(kOp, inputs,
           {{"Out", g->InputGrad("Out@GRAD")}, {"XShape", {g->NewTemp("xshape")}}},
           ShapeAttr(*g));
}

}  // namespace

PL_REGISTER_OPS(RegisterReshape2Op) {
  for (const bool v2 : {true, false}) {
    const std::string type = v2 ? kOp : "reshape";
    const std::string grad = v2 ? kGradOp : "reshape_grad";
    framework::OpRegistrar op =
        v2 ? framework::RegisterOp<Reshape2Op, Reshape2OpMaker<true>>(type)
           : framework::RegisterOp<Reshape2Op, Reshape2OpMaker<false>>(type);
    op.InferShape(Reshape2InferShape)
        .InferVarType(Reshape2InferVarType)
        .GradOpMaker(Reshape2GradMaker);
    RegisterPlainElementKernelsOnEveryDevice<Reshape2Kernel>(type);
    framework::OpRegistrar grad_op =
        v2 ? framework::RegisterOp<Reshape2GradOp, Reshape2GradOpMaker<true>>(grad)
           : framework::RegisterOp<Reshape2GradOp, Reshape2GradOpMaker<false>>(grad);
    grad_op.InferShape(Reshape2GradInferShape)
        .InferVarType(Reshape2GradInferVarType)
        .GradOpMaker(Reshape2GradGradMaker);
    RegisterPlainKernelsOnEveryDevice<Reshape2GradKernel, float, double, int32_t, int64_t,
                                      std::complex<float>, std::complex<double>>(grad);
  }
}

}  // namespace operators
}  // namespace paddle_like
