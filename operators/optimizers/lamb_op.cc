// lamb: Adam's moments with the step rescaled per parameter tensor by the ratio of the
// parameter's norm to the update's (layer-wise adaptive moments, used to train BERT with
// large batches), as PaddlePaddle's lamb op computes it.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "lamb";

class LambOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("Grad",
             "Its gradient: a dense tensor of Param's shape, or SelectedRows (absent rows "
             "count as 0).");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddInput("Moment1", "First moment estimate, Param's shape, in the compute dtype.");
    AddInput("Moment2", "Second moment estimate, Param's shape, in the compute dtype.");
    AddInput("Beta1Pow", "beta1 to the power of the step count, a 1-element tensor.");
    AddInput("Beta2Pow", "beta2 to the power of the step count, a 1-element tensor.");
    AddInput("MasterParam", "With multi_precision: the parameter in its compute precision.")
        .AsDispensable();
    AddInput("SkipUpdate", "Optional 1-element bool tensor; true copies every input to its output.")
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("Moment1Out", "The updated first moment.");
    AddOutput("Moment2Out", "The updated second moment.");
    AddOutput("Beta1PowOut", "Beta1Pow * beta1.").AsDispensable();
    AddOutput("Beta2PowOut", "Beta2Pow * beta2.").AsDispensable();
    AddOutput("MasterParamOut", "With multi_precision: the updated MasterParam.").AsDispensable();
    AddAttr<float>("weight_decay", "Decoupled weight decay, added to the update.");
    AddAttr<float>("beta1", "Exponential decay rate of the first moment.").SetDefault(0.9f);
    AddAttr<float>("beta2", "Exponential decay rate of the second moment.").SetDefault(0.999f);
    AddAttr<float>("epsilon", "Constant for numerical stability.").SetDefault(1.0e-6f);
    AddAttr<bool>("always_adapt", "Rescale by the norms even when weight_decay is 0.")
        .SetDefault(false);
    AddAttr<bool>("multi_precision", "Update MasterParam and write ParamOut from it.")
        .SetDefault(false);
    AddComment(R"DOC(
LAMB operator. With g = Grad, p = Param, b1p = Beta1Pow, b2p = Beta2Pow:
$$m_1 = \beta_1 m_1 + (1 - \beta_1) g, \quad m_2 = \beta_2 m_2 + (1 - \beta_2) g^2$$
$$r = \frac{m_1 / (1 - b1p)}{\sqrt{m_2 / (1 - b2p)} + \epsilon} + \lambda p$$
$$p = p - lr \cdot \frac{\|p\|}{\|r\|} \cdot r$$
with lambda = weight_decay and the ratio of the whole tensor's L2 norms taken only when
weight_decay > 0 or always_adapt, and 1 when either norm is 0. Beta1PowOut = b1p beta1,
Beta2PowOut = b2p beta2. A SelectedRows Grad counts 0 for its absent rows (their moments
still decay). SkipUpdate = true copies the inputs to the outputs unchanged.
)DOC");
  }
};

const std::vector<std::pair<std::string, std::string>>& OutputInputPairs() {
  static const std::vector<std::pair<std::string, std::string>> kPairs = {
      {"ParamOut", "Param"},       {"Moment1Out", "Moment1"},   {"Moment2Out", "Moment2"},
      {"Beta1PowOut", "Beta1Pow"}, {"Beta2PowOut", "Beta2Pow"}, {"MasterParamOut", "MasterParam"}};
  return kPairs;
}

void LambInferShape(InferShapeContext* ctx) {
  for (const char* slot :
       {"Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow"}) {
    ctx->RequireInput(slot);
  }
  for (const char* slot : {"ParamOut", "Moment1Out", "Moment2Out"}) ctx->RequireOutput(slot);
  CheckOneElementInputs(ctx, {"LearningRate", "Beta1Pow", "Beta2Pow"});
  SetOutputDimsLike(ctx, OutputInputPairs());
}

template <typename T>
struct LambKernel {
  static void Compute(const ExecutionContext& ctx) {
    WithComputeType<T>(ctx, [&](auto tag) { Run<decltype(tag)>(ctx); });
  }

