// group_norm and instance_norm: normalisation over groups of channels of each sample (for
// instance_norm, each channel alone), with a per-channel scale and shift, and their fused
// gradient ops group_norm_grad and instance_norm_grad.
//
// X is [N, C, spatial...] (NCHW) or, for group_norm with data_layout NHWC, [N, spatial..., C].
// A group is C / groups consecutive channels of one sample over every spatial position.
// Statistics are summed in double in element order, one task per group, so results do not
// depend on the number of threads; the parameter gradients sum over samples in order.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/nn/nn_op_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kGroupNorm[] = "group_norm";
constexpr char kInstanceNorm[] = "instance_norm";

bool IsGroupNorm(const std::string& op) { return op.rfind(kGroupNorm, 0) == 0; }

// The statistics outputs (and grad inputs) of each op: group_norm's [N, groups] Mean and
// Variance, instance_norm's [N * C] SavedMean and SavedVariance (the latter holds
// 1 / sqrt(variance + epsilon), as in PaddlePaddle).
const char* MeanSlot(const std::string& op) { return IsGroupNorm(op) ? "Mean" : "SavedMean"; }
const char* VarSlot(const std::string& op) {
  return IsGroupNorm(op) ? "Variance" : "SavedVariance";
}

struct GroupLayout {
  int64_t n = 0, c = 0, groups = 0, spatial = 0;
  bool channel_last = false;

  int64_t ChannelsPerGroup() const { return c / groups; }
  int64_t Index(int64_t sample, int64_t channel, int64_t s) const {
    return channel_last ? (sample * spatial + s) * c + channel
                        : (sample * c + channel) * spatial + s;
  }
  DDim StatsDims(const std::string& op) const {
    return IsGroupNorm(op) ? DDim({n, groups}) : DDim({n * c});
  }
};

// The layout of X for `op` (either op or its grad op), checked: rank >= 2, and for group_norm
// a data_layout of NCHW or NHWC and 1 <= groups <= C with C divisible by groups.
GroupLayout CheckedLayout(const std::string& op, const DDim& x, int groups_attr,
                          const std::string& layout_attr) {
  PL_ENFORCE(x.size() >= 2,
             errors::InvalidArgument("op `%s` input `X`: expected rank >= 2 ([N, C, ...]), "
                                     "received %s",
                                     op, x.ToString()));
  GroupLayout g;
  g.channel_last = IsGroupNorm(op) && layout_attr == "NHWC";
  if (IsGroupNorm(op)) {
    PL_ENFORCE(layout_attr == "NCHW" || layout_attr == "NHWC" || layout_attr == "AnyLayout",
               errors::InvalidArgument("op `%s` attribute `data_layout`: expected NCHW or NHWC, "
                                       "received %s",
                                       op, layout_attr));
  }
  g.n = x[0];
  g.c = g.channel_last ? x[x.size() - 1] : x[1];
  g.spatial = 1;
  for (int i = 1; i < x.size(); ++i) {
    if (i != (g.channel_last ? x.size() - 1 : 1)) g.spatial *= x[i];
  }
  g.groups = IsGroupNorm(op) ? groups_attr : g.c;
  if (IsGroupNorm(op) && g.c >= 0) {
    PL_ENFORCE(groups_attr >= 1 && groups_attr <= std::max<int64_t>(g.c, 1) &&
                   g.c % groups_attr == 0,
               errors::InvalidArgument("op `%s` attribute `groups`: expected a divisor of the "
                                       "%s channels of input `X` %s, received %s",
                                       op, std::to_string(g.c), x.ToString(),
                                       std::to_string(groups_attr)));
  }
  return g;
}

GroupLayout LayoutOf(const ExecutionContext& ctx, const DDim& x) {
  const bool group = IsGroupNorm(ctx.Type());
  return CheckedLayout(ctx.Type(), x, group ? ctx.Attr<int>("groups") : 0,
                       group ? ctx.Attr<std::string>("data_layout") : "NCHW");
}

