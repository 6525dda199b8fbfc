// concat: joins tensors along one dim, and concat_grad, its fused backward (used when the
// sizes along the axis are unknown when the backward pass is built; otherwise the backward
// is a `split`).
#include <limits>
#include <string>
#include <vector>

#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/concat_split_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "concat";
constexpr char kGradOp[] = "concat_grad";

class ConcatOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensors of one rank (>= 1) and dtype, equal in every dim but `axis`.")
        .AsDuplicable();
    AddInput("AxisTensor", "Optional 1-element int32/int64 tensor; overrides `axis`.")
        .AsDispensable();
    AddOutput("Out", "The inputs joined along `axis`.");
    AddAttr<int>("axis", "The dim to join along; negative values count from the end.")
        .SetDefault(0);
    AddComment(R"DOC(
Concat operator.

$$Out = [X_0; X_1; \ldots; X_{n-1}] \text{ along } axis, \quad
Out.dims[axis] = \textstyle\sum_i X_i.dims[axis]$$

Example: X_0 [[1, 2]], X_1 [[3, 4], [5, 6]] with axis = 0 -> [[1, 2], [3, 4], [5, 6]].
Inputs may be empty along the axis.

Gradient: each input takes its slice of dOut,
$$dX_i = dOut[\ldots, o_i : o_i + X_i.dims[axis], \ldots],
\quad o_i = \textstyle\sum_{j<i} X_j.dims[axis]$$
emitted as a `split` with `sections` when the sizes are known when the backward is built
(differentiable again), else as the fused op concat_grad.
)DOC");
  }
};

class ConcatGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's inputs (only their dims are read).")
        .AsDuplicable()
        .AsNoNeedBuffer();
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddInput("AxisTensor", "The forward op's AxisTensor, when it had one.").AsDispensable();
    AddOutput("X@GRAD", "Gradients of the inputs, one per X, with X's dims.").AsDuplicable();
    AddAttr<int>("axis", "The forward op's axis.").SetDefault(0);
    AddComment(R"DOC(
Gradient of concat: $$dX_i = dOut[\ldots, o_i : o_i + X_i.dims[axis], \ldots]$$ with
o_i the sum of the sizes of the inputs before X_i. Its gradient is a concat of the
gradients of X@GRAD.
)DOC");
  }
};

// The kernel follows the data (X or Out@GRAD), not the integer AxisTensor.
class ConcatOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X";
    return InputDataType(ctx, slot);
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "AxisTensor" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

void ConcatInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const std::vector<DDim> xs = ctx->GetInputsDim("X");
  const int rank = xs[0].size();
  if (ctx->HasInput("AxisTensor")) {
    if (ctx->IsRuntime()) return;                              // The kernel reads the axis.
    NormalizeAxis(ctx->OpType(), "input `X`", 0, rank);  // Rank >= 1.
    ctx->SetOutputDim("Out", DDim(std::vector<int64_t>(rank, -1)));
    return;
  }
  const int axis =
      NormalizeAxis(ctx->OpType(), "attribute `axis`", ctx->Attr<int>("axis"), rank);
  ctx->SetOutputDim("Out", ConcatDims(ctx->OpType(), xs, axis));
  if (axis != 0) ctx->ShareLoD("X", "Out");
}

void ConcatInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
}

void CheckDataType(const std::string& op, const std::string& slot, size_t i, const DenseTensor& t,
                   DataType want) {
  PL_ENFORCE(t.dtype() == want,
             errors::InvalidArgument("op `%s` input `%s`: tensor #%zu is %s, expected %s like "
                                     "the others",
                                     op, slot, i, platform::DataTypeName(t.dtype()),
                                     platform::DataTypeName(want)));
}

template <typename T>
struct ConcatKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    std::vector<DDim> dims;
    for (size_t i = 0; i < xs.size(); ++i) {
      CheckDataType(kOp, "X", i, *xs[i], platform::ToDataType<T>());
      dims.push_back(xs[i]->dims());
    }
    const int axis = KernelAxis(ctx, dims[0].size());
    const DDim out_dims = ConcatDims(kOp, dims, axis);
    DenseTensor fresh(out_dims, platform::ToDataType<T>());
    T* o = fresh.mutable_data<T>(ctx.GetPlace());
    int64_t offset = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      CopyPiece(ctx.GetPlace(), out_dims, dims[i], axis, offset, xs[i]->data<T>(), o, true);
      offset += dims[i][axis];
    }
    if (axis != 0) fresh.set_lod(xs[0]->lod());
    *ctx.Output("Out") = std::move(fresh);
  }
};