  template <typename MT>
  static void Run(const ExecutionContext& ctx) {
    const DenseTensor* param = ctx.Input("Param");
    const DDim dims = param->dims();
    const int64_t n = param->numel();
    CheckStateInput(ctx, "Moment1", platform::ToDataType<MT>(), dims);
    CheckStateInput(ctx, "Moment2", platform::ToDataType<MT>(), dims);
    const MT beta1 = static_cast<MT>(ctx.Attr<float>("beta1"));
    const MT beta2 = static_cast<MT>(ctx.Attr<float>("beta2"));
    const MT epsilon = static_cast<MT>(ctx.Attr<float>("epsilon"));
    const MT decay = static_cast<MT>(ctx.Attr<float>("weight_decay"));
    const MT b1p = static_cast<MT>(ReadScalarInput(ctx, "Beta1Pow"));
    const MT b2p = static_cast<MT>(ReadScalarInput(ctx, "Beta2Pow"));
    const MT lr = static_cast<MT>(ReadScalarInput(ctx, "LearningRate"));
    const bool skip = ctx.HasInput("SkipUpdate") && ReadScalarInput(ctx, "SkipUpdate") != 0;
    const GradView<T> grad(GetGrad(ctx, dims, platform::ToDataType<T>()), dims);

    // Inputs first, then outputs (which may be the same tensors).
    ParamAccess<T, MT> p = ParamInputs<T, MT>(ctx);
    const MT* m1 = ctx.Input("Moment1")->data<MT>();
    const MT* m2 = ctx.Input("Moment2")->data<MT>();
    std::vector<MT> update(static_cast<size_t>(n));
    // ParamOut is written only in the last loop, element i after reading it: an output that
    // is its own input still holds the old parameter until then.
    AllocParamOutputs(ctx, &p);
    MT* m1_out = ctx.Output("Moment1Out")->Resize(dims).mutable_data<MT>(ctx.GetPlace());
    MT* m2_out = ctx.Output("Moment2Out")->Resize(dims).mutable_data<MT>(ctx.GetPlace());
    if (skip) {
      for (int64_t i = 0; i < n; ++i) {
        const MT mom1 = m1[i], mom2 = m2[i];
        m1_out[i] = mom1;
        m2_out[i] = mom2;
        p.Set(i, p.Get(i));
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const MT g = static_cast<MT>(grad[i]);
        const MT mom1 = beta1 * m1[i] + (MT(1) - beta1) * g;
        const MT mom2 = beta2 * m2[i] + (MT(1) - beta2) * g * g;
        m1_out[i] = mom1;
        m2_out[i] = mom2;
        update[i] =
            (mom1 / (MT(1) - b1p)) / (std::sqrt(mom2 / (MT(1) - b2p)) + epsilon) + decay * p.Get(i);
      }
      MT ratio = 1;
      if (decay > MT(0) || ctx.Attr<bool>("always_adapt")) {
        MT p_sq = 0, u_sq = 0;  // Squared norms, summed in order.
        for (int64_t i = 0; i < n; ++i) {
          const MT param_i = p.Get(i);
          p_sq += param_i * param_i;
          u_sq += update[i] * update[i];
        }
        const MT p_norm = std::sqrt(p_sq), u_norm = std::sqrt(u_sq);
        if (p_norm > MT(0) && u_norm > MT(0)) ratio = p_norm / u_norm;
      }
      const MT step = lr * ratio;
      for (int64_t i = 0; i < n; ++i) p.Set(i, p.Get(i) - step * update[i]);
    }
    if (ctx.HasOutput("Beta1PowOut")) UpdateBetaPow(ctx, "Beta1Pow", "Beta1PowOut", beta1, !skip);
    if (ctx.HasOutput("Beta2PowOut")) UpdateBetaPow(ctx, "Beta2Pow", "Beta2PowOut", beta2, !skip);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLambOp) {
  framework::RegisterOp<OptimizerOp, LambOpMaker>(kOp)
      .InferShape(LambInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        SetOutputTypesLike(ctx, OutputInputPairs());
      })
      .Checkpoint("Upgrade lamb, add two new outputs [Beta1PowOut] and [Beta2PowOut].",
                  framework::OpVersionDesc()
                      .NewOutput("Beta1PowOut", "Beta1Pow * beta1")
                      .NewOutput("Beta2PowOut", "Beta2Pow * beta2"));
  RegisterPlainCpuFloatKernels<LambKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