GroupLayout LayoutOf(InferShapeContext* ctx, const DDim& x) {
  const bool group = IsGroupNorm(ctx->OpType());
  return CheckedLayout(ctx->OpType(), x, group ? ctx->Attr<int>("groups") : 0,
                       group ? ctx->Attr<std::string>("data_layout") : "NCHW");
}

void CheckParam(const std::string& op, const char* slot, const DDim& d, int64_t c) {
  PL_ENFORCE(d.size() == 1 && (d[0] < 0 || c < 0 || d[0] == c),
             errors::InvalidArgument("op `%s` input `%s`: expected shape %s (the channels of "
                                     "input `X`), received %s",
                                     op, slot, DDim({c}).ToString(), d.ToString()));
}

class GroupNormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input [N, C, ...] (NCHW) or [N, ..., C] (NHWC).");
    AddInput("Scale", "Optional per-channel scale gamma, shape [C].").AsDispensable();
    AddInput("Bias", "Optional per-channel shift beta, shape [C].").AsDispensable();
    AddOutput("Y", "The normalised result, with the shape of X.");
    AddOutput("Mean", "Mean of each group, shape [N, groups].").AsIntermediate();
    AddOutput("Variance", "Biased variance of each group, shape [N, groups].").AsIntermediate();
    AddAttr<float>("epsilon", "Added to the variance before the square root.")
        .SetDefault(1e-5f)
        .InRange(0.0f, 1.0f);
    AddAttr<int>("groups", "Number of channel groups (divides C).").SetDefault(1);
    AddAttr<std::string>("data_layout", "NCHW or NHWC.").SetDefault("NCHW");
    AddComment(R"DOC(
Group normalisation operator. The C channels of each sample n are split into `groups`
groups of C / groups consecutive channels; over the M values of group g of sample n
(its channels at every spatial position):

$$\mu_{ng} = \frac{1}{M} \sum X, \quad \sigma_{ng}^2 = \frac{1}{M} \sum (X - \mu_{ng})^2, \quad
Y_{nc\ldots} = \gamma_c \frac{X_{nc\ldots} - \mu_{ng}}{\sqrt{\sigma_{ng}^2 + \epsilon}} + \beta_c$$

gamma = Scale (1 when absent), beta = Bias (0 when absent). Mean = mu, Variance = sigma^2.

Gradient (fused op `group_norm_grad`, first order only), per group with
$r = 1 / \sqrt{\sigma^2 + \epsilon}$, $\hat{x} = (X - \mu) r$ and $g = dY \cdot \gamma$:
$$dX = r \left(g - \overline{g} - \hat{x} \, \overline{g \hat{x}}\right), \quad
dScale_c = \sum dY \hat{x}, \quad dBias_c = \sum dY$$
the overlines being means over the group, the sums over samples and positions of channel c.
)DOC");
  }
};

class InstanceNormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input [N, C, ...].");
    AddInput("Scale", "Optional per-channel scale gamma, shape [C].").AsDispensable();
    AddInput("Bias", "Optional per-channel shift beta, shape [C].").AsDispensable();
    AddOutput("Y", "The normalised result, with the shape of X.");
    // Dispensable: PaddlePaddle's inference programs drop them.
    AddOutput("SavedMean", "Mean of each channel of each sample, shape [N * C].")
        .AsIntermediate()
        .AsDispensable();
    AddOutput("SavedVariance",
              "1 / sqrt(variance + epsilon) of each channel of each sample, shape [N * C].")
        .AsIntermediate()
        .AsDispensable();
    AddAttr<float>("epsilon", "Added to the variance before the square root.")
        .SetDefault(1e-5f)
        .InRange(0.0f, 1.0f);
    AddComment(R"DOC(
Instance normalisation operator: over the M spatial values of channel c of sample n,

$$\mu_{nc} = \frac{1}{M} \sum X_{nc}, \quad \sigma_{nc}^2 = \frac{1}{M} \sum (X_{nc} - \mu_{nc})^2,
\quad Y_{nc} = \gamma_c \frac{X_{nc} - \mu_{nc}}{\sqrt{\sigma_{nc}^2 + \epsilon}} + \beta_c$$

gamma = Scale (1 when absent), beta = Bias (0 when absent). SavedMean = mu, SavedVariance =
$1 / \sqrt{\sigma^2 + \epsilon}$.

Gradient (fused op `instance_norm_grad`, first order only), per channel of each sample with
$r$ = SavedVariance, $\hat{x} = (X - \mu) r$ and $g = dY \cdot \gamma$:
$$dX = r \left(g - \overline{g} - \hat{x} \, \overline{g \hat{x}}\right), \quad
dScale_c = \sum dY \hat{x}, \quad dBias_c = \sum dY$$
)DOC");
  }
};

