// nadam (Adam with Nesterov momentum and momentum decay, Dozat 2016) and radam (Adam with the
// variance of the adaptive learning rate rectified, Liu et al. 2020), with PaddlePaddle's
// slots: lower-case names and their step-dependent scalars carried as 1-element state.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

// OptimizerOp's rules for slots named in lower case: the kernel dtype is param's and only
// grad is cast to it (a state of another dtype is an error, not a silent conversion).
class LowerCaseOptimizerOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "param");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot == "grad" && platform::IsFloatingPoint(from) && platform::IsFloatingPoint(to);
  }
};

// The slots and attributes nadam and radam share; `scalars` are their 1-element states.
class MomentOptimizerMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddCommonSlots(const std::vector<std::string>& scalars) {
    AddInput("param", "The parameter to update (float32 or float64).");
    AddInput("grad", "The gradient, a dense tensor of param's shape and dtype.");
    AddInput("learning_rate", "The learning rate, a 1-element tensor.");
    for (const std::string& s : scalars) {
      AddInput(s, "A 1-element state tensor of param's dtype (see the formula).");
    }
    AddInput("moment1", "The first moment, param's shape.");
    AddInput("moment2", "The second moment, param's shape.");
    AddInput("master_param", "Accepted for PaddlePaddle's programs; not read.").AsDispensable();
    AddOutput("param_out", "The updated parameter (usually the same variable as param).");
    for (const std::string& s : scalars) AddOutput(s + "_out", "The updated " + s + ".");
    AddOutput("moment1_out", "The updated moment1.");
    AddOutput("moment2_out", "The updated moment2.");
    AddOutput("master_param_out", "Accepted for PaddlePaddle's programs; not written.")
        .AsDispensable();
    AddAttr<float>("beta1", "Decay rate of the first moment.").SetDefault(0.9f);
    AddAttr<float>("beta2", "Decay rate of the second moment.").SetDefault(0.999f);
    AddAttr<float>("epsilon", "Added to the denominator for numerical stability.")
        .SetDefault(1.0e-8f);
    AddAttr<bool>("multi_precision", "Accepted for PaddlePaddle's programs; ignored.")
        .SetDefault(false);
  }
};

class NadamOpMaker : public MomentOptimizerMaker {
 public:
  void Make() override {
    AddCommonSlots({"momentum_decay_pow", "beta2_pow", "mu_product"});
    AddAttr<float>("momentum_decay", "psi: the momentum schedule's decay.").SetDefault(0.004f);
    AddComment(R"DOC(
NAdam operator. With d = momentum_decay_pow, b = beta2_pow, P = mu_product (all 1 at the
first step):
$$d' = 0.96 \, d, \quad b' = \beta_2 b, \quad \mu_t = \beta_1 (1 - 0.5 \, d'^{\psi}), \quad
\mu_{t+1} = \beta_1 (1 - 0.5 \, d'^{\psi} \, 0.96^{\psi}), \quad P' = P \mu_t$$
$$m' = \beta_1 m + (1 - \beta_1) g, \quad v' = \beta_2 v + (1 - \beta_2) g^2$$
$$\hat m = \frac{\mu_{t+1} m'}{1 - P' \mu_{t+1}} + \frac{(1 - \mu_t) g}{1 - P'}, \quad
\hat v = \frac{v'}{1 - b'}, \quad param' = param - lr \frac{\hat m}{\sqrt{\hat v} + \epsilon}$$
Outputs may be their inputs.
)DOC");
  }
};

class RadamOpMaker : public MomentOptimizerMaker {
 public:
  void Make() override {
    AddCommonSlots({"beta1_pow", "beta2_pow", "rho"});
    AddComment(R"DOC(
RAdam operator. With $a = $ beta1_pow, $b = $ beta2_pow (1 at the first step) and
$\rho$ = rho (0 at the first step), $\rho_\infty = 2 / (1 - \beta_2) - 1$:
$$a' = \beta_1 a, \quad b' = \beta_2 b, \quad \rho' = \frac{\rho (\beta_2 - b') + b'}{1 - b'},
\quad \rho_t = \rho_\infty - 2 \rho'$$
$$m' = \beta_1 m + (1 - \beta_1) g, \quad v' = \beta_2 v + (1 - \beta_2) g^2, \quad \hat m =
\frac{m'}{1 - a'}$$
$$param' = \begin{cases} param - lr \, \hat m \, r_t \frac{\sqrt{1 - b'}}{\sqrt{v'} +
\epsilon} & \rho_t > 5 \\ param - lr \, \hat m & \text{otherwise} \end{cases}, \quad r_t =
\sqrt{\frac{(\rho_t - 4)(\rho_t - 2) \rho_\infty}{(\rho_\infty - 4)(\rho_\infty - 2)
\rho_t}}$$
Outputs may be their inputs.
)DOC");
  }
};

