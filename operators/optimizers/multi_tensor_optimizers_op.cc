// The optimizers that update a list of parameters in one op, as fleet's and the inference
// passes' merged programs hold them:
//   lars_momentum    momentum with a layer-wise adaptive rate per parameter (LARS);
//   merged_momentum  momentum (optionally Nesterov, optionally L2-decayed) of each parameter;
//   merged_adam      adam of each parameter.
// Parameter i is updated from element i of each list alone (the lists have equal lengths; a
// LearningRate list may hold one rate for all). Outputs usually name their inputs' variables:
// every input pointer is taken before any output is allocated (optimizer_util.h). Gradients are
// dense; multi_precision (float16 parameters with float32 master copies) is refused, since no
// float16 CPU kernel exists to produce them.
#include <cmath>
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

// The one-element input `slot` of parameter i: its i-th variable, or its only one when the
// slot holds one for all.
double SharedScalar(const ExecutionContext& ctx, const char* slot, size_t i) {
  return ReadScalarInput(ctx, slot, ctx.InputSize(slot) == 1 ? 0 : i);
}

// The number of parameters, with every listed slot checked to hold as many tensors (the
// `shared` slots may also hold exactly one, used for all).
size_t ListLength(const ExecutionContext& ctx, const std::vector<const char*>& slots,
                  const std::vector<const char*>& shared) {
  const size_t n = ctx.InputSize("Param");
  PL_ENFORCE(!ctx.HasAttr("multi_precision") || !ctx.Attr<bool>("multi_precision"),
             errors::Unimplemented("op `%s` attribute `multi_precision`: master copies of "
                                   "float16 parameters are not supported on the CPU",
                                   ctx.Type()));
  auto check = [&](const char* slot, size_t size, bool may_share) {
    PL_ENFORCE(size == n || (may_share && size == 1),
               errors::InvalidArgument("op `%s` slot `%s`: expected %zu tensors (one per Param)%s, "
                                       "received %zu",
                                       ctx.Type(), slot, n, may_share ? " or 1" : "", size));
  };
  for (const char* slot : slots) check(slot, ctx.InputSize(slot), false);
  for (const char* slot : shared) check(slot, ctx.InputSize(slot), true);
  return n;
}

// Input `slot` #i, checked (CheckStateInput) to have Param #i's dtype and dims.
template <typename T>
const T* StateOf(const ExecutionContext& ctx, const char* slot, size_t i,
                 const DenseTensor& param) {
  CheckStateInput(ctx, slot, param.dtype(), param.dims(), i);
  return ctx.Input(slot, i)->template data<T>();
}

// Output `slot` #i resized to `dims`, its buffer ready to write.
template <typename T>
T* OutputOf(const ExecutionContext& ctx, const char* slot, size_t i, const DDim& dims) {
  return ctx.MultiOutput(slot)[i]->Resize(dims).template mutable_data<T>(ctx.GetPlace());
}

// ---- lars_momentum ----

// The slots and the momentum coefficient of lars_momentum and merged_momentum.
class MomentumListMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddMomentumListSlots() {
    AddInput("Param", "The parameters.").AsDuplicable();
    AddInput("Grad", "Their gradients (dense).").AsDuplicable();
    AddInput("Velocity", "Their velocities.").AsDuplicable();
    AddInput("LearningRate", "One-element learning rates, one per parameter or one for all.")
        .AsDuplicable();
    AddInput("MasterParam", "With multi_precision (not supported here).")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameters.").AsDuplicable();
    AddOutput("VelocityOut", "The updated velocities.").AsDuplicable();
    AddOutput("MasterParamOut", "With multi_precision (not supported here).")
        .AsDuplicable()
        .AsDispensable();
    AddAttr<float>("mu", "The momentum coefficient.");
  }
};

class LarsMomentumOpMaker : public MomentumListMaker {
 public:
  void Make() override {
    AddMomentumListSlots();
    AddAttr<float>("lars_coeff", "The trust coefficient eta.").SetDefault(0.001f);
    AddAttr<std::vector<float>>("lars_weight_decay",
                                "The weight decay beta of each parameter (or one for all).")
        .SetDefault({0.0005f});
    AddAttr<float>("epsilon", "Added to the denominator of the local rate.").SetDefault(0.0f);
    AddAttr<bool>("multi_precision", "Update float32 master copies (not supported here).")
        .SetDefault(false);
    AddAttr<float>("rescale_grad", "Factor applied to each gradient first.").SetDefault(1.0f);
    AddComment(R"DOC(
LARS: with g = rescale_grad * Grad and beta the parameter's weight decay,
$$lr_{local} = lr \cdot \frac{\eta \, \|Param\|}{\|g\| + \beta \|Param\| + \epsilon}
\text{ when } \beta > 0, \|Param\| > 0, \|g\| > 0, \text{ else } lr$$
$$VelocityOut = mu \cdot Velocity + lr_{local} (g + \beta \, Param), \quad
ParamOut = Param - VelocityOut$$
)DOC");
  }
};

