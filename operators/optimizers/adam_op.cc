// adam: the Adam optimizer step, in PaddlePaddle's formulation (bias corrections folded into
// the learning rate and epsilon); adamw: the same step after decoupled weight decay.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "adam";
constexpr char kAdamW[] = "adamw";

template <bool kW>
class AdamOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("Grad",
             "The gradient: a DenseTensor of Param's shape, or SelectedRows (see lazy_mode).");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddInput("Moment1", "First moment estimate, Param's shape, in the compute dtype.");
    AddInput("Moment2", "Second moment estimate, Param's shape, in the compute dtype.");
    AddInput("Beta1Pow", "beta1 to the power of the step count, a 1-element tensor.");
    AddInput("Beta2Pow", "beta2 to the power of the step count, a 1-element tensor.");
    AddInput("Beta1Tensor", "Optional 1-element tensor overriding attribute beta1.")
        .AsDispensable();
    AddInput("Beta2Tensor", "Optional 1-element tensor overriding attribute beta2.")
        .AsDispensable();
    AddInput("EpsilonTensor", "Optional 1-element tensor overriding attribute epsilon.")
        .AsDispensable();
    AddInput("MasterParam", "With multi_precision: the parameter in its compute precision.")
        .AsDispensable();
    AddInput("SkipUpdate", "Optional 1-element bool tensor; true copies every input to its output.")
        .AsDispensable();
    AddInput("Moment2Max",
             "With amsgrad: the running maximum of the second moment, Param's shape, in the "
             "compute dtype.")
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("Moment1Out", "The updated first moment.");
    AddOutput("Moment2Out", "The updated second moment.");
    AddOutput("Beta1PowOut", "Beta1Pow * beta1 (not written with use_global_beta_pow).");
    AddOutput("Beta2PowOut", "Beta2Pow * beta2 (not written with use_global_beta_pow).");
    AddOutput("MasterParamOut", "With multi_precision: the updated MasterParam.").AsDispensable();
    AddOutput("Moment2MaxOut", "With amsgrad: the updated Moment2Max.").AsDispensable();
    AddAttr<float>("beta1", "Exponential decay rate of the first moment.").SetDefault(0.9f);
    AddAttr<float>("beta2", "Exponential decay rate of the second moment.").SetDefault(0.999f);
    AddAttr<float>("epsilon", "Constant for numerical stability.").SetDefault(1.0e-8f);
    AddAttr<bool>("lazy_mode",
                  "With a SelectedRows Grad, update only the rows it lists; otherwise absent rows "
                  "are updated with a zero gradient.")
        .SetDefault(false);
    AddAttr<int64_t>("min_row_size_to_use_multithread",
                     "Accepted for compatibility; the update is elementwise and its threading "
                     "never changes the result.")
        .SetDefault(1000);
    AddAttr<bool>("multi_precision",
                  "Update MasterParam and write ParamOut as its value converted to Param's dtype.")
        .SetDefault(false);
    AddAttr<bool>("use_global_beta_pow",
                  "Beta1Pow/Beta2Pow are maintained elsewhere: do not write Beta1PowOut and "
                  "Beta2PowOut.")
        .SetDefault(false);
    AddAttr<bool>("amsgrad",
                  "AMSGrad: divide by the running maximum of the second moment (Moment2Max) "
                  "instead of the second moment itself.")
        .SetDefault(false);
    if (kW) {
      AddAttr<float>("lr_ratio",
                     "Multiplies the learning rate of the weight decay (not of "
                     "the Adam step, as in PaddlePaddle's CPU kernel).")
          .SetDefault(1.0f);
      AddAttr<float>("coeff", "Weight decay coefficient.").SetDefault(0.01f);
      AddAttr<bool>("with_decay", "Apply the weight decay (false: the plain Adam step).")
          .SetDefault(false);
      AddComment(R"DOC(
AdamW operator (PaddlePaddle's formulation): the parameter first decays (when with_decay),
$$Param' = Param - LearningRate \cdot lr\_ratio \cdot coeff \cdot Param$$
then takes adam's step from Param':
$$lr_t = LearningRate \cdot \frac{\sqrt{1 - Beta2Pow}}{1 - Beta1Pow}, \quad
ParamOut = Param' - lr_t \cdot \frac{Moment1Out}{\sqrt{Moment2Out} + \epsilon_t}$$
Moments, amsgrad, SkipUpdate, SelectedRows gradients (lazy_mode rows left alone are not
decayed either) and the Beta*Pow outputs are as in `adam`.
)DOC");
      return;
    }
    AddComment(R"DOC(
Adam operator (PaddlePaddle's formulation).

$$lr_t = LearningRate \cdot \frac{\sqrt{1 - Beta2Pow}}{1 - Beta1Pow}$$
$$Moment1Out = beta1 \cdot Moment1 + (1 - beta1) \cdot Grad$$
$$Moment2Out = beta2 \cdot Moment2 + (1 - beta2) \cdot Grad^2$$
$$\epsilon_t = epsilon \cdot \sqrt{1 - Beta2Pow}$$
$$ParamOut = Param - lr_t \cdot \frac{Moment1Out}{\sqrt{Moment2Out} + \epsilon_t}$$
$$Beta1PowOut = Beta1Pow \cdot beta1, \quad Beta2PowOut = Beta2Pow \cdot beta2$$

With amsgrad the denominator uses the running maximum of the second moment:
$$Moment2MaxOut = \max(Moment2Max, Moment2Out)$$
$$ParamOut = Param - lr_t \cdot \frac{Moment1Out}{\sqrt{Moment2MaxOut} + \epsilon_t}$$

Beta1Tensor, Beta2Tensor and EpsilonTensor override the attributes. With a SelectedRows
Grad, duplicate rows are added first; lazy_mode updates only the listed rows, otherwise
absent rows see Grad = 0 (their moments still decay). SkipUpdate = true copies the inputs
(Moment2Max too).
Outputs may be the same variables as their inputs.
)DOC");
  }
};

