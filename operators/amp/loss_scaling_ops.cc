// Dynamic loss scaling of mixed-precision training (PaddlePaddle's static AMP):
// check_finite_and_unscale divides the scaled gradients by the loss scale and reports
// whether any of them is inf or nan; update_loss_scaling zeroes the gradients of such a step
// and grows or shrinks the scale from the counts of good and bad steps.
//
// The kernels are chosen by the dtype of the scale (float32 or float64); the gradients may
// each be float32, float64, float16 or bfloat16 (16-bit values are computed in float32).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "platform/data_type_visit.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kUnscaleOp[] = "check_finite_and_unscale";
constexpr char kUpdateOp[] = "update_loss_scaling";

// The ops' kernel dtype is the scale's; the gradient list is read in its own dtypes.
class LossScalingOp : public OperatorWithKernel {
 public:
  LossScalingOp(const std::string& type, const framework::VariableNameMap& inputs,
                const framework::VariableNameMap& outputs, const framework::AttributeMap& attrs)
      : OperatorWithKernel(type, inputs, outputs, attrs),
        scale_slot_(type == kUnscaleOp ? "Scale" : "PrevLossScaling") {}

  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, scale_slot_);
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }

 private:
  std::string scale_slot_;
};

bool IsGradDataType(DataType t) {
  return t == DataType::FLOAT32 || t == DataType::FLOAT64 || t == DataType::FLOAT16 ||
         t == DataType::BFLOAT16;
}

// Requires every X to be a floating tensor and Out to name as many variables as X.
void CheckGradList(const ExecutionContext& ctx, const std::vector<const DenseTensor*>& xs) {
  PL_ENFORCE(ctx.OutputSize("Out") == xs.size(),
             errors::InvalidArgument("op `%s` output `Out`: expected one variable per input `X` "
                                     "(%zu), received %zu",
                                     ctx.Type(), xs.size(), ctx.OutputSize("Out")));
  for (size_t i = 0; i < xs.size(); ++i) {
    PL_ENFORCE(IsGradDataType(xs[i]->dtype()),
               errors::InvalidArgument("op `%s` input `X` #%zu (variable `%s`): expected float32, "
                                       "float64, float16 or bfloat16, received %s",
                                       ctx.Type(), i, ctx.InputName("X", i),
                                       platform::DataTypeName(xs[i]->dtype())));
  }
}

// Requires the tensor of `slot` to hold one element of dtype `dtype`.
void CheckScalarInput(const ExecutionContext& ctx, const char* slot, DataType dtype) {
  const DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(
      t->numel() == 1 && t->dtype() == dtype,
      errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected one %s "
                              "element, received %s of shape %s",
                              ctx.Type(), slot, ctx.InputName(slot), platform::DataTypeName(dtype),
                              platform::DataTypeName(t->dtype()), t->dims().ToString()));
}

// Build time: each Out[i] takes the dims and dtype of X[i].
void GradListInferShape(InferShapeContext* ctx) {
  const std::vector<DDim> xs = ctx->GetInputsDim("X");
  PL_ENFORCE(ctx->OutputSize("Out") == xs.size(),
             errors::InvalidArgument("op `%s` output `Out`: expected one variable per input `X` "
                                     "(%zu), received %zu",
                                     ctx->OpType(), xs.size(), ctx->OutputSize("Out")));
  for (size_t i = 0; i < xs.size(); ++i) ctx->SetOutputDim("Out", xs[i], i);
}

void GradListInferVarType(framework::VarTypeInferenceContext* ctx) {
  for (size_t i = 0; i < ctx->InputSize("X") && i < ctx->OutputSize("Out"); ++i) {
    ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor, i);
    ctx->SetOutputDataType("Out", ctx->GetInputDataType("X", i), i);
  }
}

// ---- check_finite_and_unscale ----

class CheckFiniteAndUnscaleOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The scaled gradients (float32, float64, float16 or bfloat16).").AsDuplicable();
    AddInput("Scale", "The loss scale, a 1-element float32 or float64 tensor.");
    AddOutput("Out", "The gradients divided by Scale, one per X (may be X itself).").AsDuplicable();
    AddOutput("FoundInfinite", "A 1-element bool: whether any X holds an inf or a nan.");
    AddComment(R"DOC(
Check finite and unscale operator (dynamic loss scaling of mixed-precision training).

$$FoundInfinite = \exists\, i, j : X_i[j] \notin \mathbb{R}$$
$$Out_i = X_i \cdot \frac{1}{Scale}$$

The gradients are read in list order. As in PaddlePaddle's CPU kernel, once a gradient with
an inf or a nan has been met, it and the gradients after it are multiplied by 0 instead (so
their infinite elements become nan); update_loss_scaling then sets all of them to 0.
16-bit gradients are scaled in float32.
)DOC");
  }
};

void CheckFiniteAndUnscaleInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Scale");
  ctx->RequireOutput("Out");
  ctx->RequireOutput("FoundInfinite");
  const DDim scale = ctx->GetInputDim("Scale");
  PL_ENFORCE(scale.numel() < 0 || scale.numel() == 1,
             errors::InvalidArgument("op `%s` input `Scale`: expected 1 element, received shape "
                                     "%s",
                                     kUnscaleOp, scale.ToString()));
  GradListInferShape(ctx);
  ctx->SetOutputDim("FoundInfinite", DDim({1}));
}

