// split: cuts a tensor into pieces along one dim (the inverse of concat).
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/concat_split_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "split";

class SplitOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor of rank >= 1 to cut.");
    AddInput("AxisTensor", "Optional 1-element int32/int64 tensor; overrides `axis`.")
        .AsDispensable();
    AddInput("SectionsTensorList",
             "Optional list of 1-element int32/int64 tensors, one size per piece; overrides "
             "`sections`.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Out", "The pieces, in order along `axis`.").AsDuplicable();
    AddAttr<int>("axis", "The dim to cut along; negative values count from the end.").SetDefault(0);
    AddAttr<int>("num", "Cut into this many equal pieces (when > 0; overrides `sections`).")
        .SetDefault(0)
        .InRange(0, 1 << 30);
    AddAttr<std::vector<int>>("sections",
                              "The size of each piece along `axis`; one entry may be -1 "
                              "(the rest of the dim).")
        .SetDefault({});
    AddComment(R"DOC(
Split operator.

$$Out_i = X[\ldots, o_i : o_i + s_i, \ldots] \text{ along } axis,
\quad o_i = \textstyle\sum_{j<i} s_j$$

with s_i = X.dims[axis] / num when num > 0, else sections[i] (one -1 takes what is left).
Example: X of shape [5, 2] with sections = [2, -1] gives pieces of shapes [2, 2] and
[3, 2]; X of shape [4] with num = 2 gives [2] and [2].

Gradient: the pieces' gradients joined back,
$$dX = \mathrm{concat}(dOut_0, \ldots, dOut_{n-1}, axis)$$
(a missing piece gradient counts as zeros), emitted as a differentiable concat.
)DOC");
  }
};

// The kernel follows X, not the integer axis/section tensors.
class SplitOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot == "X" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

std::vector<int64_t> SectionsAttr(const std::vector<int>& s) {
  return std::vector<int64_t>(s.begin(), s.end());
}

void SplitInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const size_t n = ctx->OutputSize("Out");
  const int num = ctx->Attr<int>("num");
  const bool tensor_sections = num == 0 && ctx->HasInput("SectionsTensorList");
  if (ctx->HasInput("AxisTensor") || tensor_sections) {
    if (ctx->IsRuntime()) return;                                  // The kernel reads the tensors.
    NormalizeAxis(ctx->OpType(), "input `X`", 0, x.size());  // Rank >= 1.
    int axis = -1;
    if (!ctx->HasInput("AxisTensor")) {
      axis =
          NormalizeAxis(ctx->OpType(), "attribute `axis`", ctx->Attr<int>("axis"), x.size());
    }
    for (size_t i = 0; i < n; ++i) {
      DDim piece = axis < 0 ? DDim(std::vector<int64_t>(x.size(), -1)) : x;
      if (axis >= 0) piece[axis] = -1;
      ctx->SetOutputDim("Out", piece, i);
    }
    return;
  }
  const int axis =
      NormalizeAxis(ctx->OpType(), "attribute `axis`", ctx->Attr<int>("axis"), x.size());
  const std::vector<int64_t> sizes =
      SplitSizes(ctx->OpType(), x[axis], num, SectionsAttr(ctx->Attr<std::vector<int>>("sections")),
                 n, "attribute `sections`");
  for (size_t i = 0; i < n; ++i) {
    DDim piece = x;
    piece[axis] = sizes[i];
    ctx->SetOutputDim("Out", piece, i);
  }
  if (axis != 0) ctx->ShareLoD("X", "Out");  // The kernel gives every piece X's LoD.
}

void SplitInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
}

template <typename T>
struct SplitKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DDim x_dims = x->dims();
    const int axis = KernelAxis(ctx, x_dims.size());
    const int num = ctx.Attr<int>("num");
    std::vector<int64_t> sections = SectionsAttr(ctx.Attr<std::vector<int>>("sections"));
    std::string origin = "attribute `sections`";
    if (num == 0 && ctx.HasInput("SectionsTensorList")) {
      sections = ReadOneElementInts(ctx, "SectionsTensorList");
      origin = "input `SectionsTensorList`";
    }
    const size_t n = ctx.OutputSize("Out");
    const std::vector<int64_t> sizes = SplitSizes(kOp, x_dims[axis], num, sections, n, origin);
    int64_t offset = 0;
    for (size_t i = 0; i < n; ++i) {
      DDim piece = x_dims;
      piece[axis] = sizes[i];
      DenseTensor fresh(piece, x->dtype());
      CopyPiece(ctx.GetPlace(), x_dims, piece, axis, offset, x->data<T>(),
                fresh.mutable_data<T>(ctx.GetPlace()), false);
      if (axis != 0) fresh.set_lod(x->lod());
      offset += sizes[i];
      if (DenseTensor* out = ctx.Output("Out", i)) *out = std::move(fresh);
    }
  }
};

// dX = concat(dOut_i) along the same axis; pieces without a gradient count as zeros.
void SplitGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  framework::VariableNameMap inputs = {{"X", OutputGradsOrZeros(g, "Out")}};
  if (g->HasInput("AxisTensor")) inputs["AxisTensor"] = g->Input("AxisTensor");
  framework::AttributeMap attrs;
  if (g->Forward().HasAttr("axis")) attrs["axis"] = g->Forward().GetAttr("axis");
  g->AddOp("concat", inputs, {{"Out", g->InputGrad("X")}}, attrs);
}

}  // namespace

PL_REGISTER_OPS(RegisterSplitOp) {
  framework::RegisterOp<SplitOp, SplitOpMaker>(kOp)
      .InferShape(SplitInferShape)
      .InferVarType(SplitInferVarType)
      .GradOpMaker(SplitGradMaker);
  RegisterPlainKernelsOnEveryDevice<SplitKernel, float, double, int32_t, int64_t, bool, uint8_t,
                                    int8_t, std::complex<float>, std::complex<double>>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