template <typename T>
struct LarsMomentumKernel {
  static void Compute(const ExecutionContext& ctx) {
    const size_t n = ListLength(ctx, {"Grad", "Velocity"}, {"LearningRate"});
    const std::vector<float>& decays = ctx.Attr<std::vector<float>>("lars_weight_decay");
    PL_ENFORCE(decays.size() == n || decays.size() == 1,
               errors::InvalidArgument("op `%s` attribute `lars_weight_decay`: expected %zu "
                                       "values (one per Param) or 1, received %zu",
                                       ctx.Type(), n, decays.size()));
    const T mu = static_cast<T>(ctx.Attr<float>("mu"));
    const T eta = static_cast<T>(ctx.Attr<float>("lars_coeff"));
    const T eps = static_cast<T>(ctx.Attr<float>("epsilon"));
    const T rescale = static_cast<T>(ctx.Attr<float>("rescale_grad"));
    for (size_t i = 0; i < n; ++i) {
      const DenseTensor& param = *ctx.Input("Param", i);
      const T* p = param.data<T>();
      const T* g = StateOf<T>(ctx, "Grad", i, param);
      const T* v = StateOf<T>(ctx, "Velocity", i, param);
      const T lr = static_cast<T>(SharedScalar(ctx, "LearningRate", i));
      const T decay = static_cast<T>(decays.size() == 1 ? decays[0] : decays[i]);
      const int64_t count = param.numel();
      T p_sq = 0, g_sq = 0;
      for (int64_t k = 0; k < count; ++k) {
        p_sq += p[k] * p[k];
        g_sq += (g[k] * rescale) * (g[k] * rescale);
      }
      const T p_norm = std::sqrt(p_sq), g_norm = std::sqrt(g_sq);
      const T local_lr = decay > 0 && p_norm > 0 && g_norm > 0
                             ? lr * eta * p_norm / (g_norm + decay * p_norm + eps)
                             : lr;
      T* v_out = OutputOf<T>(ctx, "VelocityOut", i, param.dims());
      T* p_out = OutputOf<T>(ctx, "ParamOut", i, param.dims());
      for (int64_t k = 0; k < count; ++k) {
        const T velocity = v[k] * mu + local_lr * (g[k] * rescale + decay * p[k]);
        v_out[k] = velocity;
        p_out[k] = p[k] - velocity;
      }
    }
  }
};

// ---- merged_momentum ----

class MergedMomentumOpMaker : public MomentumListMaker {
 public:
  void Make() override {
    AddMomentumListSlots();
    AddAttr<bool>("use_nesterov", "Use Nesterov momentum.").SetDefault(false);
    AddAttr<std::vector<std::string>>("regularization_method",
                                      "Per parameter: \"l2_decay\" or \"\" (none); an empty "
                                      "list for none at all.")
        .SetDefault({});
    AddAttr<std::vector<float>>("regularization_coeff", "Per parameter: the L2 decay coefficient.")
        .SetDefault({});
    AddAttr<bool>("multi_precision", "Update float32 master copies (not supported here).")
        .SetDefault(false);
    AddAttr<float>("rescale_grad", "Factor applied to each gradient first.").SetDefault(1.0f);
    AddComment(R"DOC(
momentum for each parameter i:
$$g = rescale\_grad \cdot Grad_i \; (+\, coeff_i \cdot Param_i \text{ for l2\_decay})$$
$$VelocityOut_i = mu \cdot Velocity_i + g, \quad ParamOut_i = Param_i - lr_i (g + mu \cdot
VelocityOut_i) \text{ if use\_nesterov, else } Param_i - lr_i \cdot VelocityOut_i$$
)DOC");
  }
};

