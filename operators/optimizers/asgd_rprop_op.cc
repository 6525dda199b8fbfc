// Two element-wise optimizers of PaddlePaddle 2.6+ with lower-case slots:
//   asgd   averaged SGD: the step follows the mean of the last n gradients, which the program
//          keeps as their sum d and the gradient y the window drops next;
//   rprop  resilient backpropagation: a step size per element, grown while the gradient keeps
//          its sign and shrunk when it flips, and a step of that size against the sign.
// Outputs usually name their inputs' variables (element k is computed from elements k only).
// multi_precision (float16 parameters with float32 master copies) is refused, since no float16
// CPU kernel exists to produce them.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "framework/data_transform.h"
#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

// Input `slot`, checked (CheckStateInput) to have param's dtype and dims.
template <typename T>
const T* SameShape(const ExecutionContext& ctx, const char* slot, const DenseTensor& param) {
  CheckStateInput(ctx, slot, param.dtype(), param.dims());
  return ctx.Input(slot)->template data<T>();
}

// The `count` values of input `slot` (float32 or float64) on the host: rprop's pairs.
std::vector<double> SmallValues(const ExecutionContext& ctx, const char* slot, int64_t count) {
  const DenseTensor t = framework::OnCpu(*ctx.Input(slot));
  PL_ENFORCE(
      t.numel() == count && (t.dtype() == DataType::FLOAT32 || t.dtype() == DataType::FLOAT64),
      errors::InvalidArgument("op `%s` input `%s`: expected %lld float32 or float64 "
                              "values, received %s of shape %s",
                              ctx.Type(), slot, static_cast<long long>(count),
                              platform::DataTypeName(t.dtype()), t.dims().ToString()));
  std::vector<double> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    v[i] = t.dtype() == DataType::FLOAT32 ? t.data<float>()[i] : t.data<double>()[i];
  }
  return v;
}

void RefuseMultiPrecision(const ExecutionContext& ctx) {
  PL_ENFORCE(!ctx.Attr<bool>("multi_precision"),
             errors::Unimplemented("op `%s` attribute `multi_precision`: master copies of "
                                   "float16 parameters are not supported on the CPU",
                                   ctx.Type()));
}

template <typename T>
T* Out(const ExecutionContext& ctx, const char* slot, const DDim& dims) {
  return ctx.Output(slot)->Resize(dims).template mutable_data<T>(ctx.GetPlace());
}

// ---- asgd ----

class AsgdOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("param", "The parameter.");
    AddInput("grad", "Its gradient (dense).");
    AddInput("learning_rate", "One-element learning rate.");
    AddInput("d", "The sum of the gradients in the window.");
    AddInput("y", "The gradient that leaves the window now.");
    AddInput("n", "One element: the number of gradients in the window.");
    AddInput("master_param", "With multi_precision (not supported here).").AsDispensable();
    AddOutput("param_out", "The updated parameter.");
    AddOutput("d_out", "The updated sum.");
    AddOutput("y_out", "grad, which takes y's place.");
    AddOutput("master_param_out", "With multi_precision (not supported here).").AsDispensable();
    AddAttr<bool>("multi_precision", "Update a float32 master copy (not supported here).")
        .SetDefault(false);
    AddComment(R"DOC(
$$d\_out = d - y + grad, \quad y\_out = grad, \quad
param\_out = param - \frac{learning\_rate}{n} \, d\_out$$
)DOC");
  }
};

template <typename T>
struct AsgdKernel {
  static void Compute(const ExecutionContext& ctx) {
    RefuseMultiPrecision(ctx);
    const DenseTensor& param = *ctx.Input("param");
    const T* p = param.data<T>();
    const T* g = SameShape<T>(ctx, "grad", param);
    const T* d = SameShape<T>(ctx, "d", param);
    const T* y = SameShape<T>(ctx, "y", param);
    const T lr = static_cast<T>(ReadScalarInput(ctx, "learning_rate"));
    const T n = static_cast<T>(ReadScalarInput(ctx, "n"));
    PL_ENFORCE(n > T(0), errors::InvalidArgument("op `%s` input `n`: expected a positive "
                                                 "count, received %g",
                                                 ctx.Type(), static_cast<double>(n)));
    T* p_out = Out<T>(ctx, "param_out", param.dims());
    T* d_out = Out<T>(ctx, "d_out", param.dims());
    T* y_out = Out<T>(ctx, "y_out", param.dims());
    for (int64_t k = 0; k < param.numel(); ++k) {
      const T grad = g[k];
      const T sum = d[k] - y[k] + grad;
      d_out[k] = sum;
      y_out[k] = grad;
      p_out[k] = p[k] - lr / n * sum;
    }
  }
};

