// adamax: Adam with the infinity norm in place of the second moment (Kingma and Ba, 7.1).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "adamax";

// Each output and the input whose dims and dtype it takes.
const std::vector<std::pair<std::string, std::string>> kStateOutputs = {
    {"ParamOut", "Param"},
    {"MomentOut", "Moment"},
    {"InfNormOut", "InfNorm"},
    {"MasterParamOut", "MasterParam"},
};

class AdamaxOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("Grad",
             "The gradient: a DenseTensor of Param's shape, or SelectedRows (absent rows count "
             "as zero gradient).");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddInput("Moment", "The first moment, Param's shape.");
    AddInput("InfNorm", "The exponentially weighted infinity norm, Param's shape.");
    AddInput("Beta1Pow",
             "beta1 to the power of the step count, a 1-element tensor; the op reads it only "
             "(programs update it with a scale op).");
    AddInput("MasterParam", "With multi_precision: the parameter in its compute precision.")
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("MomentOut", "The updated Moment.");
    AddOutput("InfNormOut", "The updated InfNorm.");
    AddOutput("MasterParamOut", "With multi_precision: the updated MasterParam.").AsDispensable();
    AddAttr<float>("beta1", "Decay rate of the first moment.").SetDefault(0.9f);
    AddAttr<float>("beta2", "Decay rate of the infinity norm.").SetDefault(0.999f);
    AddAttr<float>("epsilon", "Added to the decayed norm for numerical stability.")
        .SetDefault(1.0e-8f);
    AddAttr<bool>("multi_precision",
                  "Update MasterParam and write ParamOut as its value converted to Param's dtype.")
        .SetDefault(false);
    AddComment(R"DOC(
Adamax operator.

$$MomentOut = beta1 \cdot Moment + (1 - beta1) \cdot Grad$$
$$InfNormOut = \max(beta2 \cdot InfNorm + epsilon, |Grad|)$$
$$ParamOut = Param - \frac{LearningRate}{1 - Beta1Pow} \cdot \frac{MomentOut}{InfNormOut}$$

Outputs may be the same variables as their inputs.
)DOC");
  }
};

void AdamaxInferShape(InferShapeContext* ctx) {
  InferOptimizerShape(ctx, {"Param", "Grad", "LearningRate", "Moment", "InfNorm", "Beta1Pow"},
                      {"ParamOut", "MomentOut", "InfNormOut"}, {"LearningRate", "Beta1Pow"},
                      kStateOutputs);
}

template <typename T>
struct AdamaxKernel {
  static void Compute(const ExecutionContext& ctx) {
    WithComputeType<T>(ctx, [&](auto tag) { Run<decltype(tag)>(ctx); });
  }

  template <typename MT>
  static void Run(const ExecutionContext& ctx) {
    const DDim dims = ctx.Input("Param")->dims();
    const int64_t n = ctx.Input("Param")->numel();
    const MT* moment = StateInput<MT>(ctx, "Moment", dims);
    const MT* inf_norm = StateInput<MT>(ctx, "InfNorm", dims);
    const MT beta1_pow = static_cast<MT>(ReadScalarInput(ctx, "Beta1Pow"));
    PL_ENFORCE(beta1_pow != MT(1),
               errors::InvalidArgument("op `%s` input `Beta1Pow` (variable `%s`): expected a "
                                       "value other than 1 (it divides the learning rate by "
                                       "1 - Beta1Pow), received 1",
                                       ctx.Type(), ctx.InputName("Beta1Pow")));
    const MT lr = static_cast<MT>(ReadScalarInput(ctx, "LearningRate")) / (MT(1) - beta1_pow);
    const MT beta1 = static_cast<MT>(ctx.Attr<float>("beta1"));
    const MT beta2 = static_cast<MT>(ctx.Attr<float>("beta2"));
    const MT epsilon = static_cast<MT>(ctx.Attr<float>("epsilon"));
    const GradView<T> grad(GetGrad(ctx, dims, platform::ToDataType<T>()), dims);

    // Inputs first, then outputs (which may be the same tensors).
    ParamAccess<T, MT> p = ParamInputs<T, MT>(ctx);
    AllocParamOutputs(ctx, &p);
    MT* moment_out = StateOutput<MT>(ctx, "MomentOut", dims);
    MT* inf_norm_out = StateOutput<MT>(ctx, "InfNormOut", dims);

    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const MT g = static_cast<MT>(grad[i]);
            const MT m = beta1 * moment[i] + (MT(1) - beta1) * g;
            const MT u = std::max(beta2 * inf_norm[i] + epsilon, std::abs(g));
            moment_out[i] = m;
            inf_norm_out[i] = u;
            p.Set(i, p.Get(i) - lr * (m / u));
          }
        });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterAdamaxOp) {
  RegisterOptimizerOp<AdamaxOpMaker, AdamaxKernel>(kOp, AdamaxInferShape, kStateOutputs);
}

}  // namespace operators
}  // namespace paddle_like