const std::vector<std::pair<std::string, std::string>>& OutputInputPairs() {
  static const std::vector<std::pair<std::string, std::string>> kPairs = {
      {"ParamOut", "Param"},       {"Moment1Out", "Moment1"},   {"Moment2Out", "Moment2"},
      {"Beta1PowOut", "Beta1Pow"}, {"Beta2PowOut", "Beta2Pow"}, {"MasterParamOut", "MasterParam"},
      {"Moment2MaxOut", "Moment2Max"}};
  return kPairs;
}

void AdamInferShape(InferShapeContext* ctx) {
  for (const char* slot :
       {"Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow"}) {
    ctx->RequireInput(slot);
  }
  for (const char* slot : {"ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut"}) {
    ctx->RequireOutput(slot);
  }
  CheckOneElementInputs(ctx, {"LearningRate", "Beta1Pow", "Beta2Pow"});
  SetOutputDimsLike(ctx, OutputInputPairs());
}

void AdamInferVarType(framework::VarTypeInferenceContext* ctx) {
  SetOutputTypesLike(ctx, OutputInputPairs());
}

double ScalarOrAttr(const ExecutionContext& ctx, const char* slot, const char* attr) {
  return ctx.HasInput(slot) ? ReadScalarInput(ctx, slot) : ctx.Attr<float>(attr);
}

// One element's update: the moments, then the parameter from the first moment and the
// second moment (or its running maximum with amsgrad), with the bias-corrected lr_t and eps_t.
template <typename MT>
struct AdamStep {
  MT b1, b2, lr_t, eps_t;
  MT decay;  // adamw's lr * coeff (0 for adam, which never applies it)
  MT Decayed(MT param) const { return param - decay * param; }
  MT Moment1(MT m, MT g) const { return b1 * m + (MT(1) - b1) * g; }
  MT Moment2(MT m, MT g) const { return b2 * m + (MT(1) - b2) * g * g; }
  MT Param(MT param, MT mom1, MT mom2) const {
    return param - lr_t * (mom1 / (std::sqrt(mom2) + eps_t));
  }
};

// The usual update (dense gradient, no master copy, no skip, no amsgrad) over [begin, end)
// as one loop without branches, which vectorizes (sqrt too: operators/CMakeLists.txt builds
// this file with -fno-math-errno). Outputs may be their inputs: each element is read before
// it is written, which `omp simd` states. `s` is a copy, so its constants stay in registers:
// read through a reference they were reloaded after every store (the compiler cannot rule
// out that a store changed them), and one thread took 0.98 ms for 400k floats in cache
// (optimizer_benchmark; 0.16 ms now, with the clones below).
template <typename MT, bool kDecay>
void AdamDenseRange(AdamStep<MT> s, int64_t begin, int64_t end, const MT* g, const MT* param,
                    const MT* m1, const MT* m2, MT* param_out, MT* m1_out, MT* m2_out) {
#pragma omp simd
  for (int64_t i = begin; i < end; ++i) {
    const MT mom1 = s.Moment1(m1[i], g[i]);
    const MT mom2 = s.Moment2(m2[i], g[i]);
    m1_out[i] = mom1;
    m2_out[i] = mom2;
    param_out[i] = s.Param(kDecay ? s.Decayed(param[i]) : param[i], mom1, mom2);
  }
}

