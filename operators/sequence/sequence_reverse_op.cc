// sequence_reverse: reverses the order of the rows within each sequence of a LoD tensor. Its
// gradient is sequence_reverse of the output gradient (the op is its own inverse).
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

class SequenceReverseOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "LoD tensor of rank >= 2 with a 1-level LoD.");
    AddOutput("Y", "X with the rows of each sequence in reverse order; X's shape and LoD.");
    AddComment(R"DOC(
Sequence reverse: for each sequence, rows s_i to s_{i+1} - 1 of X's LoD,
$$Y_r = X_{s_i + s_{i+1} - 1 - r}, \quad s_i \le r < s_{i+1}$$
Example: X = [[1], [2], [3], [4], [5]], LoD [[0, 2, 5]] -> Y = [[2], [1], [5], [4], [3]].

Gradient: dX = sequence_reverse(dY); dY must carry X's LoD.
)DOC");
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

template <typename T>
struct SequenceReverseKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckMinRank(ctx.Type(), "X", x->dims(), 2);
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, 1);
    const int64_t w = RowWidth(x->dims());
    DenseTensor y(x->dims(), x->dtype());
    T* o = y.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (size_t i = 0; i + 1 < lod.size(); ++i) {
      for (size_t r = lod[i]; r < lod[i + 1]; ++r) {
        const size_t src = lod[i] + lod[i + 1] - 1 - r;
        if (w > 0) std::memcpy(o + r * w, in + src * w, sizeof(T) * w);
      }
    }
    y.set_lod(x->lod());
    *ctx.Output("Y") = std::move(y);
  }
};

void SequenceReverseGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(kOp, {{"X", g->OutputGrad("Y")}}, {{"Y", g->InputGrad("X")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterSequenceReverseOp) {
  framework::RegisterOp<OperatorWithKernel, SequenceReverseOpMaker>(kOp)
      .InferShape(SequenceReverseInferShape)
      .GradOpMaker(SequenceReverseGradMaker);
  RegisterPlainCpuKernels<SequenceReverseKernel, float, double, int32_t, int64_t, uint8_t>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
