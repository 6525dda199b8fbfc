// broadcast_tensors: every input broadcast to their common shape (paddle.broadcast_tensors),
// by NumPy's rule (trailing dims aligned, size-1 dims stretched). Each gradient is reduce_as
// of the output's gradient, so every order is differentiable.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "broadcast_tensors";

class BroadcastTensorsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensors, of one dtype; their shapes broadcast together.").AsDuplicable();
    AddOutput("Out", "Each X broadcast to the common shape, in X's order.").AsDuplicable();
    AddComment(R"DOC(
BroadcastTensors operator. With S the broadcast of the shapes of X_0, ..., X_{n-1} (aligned
at their trailing dims; a dim of size 1 stretches to the others' size, equal sizes stay):
$$Out_i = \mathrm{broadcast}(X_i, S)$$
Example: X_0 [2, 1, 3] and X_1 [4, 1] give S = [2, 4, 3].

Gradient, written with a differentiable op:
$$dX_i = \mathrm{reduce\_as}(dOut_i, X_i)$$
)DOC");
  }
};

class BroadcastTensorsOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// The common shape of `dims`; InvalidArgumentError naming the op and the two shapes that do
// not broadcast.
DDim CommonShape(const std::vector<DDim>& dims) {
  PL_ENFORCE(!dims.empty(),
             errors::InvalidArgument("op `%s` input `X`: expected at least one tensor", kOp));
  DDim shape = dims[0];
  for (size_t i = 1; i < dims.size(); ++i) {
    shape = math::ComputeBroadcastDims(kOp, shape, dims[i], -1).out;
  }
  return shape;
}

void BroadcastTensorsInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  const std::vector<DDim> dims = ctx->GetInputsDim("X");
  PL_ENFORCE(ctx->OutputSize("Out") == dims.size(),
             errors::InvalidArgument("op `%s` output `Out`: expected %zu tensors (one per X), "
                                     "received %zu",
                                     kOp, dims.size(), ctx->OutputSize("Out")));
  const DDim shape = CommonShape(dims);
  for (size_t i = 0; i < dims.size(); ++i) ctx->SetOutputDim("Out", shape, i);
}

template <typename T>
struct BroadcastTensorsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    const std::vector<DenseTensor*> outs = ctx.MultiOutput("Out");
    std::vector<DDim> dims;
    for (const DenseTensor* x : xs) dims.push_back(x->dims());
    const DDim shape = CommonShape(dims);
    // Inputs first copied aside, so that an output sharing an input's buffer stays correct.
    std::vector<DenseTensor> inputs;
    for (const DenseTensor* x : xs) inputs.push_back(*x);
    for (size_t i = 0; i < outs.size() && i < inputs.size(); ++i) {
      if (outs[i] == nullptr) continue;
      const DDim aligned =
          math::AlignInside(kOp, "the common shape", shape, "X", inputs[i].dims(), -1);
      DenseTensor out(shape, inputs[i].dtype());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      if (shape.numel() > 0) {
        math::BroadcastTo(ctx.device_context<platform::CPUDeviceContext>(), inputs[i].data<T>(),
                          aligned, shape, o);
      }
      *outs[i] = std::move(out);
    }
  }
};

void BroadcastTensorsGradMaker(framework::GradOpBuilder* g) {
  const std::vector<std::string> dout = g->OutputGrad("Out");
  const std::vector<std::string> dx = g->InputGrad("X");
  const std::vector<std::string>& x = g->Input("X");
  for (size_t i = 0; i < x.size() && i < dout.size(); ++i) {
    if (dx[i] == framework::kEmptyVarName) continue;
    g->AddOp("reduce_as", {{"X", {dout[i]}}, {"Target", {x[i]}}}, {{"Out", {dx[i]}}},
             {{"axis", -1}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterBroadcastTensorsOp) {
  framework::RegisterOp<BroadcastTensorsOp, BroadcastTensorsOpMaker>(kOp)
      .InferShape(BroadcastTensorsInferShape)
      .GradOpMaker(BroadcastTensorsGradMaker);
  RegisterPlainCpuKernels<BroadcastTensorsKernel, float, double, int32_t, int64_t, bool>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
