// softmax_with_cross_entropy: Softmax = softmax(Logits) along `axis` and Loss = the cross
// entropy of Softmax against Label; softmax_with_cross_entropy_grad, its fused backward.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/loss/cross_entropy_util.h"
#include "operators/op_family.h"
#include "operators/softmax/softmax_op.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "softmax_with_cross_entropy";
constexpr char kGradOp[] = "softmax_with_cross_entropy_grad";
// The attributes of the forward op, carried by the grad op.
const char* const kAttrNames[] = {"soft_label", "use_softmax", "numeric_stable_mode",
                                  "ignore_index", "axis"};

// Declares the attributes the forward and the grad op share.
class SharedAttrsMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddSharedAttrs() {
    AddAttr<bool>("soft_label",
                  "Label is a distribution over the classes (floating, dims of Logits) rather "
                  "than class indices.")
        .SetDefault(false);
    AddAttr<bool>("use_softmax",
                  "Apply softmax to Logits; false means Logits already holds probabilities.")
        .SetDefault(true);
    AddAttr<bool>("numeric_stable_mode",
                  "Accepted for compatibility; the CPU kernel always subtracts the maximum.")
        .SetDefault(true);
    AddAttr<int>("ignore_index", "Hard labels equal to this value give loss 0 and gradient 0.")
        .SetDefault(-100);
    AddAttr<int>("axis", "The class dim of Logits; negative values count from the end.")
        .SetDefault(-1);
  }
};

class SoftmaxWithCrossEntropyOpMaker : public SharedAttrsMaker {
 public:
  void Make() override {
    AddInput("Logits",
             "Unscaled log-probabilities, rank >= 1, classes along dim `axis`. With "
             "use_softmax = false: probabilities.");
    AddInput("Label",
             "Hard labels (soft_label = false): int64 or int32 class indices with the dims of "
             "Logits except dim `axis` = 1. Soft labels: a floating distribution with the dims "
             "of Logits.");
    AddOutput("Softmax",
              "softmax(Logits) along `axis`, the dims of Logits (Logits itself when "
              "use_softmax is false); read by the gradient.")
        .AsIntermediate();
    AddOutput("Loss", "The cross entropy: the dims of Logits with dim `axis` = 1.");
    AddSharedAttrs();
    AddComment(R"DOC(
Softmax with cross entropy, fused.

With p = softmax(Logits) along dim `axis` (log p computed as x - max - log(sum(exp(x - max))),
so large logits do not overflow):

hard labels: $$Loss = -\log p_{Label}$$ and Loss = 0 where Label = ignore_index;

soft labels: $$Loss = -\sum_j Label_j \log p_j$$ (ignore_index is not used).

With use_softmax = false, Logits already holds probabilities: Softmax = Logits and the loss
is -log(Logits[Label]) (soft: -sum_j Label_j log Logits_j), infinities clamped to 1e20 as
in PaddlePaddle. Example: Logits [[1, 2, 3]], Label [[2]] -> Softmax
[[0.0900, 0.2447, 0.6652]], Loss [[0.4076]]. numeric_stable_mode is accepted for
compatibility: this kernel is always the stable one.

Gradient, by the fused op softmax_with_cross_entropy_grad (reads Label, Softmax and
Loss@GRAD; first order only; Label gets no gradient; a gradient arriving at Softmax is not
propagated, as in PaddlePaddle):

hard labels: $$dLogits = (Softmax - \mathrm{onehot}(Label)) \cdot dLoss$$ and 0 on
ignore_index rows;

soft labels: $$dLogits = (Softmax \cdot \textstyle\sum_j Label_j - Label) \cdot dLoss$$ which
is PaddlePaddle's (Softmax - Label) dLoss whenever each label row sums to 1;

use_softmax = false: $$dLogits_j = -\frac{Label_j}{Logits_j} dLoss$$ (Label one-hot for hard
labels).
)DOC");
  }
};

