// reduce_as: X summed down to the shape of Target (the gradient of a broadcast).
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/math/reduce.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

constexpr char kOp[] = "reduce_as";

class ReduceAsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to sum.");
    AddInput("Target",
             "Gives the output shape (its data is not read); must broadcast to X's shape.")
        .AsNoNeedBuffer();
    AddOutput("Out", "X summed over the broadcast dims, with Target's shape and X's dtype.");
    AddAttr<int>("axis",
                 "Dim of X where Target starts, as in the elementwise ops; -1 aligns the "
                 "trailing dims.")
        .SetDefault(-1);
    AddComment(R"DOC(
ReduceAs operator.

$$Out = \sum_{d \,:\, Target_d = 1 \ne X_d} X$$

Target is aligned inside X with the elementwise ops' rule (equal shapes: elementwise;
otherwise Target starts at dim `axis` of X, axis = -1 meaning right alignment; trailing
size-1 dims of Target that would run past the end are dropped). X is summed over the dims
Target does not cover or holds as 1, and the result is given Target's shape: this is the
gradient of broadcasting Target to X. Sums accumulate in double in a fixed order, so results
are reproducible; equal shapes give a copy.

Gradient (no gradient for Target):
$$dX = \mathrm{expand\_as\_v2}(dOut, X, axis)$$

Examples (X shape, Target shape, axis -> summed dims):
  [2, 3, 4], [3, 4], -1 -> dim 0
  [2, 3, 4], [3, 1],  1 -> dims 0 and 2
  [2, 3],    [],     -1 -> all (0-D Out)
)DOC");
  }
};

class ReduceAsOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // The kernel follows X; Target only gives a shape.
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void ReduceAsInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Target");
  ctx->RequireOutput("Out");
  const DDim target = ctx->GetInputDim("Target");
  math::AlignInside(ctx->OpType(), "X", ctx->GetInputDim("X"), "Target", target,
                    ctx->Attr<int>("axis"));
  ctx->SetOutputDim("Out", target);
}

void ReduceAsInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
}

template <typename T>
struct ReduceAsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DDim target = ctx.Input("Target")->dims();
    DenseTensor* out = ctx.Output("Out");
    const DDim aligned =
        math::AlignInside(kOp, "X", x->dims(), "Target", target, ctx.Attr<int>("axis"));
    // Reading X before Out is allocated keeps an in-place call correct.
    const DenseTensor input = *x;
    out->Resize(target);
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const T* xp = input.numel() > 0 ? input.data<T>() : nullptr;  // An empty X sums to 0.
    math::SumToShape(ctx.device_context<platform::CPUDeviceContext>(), xp, input.dims(), aligned,
                     o);
  }
};

// dX = expand_as_v2(dOut, X, axis); Target gets no gradient.
void ReduceAsGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const int axis = g->Forward().HasAttr("axis") ? g->Attr<int>("axis") : -1;
  g->AddOp("expand_as_v2", {{"X", g->OutputGrad("Out")}, {"Y", g->Input("X")}},
           {{"Out", g->InputGrad("X")}}, {{"axis", axis}});
}

}  // namespace

PL_REGISTER_OPS(RegisterReduceAsOp) {
  framework::RegisterOp<ReduceAsOp, ReduceAsOpMaker>(kOp)
      .InferShape(ReduceAsInferShape)
      .InferVarType(ReduceAsInferVarType)
      .GradOpMaker(ReduceAsGradMaker);
  RegisterPlainCpuKernels<ReduceAsKernel, float, double, std::complex<float>, std::complex<double>>(
      kOp);
  // Equal shapes (the gradient of a same-shape elementwise add) sum nothing: over a dying X,
  // Out takes its buffer and nothing is copied.
  DeclarePlainInPlace(kOp, {{"X", "Out"}});
}

}  // namespace operators
}  // namespace paddle_like