// float32, the training dtype, also as AVX2 and AVX-512 clones that the loader picks by CPU
// (optimizer_benchmark in docs/benchmarks.md). Neither clone has FMA, and every operation is
// elementwise and correctly rounded, so all three give the same bits.
// Not under the sanitizers: the clones' resolver runs while the library is being loaded,
// before their runtimes are set up, and its instrumented code crashes there.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define PL_ADAM_FLOAT_CLONES
#else
#define PL_ADAM_FLOAT_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
PL_ADAM_FLOAT_CLONES void AdamDenseFloat(const AdamStep<float>& s, int64_t begin, int64_t end,
                                         const float* g, const float* param, const float* m1,
                                         const float* m2, float* param_out, float* m1_out,
                                         float* m2_out) {
  AdamDenseRange<float, false>(s, begin, end, g, param, m1, m2, param_out, m1_out, m2_out);
}
PL_ADAM_FLOAT_CLONES void AdamWDenseFloat(const AdamStep<float>& s, int64_t begin, int64_t end,
                                          const float* g, const float* param, const float* m1,
                                          const float* m2, float* param_out, float* m1_out,
                                          float* m2_out) {
  AdamDenseRange<float, true>(s, begin, end, g, param, m1, m2, param_out, m1_out, m2_out);
}
#undef PL_ADAM_FLOAT_CLONES

template <typename MT, bool kW>
void AdamDense(const AdamStep<MT>& s, int64_t begin, int64_t end, const MT* g, const MT* param,
               const MT* m1, const MT* m2, MT* param_out, MT* m1_out, MT* m2_out) {
  if constexpr (std::is_same_v<MT, float>) {
    (kW ? AdamWDenseFloat : AdamDenseFloat)(s, begin, end, g, param, m1, m2, param_out, m1_out,
                                            m2_out);
  } else {
    AdamDenseRange<MT, kW>(s, begin, end, g, param, m1, m2, param_out, m1_out, m2_out);
  }
}

template <typename T, bool kW>
struct AdamKernelOf {
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
    const double beta1 = ScalarOrAttr(ctx, "Beta1Tensor", "beta1");
    const double beta2 = ScalarOrAttr(ctx, "Beta2Tensor", "beta2");
    const double epsilon = ScalarOrAttr(ctx, "EpsilonTensor", "epsilon");
    const double beta1_pow = ReadScalarInput(ctx, "Beta1Pow");
    const double beta2_pow = ReadScalarInput(ctx, "Beta2Pow");
    const double lr = ReadScalarInput(ctx, "LearningRate");
    const bool skip = ctx.HasInput("SkipUpdate") && ReadScalarInput(ctx, "SkipUpdate") != 0;
    const bool lazy = ctx.Attr<bool>("lazy_mode");
    const bool amsgrad = ctx.Attr<bool>("amsgrad");
    if (amsgrad) {
      PL_ENFORCE(ctx.HasInput("Moment2Max") && ctx.HasOutput("Moment2MaxOut"),
                 errors::InvalidArgument("op `%s` input `Moment2Max` and output `Moment2MaxOut`: "
                                         "required when attribute `amsgrad` is true",
                                         ctx.Type()));
      CheckStateInput(ctx, "Moment2Max", platform::ToDataType<MT>(), dims);
    }
    const GradView<T> grad(GetGrad(ctx, dims, platform::ToDataType<T>()), dims);

    // Inputs first, then outputs (which may be the same tensors).
    ParamAccess<T, MT> p = ParamInputs<T, MT>(ctx);
    const MT* m1 = ctx.Input("Moment1")->data<MT>();
    const MT* m2 = ctx.Input("Moment2")->data<MT>();
    const MT* m2max = amsgrad ? ctx.Input("Moment2Max")->data<MT>() : nullptr;
    AllocParamOutputs(ctx, &p);
    MT* m1_out = ctx.Output("Moment1Out")->Resize(dims).mutable_data<MT>(ctx.GetPlace());
    MT* m2_out = ctx.Output("Moment2Out")->Resize(dims).mutable_data<MT>(ctx.GetPlace());
    MT* m2max_out =
        amsgrad ? ctx.Output("Moment2MaxOut")->Resize(dims).mutable_data<MT>(ctx.GetPlace())
                : nullptr;

