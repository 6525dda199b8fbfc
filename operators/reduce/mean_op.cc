// mean: the mean of all elements of X, as a 0-D tensor. Also PaddlePaddle's fused grad op
// type mean_grad, for programs it built.
#include <complex>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/reduce.h"
#include "operators/op_family.h"
#include "operators/reduce/reduce_op_util.h"

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

Gradient, written with differentiable ops (size gives N as int64, cast converts it to X's
dtype):
$$dX = \mathrm{expand\_as\_v2}\left(\frac{dOut}{\mathrm{cast}(\mathrm{size}(X))}, X\right)$$
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

template <typename T>
struct MeanComplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    math::ReduceShape all;
    all.reduced.assign(static_cast<size_t>(x->dims().size()), true);
    ComplexSumsInto<T>(ctx, *x, all, true, ctx.Output("Out"));
  }
};

void MeanGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  AppendMeanOfAllGrad(g, g->Input("X")[0], g->OutputGrad("Out"), g->InputGrad("X"));
}

// ---------------------------------------------------------------- PaddlePaddle grad op types

class MeanGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X (only its dims are read).").AsNoNeedBuffer();
    AddInput("Out@GRAD", "Gradient of the forward op's Out (1 element).");
    AddOutput("X@GRAD", "Gradient of X, with X's shape and dtype.");
    AddComment(R"DOC(
Gradient of `mean` as PaddlePaddle's programs hold it (fused kernel, first order only), over
the N elements of X:

$$dX_i = \frac{dOut}{N}$$
)DOC");
  }
};

template <typename T>
struct MeanGradCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<bool> all(static_cast<size_t>(ctx.Input("X")->dims().size()), true);
    ComputeReduceGrad<T>(ctx, all, true);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMeanOp) {
  framework::RegisterOp<MeanOp, MeanOpMaker>("mean")
      .InferShape(MeanInferShape)
      .GradOpMaker(MeanGradMaker);
  RegisterPlainCpuFloatKernels<MeanCpuKernel>("mean");
  RegisterPlainCpuKernels<MeanComplexKernel, std::complex<float>, std::complex<double>>("mean");
  framework::RegisterOp<ReduceGradOp, MeanGradOpMaker>("mean_grad")
      .InferShape(ReduceGradInferShape);
  RegisterPlainCpuKernels<MeanGradCpuKernel, float, double, std::complex<float>,
                          std::complex<double>>("mean_grad");
}

}  // namespace operators
}  // namespace paddle_like
