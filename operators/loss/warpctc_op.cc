// warpctc: the CTC loss (connectionist temporal classification) of unnormalised logits
// against label sequences, with the gradient computed in the same pass, as PaddlePaddle's
// op (after Baidu's warp-ctc) does. Sequences come as LoD tensors or as a padded batch with
// lengths.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/tensor_op_util.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "warpctc";
constexpr double kLogZero = -std::numeric_limits<double>::infinity();

class WarpCtcOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Logits",
             "Unnormalised scores over the C = classes + 1 symbols (blank included): a LoD "
             "tensor [total steps, C] with one sequence per sample, or with LogitsLength a "
             "padded time-major batch [max steps, N, C].");
    AddInput("Label",
             "int32 or int64 label ids: a LoD tensor [total labels, 1], or with LabelLength a "
             "padded batch [N, max labels].");
    AddInput("LogitsLength", "int64 [N]: the steps of each sample of a padded Logits.")
        .AsDispensable();
    AddInput("LabelLength", "int64 [N]: the labels of each sample of a padded Label.")
        .AsDispensable();
    AddOutput("Loss", "[N, 1], Logits' type: the CTC loss of each sample.");
    AddOutput("WarpCTCGrad",
              "[max steps, N, C]: the gradient of each Loss with respect to its Logits, "
              "padded steps zero; kept for the backward.")
        .AsIntermediate();
    AddAttr<int>("blank", "The blank symbol, in [0, C).").SetDefault(0);
    AddAttr<bool>("norm_by_times",
                  "Divide each sample's gradient by its number of steps (the loss is not "
                  "divided).")
        .SetDefault(false);
    AddComment(R"DOC(
CTC loss of each sample: with y_t = softmax(Logits_t) over the C symbols and l' the labels
with a blank before, between and after them (length S = 2L + 1),

$$Loss = -\log p(l \mid x) = -\log \sum_{\pi \in B^{-1}(l)} \prod_{t=1}^{T} y_{t, \pi_t}$$

where B removes repeats and then blanks. p is summed by the forward variables
$\alpha_t(s) = y_{t, l'_s} (\alpha_{t-1}(s) + \alpha_{t-1}(s-1) + [l'_s \ne blank \wedge
l'_s \ne l'_{s-2}]\, \alpha_{t-1}(s-2))$, in log space and double precision, and
$p = \alpha_T(S) + \alpha_T(S-1)$. With the backward variables $\beta$ (defined alike from
the end) the gradient with respect to the logits is

$$\frac{\partial Loss}{\partial x_{t,k}} = y_{t,k} - \frac{1}{p\, y_{t,k}} \sum_{s:\ l'_s = k} \alpha_t(s) \beta_t(s)$$

written to WarpCTCGrad. A sample whose labels, counting one extra step for each repeated
neighbour, outnumber its steps has no alignment: its loss and gradient are 0, as in
PaddlePaddle.

Gradient, by warpctc_grad: dLogits = WarpCTCGrad * dLoss of the sample (divided by the
sample's steps with norm_by_times), unpadded back to Logits' layout.
)DOC");
  }
};

class WarpCtcGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Logits", "The forward op's Logits (only its dims and LoD are read).")
        .AsNoNeedBuffer();
    AddInput("LogitsLength", "The forward op's LogitsLength.").AsDispensable();
    AddInput("WarpCTCGrad", "The forward op's WarpCTCGrad.");
    AddInput("Loss@GRAD", "Gradient of the forward op's Loss, [N, 1].");
    AddOutput("Logits@GRAD", "Gradient of Logits, with Logits' shape and LoD.");
    AddAttr<int>("blank", "The forward op's blank.").SetDefault(0);
    AddAttr<bool>("norm_by_times", "The forward op's norm_by_times.").SetDefault(false);
    AddComment(R"DOC(
Gradient of warpctc, for sample n at step t:
$$dLogits_{t} = WarpCTCGrad_{t, n} \cdot dLoss_n \ (/\ T_n \text{ with norm\_by\_times})$$
)DOC");
  }
};

class WarpCtcOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Loss@GRAD") ? "Loss@GRAD" : "Logits");
  }
  // Labels and lengths are ids: never converted to the kernel's float type.
  bool CastsInput(const std::string& slot, DataType, DataType) const override {
    return slot == "Logits" || slot == "WarpCTCGrad" || slot == "Loss@GRAD";
  }
};

void WarpCtcInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Logits");
  ctx->RequireInput("Label");
  ctx->RequireOutput("Loss");
  const DDim logits = ctx->GetInputDim("Logits");
  const DDim label = ctx->GetInputDim("Label");
  const bool padded =
      PaddedWithLengths(ctx->OpType(), "LogitsLength", ctx->HasInput("LogitsLength"), "LabelLength",
                        ctx->HasInput("LabelLength"));
  const int expected = padded ? 3 : 2;
  PL_ENFORCE(
      logits.size() == expected,
      errors::InvalidArgument(
          "op `%s` input `Logits`: expected rank %d (%s), received %s", ctx->OpType(), expected,
          padded ? "[max steps, N, C] with LogitsLength" : "[total steps, C] with LoD",
          logits.ToString()));
  PL_ENFORCE(label.size() == 2,
             errors::InvalidArgument(
                 "op `%s` input `Label`: expected rank 2 (%s), received %s", ctx->OpType(),
                 padded ? "[N, max labels]" : "[total labels, 1] with LoD", label.ToString()));
  const int64_t width = logits[logits.size() - 1];
  const int blank = ctx->Attr<int>("blank");
  PL_ENFORCE(width < 0 || (blank >= 0 && blank < width),
             errors::InvalidArgument("op `%s` attribute `blank`: expected a symbol in [0, %lld) "
                                     "(Logits' last dim), received %d",
                                     ctx->OpType(), static_cast<long long>(width), blank));
  const int64_t batch = padded ? logits[1] : -1;
  if (padded && label[0] >= 0 && batch >= 0) {
    PL_ENFORCE(
        label[0] == batch,
        errors::InvalidArgument("op `%s` input `Label`: expected %lld rows (Logits' "
                                "samples), received %s",
                                ctx->OpType(), static_cast<long long>(batch), label.ToString()));
  }
  if (ctx->IsRuntime()) return;  // The kernel reads the samples from the LoD or lengths.
  ctx->SetOutputDim("Loss", DDim{batch, 1});
  if (ctx->HasOutput("WarpCTCGrad")) {
    ctx->SetOutputDim("WarpCTCGrad", padded ? logits : DDim{-1, -1, width});
  }
}

void WarpCtcGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Logits");
  ctx->RequireInput("WarpCTCGrad");
  ctx->RequireInput("Loss@GRAD");
  if (!ctx->HasOutput("Logits@GRAD")) return;
  ctx->SetOutputDim("Logits@GRAD", ctx->GetInputDim("Logits"));
  ctx->ShareLoD("Logits", "Logits@GRAD");
}

// The samples of a batch: where each one's steps and labels are.
struct CtcBatch {
  int64_t samples = 0;
  int64_t width = 0;                // C, the symbols.
  int64_t max_steps = 0;            // WarpCTCGrad's first dim.
  std::vector<int64_t> first_step;  // Row of Logits holding sample n's first step...
  std::vector<int64_t> step_rows;   // ...and the rows between its steps.
  std::vector<int64_t> steps;
  std::vector<std::vector<int64_t>> labels;
};

std::vector<int64_t> CheckedLengths(const DenseTensor& t, const char* slot, int64_t samples,
                                    int64_t bound, const char* bound_name) {
  const std::vector<int64_t> lengths = ReadIntValues(t, kOp, slot);
  PL_ENFORCE(static_cast<int64_t>(lengths.size()) == samples,
             errors::InvalidArgument("op `%s` input `%s`: expected %lld values (one per "
                                     "sample), received %zu",
                                     kOp, slot, static_cast<long long>(samples), lengths.size()));
  for (size_t n = 0; n < lengths.size(); ++n) {
    PL_ENFORCE(lengths[n] >= 0 && lengths[n] <= bound,
               errors::InvalidArgument("op `%s` input `%s`: value %lld of sample %zu is outside "
                                       "[0, %lld] (%s)",
                                       kOp, slot, static_cast<long long>(lengths[n]), n,
                                       static_cast<long long>(bound), bound_name));
  }
  return lengths;
}