// ---- concat_grad ----

template <typename T>
struct ConcatGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    std::vector<DDim> dims;
    for (size_t i = 0; i < ctx.InputSize("X"); ++i) dims.push_back(ctx.Input("X", i)->dims());
    const int axis = KernelAxis(ctx, dims[0].size());
    const DDim out_dims = ConcatDims(kGradOp, dims, axis);
    PL_ENFORCE(dout->dims() == out_dims,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       kGradOp, out_dims.ToString(), dout->dims().ToString()));
    int64_t offset = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (DenseTensor* dx = ctx.Output("X@GRAD", i)) {
        DenseTensor fresh(dims[i], dout->dtype());
        CopyPiece(ctx.GetPlace(), out_dims, dims[i], axis, offset, dout->data<T>(),
                  fresh.mutable_data<T>(ctx.GetPlace()), false);
        *dx = std::move(fresh);
      }
      offset += dims[i][axis];
    }
  }
};

// The inputs' sizes along the axis from their VarDescs, when all are known and the axis is
// the attribute; empty otherwise. `axis` receives the normalised axis.
std::vector<int> BuildTimeSections(const framework::GradOpBuilder& g, int* axis) {
  if (g.HasInput("AxisTensor")) return {};
  std::vector<int> sections;
  for (const auto& name : g.Input("X")) {
    const framework::VarDesc* v = framework::FindForwardVar(g, name);
    if (v == nullptr) return {};
    const std::vector<int64_t> shape = v->GetShape();
    const int rank = static_cast<int>(shape.size());
    const int a = g.Forward().HasAttr("axis") ? g.Attr<int>("axis") : 0;
    if (rank == 0 || a < -rank || a >= rank) return {};
    *axis = a < 0 ? a + rank : a;
    // `sections` is an INTS attribute: a size unknown or beyond int stays with concat_grad.
    if (shape[*axis] < 0 || shape[*axis] > std::numeric_limits<int>::max()) return {};
    sections.push_back(static_cast<int>(shape[*axis]));
  }
  return sections;
}

void ConcatGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::vector<std::string> dx = InputGradsOrTemps(g, "X");
  int axis = 0;
  const std::vector<int> sections = BuildTimeSections(*g, &axis);
  if (!sections.empty()) {
    g->AddOp("split", {{"X", g->OutputGrad("Out")}}, {{"Out", dx}},
             {{"axis", axis}, {"num", 0}, {"sections", sections}});
    return;
  }
  framework::VariableNameMap inputs = {{"X", g->Input("X")}, {"Out@GRAD", g->OutputGrad("Out")}};
  if (g->HasInput("AxisTensor")) inputs["AxisTensor"] = g->Input("AxisTensor");
  framework::AttributeMap attrs;
  if (g->Forward().HasAttr("axis")) attrs["axis"] = g->Forward().GetAttr("axis");
  g->AddOp(kGradOp, inputs, {{"X@GRAD", dx}}, attrs);
}

// concat_grad is linear in Out@GRAD: its gradient joins the gradients of X@GRAD.
void ConcatGradGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Out@GRAD")) return;
  framework::VariableNameMap inputs = {{"X", OutputGradsOrZeros(g, "X@GRAD")}};
  if (g->HasInput("AxisTensor")) inputs["AxisTensor"] = g->Input("AxisTensor");
  framework::AttributeMap attrs;
  if (g->Forward().HasAttr("axis")) attrs["axis"] = g->Forward().GetAttr("axis");
  g->AddOp(kOp, inputs, {{"Out", g->InputGrad("Out@GRAD")}}, attrs);
}

}  // namespace

PL_REGISTER_OPS(RegisterConcatOp) {
  framework::RegisterOp<ConcatOp, ConcatOpMaker>(kOp)
      .InferShape(ConcatInferShape)
      .InferVarType(ConcatInferVarType)
      .GradOpMaker(ConcatGradMaker);
  RegisterPlainElementKernelsOnEveryDevice<ConcatKernel>(kOp);
  framework::RegisterOp<ConcatOp, ConcatGradOpMaker>(kGradOp)
      .InferShape(InputListGradInferShape)
      .InferVarType(OutputDataTypeOf("Out@GRAD", "X@GRAD"))
      .GradOpMaker(ConcatGradGradMaker);
  RegisterPlainKernelsOnEveryDevice<ConcatGradKernel, float, double, std::complex<float>,
                                    std::complex<double>>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