template <typename T>
struct MergedMomentumKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const size_t n = ListLength(ctx, {"Grad", "Velocity"}, {"LearningRate"});
    const auto& methods = ctx.Attr<std::vector<std::string>>("regularization_method");
    const auto& coeffs = ctx.Attr<std::vector<float>>("regularization_coeff");
    PL_ENFORCE((methods.empty() || methods.size() == n) && coeffs.size() == methods.size(),
               errors::InvalidArgument("op `%s` attributes `regularization_method` and "
                                       "`regularization_coeff`: expected %zu values each (or "
                                       "none), received %zu and %zu",
                                       op, n, methods.size(), coeffs.size()));
    const T mu = static_cast<T>(ctx.Attr<float>("mu"));
    const T rescale = static_cast<T>(ctx.Attr<float>("rescale_grad"));
    const bool nesterov = ctx.Attr<bool>("use_nesterov");
    for (size_t i = 0; i < n; ++i) {
      const bool l2 = !methods.empty() && methods[i] == "l2_decay";
      PL_ENFORCE(methods.empty() || methods[i].empty() || l2,
                 errors::InvalidArgument("op `%s` attribute `regularization_method` #%zu: "
                                         "expected \"l2_decay\" or \"\", received \"%s\"",
                                         op, i, methods[i]));
      const T coeff = l2 ? static_cast<T>(coeffs[i]) : T(0);
      const DenseTensor& param = *ctx.Input("Param", i);
      const T* p = param.data<T>();
      const T* g = StateOf<T>(ctx, "Grad", i, param);
      const T* v = StateOf<T>(ctx, "Velocity", i, param);
      const T lr = static_cast<T>(SharedScalar(ctx, "LearningRate", i));
      T* v_out = OutputOf<T>(ctx, "VelocityOut", i, param.dims());
      T* p_out = OutputOf<T>(ctx, "ParamOut", i, param.dims());
      for (int64_t k = 0; k < param.numel(); ++k) {
        const T param_k = p[k];
        const T grad = g[k] * rescale + coeff * param_k;
        const T velocity = v[k] * mu + grad;
        v_out[k] = velocity;
        p_out[k] = nesterov ? param_k - (grad + velocity * mu) * lr : param_k - lr * velocity;
      }
    }
  }
};

// ---- merged_adam ----

class MergedAdamOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameters.").AsDuplicable();
    AddInput("Grad", "Their gradients (dense).").AsDuplicable();
    AddInput("LearningRate", "One-element learning rates, one per parameter or one for all.")
        .AsDuplicable();
    AddInput("Moment1", "First moments.").AsDuplicable();
    AddInput("Moment2", "Second moments.").AsDuplicable();
    AddInput("Moment2Max", "Running maxima of the second moments (amsgrad).")
        .AsDuplicable()
        .AsDispensable();
    AddInput("Beta1Pow",
             "One-element beta1^t, one per parameter (or one with "
             "use_global_beta_pow).")
        .AsDuplicable();
    AddInput("Beta2Pow", "One-element beta2^t, likewise.").AsDuplicable();
    AddInput("MasterParam", "With multi_precision (not supported here).")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameters.").AsDuplicable();
    AddOutput("Moment1Out", "The updated first moments.").AsDuplicable();
    AddOutput("Moment2Out", "The updated second moments.").AsDuplicable();
    AddOutput("Moment2MaxOut", "The updated maxima (amsgrad).").AsDuplicable().AsDispensable();
    AddOutput("Beta1PowOut", "beta1^(t+1) (not written with use_global_beta_pow).").AsDuplicable();
    AddOutput("Beta2PowOut", "beta2^(t+1) (likewise).").AsDuplicable();
    AddOutput("MasterParamOut", "With multi_precision (not supported here).")
        .AsDuplicable()
        .AsDispensable();
    AddAttr<float>("beta1", "Decay of the first moment.").SetDefault(0.9f);
    AddAttr<float>("beta2", "Decay of the second moment.").SetDefault(0.999f);
    AddAttr<float>("epsilon", "Added to the denominator.").SetDefault(1e-8f);
    AddAttr<bool>("multi_precision", "Update float32 master copies (not supported here).")
        .SetDefault(false);
    AddAttr<bool>("use_global_beta_pow",
                  "One Beta1Pow and Beta2Pow for all, updated "
                  "elsewhere (the outputs are left alone).")
        .SetDefault(false);
    AddAttr<bool>("amsgrad", "Divide by the running maximum of the second moment.")
        .SetDefault(false);
    AddComment(R"DOC(
adam (PaddlePaddle's formulation) for each parameter i, with g = Grad_i:
$$m_1 = \beta_1 m_1 + (1 - \beta_1) g, \quad m_2 = \beta_2 m_2 + (1 - \beta_2) g^2$$
$$ParamOut_i = Param_i - lr_i \frac{\sqrt{1 - \beta_2^t}}{1 - \beta_1^t} \cdot
\frac{m_1}{\sqrt{\hat m_2} + \epsilon \sqrt{1 - \beta_2^t}}$$
with \hat m_2 = m_2, or its running maximum with amsgrad; Beta1PowOut = beta1^t beta1 and
Beta2PowOut = beta2^t beta2 unless use_global_beta_pow.
)DOC");
  }
};