CtcBatch ReadBatch(const ExecutionContext& ctx) {
  const DenseTensor* logits = ctx.Input("Logits");
  const DenseTensor* label = ctx.Input("Label");
  const bool padded = PaddedWithLengths(kOp, "LogitsLength", ctx.HasInput("LogitsLength"),
                                        "LabelLength", ctx.HasInput("LabelLength"));
  PL_ENFORCE(label->dtype() == DataType::INT32 || label->dtype() == DataType::INT64,
             errors::InvalidArgument("op `%s` input `Label`: expected int32 or int64 ids, "
                                     "received %s",
                                     kOp, platform::DataTypeName(label->dtype())));
  const std::vector<int64_t> ids = ReadIntValues(*label, kOp, "Label");
  CtcBatch b;
  const DDim& ld = logits->dims();
  if (padded) {
    PL_ENFORCE(ld.size() == 3 && label->dims().size() == 2,
               errors::InvalidArgument("op `%s` input `Logits`: expected [max steps, N, C] and "
                                       "Label [N, max labels] with lengths, received %s and %s",
                                       kOp, ld.ToString(), label->dims().ToString()));
    b.samples = ld[1];
    b.width = ld[2];
    b.max_steps = ld[0];
    PL_ENFORCE(
        label->dims()[0] == b.samples,
        errors::InvalidArgument("op `%s` input `Label`: expected %lld rows (Logits' "
                                "samples), received %s",
                                kOp, static_cast<long long>(b.samples), label->dims().ToString()));
    const int64_t max_labels = label->dims()[1];
    b.steps = CheckedLengths(*ctx.Input("LogitsLength"), "LogitsLength", b.samples, b.max_steps,
                             "Logits' steps");
    const std::vector<int64_t> label_lengths = CheckedLengths(
        *ctx.Input("LabelLength"), "LabelLength", b.samples, max_labels, "Label's columns");
    for (int64_t n = 0; n < b.samples; ++n) {
      b.first_step.push_back(n);
      b.step_rows.push_back(b.samples);
      b.labels.emplace_back(ids.begin() + n * max_labels,
                            ids.begin() + n * max_labels + label_lengths[n]);
    }
  } else {
    PL_ENFORCE(ld.size() == 2,
               errors::InvalidArgument("op `%s` input `Logits`: expected [total steps, C] with "
                                       "LoD (or LogitsLength and LabelLength for a padded "
                                       "batch), received %s",
                                       kOp, ld.ToString()));
    const std::vector<size_t>& steps = SequenceOffsets(kOp, "Logits", *logits, 1);
    const std::vector<size_t>& labels = SequenceOffsets(kOp, "Label", *label, 1);
    PL_ENFORCE(label->numel() == label->dims()[0],
               errors::InvalidArgument("op `%s` input `Label`: expected [total labels, 1] with "
                                       "LoD, received %s",
                                       kOp, label->dims().ToString()));
    PL_ENFORCE(steps.size() == labels.size(),
               errors::InvalidArgument("op `%s` input `Label`: expected %zu sequences (Logits' "
                                       "LoD), received %zu",
                                       kOp, steps.size() - 1, labels.size() - 1));
    b.samples = static_cast<int64_t>(steps.size()) - 1;
    b.width = ld[1];
    for (int64_t n = 0; n < b.samples; ++n) {
      b.first_step.push_back(static_cast<int64_t>(steps[n]));
      b.step_rows.push_back(1);
      b.steps.push_back(static_cast<int64_t>(steps[n + 1] - steps[n]));
      b.max_steps = std::max(b.max_steps, b.steps.back());
      b.labels.emplace_back(ids.begin() + labels[n], ids.begin() + labels[n + 1]);
    }
  }
  const int blank = ctx.Attr<int>("blank");
  PL_ENFORCE(blank >= 0 && blank < b.width,
             errors::InvalidArgument("op `%s` attribute `blank`: expected a symbol in [0, %lld) "
                                     "(Logits' last dim), received %d",
                                     kOp, static_cast<long long>(b.width), blank));
  for (int64_t n = 0; n < b.samples; ++n) {
    for (int64_t id : b.labels[n]) {
      PL_ENFORCE(id >= 0 && id < b.width,
                 errors::InvalidArgument("op `%s` input `Label`: label %lld of sample %lld is "
                                         "outside [0, %lld) (Logits' symbols)",
                                         kOp, static_cast<long long>(id), static_cast<long long>(n),
                                         static_cast<long long>(b.width)));
    }
  }
  return b;
}