class SoftmaxWithCrossEntropyGradOpMaker : public SharedAttrsMaker {
 public:
  void Make() override {
    AddInput("Label", "The forward op's Label.");
    AddInput("Softmax", "The forward op's Softmax.");
    AddInput("Loss@GRAD", "Gradient of the forward op's Loss.");
    AddOutput("Logits@GRAD", "Gradient of Logits, with Logits' dims.");
    AddSharedAttrs();
    AddComment(R"DOC(
Gradient of softmax_with_cross_entropy (fused kernel, not differentiable again). With
p = Softmax and Label one-hot for hard labels (rows whose label is ignore_index get 0):
$$dLogits = (p \cdot \textstyle\sum_j Label_j - Label) \cdot dLoss$$
and, when use_softmax is false, $$dLogits_j = -\frac{Label_j}{p_j} dLoss$$
)DOC");
  }
};

// The kernel follows Logits (forward) or Softmax (backward), never a float soft label.
class SoftmaxWithCrossEntropyOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("Logits") ? "Logits" : "Softmax";
    return InputDataType(ctx, slot);
  }
};

// Checks Label's dims against `x` (Logits or Softmax) and returns the class dim. Unknown
// (-1) dims pass at build time.
int CheckDims(const std::string& op, const char* x_slot, const DDim& x, const DDim& label,
              int axis_attr, bool soft) {
  PL_ENFORCE(x.size() >= 1,
             errors::InvalidArgument("op `%s` input `%s`: expected rank >= 1, received shape %s",
                                     op, x_slot, x.ToString()));
  PL_ENFORCE(axis_attr >= -x.size() && axis_attr < x.size(),
             errors::InvalidArgument("op `%s` attribute `axis`: expected a value in [%d, %d) for "
                                     "input `%s` of shape %s, received %d",
                                     op, -x.size(), x.size(), x_slot, x.ToString(), axis_attr));
  const int axis = axis_attr < 0 ? axis_attr + x.size() : axis_attr;
  PL_ENFORCE(label.size() == x.size(),
             errors::InvalidArgument("op `%s` input `Label`: expected rank %d (the rank of `%s` "
                                     "%s), received shape %s",
                                     op, x.size(), x_slot, x.ToString(), label.ToString()));
  for (int i = 0; i < x.size(); ++i) {
    const int64_t want = (i == axis && !soft) ? 1 : x[i];
    if (want < 0 || label[i] < 0) continue;
    PL_ENFORCE(label[i] == want,
               errors::InvalidArgument(
                   "op `%s` input `Label`: expected shape %s (%s labels, `%s` of shape %s, axis "
                   "%d), received %s",
                   op, (soft ? x : WithDimOne(x, axis)).ToString(), soft ? "soft" : "hard", x_slot,
                   x.ToString(), axis, label.ToString()));
  }
  return axis;
}

void SoftmaxWithCrossEntropyInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Logits");
  ctx->RequireInput("Label");
  ctx->RequireOutput("Softmax");
  ctx->RequireOutput("Loss");
  const DDim logits = ctx->GetInputDim("Logits");
  const int axis = CheckDims(ctx->OpType(), "Logits", logits, ctx->GetInputDim("Label"),
                             ctx->Attr<int>("axis"), ctx->Attr<bool>("soft_label"));
  ctx->SetOutputDim("Softmax", logits);
  ctx->SetOutputDim("Loss", WithDimOne(logits, axis));
  ctx->ShareLoD("Logits", "Softmax");
  ctx->ShareLoD("Logits", "Loss");
}

void SoftmaxWithCrossEntropyInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType dtype = ctx->GetInputDataType("Logits");
  for (const char* slot : {"Softmax", "Loss"}) {
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, dtype);
  }
}