template <bool kGroup>
class NormGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    const char* fwd = kGroup ? kGroupNorm : kInstanceNorm;
    AddInput("X", "The forward op's X.");
    AddInput("Scale", "The forward op's Scale, when it had one.").AsDispensable();
    AddInput("Bias", "Not read; accepted because PaddlePaddle's programs may pass it.")
        .AsDispensable();
    AddInput(kGroup ? "Mean" : "SavedMean", "The forward op's statistics output of that name.");
    AddInput(kGroup ? "Variance" : "SavedVariance",
             "The forward op's statistics output of that name.");
    if (kGroup) {
      AddInput("Y", "Not read; accepted because PaddlePaddle's programs pass the forward op's Y.")
          .AsDispensable()
          .AsNoNeedBuffer();
    }
    AddInput("Y@GRAD", "Gradient of the forward op's Y.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.").AsDispensable();
    AddOutput("Scale@GRAD", "Gradient of Scale, shape [C].").AsDispensable();
    AddOutput("Bias@GRAD", "Gradient of Bias, shape [C].").AsDispensable();
    AddAttr<float>("epsilon", "As in the forward op.").SetDefault(1e-5f).InRange(0.0f, 1.0f);
    if (kGroup) {
      AddAttr<int>("groups", "As in `group_norm`.").SetDefault(1);
      AddAttr<std::string>("data_layout", "As in `group_norm`.").SetDefault("NCHW");
    }
    AddComment(std::string("Gradient of `") + fwd +
               R"DOC(` (fused kernel, not differentiable again). Per group, with
$r = 1 / \sqrt{\sigma^2 + \epsilon}$, $\hat{x} = (X - \mu) r$ and $g = dY \cdot \gamma$:
$$dX = r \left(g - \overline{g} - \hat{x} \, \overline{g \hat{x}}\right), \quad
dScale_c = \sum dY \hat{x}, \quad dBias_c = \sum dY$$
the overlines being means over the group, the sums over samples and positions of channel c.
)DOC");
  }
};

template <bool kGroup>
void NormInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  const std::string& op = ctx->OpType();
  ctx->RequireOutput("Y");
  if (kGroup) {
    ctx->RequireOutput("Mean");
    ctx->RequireOutput("Variance");
  }
  const DDim x = ctx->GetInputDim("X");
  const GroupLayout g = LayoutOf(ctx, x);
  for (const char* slot : {"Scale", "Bias"}) {
    if (ctx->HasInput(slot)) CheckParam(op, slot, ctx->GetInputDim(slot), g.c);
  }
  ctx->SetOutputDim("Y", x);
  ctx->ShareLoD("X", "Y");
  for (const char* slot : {MeanSlot(op), VarSlot(op)}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDim(slot, g.StatsDims(op));
  }
}

void NormInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType x = ctx->GetInputDataType("X");
  const std::string op = IsGroupNorm(ctx->OpType()) ? kGroupNorm : kInstanceNorm;
  for (const char* slot : {"Y", MeanSlot(op), VarSlot(op)}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDataType(slot, x);
  }
}