template <typename T>
struct MergedAdamKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const bool global_pow = ctx.Attr<bool>("use_global_beta_pow");
    const bool amsgrad = ctx.Attr<bool>("amsgrad");
    std::vector<const char*> lists = {"Grad", "Moment1", "Moment2"};
    if (amsgrad) lists.push_back("Moment2Max");
    std::vector<const char*> shared = {"LearningRate"};
    (global_pow ? shared : lists).push_back("Beta1Pow");
    (global_pow ? shared : lists).push_back("Beta2Pow");
    const size_t n = ListLength(ctx, lists, shared);
    const T beta1 = static_cast<T>(ctx.Attr<float>("beta1"));
    const T beta2 = static_cast<T>(ctx.Attr<float>("beta2"));
    const T eps = static_cast<T>(ctx.Attr<float>("epsilon"));
    auto scalar = [&](const char* slot, size_t i) {
      return static_cast<T>(SharedScalar(ctx, slot, i));
    };
    for (size_t i = 0; i < n; ++i) {
      const DenseTensor& param = *ctx.Input("Param", i);
      const T* p = param.data<T>();
      const T* g = StateOf<T>(ctx, "Grad", i, param);
      const T* m1 = StateOf<T>(ctx, "Moment1", i, param);
      const T* m2 = StateOf<T>(ctx, "Moment2", i, param);
      const T* m2max = amsgrad ? StateOf<T>(ctx, "Moment2Max", i, param) : nullptr;
      const T lr = scalar("LearningRate", i);
      const T b1p = scalar("Beta1Pow", i), b2p = scalar("Beta2Pow", i);
      const T lr_t = lr * std::sqrt(T(1) - b2p) / (T(1) - b1p);
      const T eps_t = eps * std::sqrt(T(1) - b2p);
      T* p_out = OutputOf<T>(ctx, "ParamOut", i, param.dims());
      T* m1_out = OutputOf<T>(ctx, "Moment1Out", i, param.dims());
      T* m2_out = OutputOf<T>(ctx, "Moment2Out", i, param.dims());
      T* m2max_out = amsgrad ? OutputOf<T>(ctx, "Moment2MaxOut", i, param.dims()) : nullptr;
      for (int64_t k = 0; k < param.numel(); ++k) {
        const T mom1 = beta1 * m1[k] + (T(1) - beta1) * g[k];
        const T mom2 = beta2 * m2[k] + (T(1) - beta2) * g[k] * g[k];
        T denom = mom2;
        if (amsgrad) {
          denom = std::max(m2max[k], mom2);
          m2max_out[k] = denom;
        }
        m1_out[k] = mom1;
        m2_out[k] = mom2;
        p_out[k] = p[k] - lr_t * (mom1 / (std::sqrt(denom) + eps_t));
      }
      if (!global_pow) {
        const DenseTensor* b1 = ctx.Input("Beta1Pow", i);
        const DenseTensor* b2 = ctx.Input("Beta2Pow", i);
        PL_ENFORCE(ctx.OutputSize("Beta1PowOut") == n && ctx.OutputSize("Beta2PowOut") == n,
                   errors::InvalidArgument("op `%s` outputs `Beta1PowOut` and `Beta2PowOut`: "
                                           "expected %zu each",
                                           op, n));
        WriteScalarOutput(ctx, "Beta1PowOut", b1->dtype(), b1->dims(),
                          static_cast<double>(b1p * beta1), i);
        WriteScalarOutput(ctx, "Beta2PowOut", b2->dtype(), b2->dims(),
                          static_cast<double>(b2p * beta2), i);
      }
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMultiTensorOptimizers) {
  framework::RegisterOp<OptimizerOp, LarsMomentumOpMaker>("lars_momentum")
      .InferShape([](InferShapeContext* ctx) {
        SetOutputDimsLike(ctx, {{"ParamOut", "Param"}, {"VelocityOut", "Velocity"}});
      });
  RegisterPlainCpuFloatKernels<LarsMomentumKernel>("lars_momentum");
  framework::RegisterOp<OptimizerOp, MergedMomentumOpMaker>("merged_momentum")
      .InferShape([](InferShapeContext* ctx) {
        SetOutputDimsLike(ctx, {{"ParamOut", "Param"}, {"VelocityOut", "Velocity"}});
      });
  RegisterPlainCpuFloatKernels<MergedMomentumKernel>("merged_momentum");
  framework::RegisterOp<OptimizerOp, MergedAdamOpMaker>("merged_adam")
      .InferShape([](InferShapeContext* ctx) {
        SetOutputDimsLike(ctx, {{"ParamOut", "Param"},
                                {"Moment1Out", "Moment1"},
                                {"Moment2Out", "Moment2"},
                                {"Moment2MaxOut", "Moment2Max"},
                                {"Beta1PowOut", "Beta1Pow"},
                                {"Beta2PowOut", "Beta2Pow"}});
      });
  RegisterPlainCpuFloatKernels<MergedAdamKernel>("merged_adam");
}

}  // namespace operators
}  // namespace paddle_like
