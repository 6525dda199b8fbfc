// sequence_reverse: reverses the order of the rows within each sequence of a LoD tensor. The
// op is its own inverse, so its gradient reverses the output gradient; sequence_reverse_grad
// does that along X's LoD, as the output gradient need not carry one.
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_reverse";
constexpr char kGradOp[] = "sequence_reverse_grad";

class SequenceReverseOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "LoD tensor of rank >= 2 with a 1-level LoD.");
    AddOutput("Y", "X with the rows of each sequence in reverse order; X's shape and LoD.");
    AddComment(R"DOC(
Sequence reverse: for each sequence, rows s_i to s_{i+1} - 1 of X's LoD,
$$Y_r = X_{s_i + s_{i+1} - 1 - r}, \quad s_i \le r < s_{i+1}$$
Example: X = [[1], [2], [3], [4], [5]], LoD [[0, 2, 5]] -> Y = [[2], [1], [5], [4], [3]].

Gradient, by sequence_reverse_grad: dX = dY reversed along X's LoD (PaddlePaddle's backward
programs apply sequence_reverse itself to dY, which works when dY carries the LoD).
)DOC");
  }
};

class SequenceReverseGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X (only its dims and LoD are read).").AsNoNeedBuffer();
    AddInput("Y@GRAD", "Gradient of the forward op's Y, with X's shape.");
    AddOutput("X@GRAD", "Y@GRAD with the rows of each sequence of X reversed; X's LoD.");
    AddComment(R"DOC(
Gradient of sequence_reverse, the same reversal applied to the output gradient along X's LoD:
$$dX_r = dY_{s_i + s_{i+1} - 1 - r}, \quad s_i \le r < s_{i+1}$$
Linear in Y@GRAD and its own inverse: its gradient is sequence_reverse_grad again.
)DOC");
  }
};

// The kernel follows the gradient, never the no-need-buffer X.
class SequenceReverseGradOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Y@GRAD");
  }
};

void SequenceReverseInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Y");
  const DDim x = ctx->GetInputDim("X");
  CheckMinRank(ctx->OpType(), "X", x, 2);
  ctx->SetOutputDim("Y", x);
  ctx->ShareLoD("X", "Y");
}

// Y = X with the rows of each sequence of `lod` reversed, as a fresh tensor with that LoD.
template <typename T>
DenseTensor Reverse(const ExecutionContext& ctx, const DenseTensor& x, const framework::LoD& lod) {
  const int64_t w = RowWidth(x.dims());
  DenseTensor y(x.dims(), x.dtype());
  T* o = y.mutable_data<T>(ctx.GetPlace());
  const T* in = x.data<T>();
  const std::vector<size_t>& offsets = lod[0];
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    for (size_t r = offsets[i]; r < offsets[i + 1]; ++r) {
      const size_t src = offsets[i] + offsets[i + 1] - 1 - r;
      if (w > 0) std::memcpy(o + r * w, in + src * w, sizeof(T) * w);
    }
  }
  y.set_lod(lod);
  return y;
}

template <typename T>
struct SequenceReverseKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckMinRank(ctx.Type(), "X", x->dims(), 2);
    SequenceOffsets(ctx.Type(), "X", *x, 1);
    *ctx.Output("Y") = Reverse<T>(ctx, *x, x->lod());
  }
};

void SequenceReverseGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim x = ctx->GetInputDim("X");
  const DDim dy = ctx->GetInputDim("Y@GRAD");
  PL_ENFORCE(x.HasUnknown() || dy.HasUnknown() || x == dy,
             errors::InvalidArgument("op `%s` input `Y@GRAD`: expected X's shape %s, received %s",
                                     ctx->OpType(), x.ToString(), dy.ToString()));
  ctx->SetOutputDim("X@GRAD", x);
  ctx->ShareLoD("X", "X@GRAD");
}

template <typename T>
struct SequenceReverseGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dy = ctx.Input("Y@GRAD");
    SequenceOffsets(ctx.Type(), "X", *x, 1);
    PL_ENFORCE(dy->dims() == x->dims(),
               errors::InvalidArgument("op `%s` input `Y@GRAD`: expected X's shape %s, received %s",
                                       ctx.Type(), x->dims().ToString(), dy->dims().ToString()));
    *ctx.Output("X@GRAD") = Reverse<T>(ctx, *dy, x->lod());
  }
};

void SequenceReverseGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(kGradOp, {{"X", g->Input("X")}, {"Y@GRAD", g->OutputGrad("Y")}},
           {{"X@GRAD", g->InputGrad("X")}});
}

// The reversal is linear and self-inverse: the gradient of sequence_reverse_grad with respect
// to Y@GRAD is the same reversal of the gradient of X@GRAD.
void SequenceReverseGradGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Y@GRAD")) return;
  g->AddOp(kGradOp, {{"X", g->Input("X")}, {"Y@GRAD", g->OutputGrad("X@GRAD")}},
           {{"X@GRAD", g->InputGrad("Y@GRAD")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterSequenceReverseOp) {
  framework::RegisterOp<OperatorWithKernel, SequenceReverseOpMaker>(kOp)
      .InferShape(SequenceReverseInferShape)
      .GradOpMaker(SequenceReverseGradMaker);
  RegisterPlainCpuKernels<SequenceReverseKernel, float, double, int32_t, int64_t, uint8_t>(kOp);
  framework::RegisterOp<SequenceReverseGradOp, SequenceReverseGradOpMaker>(kGradOp)
      .InferShape(SequenceReverseGradInferShape)
      .InferVarType(OutputDataTypeOf("Y@GRAD", "X@GRAD"))
      .GradOpMaker(SequenceReverseGradGradMaker);
  RegisterPlainCpuFloatKernels<SequenceReverseGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