// The values of an optional per-channel parameter as doubles, `fill` when absent.
template <typename T>
std::vector<double> ChannelValues(const DenseTensor* t, int64_t c, double fill) {
  if (t == nullptr) return std::vector<double>(static_cast<size_t>(c), fill);
  const T* p = t->data<T>();
  return std::vector<double>(p, p + c);
}

// Calls fn(index into X, channel) for every element of group `group` of sample `sample`, in
// memory order.
template <typename Fn>
void ForEachInGroup(const GroupLayout& g, int64_t sample, int64_t group, Fn&& fn) {
  const int64_t cg = g.ChannelsPerGroup(), c0 = group * cg;
  if (g.channel_last) {
    for (int64_t s = 0; s < g.spatial; ++s) {
      for (int64_t c = c0; c < c0 + cg; ++c) fn(g.Index(sample, c, s), c);
    }
  } else {
    for (int64_t c = c0; c < c0 + cg; ++c) {
      for (int64_t s = 0; s < g.spatial; ++s) fn(g.Index(sample, c, s), c);
    }
  }
}

template <typename T>
struct NormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor x = *ctx.Input("X");
    const GroupLayout g = LayoutOf(ctx, x.dims());
    for (const char* slot : {"Scale", "Bias"}) {
      if (const DenseTensor* t = ctx.Input(slot)) CheckParam(op, slot, t->dims(), g.c);
    }
    const std::vector<double> gamma = ChannelValues<T>(ctx.Input("Scale"), g.c, 1.0);
    const std::vector<double> beta = ChannelValues<T>(ctx.Input("Bias"), g.c, 0.0);
    const double epsilon = ctx.Attr<float>("epsilon");
    const platform::Place place = ctx.GetPlace();
    DenseTensor* y = ctx.Output("Y");
    DenseTensor* mean = ctx.Output(MeanSlot(op));
    DenseTensor* var = ctx.Output(VarSlot(op));
    y->Resize(x.dims());
    y->set_lod(x.lod());
    // instance_norm's statistics are optional outputs.
    T* mo = nullptr;
    T* vo = nullptr;
    if (mean != nullptr) {
      mean->Resize(g.StatsDims(op));
      mo = mean->mutable_data<T>(place);
    }
    if (var != nullptr) {
      var->Resize(g.StatsDims(op));
      vo = var->mutable_data<T>(place);
    }
    const T* in = x.data<T>();
    T* out = y->mutable_data<T>(place);
    const bool group = IsGroupNorm(op);
    const int64_t m = g.ChannelsPerGroup() * g.spatial;
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        g.n * g.groups, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(m, 1)),
        [&](int64_t begin, int64_t end) {
          for (int64_t t = begin; t < end; ++t) {
            const int64_t sample = t / g.groups, grp = t % g.groups;
            double s = 0;
            ForEachInGroup(g, sample, grp, [&](int64_t i, int64_t) { s += in[i]; });
            const double mu = m > 0 ? s / static_cast<double>(m) : 0.0;
            double ss = 0;
            ForEachInGroup(g, sample, grp, [&](int64_t i, int64_t) {
              const double d = static_cast<double>(in[i]) - mu;
              ss += d * d;
            });
            const double sigma2 = m > 0 ? ss / static_cast<double>(m) : 0.0;
            const double r = 1.0 / std::sqrt(sigma2 + epsilon);
            ForEachInGroup(g, sample, grp, [&](int64_t i, int64_t c) {
              out[i] = static_cast<T>((static_cast<double>(in[i]) - mu) * r * gamma[c] + beta[c]);
            });
            if (mo != nullptr) mo[t] = static_cast<T>(mu);
            if (vo != nullptr) vo[t] = static_cast<T>(group ? sigma2 : r);
          }
        });
  }
};