double LogAdd(double a, double b) {
  if (a == kLogZero) return b;
  if (b == kLogZero) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

// The loss of one sample with `steps` steps (rows of `width` scores, `x_stride` elements
// apart), writing its gradient to `grad` (rows `grad_stride` apart, zero on entry).
template <typename T>
T SampleLoss(const T* x, int64_t x_stride, T* grad, int64_t grad_stride, int64_t steps,
             int64_t width, const std::vector<int64_t>& labels, int64_t blank) {
  const int64_t label_count = static_cast<int64_t>(labels.size());
  int64_t repeats = 0;
  for (int64_t i = 1; i < label_count; ++i) repeats += labels[i] == labels[i - 1];
  if (label_count + repeats > steps) return T(0);  // No alignment fits.
  if (steps == 0) return T(0);                     // The empty labelling, with certainty.
  // log y_t, the log-softmax of each step.
  std::vector<double> logy(steps * width);
  for (int64_t t = 0; t < steps; ++t) {
    const T* row = x + t * x_stride;
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < width; ++k) m = std::max(m, static_cast<double>(row[k]));
    double sum = 0;
    for (int64_t k = 0; k < width; ++k) sum += std::exp(static_cast<double>(row[k]) - m);
    const double log_sum = m + std::log(sum);
    for (int64_t k = 0; k < width; ++k) logy[t * width + k] = static_cast<double>(row[k]) - log_sum;
  }
  const int64_t states = 2 * label_count + 1;
  auto symbol = [&](int64_t s) { return s % 2 == 0 ? blank : labels[s / 2]; };
  // Whether state s may be reached from s - 2 (skipping the blank between two labels).
  auto skips = [&](int64_t s) {
    return s >= 2 && symbol(s) != blank && symbol(s) != symbol(s - 2);
  };
  std::vector<double> alpha(steps * states, kLogZero), beta(steps * states, kLogZero);
  alpha[0] = logy[blank];
  if (states > 1) alpha[1] = logy[labels[0]];
  for (int64_t t = 1; t < steps; ++t) {
    for (int64_t s = 0; s < states; ++s) {
      const double* prev = &alpha[(t - 1) * states];
      double a = prev[s];
      if (s >= 1) a = LogAdd(a, prev[s - 1]);
      if (skips(s)) a = LogAdd(a, prev[s - 2]);
      if (a != kLogZero) alpha[t * states + s] = a + logy[t * width + symbol(s)];
    }
  }
  const int64_t last = (steps - 1) * states;
  beta[last + states - 1] = logy[(steps - 1) * width + symbol(states - 1)];
  if (states > 1) beta[last + states - 2] = logy[(steps - 1) * width + symbol(states - 2)];
  for (int64_t t = steps - 2; t >= 0; --t) {
    for (int64_t s = 0; s < states; ++s) {
      const double* next = &beta[(t + 1) * states];
      double b = next[s];
      if (s + 1 < states) b = LogAdd(b, next[s + 1]);
      if (s + 2 < states && skips(s + 2)) b = LogAdd(b, next[s + 2]);
      if (b != kLogZero) beta[t * states + s] = b + logy[t * width + symbol(s)];
    }
  }
  double log_p = alpha[last + states - 1];
  if (states > 1) log_p = LogAdd(log_p, alpha[last + states - 2]);
  std::vector<double> occupancy(width);
  for (int64_t t = 0; t < steps; ++t) {
    std::fill(occupancy.begin(), occupancy.end(), kLogZero);
    for (int64_t s = 0; s < states; ++s) {
      const int64_t k = symbol(s);
      occupancy[k] = LogAdd(occupancy[k], alpha[t * states + s] + beta[t * states + s]);
    }
    T* g = grad + t * grad_stride;
    for (int64_t k = 0; k < width; ++k) {
      const double ly = logy[t * width + k];
      const double y = std::exp(ly);
      const double used = occupancy[k] == kLogZero ? 0.0 : std::exp(occupancy[k] - ly - log_p);
      g[k] = static_cast<T>(y - used);
    }
  }
  return static_cast<T>(-log_p);
}