// ---- rprop ----

class RpropOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("param", "The parameter.");
    AddInput("grad", "Its gradient (dense).");
    AddInput("prev", "The previous step's gradient (0 where it flipped sign).");
    AddInput("learning_rate", "The step size of each element (param's shape).");
    AddInput("master_param", "With multi_precision (not supported here).").AsDispensable();
    AddInput("learning_rate_range", "[2]: the smallest and largest step size.");
    AddInput("etas", "[2]: the factors eta- (shrink, < 1) and eta+ (grow, > 1).");
    AddOutput("param_out", "The updated parameter.");
    AddOutput("prev_out", "This step's gradient, 0 where it flipped sign.");
    AddOutput("learning_rate_out", "The updated step sizes.");
    AddOutput("master_param_out", "With multi_precision (not supported here).").AsDispensable();
    AddAttr<bool>("multi_precision", "Update a float32 master copy (not supported here).")
        .SetDefault(false);
    AddComment(R"DOC(
Element-wise, with s = prev \cdot grad:
$$lr' = \begin{cases} \min(lr \, \eta_+, lr_{max}) & s > 0 \\ \max(lr \, \eta_-, lr_{min}) & s < 0
\\ lr & s = 0 \end{cases}, \quad g' = \begin{cases} 0 & s < 0 \\ grad & \text{else}
\end{cases}$$
$$param\_out = param - \mathrm{sign}(g') \, lr', \quad prev\_out = g', \quad
learning\_rate\_out = lr'$$
)DOC");
  }
};

template <typename T>
struct RpropKernel {
  static void Compute(const ExecutionContext& ctx) {
    RefuseMultiPrecision(ctx);
    const DenseTensor& param = *ctx.Input("param");
    const T* p = param.data<T>();
    const T* g = SameShape<T>(ctx, "grad", param);
    const T* prev = SameShape<T>(ctx, "prev", param);
    const T* lr = SameShape<T>(ctx, "learning_rate", param);
    const std::vector<double> range = SmallValues(ctx, "learning_rate_range", 2);
    const std::vector<double> etas = SmallValues(ctx, "etas", 2);
    const T lr_min = static_cast<T>(range[0]), lr_max = static_cast<T>(range[1]);
    const T eta_minus = static_cast<T>(etas[0]), eta_plus = static_cast<T>(etas[1]);
    PL_ENFORCE(lr_min <= lr_max,
               errors::InvalidArgument("op `%s` input `learning_rate_range`: expected [min, max] "
                                       "with min <= max, received [%g, %g]",
                                       ctx.Type(), range[0], range[1]));
    T* p_out = Out<T>(ctx, "param_out", param.dims());
    T* prev_out = Out<T>(ctx, "prev_out", param.dims());
    T* lr_out = Out<T>(ctx, "learning_rate_out", param.dims());
    for (int64_t k = 0; k < param.numel(); ++k) {
      const T s = prev[k] * g[k];
      T step = lr[k], grad = g[k];
      if (s > T(0)) {
        step = std::min(step * eta_plus, lr_max);
      } else if (s < T(0)) {
        step = std::max(step * eta_minus, lr_min);
        grad = T(0);
      }
      const T sign = grad > T(0) ? T(1) : (grad < T(0) ? T(-1) : T(0));
      p_out[k] = p[k] - sign * step;
      prev_out[k] = grad;
      lr_out[k] = step;
    }
  }
};

// The kernel dtype is param's (the lower-case slot of OptimizerOp's Param).
class LowerCaseOptimizerOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "param");
  }
};

void SameAsParam(InferShapeContext* ctx, std::initializer_list<const char*> outs) {
  ctx->RequireInput("param");
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const char* out : outs) {
    ctx->RequireOutput(out);
    pairs.emplace_back(out, "param");
  }
  SetOutputDimsLike(ctx, pairs);
}

}  // namespace

PL_REGISTER_OPS(RegisterAsgdRpropOps) {
  framework::RegisterOp<LowerCaseOptimizerOp, AsgdOpMaker>("asgd").InferShape(
      [](InferShapeContext* ctx) {
        SameAsParam(ctx, {"param_out", "d_out", "y_out"});
      });
  RegisterPlainCpuFloatKernels<AsgdKernel>("asgd");
  framework::RegisterOp<LowerCaseOptimizerOp, RpropOpMaker>("rprop").InferShape(
      [](InferShapeContext* ctx) {
        SameAsParam(ctx, {"param_out", "prev_out", "learning_rate_out"});
      });
  RegisterPlainCpuFloatKernels<RpropKernel>("rprop");
}

}  // namespace operators
}  // namespace paddle_like
