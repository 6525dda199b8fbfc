// mean: the mean of all elements of X, as a 0-D tensor.
#include "operators/common.h"
#include "operators/math/reduce.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {
namespace {

class MeanOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "0-D tensor (dims []) with the dtype of X.");
    AddComment(R"DOC(
Mean operator.

$$Out = \frac{1}{N} \sum_{i=0}^{N-1} X_i$$

over all N elements of X. The sum is accumulated in double in a fixed order, so results
are reproducible. An empty X gives NaN. With X = [[1, 2], [3, 6]]: Out = 3.
)DOC");
  }
};

class MeanOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void MeanInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", DDim());
}

template <typename T>
struct MeanCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const int64_t n = x->numel();
    const double sum =
        math::SumAll(ctx.device_context<platform::CPUDeviceContext>(), x->data<T>(), n);
    // 0 / 0 is NaN for an empty X, as in PaddlePaddle.
    out->mutable_data<T>(ctx.GetPlace())[0] = static_cast<T>(sum / static_cast<double>(n));
  }
};

}  // namespace

void RegisterMeanOp() {
  framework::RegisterOp<MeanOp, MeanOpMaker>("mean").InferShape(MeanInferShape);
  RegisterPlainCpuFloatKernels<MeanCpuKernel>("mean");
}

}  // namespace operators
}  // namespace paddle_like