    // Bias corrections in the compute type, as PaddlePaddle's kernel does.
    const MT b1p = static_cast<MT>(beta1_pow);
    const MT b2p = static_cast<MT>(beta2_pow);
    AdamStep<MT> step{static_cast<MT>(beta1), static_cast<MT>(beta2),
                      static_cast<MT>(lr) * (std::sqrt(MT(1) - b2p) / (MT(1) - b1p)),
                      static_cast<MT>(epsilon) * std::sqrt(MT(1) - b2p), MT(0)};
    if (kW && ctx.Attr<bool>("with_decay")) {
      step.decay = static_cast<MT>(lr) * static_cast<MT>(ctx.Attr<float>("lr_ratio")) *
                   static_cast<MT>(ctx.Attr<float>("coeff"));
    }

    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    bool updated = false;
    if constexpr (std::is_same_v<T, MT>) {
      if (!skip && !grad.sparse() && !amsgrad && p.master == nullptr) {
        const MT* g = grad.dense();
        dev.ParallelFor(n, 1 << 14, [&](int64_t begin, int64_t end) {
          AdamDense<MT, kW>(step, begin, end, g, p.param, m1, m2, p.param_out, m1_out, m2_out);
        });
        updated = true;
      }
    }
    if (!updated) {
      dev.ParallelFor(n, 1 << 14, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const MT param_i = p.Get(i);
          if (skip || (lazy && !grad.Present(i))) {
            const MT mom1 = m1[i];
            const MT mom2 = m2[i];
            m1_out[i] = mom1;
            m2_out[i] = mom2;
            if (amsgrad) m2max_out[i] = m2max[i];
            p.Set(i, param_i);
            continue;
          }
          const MT g = static_cast<MT>(grad[i]);
          const MT mom1 = step.Moment1(m1[i], g);
          const MT mom2 = step.Moment2(m2[i], g);
          m1_out[i] = mom1;
          m2_out[i] = mom2;
          MT denom_mom2 = mom2;
          if (amsgrad) {
            denom_mom2 = std::max(m2max[i], mom2);
            m2max_out[i] = denom_mom2;
          }
          p.Set(i, step.Param(kW ? step.Decayed(param_i) : param_i, mom1, denom_mom2));
        }
      });
    }

    if (!ctx.Attr<bool>("use_global_beta_pow")) {
      UpdateBetaPow(ctx, "Beta1Pow", "Beta1PowOut", beta1, !skip);
      UpdateBetaPow(ctx, "Beta2Pow", "Beta2PowOut", beta2, !skip);
    }
  }
};

template <typename T>
using AdamKernel = AdamKernelOf<T, false>;
template <typename T>
using AdamWKernel = AdamKernelOf<T, true>;

}  // namespace

PL_REGISTER_OPS(RegisterAdamOp) {
  framework::RegisterOp<OptimizerOp, AdamOpMaker<false>>(kOp)
      .InferShape(AdamInferShape)
      .InferVarType(AdamInferVarType)
      .Checkpoint(
          "Upgrade adam add 1 attribute [multi_precision] and dispensable input and "
          "output [MasterParam], [MasterParamOut].",
          framework::OpVersionDesc()
              .NewAttr("multi_precision", "update a master copy of the parameter", false)
              .NewInput("MasterParam", "the parameter in its compute precision")
              .NewOutput("MasterParamOut", "the updated MasterParam"))
      .Checkpoint(
          "Upgrade adam, add 1 dispensable input [EpsilonTensor].",
          framework::OpVersionDesc().NewInput("EpsilonTensor", "overrides attribute epsilon"))
      .Checkpoint("Upgrade adam, add 1 attribute [use_global_beta_pow].",
                  framework::OpVersionDesc().NewAttr(
                      "use_global_beta_pow", "Beta1Pow/Beta2Pow are maintained elsewhere", false))
      .Checkpoint("Upgrade adam, add 1 dispensable input [SkipUpdate].",
                  framework::OpVersionDesc().NewInput("SkipUpdate",
                                                      "true copies every input to its output"))
      .Checkpoint(
          "Upgrade adam, add 1 attribute [amsgrad], 1 dispensable input [Moment2Max] and 1 "
          "dispensable output [Moment2MaxOut].",
          framework::OpVersionDesc()
              .NewAttr("amsgrad", "divide by the running maximum of the second moment", false)
              .NewInput("Moment2Max", "the running maximum of the second moment")
              .NewOutput("Moment2MaxOut", "the updated Moment2Max"));
  RegisterPlainCpuFloatKernels<AdamKernel>(kOp);

  framework::RegisterOp<OptimizerOp, AdamOpMaker<true>>(kAdamW)
      .InferShape(AdamInferShape)
      .InferVarType(AdamInferVarType);
  RegisterPlainCpuFloatKernels<AdamWKernel>(kAdamW);
}

}  // namespace operators
}  // namespace paddle_like