template <typename T>
struct SoftmaxWithCrossEntropyKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* logits = ctx.Input("Logits");
    const DenseTensor* label = ctx.Input("Label");
    const bool soft = ctx.Attr<bool>("soft_label");
    const bool use_softmax = ctx.Attr<bool>("use_softmax");
    const int64_t ignore = ctx.Attr<int>("ignore_index");
    CheckDims(kOp, "Logits", logits->dims(), label->dims(), ctx.Attr<int>("axis"), soft);
    const SoftmaxDims d = GetSoftmaxDims(kOp, logits->dims(), ctx.Attr<int>("axis"));
    if (soft) CheckSoftLabelType(kOp, *label, platform::ToDataType<T>());
    const T* x = logits->data<T>();
    DenseTensor sm_out(logits->dims(), logits->dtype());
    DenseTensor loss_out(ctx.Output("Loss")->dims(), logits->dtype());
    T* sm = sm_out.mutable_data<T>(ctx.GetPlace());
    T* loss = loss_out.mutable_data<T>(ctx.GetPlace());
    const T* soft_label = soft ? label->data<T>() : nullptr;
    const IntLabels hard_label = soft ? IntLabels() : IntLabels(*label, kOp, "Label");
    const int64_t n = d.n;
    const int64_t inner = d.inner;
    for (int64_t o = 0; o < d.outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;  // Element (o, 0, i).
        const int64_t pos = o * inner + i;       // Position in Loss and hard Label.
        // log p_j = x_j - lse (use_softmax) or log x_j.
        double lse = 0;
        if (use_softmax && n > 0) {
          T max = x[base];
          for (int64_t j = 1; j < n; ++j) max = std::max(max, x[base + j * inner]);
          double sum = 0;
          for (int64_t j = 0; j < n; ++j)
            sum += std::exp(static_cast<double>(x[base + j * inner] - max));
          lse = static_cast<double>(max) + std::log(sum);
          for (int64_t j = 0; j < n; ++j) {
            sm[base + j * inner] =
                static_cast<T>(std::exp(static_cast<double>(x[base + j * inner]) - lse));
          }
        } else {
          for (int64_t j = 0; j < n; ++j) sm[base + j * inner] = x[base + j * inner];
        }
        auto log_p = [&](int64_t j) -> double {
          const T v = x[base + j * inner];
          return use_softmax ? static_cast<double>(v) - lse : TolerableLog<double>(v);
        };
        if (soft) {
          double acc = 0;
          for (int64_t j = 0; j < n; ++j) {
            acc -= static_cast<double>(soft_label[base + j * inner]) * log_p(j);
          }
          loss[pos] = static_cast<T>(acc);
        } else {
          const int64_t lbl = hard_label[pos];
          CheckHardLabel(kOp, lbl, n, ignore, pos);
          loss[pos] = lbl == ignore ? T(0) : static_cast<T>(-log_p(lbl));
        }
      }
    }
    sm_out.set_lod(logits->lod());
    loss_out.set_lod(logits->lod());
    *ctx.Output("Softmax") = std::move(sm_out);
    *ctx.Output("Loss") = std::move(loss_out);
  }
};

// ---- softmax_with_cross_entropy_grad ----

class SoftmaxWithCrossEntropyGradOp : public SoftmaxWithCrossEntropyOp {
 public:
  using SoftmaxWithCrossEntropyOp::SoftmaxWithCrossEntropyOp;
};

void SoftmaxWithCrossEntropyGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Label");
  ctx->RequireInput("Softmax");
  ctx->RequireInput("Loss@GRAD");
  ctx->RequireOutput("Logits@GRAD");
  const DDim sm = ctx->GetInputDim("Softmax");
  const int axis = CheckDims(ctx->OpType(), "Softmax", sm, ctx->GetInputDim("Label"),
                             ctx->Attr<int>("axis"), ctx->Attr<bool>("soft_label"));
  const DDim want = WithDimOne(sm, axis);
  const DDim dloss = ctx->GetInputDim("Loss@GRAD");
  PL_ENFORCE(want.HasUnknown() || dloss.HasUnknown() || dloss == want,
             errors::InvalidArgument("op `%s` input `Loss@GRAD`: expected shape %s, received %s",
                                     ctx->OpType(), want.ToString(), dloss.ToString()));
  ctx->SetOutputDim("Logits@GRAD", sm);
  ctx->ShareLoD("Softmax", "Logits@GRAD");
}

void SoftmaxWithCrossEntropyGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Logits@GRAD", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Logits@GRAD", ctx->GetInputDataType("Softmax"));
}

