// adagrad: AdaGrad (Duchi et al.), per-element learning rates from the summed squared
// gradients.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "adagrad";

// Each output and the input whose dims and dtype it takes.
const std::vector<std::pair<std::string, std::string>> kStateOutputs = {
    {"ParamOut", "Param"},
    {"MomentOut", "Moment"},
    {"MasterParamOut", "MasterParam"},
};

class AdagradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("Grad",
             "The gradient: a DenseTensor of Param's shape, or SelectedRows (absent rows are "
             "left as they are).");
    AddInput("Moment", "The sum of squared gradients, Param's shape.");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddInput("MasterParam", "With multi_precision: the parameter in its compute precision.")
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("MomentOut", "The updated Moment.");
    AddOutput("MasterParamOut", "With multi_precision: the updated MasterParam.").AsDispensable();
    AddAttr<float>("epsilon", "Added to the denominator for numerical stability.")
        .SetDefault(1.0e-6f);
    AddAttr<bool>("multi_precision",
                  "Update MasterParam and write ParamOut as its value converted to Param's dtype.")
        .SetDefault(false);
    AddComment(R"DOC(
AdaGrad operator.

$$MomentOut = Moment + Grad^2$$
$$ParamOut = Param - \frac{LearningRate \cdot Grad}{\sqrt{MomentOut} + epsilon}$$

With a SelectedRows Grad, absent rows have Grad = 0, so their moments and parameters do
not change. Outputs may be the same variables as their inputs.
)DOC");
  }
};

void AdagradInferShape(InferShapeContext* ctx) {
  InferOptimizerShape(ctx, {"Param", "Grad", "Moment", "LearningRate"}, {"ParamOut", "MomentOut"},
                      {"LearningRate"}, kStateOutputs);
}

template <typename T>
struct AdagradKernel {
  static void Compute(const ExecutionContext& ctx) {
    WithComputeType<T>(ctx, [&](auto tag) { Run<decltype(tag)>(ctx); });
  }

  template <typename MT>
  static void Run(const ExecutionContext& ctx) {
    const DDim dims = ctx.Input("Param")->dims();
    const int64_t n = ctx.Input("Param")->numel();
    const MT* moment = StateInput<MT>(ctx, "Moment", dims);
    const MT lr = static_cast<MT>(ReadScalarInput(ctx, "LearningRate"));
    const MT epsilon = static_cast<MT>(ctx.Attr<float>("epsilon"));
    const GradView<T> grad(GetGrad(ctx, dims, platform::ToDataType<T>()), dims);

    // Inputs first, then outputs (which may be the same tensors).
    ParamAccess<T, MT> p = ParamInputs<T, MT>(ctx);
    AllocParamOutputs(ctx, &p);
    MT* moment_out = StateOutput<MT>(ctx, "MomentOut", dims);

    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const MT g = static_cast<MT>(grad[i]);
            const MT sum = moment[i] + g * g;
            moment_out[i] = sum;
            p.Set(i, p.Get(i) - lr * g / (std::sqrt(sum) + epsilon));
          }
        });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterAdagradOp) {
  RegisterOptimizerOp<AdagradOpMaker, AdagradKernel>(kOp, AdagradInferShape, kStateOutputs);
}

}  // namespace operators
}  // namespace paddle_like
