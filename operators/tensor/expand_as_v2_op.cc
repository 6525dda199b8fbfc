// expand_as_v2: X broadcast to the shape of Y (or of the attribute target_shape).
#include <complex>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "expand_as_v2";

class ExpandAsV2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to broadcast.");
    AddInput("Y", "Optional; gives the output shape (its data is not read).")
        .AsDispensable()
        .AsNoNeedBuffer();
    AddOutput("Out", "X broadcast to the target shape, with X's dtype.");
    AddAttr<std::vector<int>>("target_shape", "The output shape when Y is not given (dims >= 0).")
        .SetDefault({});
    AddAttr<int>("axis",
                 "Dim of the target shape where X starts, as in the elementwise ops; -1 aligns "
                 "the trailing dims.")
        .SetDefault(-1);
    AddComment(R"DOC(
ExpandAsV2 operator.

$$Out_{i} = X_{\mathrm{align}(i)}$$

X is broadcast to the target shape: Y's shape when Y is given, else `target_shape`. X is
aligned inside the target shape with the elementwise ops' rule (equal shapes: a copy;
otherwise X starts at dim `axis`, axis = -1 meaning right alignment; trailing size-1 dims of
X that would run past the end are dropped); each aligned dim of X must equal the target's or
be 1. Example: X [3, 1] with Y [2, 3, 4] -> Out [2, 3, 4], Out[i, j, k] = X[j, 0].

Gradient (no gradient for Y):
$$dX = \mathrm{reduce\_as}(dOut, X, axis)$$
)DOC");
  }
};

class ExpandAsV2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // The kernel follows X; Y only gives a shape.
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

DDim TargetFromAttr(const std::string& op, const std::vector<int>& shape) {
  PL_ENFORCE(shape.size() <= static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s` attribute `target_shape`: expected at most %d "
                                     "dims, received %s",
                                     op, DDim::kMaxRank, ListToString(shape)));
  for (int d : shape) {
    PL_ENFORCE(d >= 0, errors::InvalidArgument("op `%s` attribute `target_shape`: expected dims "
                                               ">= 0 when input `Y` is not given, received %s",
                                               op, ListToString(shape)));
  }
  const std::vector<int64_t> dims(shape.begin(), shape.end());
  CheckShapeValues(op, "attribute `target_shape`", dims, /*allow_unknown=*/false);
  return DDim(dims);
}

void ExpandAsV2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim target =
      ctx->HasInput("Y")
          ? ctx->GetInputDim("Y")
          : TargetFromAttr(ctx->OpType(), ctx->Attr<std::vector<int>>("target_shape"));
  const std::string target_slot = ctx->HasInput("Y") ? "Y" : "target_shape";
  math::AlignInside(ctx->OpType(), target_slot, target, "X", ctx->GetInputDim("X"),
                    ctx->Attr<int>("axis"));
  ctx->SetOutputDim("Out", target);
}

void ExpandAsV2InferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
}

template <typename T>
struct ExpandAsV2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor input = *ctx.Input("X");  // Keeps an in-place call correct.
    const bool has_y = ctx.HasInput("Y");
    const DDim target = has_y ? ctx.Input("Y")->dims()
                              : TargetFromAttr(kOp, ctx.Attr<std::vector<int>>("target_shape"));
    const DDim aligned = math::AlignInside(kOp, has_y ? "Y" : "target_shape", target, "X",
                                           input.dims(), ctx.Attr<int>("axis"));
    DenseTensor* out = ctx.Output("Out");
    out->Resize(target);
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (target.numel() == 0) return;
    math::BroadcastTo(ctx.device_context<platform::CPUDeviceContext>(), input.data<T>(), aligned,
                      target, o);
  }
};

// dX = reduce_as(dOut, X, axis); Y gets no gradient.
void ExpandAsV2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const int axis = g->Forward().HasAttr("axis") ? g->Attr<int>("axis") : -1;
  g->AddOp("reduce_as", {{"X", g->OutputGrad("Out")}, {"Target", g->Input("X")}},
           {{"Out", g->InputGrad("X")}}, {{"axis", axis}});
}

}  // namespace

PL_REGISTER_OPS(RegisterExpandAsV2Op) {
  framework::RegisterOp<ExpandAsV2Op, ExpandAsV2OpMaker>(kOp)
      .InferShape(ExpandAsV2InferShape)
      .InferVarType(ExpandAsV2InferVarType)
      .GradOpMaker(ExpandAsV2GradMaker);
  RegisterPlainCpuKernels<ExpandAsV2Kernel, float, double, int32_t, int64_t, bool,
                          std::complex<float>, std::complex<double>>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