template <typename T>
struct SoftmaxWithCrossEntropyGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* label = ctx.Input("Label");
    const DenseTensor* softmax = ctx.Input("Softmax");
    const DenseTensor* dloss_t = ctx.Input("Loss@GRAD");
    const bool soft = ctx.Attr<bool>("soft_label");
    const bool use_softmax = ctx.Attr<bool>("use_softmax");
    const int64_t ignore = ctx.Attr<int>("ignore_index");
    CheckDims(kGradOp, "Softmax", softmax->dims(), label->dims(), ctx.Attr<int>("axis"), soft);
    const SoftmaxDims d = GetSoftmaxDims(kGradOp, softmax->dims(), ctx.Attr<int>("axis"));
    PL_ENFORCE(dloss_t->numel() == d.outer * d.inner,
               errors::InvalidArgument("op `%s` input `Loss@GRAD`: expected %lld elements, "
                                       "received shape %s",
                                       kGradOp, static_cast<long long>(d.outer * d.inner),
                                       dloss_t->dims().ToString()));
    if (soft) CheckSoftLabelType(kGradOp, *label, platform::ToDataType<T>());
    const T* p = softmax->data<T>();
    const T* dloss = dloss_t->data<T>();
    DenseTensor dx_out(softmax->dims(), softmax->dtype());
    T* dx = dx_out.mutable_data<T>(ctx.GetPlace());
    const T* soft_label = soft ? label->data<T>() : nullptr;
    const IntLabels hard_label = soft ? IntLabels() : IntLabels(*label, kGradOp, "Label");
    const int64_t n = d.n;
    const int64_t inner = d.inner;
    for (int64_t o = 0; o < d.outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        const int64_t pos = o * inner + i;
        const T g = dloss[pos];
        if (soft) {
          if (use_softmax) {
            T label_sum = 0;
            for (int64_t j = 0; j < n; ++j) label_sum += soft_label[base + j * inner];
            for (int64_t j = 0; j < n; ++j) {
              const int64_t k = base + j * inner;
              dx[k] = (p[k] * label_sum - soft_label[k]) * g;
            }
          } else {
            for (int64_t j = 0; j < n; ++j) {
              const int64_t k = base + j * inner;
              dx[k] = -soft_label[k] / p[k] * g;
            }
          }
          continue;
        }
        const int64_t lbl = hard_label[pos];
        CheckHardLabel(kGradOp, lbl, n, ignore, pos);
        if (lbl == ignore) {
          for (int64_t j = 0; j < n; ++j) dx[base + j * inner] = T(0);
        } else if (use_softmax) {
          for (int64_t j = 0; j < n; ++j) dx[base + j * inner] = p[base + j * inner] * g;
          dx[base + lbl * inner] -= g;
        } else {
          for (int64_t j = 0; j < n; ++j) dx[base + j * inner] = T(0);
          dx[base + lbl * inner] = -g / p[base + lbl * inner];
        }
      }
    }
    dx_out.set_lod(softmax->lod());
    *ctx.Output("Logits@GRAD") = std::move(dx_out);
  }
};

framework::AttributeMap SharedAttrs(const framework::GradOpBuilder& g) {
  framework::AttributeMap attrs;
  for (const char* name : kAttrNames) {
    if (g.Forward().HasAttr(name)) attrs[name] = g.Forward().GetAttr(name);
  }
  return attrs;
}

// One fused grad op reading Label, Softmax and Loss@GRAD (not Logits).
void SoftmaxWithCrossEntropyGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Logits")) return;
  g->AddOp(kGradOp,
           {{"Label", g->Input("Label")},
            {"Softmax", g->Output("Softmax")},
            {"Loss@GRAD", g->OutputGrad("Loss")}},
           {{"Logits@GRAD", g->InputGrad("Logits")}}, SharedAttrs(*g));
}

}  // namespace

PL_REGISTER_OPS(RegisterSoftmaxWithCrossEntropyOp) {
  framework::RegisterOp<SoftmaxWithCrossEntropyOp, SoftmaxWithCrossEntropyOpMaker>(kOp)
      .InferShape(SoftmaxWithCrossEntropyInferShape)
      .InferVarType(SoftmaxWithCrossEntropyInferVarType)
      .GradOpMaker(SoftmaxWithCrossEntropyGradMaker)
      .Checkpoint("add attribute `use_softmax`",
                  framework::OpVersionDesc().NewAttr(
                      "use_softmax", "false means Logits already holds probabilities", true));
  RegisterPlainCpuFloatKernels<SoftmaxWithCrossEntropyKernel>(kOp);
  framework::RegisterOp<SoftmaxWithCrossEntropyGradOp, SoftmaxWithCrossEntropyGradOpMaker>(kGradOp)
      .InferShape(SoftmaxWithCrossEntropyGradInferShape)
      .InferVarType(SoftmaxWithCrossEntropyGradInferVarType);
  RegisterPlainCpuFloatKernels<SoftmaxWithCrossEntropyGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