template <typename T>
struct WarpCtcKernel {
  static void Compute(const ExecutionContext& ctx) {
    const CtcBatch b = ReadBatch(ctx);
    const DenseTensor* logits = ctx.Input("Logits");
    const int64_t blank = ctx.Attr<int>("blank");
    DenseTensor loss(DDim{b.samples, 1}, logits->dtype());
    DenseTensor grad(DDim{b.max_steps, b.samples, b.width}, logits->dtype());
    T* l = loss.mutable_data<T>(ctx.GetPlace());
    T* g = grad.mutable_data<T>(ctx.GetPlace());
    std::fill(g, g + grad.numel(), T(0));
    const T* x = logits->numel() > 0 ? logits->data<T>() : nullptr;
    // Samples are independent: each thread takes whole ones, so results do not depend on
    // the thread count.
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        b.samples, 1, [&](int64_t begin, int64_t end) {
          for (int64_t n = begin; n < end; ++n) {
            l[n] =
                SampleLoss(x + b.first_step[n] * b.width, b.step_rows[n] * b.width, g + n * b.width,
                           b.samples * b.width, b.steps[n], b.width, b.labels[n], blank);
          }
        });
    *ctx.Output("Loss") = std::move(loss);
    if (DenseTensor* out = ctx.Output("WarpCTCGrad")) *out = std::move(grad);
  }
};

// The scale of sample n's gradient: dLoss_n, over its steps with norm_by_times.
template <typename T>
std::vector<T> SampleScales(const ExecutionContext& ctx, const std::vector<int64_t>& steps) {
  const DenseTensor* dloss = ctx.Input("Loss@GRAD");
  const int64_t samples = static_cast<int64_t>(steps.size());
  PL_ENFORCE(
      dloss->numel() == samples,
      errors::InvalidArgument("op `%s_grad` input `Loss@GRAD`: expected %lld values (one "
                              "per sample), received %s",
                              kOp, static_cast<long long>(samples), dloss->dims().ToString()));
  const bool norm = ctx.Attr<bool>("norm_by_times");
  std::vector<T> scales(samples);
  const T* d = samples > 0 ? dloss->data<T>() : nullptr;
  for (int64_t n = 0; n < samples; ++n) {
    scales[n] = norm && steps[n] > 0 ? d[n] / static_cast<T>(steps[n]) : d[n];
  }
  return scales;
}