void CheckFiniteAndUnscaleInferVarType(framework::VarTypeInferenceContext* ctx) {
  GradListInferVarType(ctx);
  ctx->SetOutputKind("FoundInfinite", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("FoundInfinite", DataType::BOOL);
}

// Whether all `n` values are finite, computed in compute type C.
template <typename T, typename C>
bool AllFinite(const T* x, int64_t n) {
  bool finite = true;
  for (int64_t j = 0; j < n; ++j) finite &= std::isfinite(static_cast<C>(x[j]));
  return finite;
}

template <typename S>
struct CheckFiniteAndUnscaleKernel {
  static void Compute(const ExecutionContext& ctx) {
    CheckScalarInput(ctx, "Scale", platform::ToDataType<S>());
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    CheckGradList(ctx, xs);
    // 1/Scale computed in double and rounded once, as PaddlePaddle does.
    const double inverse = 1.0 / static_cast<double>(ctx.Input("Scale")->data<S>()[0]);
    bool found = false;
    for (size_t i = 0; i < xs.size(); ++i) {
      const DenseTensor* x = xs[i];
      DenseTensor* out = ctx.Output("Out", i);
      platform::VisitDataType(x->dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, platform::float16> ||
                      std::is_same_v<T, platform::bfloat16>) {
          // Double gradients compute in double, the others in float.
          using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
          const T* in = x->data<T>();
          const int64_t n = x->numel();
          if (!found) found = !AllFinite<T, C>(in, n);
          const C factor = found ? C(0) : static_cast<C>(inverse);
          if (out != x) {
            out->Resize(x->dims());
            out->set_lod(x->lod());
          }
          T* o = out->mutable_data<T>(ctx.GetPlace());
          for (int64_t j = 0; j < n; ++j) o[j] = static_cast<T>(static_cast<C>(in[j]) * factor);
        }
      });
    }
    DenseTensor* flag = ctx.Output("FoundInfinite");
    flag->Resize(DDim({1}));
    flag->mutable_data<bool>(ctx.GetPlace())[0] = found;
  }
};

// ---- update_loss_scaling ----

class UpdateLossScalingOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The unscaled gradients (float32, float64, float16 or bfloat16).").AsDuplicable();
    AddInput("FoundInfinite", "A 1-element bool from check_finite_and_unscale.");
    AddInput("PrevLossScaling", "The loss scale before this step, a 1-element float32/float64.");
    AddInput("InGoodSteps", "A 1-element int32: finite steps in a row so far.");
    AddInput("InBadSteps", "A 1-element int32: steps with inf or nan in a row so far.");
    AddInput("StopUpdate",
             "A 1-element bool; when given, overrides attribute `stop_update` (the scale and "
             "the counts are then passed on unchanged).")
        .AsDispensable();
    AddOutput("Out", "The gradients: X, or zeros of X's shape when FoundInfinite is set.")
        .AsDuplicable();
    AddOutput("LossScaling", "The loss scale after this step.");
    AddOutput("OutGoodSteps", "The count of finite steps in a row after this step.");
    AddOutput("OutBadSteps", "The count of steps with inf or nan in a row after this step.");
    AddAttr<int>("incr_every_n_steps",
                 "Multiply the scale by incr_ratio after this many finite steps in a row.");
    AddAttr<int>("decr_every_n_nan_or_inf",
                 "Multiply the scale by decr_ratio after this many steps with inf or nan in a "
                 "row.");
    AddAttr<float>("incr_ratio", "The growth factor of the scale (> 1).");
    AddAttr<float>("decr_ratio", "The shrink factor of the scale (in (0, 1)).");
    AddAttr<bool>("stop_update", "Only zero the gradients; keep the scale and counts.")
        .SetDefault(false);
    AddComment(R"DOC(
Update loss scaling operator (dynamic loss scaling of mixed-precision training).

$$Out_i = \begin{cases} 0 & FoundInfinite \\ X_i & \text{otherwise} \end{cases}$$

With an inf or nan ($good' = 0$, $bad' = bad + 1$):
$$bad' = decr\_every\_n\_nan\_or\_inf \Rightarrow scale' = \max(1, scale \cdot decr\_ratio),\ bad' = 0$$
Otherwise ($bad' = 0$, $good' = good + 1$):
$$good' = incr\_every\_n\_steps \Rightarrow scale' = \begin{cases} scale \cdot incr\_ratio & \text{finite} \\ scale & \text{otherwise} \end{cases},\ good' = 0$$
and $scale' = scale$ in every other case. With stop_update (or a true StopUpdate) only Out is
computed; the scale and the counts are passed on unchanged.
)DOC");
  }
};

void UpdateLossScalingInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "FoundInfinite", "PrevLossScaling", "InGoodSteps", "InBadSteps"}) {
    ctx->RequireInput(slot);
  }
  for (const char* slot : {"Out", "LossScaling", "OutGoodSteps", "OutBadSteps"}) {
    ctx->RequireOutput(slot);
  }
  for (const char* slot : {"FoundInfinite", "PrevLossScaling", "InGoodSteps", "InBadSteps"}) {
    const DDim d = ctx->GetInputDim(slot);
    PL_ENFORCE(d.numel() < 0 || d.numel() == 1,
               errors::InvalidArgument("op `%s` input `%s`: expected 1 element, received shape "
                                       "%s",
                                       kUpdateOp, slot, d.ToString()));
  }
  GradListInferShape(ctx);
  ctx->SetOutputDim("LossScaling", DDim({1}));
  ctx->SetOutputDim("OutGoodSteps", DDim({1}));
  ctx->SetOutputDim("OutBadSteps", DDim({1}));
}

void UpdateLossScalingInferVarType(framework::VarTypeInferenceContext* ctx) {
  GradListInferVarType(ctx);
  ctx->SetOutputKind("LossScaling", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("LossScaling", ctx->GetInputDataType("PrevLossScaling"));
  for (const char* slot : {"OutGoodSteps", "OutBadSteps"}) {
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, DataType::INT32);
  }
}

// Writes the 1-element output `slot` of type T.
template <typename T>
void WriteOne(const ExecutionContext& ctx, const char* slot, T value) {
  DenseTensor* t = ctx.Output(slot);
  t->Resize(DDim({1}));
  t->mutable_data<T>(ctx.GetPlace())[0] = value;
}

template <typename S>
struct UpdateLossScalingKernel {
  static void Compute(const ExecutionContext& ctx) {
    CheckScalarInput(ctx, "FoundInfinite", DataType::BOOL);
    CheckScalarInput(ctx, "PrevLossScaling", platform::ToDataType<S>());
    CheckScalarInput(ctx, "InGoodSteps", DataType::INT32);
    CheckScalarInput(ctx, "InBadSteps", DataType::INT32);
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    CheckGradList(ctx, xs);
    const bool found = ctx.Input("FoundInfinite")->data<bool>()[0];
    bool stop = ctx.Attr<bool>("stop_update");
    if (ctx.HasInput("StopUpdate")) {
      CheckScalarInput(ctx, "StopUpdate", DataType::BOOL);
      stop = ctx.Input("StopUpdate")->data<bool>()[0];
    }
    // Read every scalar before writing any output: outputs usually name their inputs.
    const S prev = ctx.Input("PrevLossScaling")->data<S>()[0];
    const int good = ctx.Input("InGoodSteps")->data<int32_t>()[0];
    const int bad = ctx.Input("InBadSteps")->data<int32_t>()[0];

    for (size_t i = 0; i < xs.size(); ++i) {
      DenseTensor* out = ctx.Output("Out", i);
      if (found) {
        // All-zero bits are 0 in every floating format.
        if (out != xs[i]) {
          out->Resize(xs[i]->dims());
          out->set_lod(xs[i]->lod());
        }
        void* o = out->mutable_data(ctx.GetPlace(), xs[i]->dtype());
        std::memset(o, 0, static_cast<size_t>(out->numel()) * platform::SizeOf(out->dtype()));
      } else if (out != xs[i]) {
        framework::CopyTensor(*xs[i], ctx.GetPlace(), out);
      }
    }

    S scale = prev;
    int good_out = good, bad_out = bad;
    if (!stop) {
      if (found) {
        good_out = 0;
        bad_out = bad + 1;
        if (bad_out == ctx.Attr<int>("decr_every_n_nan_or_inf")) {
          const S shrunk = prev * static_cast<S>(ctx.Attr<float>("decr_ratio"));
          scale = shrunk < S(1) ? S(1) : shrunk;
          bad_out = 0;
        }
      } else {
        bad_out = 0;
        good_out = good + 1;
        if (good_out == ctx.Attr<int>("incr_every_n_steps")) {
          const S grown = prev * static_cast<S>(ctx.Attr<float>("incr_ratio"));
          scale = std::isfinite(grown) ? grown : prev;
          good_out = 0;
        }
      }
    }
    WriteOne<S>(ctx, "LossScaling", scale);
    WriteOne<int32_t>(ctx, "OutGoodSteps", good_out);
    WriteOne<int32_t>(ctx, "OutBadSteps", bad_out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLossScalingOps) {
  framework::RegisterOp<LossScalingOp, CheckFiniteAndUnscaleOpMaker>(kUnscaleOp)
      .InferShape(CheckFiniteAndUnscaleInferShape)
      .InferVarType(CheckFiniteAndUnscaleInferVarType);
  RegisterPlainCpuFloatKernels<CheckFiniteAndUnscaleKernel>(kUnscaleOp);
  framework::RegisterOp<LossScalingOp, UpdateLossScalingOpMaker>(kUpdateOp)
      .InferShape(UpdateLossScalingInferShape)
      .InferVarType(UpdateLossScalingInferVarType);
  RegisterPlainCpuFloatKernels<UpdateLossScalingKernel>(kUpdateOp);
}

}  // namespace operators
}  // namespace paddle_like
