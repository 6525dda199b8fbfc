// rmsprop: RMSProp (Tieleman and Hinton), optionally centered, with momentum.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "rmsprop";

// Each output and the input whose dims and dtype it takes.
const std::vector<std::pair<std::string, std::string>> kStateOutputs = {
    {"ParamOut", "Param"},       {"MomentOut", "Moment"},           {"MeanSquareOut", "MeanSquare"},
    {"MeanGradOut", "MeanGrad"}, {"MasterParamOut", "MasterParam"},
};

class RmspropOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("MeanSquare", "The running mean of squared gradients, Param's shape.");
    AddInput("Grad",
             "The gradient: a DenseTensor of Param's shape, or SelectedRows (absent rows count "
             "as zero gradient).");
    AddInput("Moment", "The momentum accumulator, Param's shape.");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddInput("MeanGrad", "With centered: the running mean of gradients, Param's shape.")
        .AsDispensable();
    AddInput("MasterParam", "With multi_precision: the parameter in its compute precision.")
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("MomentOut", "The updated Moment.");
    AddOutput("MeanSquareOut", "The updated MeanSquare.");
    AddOutput("MeanGradOut", "With centered: the updated MeanGrad; else left as it is.");
    AddOutput("MasterParamOut", "With multi_precision: the updated MasterParam.").AsDispensable();
    AddAttr<float>("epsilon", "Added under the square root for numerical stability.")
        .SetDefault(1.0e-10f);
    AddAttr<float>("decay", "Discount factor of the running means (rho).").SetDefault(0.9f);
    AddAttr<float>("momentum", "The momentum coefficient.").SetDefault(0.0f);
    AddAttr<bool>("centered",
                  "Divide by the estimated variance (MeanSquare minus MeanGrad squared) instead "
                  "of the uncentered second moment.")
        .SetDefault(false);
    AddAttr<bool>("multi_precision",
                  "Update MasterParam and write ParamOut as its value converted to Param's dtype.")
        .SetDefault(false);
    AddComment(R"DOC(
RMSProp operator.

$$MeanSquareOut = decay \cdot MeanSquare + (1 - decay) \cdot Grad^2$$
$$MeanGradOut = decay \cdot MeanGrad + (1 - decay) \cdot Grad \text{ (centered only)}$$
$$MomentOut = momentum \cdot Moment + \frac{LearningRate \cdot Grad}
  {\sqrt{MeanSquareOut - [centered] \, MeanGradOut^2 + epsilon}}$$
$$ParamOut = Param - MomentOut$$

With a SelectedRows Grad, absent rows have Grad = 0: their running means decay and their
parameters still move by the decayed momentum. Outputs may be the same variables as their
inputs.
)DOC");
  }
};

void RmspropInferShape(InferShapeContext* ctx) {
  InferOptimizerShape(ctx, {"Param", "MeanSquare", "Grad", "Moment", "LearningRate"},
                      {"ParamOut", "MomentOut", "MeanSquareOut"}, {"LearningRate"}, kStateOutputs);
}

template <typename T>
struct RmspropKernel {
  static void Compute(const ExecutionContext& ctx) {
    WithComputeType<T>(ctx, [&](auto tag) { Run<decltype(tag)>(ctx); });
  }

  template <typename MT>
  static void Run(const ExecutionContext& ctx) {
    const DDim dims = ctx.Input("Param")->dims();
    const int64_t n = ctx.Input("Param")->numel();
    const bool centered = ctx.Attr<bool>("centered");
    const MT* ms = StateInput<MT>(ctx, "MeanSquare", dims);
    const MT* mom = StateInput<MT>(ctx, "Moment", dims);
    const MT* mg = nullptr;
    if (centered) {
      PL_ENFORCE(ctx.HasInput("MeanGrad") && ctx.HasOutput("MeanGradOut"),
                 errors::InvalidArgument("op `%s` input `MeanGrad` and output `MeanGradOut`: "
                                         "required when attribute `centered` is true",
                                         ctx.Type()));
      mg = StateInput<MT>(ctx, "MeanGrad", dims);
    }
    const MT lr = static_cast<MT>(ReadScalarInput(ctx, "LearningRate"));
    const MT rho = static_cast<MT>(ctx.Attr<float>("decay"));
    const MT epsilon = static_cast<MT>(ctx.Attr<float>("epsilon"));
    const MT momentum = static_cast<MT>(ctx.Attr<float>("momentum"));
    const GradView<T> grad(GetGrad(ctx, dims, platform::ToDataType<T>()), dims);

    // Inputs first, then outputs (which may be the same tensors).
    ParamAccess<T, MT> p = ParamInputs<T, MT>(ctx);
    AllocParamOutputs(ctx, &p);
    MT* ms_out = StateOutput<MT>(ctx, "MeanSquareOut", dims);
    MT* mom_out = StateOutput<MT>(ctx, "MomentOut", dims);
    MT* mg_out = centered ? StateOutput<MT>(ctx, "MeanGradOut", dims) : nullptr;

    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const MT g = static_cast<MT>(grad[i]);
            const MT square = rho * ms[i] + (MT(1) - rho) * g * g;
            ms_out[i] = square;
            MT variance = square;
            if (centered) {
              const MT mean = rho * mg[i] + (MT(1) - rho) * g;
              mg_out[i] = mean;
              variance -= mean * mean;
            }
            const MT step = momentum * mom[i] + lr * g / std::sqrt(variance + epsilon);
            mom_out[i] = step;
            p.Set(i, p.Get(i) - step);
          }
        });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRmspropOp) {
  RegisterOptimizerOp<RmspropOpMaker, RmspropKernel>(kOp, RmspropInferShape, kStateOutputs);
}

}  // namespace operators
}  // namespace paddle_like
