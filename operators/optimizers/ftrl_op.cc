// ftrl: Follow The Regularized Leader (McMahan et al., 2013) with L1 and L2 terms and a
// general learning-rate power, on dense or SelectedRows gradients.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "ftrl";

const std::vector<std::pair<std::string, std::string>> kStateOutputs = {
    {"ParamOut", "Param"},
    {"SquaredAccumOut", "SquaredAccumulator"},
    {"LinearAccumOut", "LinearAccumulator"},
};

class FtrlOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("SquaredAccumulator", "The sum of squared gradients n, Param's shape.");
    AddInput("LinearAccumulator", "The linear accumulator z, Param's shape.");
    AddInput("Grad",
             "The gradient: a DenseTensor of Param's shape, or SelectedRows (rows that are "
             "absent keep their parameter and accumulators).");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("SquaredAccumOut", "The updated SquaredAccumulator.");
    AddOutput("LinearAccumOut", "The updated LinearAccumulator.");
    AddAttr<float>("l1", "L1 regularization strength (1e-10 is added, as PaddlePaddle does).")
        .SetDefault(0.0f);
    AddAttr<float>("l2", "L2 regularization strength (1e-10 is added, as PaddlePaddle does).")
        .SetDefault(0.0f);
    AddAttr<float>("lr_power", "The power p of the per-coordinate learning rate n^p.")
        .SetDefault(-0.5f);
    AddComment(R"DOC(
FTRL-Proximal operator. With n the SquaredAccumulator, z the LinearAccumulator and
$n' = n + g^2$:
$$z' = z + g - \frac{n'^{-p} - n^{-p}}{lr} \, Param$$
$$ParamOut = \begin{cases} \frac{l_1 \operatorname{sign}(z') - z'}{n'^{-p} / lr + 2 l_2} &
|z'| > l_1 \\ 0 & \text{otherwise} \end{cases}$$
$$SquaredAccumOut = n', \quad LinearAccumOut = z'$$
(p = lr_power; $n^{0.5}$ is computed as a square root). Outputs may be their inputs.
)DOC");
  }
};

void FtrlInferShape(InferShapeContext* ctx) {
  InferOptimizerShape(
      ctx, {"Param", "SquaredAccumulator", "LinearAccumulator", "Grad", "LearningRate"},
      {"ParamOut", "SquaredAccumOut", "LinearAccumOut"}, {"LearningRate"}, kStateOutputs);
}

template <typename T>
T PowerOf(T n, T lr_power) {
  return lr_power == T(-0.5) ? std::sqrt(n) : std::pow(n, -lr_power);
}

template <typename T>
struct FtrlKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim dims = ctx.Input("Param")->dims();
    const int64_t n = ctx.Input("Param")->numel();
    const T* param = ctx.Input("Param")->data<T>();
    const T* squared = StateInput<T>(ctx, "SquaredAccumulator", dims);
    const T* linear = StateInput<T>(ctx, "LinearAccumulator", dims);
    const T lr = static_cast<T>(ReadScalarInput(ctx, "LearningRate"));
    const T l1 = static_cast<T>(ctx.Attr<float>("l1")) + static_cast<T>(1e-10);
    const T l2 = static_cast<T>(ctx.Attr<float>("l2")) + static_cast<T>(1e-10);
    const T lr_power = static_cast<T>(ctx.Attr<float>("lr_power"));
    const GradView<T> grad(GetGrad(ctx, dims, platform::ToDataType<T>()), dims);

    T* param_out = StateOutput<T>(ctx, "ParamOut", dims);
    T* squared_out = StateOutput<T>(ctx, "SquaredAccumOut", dims);
    T* linear_out = StateOutput<T>(ctx, "LinearAccumOut", dims);
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            if (!grad.Present(i)) {  // A row a sparse gradient does not hold.
              param_out[i] = param[i];
              squared_out[i] = squared[i];
              linear_out[i] = linear[i];
              continue;
            }
            const T g = grad[i];
            const T acc = squared[i] + g * g;
            const T z = linear[i] + g -
                        (PowerOf(acc, lr_power) - PowerOf(squared[i], lr_power)) / lr * param[i];
            const T sign = z > T(0) ? T(1) : (z < T(0) ? T(-1) : T(0));
            param_out[i] = std::abs(z) > l1
                               ? (l1 * sign - z) / (PowerOf(acc, lr_power) / lr + T(2) * l2)
                               : T(0);
            squared_out[i] = acc;
            linear_out[i] = z;
          }
        });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFtrlOp) {
  RegisterOptimizerOp<FtrlOpMaker, FtrlKernel>(kOp, FtrlInferShape, kStateOutputs);
}

}  // namespace operators
}  // namespace paddle_like