template <bool kGroup>
void NormGradInferShape(InferShapeContext* ctx) {
  const std::string op = kGroup ? kGroupNorm : kInstanceNorm;
  for (const char* slot : {"X", MeanSlot(op), VarSlot(op), "Y@GRAD"}) ctx->RequireInput(slot);
  const DDim x = ctx->GetInputDim("X");
  const GroupLayout g = LayoutOf(ctx, x);
  const DDim dy = ctx->GetInputDim("Y@GRAD");
  PL_ENFORCE(x.HasUnknown() || dy.HasUnknown() || x == dy,
             errors::InvalidArgument("op `%s` input `Y@GRAD`: expected the shape of X %s, "
                                     "received %s",
                                     ctx->OpType(), x.ToString(), dy.ToString()));
  if (ctx->HasOutput("X@GRAD")) {
    ctx->SetOutputDim("X@GRAD", x);
    ctx->ShareLoD("X", "X@GRAD");
  }
  for (const char* slot : {"Scale@GRAD", "Bias@GRAD"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDim(slot, DDim({g.c}));
  }
}

void NormGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType x = ctx->GetInputDataType("X");
  for (const char* slot : {"X@GRAD", "Scale@GRAD", "Bias@GRAD"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDataType(slot, x);
  }
}

template <typename T>
struct NormGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string op = IsGroupNorm(ctx.Type()) ? kGroupNorm : kInstanceNorm;
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor dy = *ctx.Input("Y@GRAD");
    const GroupLayout g = LayoutOf(ctx, x.dims());
    PL_ENFORCE(dy.dims() == x.dims(),
               errors::InvalidArgument("op `%s` input `Y@GRAD`: expected the shape of X %s, "
                                       "received %s",
                                       ctx.Type(), x.dims().ToString(), dy.dims().ToString()));
    const int64_t stats = g.n * g.groups;
    for (const char* slot : {MeanSlot(op), VarSlot(op)}) {
      const DDim d = ctx.Input(slot)->dims();
      PL_ENFORCE(d.numel() == stats,
                 errors::InvalidArgument("op `%s` input `%s`: expected %s, received %s",
                                         ctx.Type(), slot, g.StatsDims(op).ToString(),
                                         d.ToString()));
    }
    if (const DenseTensor* s = ctx.Input("Scale")) CheckParam(ctx.Type(), "Scale", s->dims(), g.c);
    const std::vector<double> gamma = ChannelValues<T>(ctx.Input("Scale"), g.c, 1.0);
    const T* mean = ctx.Input(MeanSlot(op))->data<T>();
    const T* var = ctx.Input(VarSlot(op))->data<T>();
    const double epsilon = ctx.Attr<float>("epsilon");
    std::vector<double> r(static_cast<size_t>(stats));
    for (int64_t t = 0; t < stats; ++t) {
      r[t] = IsGroupNorm(op) ? 1.0 / std::sqrt(static_cast<double>(var[t]) + epsilon)
                             : static_cast<double>(var[t]);
    }
    const T* xd = x.data<T>();
    const T* gd = dy.data<T>();
    const auto xhat = [&](int64_t i, int64_t t) {
      return (static_cast<double>(xd[i]) - static_cast<double>(mean[t])) * r[t];
    };
    const platform::Place place = ctx.GetPlace();
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    DenseTensor* dscale = ctx.Output("Scale@GRAD");
    DenseTensor* dbias = ctx.Output("Bias@GRAD");
    if (dscale != nullptr || dbias != nullptr) {
      // Per channel, over samples then positions in order.
      std::vector<double> sum_dy(static_cast<size_t>(g.c)), sum_dy_xhat(static_cast<size_t>(g.c));
      dev.ParallelFor(g.c, 1, [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c) {
          double a = 0, b = 0;
          for (int64_t sample = 0; sample < g.n; ++sample) {
            const int64_t t = sample * g.groups + c / g.ChannelsPerGroup();
            for (int64_t s = 0; s < g.spatial; ++s) {
              const int64_t i = g.Index(sample, c, s);
              a += static_cast<double>(gd[i]);
              b += static_cast<double>(gd[i]) * xhat(i, t);
            }
          }
          sum_dy[c] = a;
          sum_dy_xhat[c] = b;
        }
      });
      const auto write = [&](DenseTensor* out, const std::vector<double>& sums) {
        if (out == nullptr) return;
        out->Resize(DDim({g.c}));
        T* o = out->mutable_data<T>(place);
        for (int64_t c = 0; c < g.c; ++c) o[c] = static_cast<T>(sums[c]);
      };
      write(dscale, sum_dy_xhat);
      write(dbias, sum_dy);
    }
    DenseTensor* dx = ctx.Output("X@GRAD");
    if (dx == nullptr) return;
    dx->Resize(x.dims());
    dx->set_lod(x.lod());
    T* o = dx->mutable_data<T>(place);
    const int64_t m = g.ChannelsPerGroup() * g.spatial;
    dev.ParallelFor(stats, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(m, 1)),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t t = begin; t < end; ++t) {
                        const int64_t sample = t / g.groups, grp = t % g.groups;
                        double mean_g = 0, mean_gx = 0;
                        ForEachInGroup(g, sample, grp, [&](int64_t i, int64_t c) {
                          const double gi = static_cast<double>(gd[i]) * gamma[c];
                          mean_g += gi;
                          mean_gx += gi * xhat(i, t);
                        });
                        mean_g /= static_cast<double>(m);
                        mean_gx /= static_cast<double>(m);
                        ForEachInGroup(g, sample, grp, [&](int64_t i, int64_t c) {
                          const double gi = static_cast<double>(gd[i]) * gamma[c];
                          o[i] = static_cast<T>(r[t] * (gi - mean_g - xhat(i, t) * mean_gx));
                        });
                      }
                    });
  }
};

