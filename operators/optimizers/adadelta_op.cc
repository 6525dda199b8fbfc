// adadelta (Zeiler 2012) and decayed_adagrad: per-element learning rates from decaying
// averages of squared gradients (and, for adadelta, of squared updates).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

// Each output and the input whose dims and dtype it takes.
const std::vector<std::pair<std::string, std::string>> kAdadeltaState = {
    {"ParamOut", "Param"},
    {"AvgSquaredGradOut", "AvgSquaredGrad"},
    {"AvgSquaredUpdateOut", "AvgSquaredUpdate"},
    {"MasterParamOut", "MasterParam"},
};
const std::vector<std::pair<std::string, std::string>> kDecayedAdagradState = {
    {"ParamOut", "Param"},
    {"MomentOut", "Moment"},
};

constexpr char kGradDoc[] =
    "The gradient: a DenseTensor of Param's shape, or SelectedRows (absent rows count as "
    "zero gradients, as in the dense update).";

class AdadeltaOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("Grad", kGradDoc);
    AddInput("AvgSquaredGrad", "The decaying average of squared gradients, Param's shape.");
    AddInput("AvgSquaredUpdate", "The decaying average of squared updates, Param's shape.");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddInput("MasterParam", "With multi_precision: the parameter in its compute precision.")
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("AvgSquaredGradOut", "The updated AvgSquaredGrad.");
    AddOutput("AvgSquaredUpdateOut", "The updated AvgSquaredUpdate.");
    AddOutput("MasterParamOut", "With multi_precision: the updated MasterParam.").AsDispensable();
    AddAttr<float>("rho", "The decay rate of both averages.").SetDefault(0.95f);
    AddAttr<float>("epsilon", "Added inside both square roots.").SetDefault(1.0e-6f);
    AddAttr<bool>("multi_precision",
                  "Update MasterParam and write ParamOut as its value converted to Param's dtype.")
        .SetDefault(false);
    AddComment(R"DOC(
Adadelta operator.

$$AvgSquaredGradOut = \rho \cdot AvgSquaredGrad + (1 - \rho) \cdot Grad^2$$
$$update = -\sqrt{\frac{AvgSquaredUpdate + \epsilon}{AvgSquaredGradOut + \epsilon}} \cdot Grad$$
$$AvgSquaredUpdateOut = \rho \cdot AvgSquaredUpdate + (1 - \rho) \cdot update^2$$
$$ParamOut = Param + LearningRate \cdot update$$

Outputs may be the same variables as their inputs.
)DOC");
  }
};

class DecayedAdagradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("Grad", kGradDoc);
    AddInput("Moment", "The decaying average of squared gradients, Param's shape.");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("MomentOut", "The updated Moment.");
    AddAttr<float>("decay", "The decay rate of Moment.").SetDefault(0.95f);
    AddAttr<float>("epsilon", "Added to the denominator for numerical stability.")
        .SetDefault(1.0e-6f);
    AddComment(R"DOC(
Decayed AdaGrad operator.

$$MomentOut = decay \cdot Moment + (1 - decay) \cdot Grad^2$$
$$ParamOut = Param - \frac{LearningRate \cdot Grad}{\sqrt{MomentOut} + epsilon}$$

Outputs may be the same variables as their inputs.
)DOC");
  }
};

void AdadeltaInferShape(InferShapeContext* ctx) {
  InferOptimizerShape(ctx, {"Param", "Grad", "AvgSquaredGrad", "AvgSquaredUpdate", "LearningRate"},
                      {"ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut"}, {"LearningRate"},
                      kAdadeltaState);
}

void DecayedAdagradInferShape(InferShapeContext* ctx) {
  InferOptimizerShape(ctx, {"Param", "Grad", "Moment", "LearningRate"}, {"ParamOut", "MomentOut"},
                      {"LearningRate"}, kDecayedAdagradState);
}

template <typename T>
struct AdadeltaKernel {
  static void Compute(const ExecutionContext& ctx) {
    WithComputeType<T>(ctx, [&](auto tag) { Run<decltype(tag)>(ctx); });
  }

  template <typename MT>
  static void Run(const ExecutionContext& ctx) {
    const DDim dims = ctx.Input("Param")->dims();
    const int64_t n = ctx.Input("Param")->numel();
    const MT* sq_grad = StateInput<MT>(ctx, "AvgSquaredGrad", dims);
    const MT* sq_update = StateInput<MT>(ctx, "AvgSquaredUpdate", dims);
    const MT lr = static_cast<MT>(ReadScalarInput(ctx, "LearningRate"));
    const MT rho = static_cast<MT>(ctx.Attr<float>("rho"));
    const MT epsilon = static_cast<MT>(ctx.Attr<float>("epsilon"));
    const GradView<T> grad(GetGrad(ctx, dims, platform::ToDataType<T>()), dims);

    // Inputs first, then outputs (which may be the same tensors).
    ParamAccess<T, MT> p = ParamInputs<T, MT>(ctx);
    AllocParamOutputs(ctx, &p);
    MT* sq_grad_out = StateOutput<MT>(ctx, "AvgSquaredGradOut", dims);
    MT* sq_update_out = StateOutput<MT>(ctx, "AvgSquaredUpdateOut", dims);

    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const MT g = static_cast<MT>(grad[i]);
            const MT avg_g = rho * sq_grad[i] + (1 - rho) * g * g;
            const MT update = -std::sqrt((sq_update[i] + epsilon) / (avg_g + epsilon)) * g;
            const MT avg_u = rho * sq_update[i] + (1 - rho) * update * update;
            sq_grad_out[i] = avg_g;
            sq_update_out[i] = avg_u;
            p.Set(i, p.Get(i) + lr * update);
          }
        });
  }
};

template <typename T>
struct DecayedAdagradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim dims = ctx.Input("Param")->dims();
    const int64_t n = ctx.Input("Param")->numel();
    const T* moment = StateInput<T>(ctx, "Moment", dims);
    const T lr = static_cast<T>(ReadScalarInput(ctx, "LearningRate"));
    const T decay = static_cast<T>(ctx.Attr<float>("decay"));
    const T epsilon = static_cast<T>(ctx.Attr<float>("epsilon"));
    const GradView<T> grad(GetGrad(ctx, dims, platform::ToDataType<T>()), dims);

    const T* param = ctx.Input("Param")->data<T>();
    T* param_out = StateOutput<T>(ctx, "ParamOut", dims);
    T* moment_out = StateOutput<T>(ctx, "MomentOut", dims);

    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const T g = grad[i];
            const T m = decay * moment[i] + (1 - decay) * g * g;
            moment_out[i] = m;
            param_out[i] = param[i] - lr * g / (std::sqrt(m) + epsilon);
          }
        });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterAdadeltaOps) {
  RegisterOptimizerOp<AdadeltaOpMaker, AdadeltaKernel>("adadelta", AdadeltaInferShape,
                                                       kAdadeltaState);
  RegisterOptimizerOp<DecayedAdagradOpMaker, DecayedAdagradKernel>(
      "decayed_adagrad", DecayedAdagradInferShape, kDecayedAdagradState);
}

}  // namespace operators
}  // namespace paddle_like