std::vector<std::pair<std::string, std::string>> StatePairs(
    const std::vector<std::string>& scalars) {
  std::vector<std::pair<std::string, std::string>> pairs = {
      {"param_out", "param"}, {"moment1_out", "moment1"}, {"moment2_out", "moment2"}};
  for (const std::string& s : scalars) pairs.push_back({s + "_out", s});
  return pairs;
}

const std::vector<std::string> kNadamScalars = {"momentum_decay_pow", "beta2_pow", "mu_product"};
const std::vector<std::string> kRadamScalars = {"beta1_pow", "beta2_pow", "rho"};

void InferShapeWith(InferShapeContext* ctx, const std::vector<std::string>& scalars) {
  for (const char* slot : {"param", "grad", "learning_rate", "moment1", "moment2"}) {
    ctx->RequireInput(slot);
  }
  for (const std::string& s : scalars) ctx->RequireInput(s);
  CheckOneElementInputs(ctx, {"learning_rate"});
  for (const std::string& s : scalars) CheckOneElementInputs(ctx, {s.c_str()});
  SetOutputDimsLike(ctx, StatePairs(scalars));
}

// The update's inputs, read before any output is allocated (outputs may be their inputs).
template <typename T>
struct MomentInputs {
  DDim dims;
  int64_t n = 0;
  const T* param = nullptr;
  const T* grad = nullptr;
  const T* m = nullptr;
  const T* v = nullptr;
  T lr = 0;
};

template <typename T>
MomentInputs<T> ReadMomentInputs(const ExecutionContext& ctx) {
  MomentInputs<T> in;
  const DenseTensor* param = ctx.Input("param");
  in.dims = param->dims();
  in.n = param->numel();
  in.param = param->data<T>();
  in.grad = StateInput<T>(ctx, "grad", in.dims);
  in.m = StateInput<T>(ctx, "moment1", in.dims);
  in.v = StateInput<T>(ctx, "moment2", in.dims);
  in.lr = static_cast<T>(ReadScalarInput(ctx, "learning_rate"));
  return in;
}

// A 1-element state input of the kernel's dtype.
template <typename T>
T ReadState(const ExecutionContext& ctx, const std::string& slot) {
  CheckStateInput(ctx, slot, platform::ToDataType<T>(), ctx.Input(slot)->dims());
  return static_cast<T>(ReadScalarInput(ctx, slot));
}

template <typename T>
void WriteState(const ExecutionContext& ctx, const std::string& slot, T value) {
  WriteScalarOutput(ctx, slot + "_out", platform::ToDataType<T>(), ctx.Input(slot)->dims(),
                    static_cast<double>(value));
}

// m' = beta1 m + (1 - beta1) g and v' = beta2 v + (1 - beta2) g^2 for every element, written
// to moment1_out and moment2_out, and param_out = step(param, g, m', v').
template <typename T, typename Step>
void UpdateWithMoments(const ExecutionContext& ctx, const MomentInputs<T>& in, T beta1, T beta2,
                       Step&& step) {
  T* param_out = StateOutput<T>(ctx, "param_out", in.dims);
  T* m_out = StateOutput<T>(ctx, "moment1_out", in.dims);
  T* v_out = StateOutput<T>(ctx, "moment2_out", in.dims);
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      in.n, 1 << 14, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const T g = in.grad[i];
          const T m = beta1 * in.m[i] + (T(1) - beta1) * g;
          const T v = beta2 * in.v[i] + (T(1) - beta2) * g * g;
          m_out[i] = m;
          v_out[i] = v;
          param_out[i] = step(in.param[i], g, m, v);
        }
      });
}