// One fused grad op reading X, Scale, the statistics and dY.
template <bool kGroup>
void NormGradMaker(framework::GradOpBuilder* g) {
  const std::string op = kGroup ? kGroupNorm : kInstanceNorm;
  framework::VariableNameMap inputs = {{"X", g->Input("X")},
                                       {MeanSlot(op), g->Output(MeanSlot(op))},
                                       {VarSlot(op), g->Output(VarSlot(op))},
                                       {"Y@GRAD", g->OutputGrad("Y")}};
  if (!g->Input("Scale").empty()) inputs["Scale"] = g->Input("Scale");
  g->AddOp(op + "_grad", inputs,
           {{"X@GRAD", g->InputGrad("X")},
            {"Scale@GRAD", g->InputGrad("Scale")},
            {"Bias@GRAD", g->InputGrad("Bias")}},
           kGroup ? PickAttrs(g->Forward(), {"epsilon", "groups", "data_layout"})
                  : PickAttrs(g->Forward(), {"epsilon"}));
}

// Returns the forward op's registrar (for checkpoints).
template <bool kGroup, typename MakerT>
framework::OpRegistrar RegisterNorm() {
  const std::string op = kGroup ? kGroupNorm : kInstanceNorm;
  framework::OpRegistrar forward = framework::RegisterOp<XTypedOp, MakerT>(op)
                                       .InferShape(NormInferShape<kGroup>)
                                       .InferVarType(NormInferVarType)
                                       .GradOpMaker(NormGradMaker<kGroup>);
  RegisterPlainCpuFloatKernels<NormKernel>(op);
  framework::RegisterOp<XTypedOp, NormGradOpMaker<kGroup>>(op + "_grad")
      .InferShape(NormGradInferShape<kGroup>)
      .InferVarType(NormGradInferVarType);
  RegisterPlainCpuFloatKernels<NormGradKernel>(op + "_grad");
  return forward;
}

}  // namespace

PL_REGISTER_OPS(RegisterGroupNormOps) {
  RegisterNorm<true, GroupNormOpMaker>();
  // PaddlePaddle's version 1: Scale and Bias, required before, became dispensable.
  RegisterNorm<false, InstanceNormOpMaker>().Checkpoint(
      "instance_norm without Scale and Bias",
      framework::OpVersionDesc()
          .NewInput("Scale", "Dispensable from this version on (required before).")
          .NewInput("Bias", "Dispensable from this version on (required before)."));
}

}  // namespace operators
}  // namespace paddle_like