template <typename T>
struct WarpCtcGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* logits = ctx.Input("Logits");
    const DenseTensor* padded_grad = ctx.Input("WarpCTCGrad");
    const DDim& pd = padded_grad->dims();
    PL_ENFORCE(pd.size() == 3,
               errors::InvalidArgument("op `%s_grad` input `WarpCTCGrad`: expected [max steps, "
                                       "N, C], received %s",
                                       kOp, pd.ToString()));
    const int64_t max_steps = pd[0], samples = pd[1], width = pd[2];
    const T* pg = padded_grad->numel() > 0 ? padded_grad->data<T>() : nullptr;
    DenseTensor dx(logits->dims(), padded_grad->dtype());
    T* o = dx.mutable_data<T>(ctx.GetPlace());
    if (ctx.HasInput("LogitsLength")) {
      CheckSameShape(std::string(kOp) + "_grad", "WarpCTCGrad", pd, "Logits", logits->dims());
      const std::vector<int64_t> steps = CheckedLengths(*ctx.Input("LogitsLength"), "LogitsLength",
                                                        samples, max_steps, "Logits' steps");
      const std::vector<T> scale = SampleScales<T>(ctx, steps);
      for (int64_t t = 0; t < max_steps; ++t) {
        for (int64_t n = 0; n < samples; ++n) {
          const int64_t at = (t * samples + n) * width;
          for (int64_t k = 0; k < width; ++k) o[at + k] = pg[at + k] * scale[n];
        }
      }
    } else {
      const std::vector<size_t>& lod = SequenceOffsets(kOp, "Logits", *logits, 1);
      PL_ENFORCE(static_cast<int64_t>(lod.size()) - 1 == samples && logits->dims().size() == 2 &&
                     logits->dims()[1] == width,
                 errors::InvalidArgument("op `%s_grad` input `WarpCTCGrad`: expected [max steps, "
                                         "%zu, %lld] (Logits' sequences and symbols), received %s",
                                         kOp, lod.size() - 1,
                                         static_cast<long long>(logits->dims()[1]), pd.ToString()));
      std::vector<int64_t> steps(samples);
      for (int64_t n = 0; n < samples; ++n) {
        steps[n] = static_cast<int64_t>(lod[n + 1] - lod[n]);
        PL_ENFORCE(steps[n] <= max_steps,
                   errors::InvalidArgument("op `%s_grad` input `WarpCTCGrad`: sequence %lld has "
                                           "%lld steps, more than its %lld",
                                           kOp, static_cast<long long>(n),
                                           static_cast<long long>(steps[n]),
                                           static_cast<long long>(max_steps)));
      }
      const std::vector<T> scale = SampleScales<T>(ctx, steps);
      for (int64_t n = 0; n < samples; ++n) {
        for (int64_t t = 0; t < steps[n]; ++t) {
          const T* from = pg + (t * samples + n) * width;
          T* to = o + (static_cast<int64_t>(lod[n]) + t) * width;
          for (int64_t k = 0; k < width; ++k) to[k] = from[k] * scale[n];
        }
      }
    }
    dx.set_lod(logits->lod());
    *ctx.Output("Logits@GRAD") = std::move(dx);
  }
};

void WarpCtcGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Logits")) return;
  framework::VariableNameMap inputs{{"Logits", g->Input("Logits")},
                                    {"WarpCTCGrad", g->Output("WarpCTCGrad")},
                                    {"Loss@GRAD", g->OutputGrad("Loss")}};
  if (g->HasInput("LogitsLength")) inputs["LogitsLength"] = g->Input("LogitsLength");
  g->AddOp("warpctc_grad", inputs, {{"Logits@GRAD", g->InputGrad("Logits")}},
           {{"blank", g->Attr<int>("blank")}, {"norm_by_times", g->Attr<bool>("norm_by_times")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterWarpCtcOp) {
  framework::RegisterOp<WarpCtcOp, WarpCtcOpMaker>(kOp)
      .InferShape(WarpCtcInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        const DataType t = ctx->GetInputDataType("Logits");
        ctx->SetOutputDataType("Loss", t);
        if (ctx->HasOutput("WarpCTCGrad")) ctx->SetOutputDataType("WarpCTCGrad", t);
      })
      .GradOpMaker(WarpCtcGradMaker);
  RegisterPlainCpuFloatKernels<WarpCtcKernel>(kOp);
  framework::RegisterOp<WarpCtcOp, WarpCtcGradOpMaker>("warpctc_grad")
      .InferShape(WarpCtcGradInferShape);
  RegisterPlainCpuFloatKernels<WarpCtcGradKernel>("warpctc_grad");
}

}  // namespace operators
}  // namespace paddle_like