template <typename T>
struct NadamKernel {
  static void Compute(const ExecutionContext& ctx) {
    const MomentInputs<T> in = ReadMomentInputs<T>(ctx);
    const T beta1 = static_cast<T>(ctx.Attr<float>("beta1"));
    const T beta2 = static_cast<T>(ctx.Attr<float>("beta2"));
    const T eps = static_cast<T>(ctx.Attr<float>("epsilon"));
    const T psi = static_cast<T>(ctx.Attr<float>("momentum_decay"));
    const T decay_pow = ReadState<T>(ctx, "momentum_decay_pow") * static_cast<T>(0.96);
    const T beta2_pow = ReadState<T>(ctx, "beta2_pow") * beta2;
    const T mu_t = beta1 * (T(1) - T(0.5) * std::pow(decay_pow, psi));
    const T mu_next =
        beta1 * (T(1) - T(0.5) * std::pow(decay_pow, psi) * std::pow(static_cast<T>(0.96), psi));
    const T mu_product = ReadState<T>(ctx, "mu_product") * mu_t;
    const T mu_product_next = mu_product * mu_next;

    UpdateWithMoments(ctx, in, beta1, beta2, [&](T param, T g, T m, T v) {
      const T m_hat =
          mu_next * m / (T(1) - mu_product_next) + (T(1) - mu_t) * g / (T(1) - mu_product);
      const T v_hat = v / (T(1) - beta2_pow);
      return param - in.lr * m_hat / (std::sqrt(v_hat) + eps);
    });
    WriteState(ctx, "momentum_decay_pow", decay_pow);
    WriteState(ctx, "beta2_pow", beta2_pow);
    WriteState(ctx, "mu_product", mu_product);
  }
};

template <typename T>
struct RadamKernel {
  static void Compute(const ExecutionContext& ctx) {
    const MomentInputs<T> in = ReadMomentInputs<T>(ctx);
    const T beta1 = static_cast<T>(ctx.Attr<float>("beta1"));
    const T beta2 = static_cast<T>(ctx.Attr<float>("beta2"));
    const T eps = static_cast<T>(ctx.Attr<float>("epsilon"));
    const T beta1_pow = ReadState<T>(ctx, "beta1_pow") * beta1;
    const T beta2_pow = ReadState<T>(ctx, "beta2_pow") * beta2;
    const T rho = (ReadState<T>(ctx, "rho") * (beta2 - beta2_pow) + beta2_pow) / (T(1) - beta2_pow);
    const T rho_inf = T(2) / (T(1) - beta2) - T(1);
    const T rho_t = rho_inf - T(2) * rho;
    const bool rectified = rho_t > T(5);
    const T r_t = rectified ? std::sqrt((rho_t - T(4)) * (rho_t - T(2)) * rho_inf /
                                        ((rho_inf - T(4)) * (rho_inf - T(2)) * rho_t))
                            : T(0);
    const T sqrt_bias2 = std::sqrt(T(1) - beta2_pow);

    UpdateWithMoments(ctx, in, beta1, beta2, [&](T param, T /*g*/, T m, T v) {
      const T m_hat = m / (T(1) - beta1_pow);
      return rectified ? param - in.lr * m_hat * r_t * sqrt_bias2 / (std::sqrt(v) + eps)
                       : param - in.lr * m_hat;
    });
    WriteState(ctx, "beta1_pow", beta1_pow);
    WriteState(ctx, "beta2_pow", beta2_pow);
    WriteState(ctx, "rho", rho);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterNadamRadamOps) {
  framework::RegisterOp<LowerCaseOptimizerOp, NadamOpMaker>("nadam")
      .InferShape([](InferShapeContext* ctx) { InferShapeWith(ctx, kNadamScalars); })
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        SetOutputTypesLike(ctx, StatePairs(kNadamScalars));
      });
  RegisterPlainCpuFloatKernels<NadamKernel>("nadam");
  framework::RegisterOp<LowerCaseOptimizerOp, RadamOpMaker>("radam")
      .InferShape([](InferShapeContext* ctx) { InferShapeWith(ctx, kRadamScalars); })
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        SetOutputTypesLike(ctx, StatePairs(kRadamScalars));
      });
  RegisterPlainCpuFloatKernels<RadamKernel>("radam");
}

}  // namespace operators
}  // namespace paddle_like
