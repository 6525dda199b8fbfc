// batch_norm: per-channel normalisation with batch statistics (training) or running
// statistics (inference), and its fused gradient op batch_norm_grad.
//
// Statistics are summed in double in a fixed order (batch, then spatial position), one
// channel per task, so results do not depend on the number of threads.
#include <cmath>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/nn/batch_norm_util.h"
#include "operators/nn/nn_op_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class BatchNormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input of rank 2 to 5: [N, C, ...] for NCHW or [N, ..., C] for NHWC.");
    AddInput("Scale", "Per-channel scale gamma, shape [C].");
    AddInput("Bias", "Per-channel shift beta, shape [C].");
    AddInput("Mean", "Running mean, shape [C]: normalises X in inference mode.");
    AddInput("Variance", "Running variance, shape [C]: normalises X in inference mode.");
    AddInput("MomentumTensor", "One-element tensor that overrides the `momentum` attribute.")
        .AsDispensable();
    AddOutput("Y", "The normalised result, with the shape and LoD of X.");
    AddOutput("MeanOut",
              "Running mean after this step, shape [C]; usually the same variable as Mean.");
    AddOutput("VarianceOut",
              "Running variance after this step, shape [C]; usually the same variable as "
              "Variance.");
    AddOutput("SavedMean", "The mean that normalised X (the batch mean in training), [C].")
        .AsIntermediate();
    AddOutput("SavedVariance",
              "The inverse standard deviation 1 / sqrt(var + epsilon) that normalised X (from "
              "the batch variance in training), [C].")
        .AsIntermediate();
    AddOutput("ReserveSpace", "Workspace of GPU kernels; the CPU kernel leaves it untouched.")
        .AsDispensable()
        .AsExtra();
    AddAttr<float>("epsilon", "Added to the variance before the square root.")
        .SetDefault(1e-5f)
        .InRange(0.0f, 1e-3f);
    AddAttr<float>("momentum", "Weight of the old running statistics in the update.")
        .SetDefault(0.9f);
    AddAttr<bool>("is_test", "Inference mode: normalise with the running statistics.")
        .SetDefault(false);
    AddAttr<std::string>("data_layout",
                         "Where the channel dim is: NCHW (dim 1) or NHWC (last dim); AnyLayout "
                         "reads as NCHW.")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout"});
    AddAttr<bool>("use_global_stats",
                  "Normalise with the running statistics also in training; they are not "
                  "updated.")
        .SetDefault(false);
    AddAttr<bool>("trainable_statistics",
                  "With is_test, still normalise with (and update) batch statistics.")
        .SetDefault(false);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("fuse_with_relu", "Apply relu to Y (inference only: no gradient).")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Batch normalisation operator. Per channel c, over the batch and spatial dims:

$$Y = \gamma_c \frac{X - \mu_c}{\sqrt{\sigma_c^2 + \epsilon}} + \beta_c$$

with gamma = Scale and beta = Bias. The channel is dim 1 (NCHW) or the last dim (NHWC).

Inference (is_test and not trainable_statistics, or use_global_stats): mu = Mean and
sigma^2 = Variance; the running statistics are not changed (MeanOut and VarianceOut are
copies of Mean and Variance when they are other variables).

Training: mu and sigma^2 are the batch mean and the biased batch variance (divided by the
number of values m per channel), and
$$MeanOut = momentum \cdot Mean + (1 - momentum) \cdot \mu, \quad
VarianceOut = momentum \cdot Variance + (1 - momentum) \cdot \sigma^2$$
(MomentumTensor, when given, replaces momentum). SavedMean = mu and
SavedVariance = 1 / sqrt(sigma^2 + epsilon), the inverse standard deviation. As in
PaddlePaddle, a channel with a single value (m = 1) is passed through: Y = X, the running
statistics stay as they are.

Gradient (fused op `batch_norm_grad`, first order only), with
$\hat{x} = (X - \mu) / \sqrt{\sigma^2 + \epsilon}$ and sums over the m values of a channel:
$$dBias = \sum dY, \quad dScale = \sum dY \cdot \hat{x}$$
$$dX = \frac{\gamma}{m \sqrt{\sigma^2 + \epsilon}} \left(m \cdot dY - \sum dY - \hat{x} \sum dY \hat{x}\right)$$
in training, and $dX = \gamma \, dY / \sqrt{\sigma^2 + \epsilon}$ with the running
statistics in inference mode.
)DOC");
  }
};

// sync_batch_norm: batch_norm whose training statistics are the whole data-parallel job's
// (PaddlePaddle's nn.SyncBatchNorm; a model trained with it and exported carries the op).
class SyncBatchNormOpMaker : public BatchNormOpMaker {
 public:
  void Make() override {
    BatchNormOpMaker::Make();
    AddComment(R"DOC(
Synchronised batch normalisation: batch_norm (the same slots, attributes and formula),

$$Y = \gamma_c \frac{X - \mu_c}{\sqrt{\sigma_c^2 + \epsilon}} + \beta_c,$$

whose batch statistics mu and sigma^2 in training are taken over the batches of every rank
of a data-parallel job.

In training on several ranks, the per-channel sums of X and of (X - mu)^2 and the count of
values are all-reduced (in float64) on ring 0 (the job's), so every
rank normalises by the statistics of the whole job's batch and keeps the same running ones.
In inference mode (is_test, use_global_stats) and in a job of one process it computes
exactly what batch_norm does. Its gradient, sync_batch_norm_grad, sums dY and dY * xhat over
every rank for dX.
)DOC");
  }
};

// Checks that `slot` has shape [C]; `what` describes where C comes from.
void CheckChannelVector(InferShapeContext* ctx, const char* slot, int64_t channels,
                        const std::string& what) {
  if (!ctx->HasInput(slot)) return;
  const DDim d = ctx->GetInputDim(slot);
  const bool ok = d.size() == 1 && (d[0] < 0 || channels < 0 || d[0] == channels);
  PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `%s`: expected shape [C] = %s (%s), "
                                         "received %s",
                                         ctx->OpType(), slot, DDim({channels}).ToString(), what,
                                         d.ToString()));
}

// The channel count of input X, checking its rank; `channels_last` from data_layout.
int64_t CheckedChannels(InferShapeContext* ctx, bool channels_last, std::string* what) {
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() >= 2 && x.size() <= 5,
             errors::InvalidArgument("op `%s` input `X`: expected a tensor of rank 2 to 5, "
                                     "received shape %s",
                                     ctx->OpType(), x.ToString()));
  const std::string layout = ctx->Attr<std::string>("data_layout");
  *what = "C from X " + x.ToString() + " in layout " + layout;
  return channels_last ? x[x.size() - 1] : x[1];
}

void BatchNormInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Scale", "Bias", "Mean", "Variance"}) ctx->RequireInput(slot);
  for (const char* slot : {"Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance"}) {
    ctx->RequireOutput(slot);
  }
  std::string what;
  const int64_t c =
      CheckedChannels(ctx, IsChannelsLast(ctx->Attr<std::string>("data_layout")), &what);
  for (const char* slot : {"Scale", "Bias", "Mean", "Variance"}) {
    CheckChannelVector(ctx, slot, c, what);
  }
  if (ctx->HasInput("MomentumTensor")) {
    const DDim m = ctx->GetInputDim("MomentumTensor");
    PL_ENFORCE(m.numel() < 0 || m.numel() == 1,
               errors::InvalidArgument("op `%s` input `MomentumTensor`: expected one element, "
                                       "received shape %s",
                                       ctx->OpType(), m.ToString()));
  }
  ctx->SetOutputDim("Y", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "Y");
  for (const char* slot : {"MeanOut", "VarianceOut", "SavedMean", "SavedVariance"}) {
    ctx->SetOutputDim(slot, DDim({c}));
  }
  // No kernel here needs the workspace; an empty tensor lets PaddlePaddle's programs, whose
  // batch_norm_grad takes it, run.
  if (ctx->HasOutput("ReserveSpace")) ctx->SetOutputDim("ReserveSpace", DDim({0}));
}

void BatchNormInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType x = ctx->GetInputDataType("X");
  for (const char* slot : {"Y", "SavedMean", "SavedVariance"}) ctx->SetOutputDataType(slot, x);
  ctx->SetOutputDataType("MeanOut", ctx->GetInputDataType("Mean"));
  ctx->SetOutputDataType("VarianceOut", ctx->GetInputDataType("Variance"));
}

}  // namespace

template <typename T>
void BatchNormPlainCompute(const ExecutionContext& ctx, const CrossRankSum& across_ranks) {
  // Local copies share the buffers: an output that is the same variable as an input then
  // gets a fresh buffer from mutable_data, and the input values stay readable.
  const DenseTensor x = *ctx.Input("X");
  const DenseTensor scale = *ctx.Input("Scale");
  const DenseTensor bias = *ctx.Input("Bias");
  const DenseTensor mean = *ctx.Input("Mean");
  const DenseTensor variance = *ctx.Input("Variance");
  const ChannelLayout l =
      MakeChannelLayout(kBatchNormOp, x.dims(), ctx.Attr<std::string>("data_layout"));
  for (const auto* slot : {"Scale", "Bias", "Mean", "Variance"}) {
    CheckChannelTensor(kBatchNormOp, slot, *ctx.Input(slot), l);
  }
  const double epsilon = ctx.Attr<float>("epsilon");
  const bool global = UsesGlobalStats(ctx.Attr<bool>("is_test"), ctx.Attr<bool>("use_global_stats"),
                                      ctx.Attr<bool>("trainable_statistics"));
  const platform::Place place = ctx.GetPlace();
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
  DenseTensor* y = ctx.Output("Y");
  const std::vector<double> old_mean = ChannelValues<T>(mean);
  const std::vector<double> old_var = ChannelValues<T>(variance);

  std::vector<double> mu(l.c), inv_std(l.c);
  if (global) {
    KeepRunningStat(ctx, "Mean", "MeanOut");
    KeepRunningStat(ctx, "Variance", "VarianceOut");
    for (int64_t c = 0; c < l.c; ++c) {
      mu[c] = old_mean[c];
      inv_std[c] = 1.0 / std::sqrt(old_var[c] + epsilon);
    }
  } else {
    const T* xd = x.data<T>();
    mu = SumPerChannel(dev, l, [&](int64_t k, int64_t) { return static_cast<double>(xd[k]); });
    double m = static_cast<double>(l.PerChannel());
    if (across_ranks) {
      mu.push_back(m);
      across_ranks(&mu);
      m = mu.back();
      mu.pop_back();
    }
    if (m <= 1) {
      // One value (or none) per channel: pass X through, keep the running statistics.
      KeepRunningStat(ctx, "Mean", "MeanOut");
      KeepRunningStat(ctx, "Variance", "VarianceOut");
      WriteChannels<T>(std::vector<double>(l.c, 0.0), place, ctx.Output("SavedMean"));
      WriteChannels<T>(std::vector<double>(l.c, 0.0), place, ctx.Output("SavedVariance"));
      DenseTensor out(x.dims(), x.dtype());
      T* o = out.mutable_data<T>(place);
      for (int64_t k = 0; k < x.numel(); ++k) o[k] = xd[k];
      out.set_lod(x.lod());
      *y = std::move(out);
      return;
    }
    for (double& v : mu) v /= m;
    std::vector<double> var = SumPerChannel(dev, l, [&](int64_t k, int64_t c) {
      const double d = static_cast<double>(xd[k]) - mu[c];
      return d * d;
    });
    if (across_ranks) across_ranks(&var);
    for (double& v : var) v /= m;
    const double momentum = BatchNormMomentum<T>(ctx);
    std::vector<double> new_mean(l.c), new_var(l.c);
    for (int64_t c = 0; c < l.c; ++c) {
      new_mean[c] = momentum * old_mean[c] + (1.0 - momentum) * mu[c];
      new_var[c] = momentum * old_var[c] + (1.0 - momentum) * var[c];
      inv_std[c] = 1.0 / std::sqrt(var[c] + epsilon);
    }
    WriteChannels<T>(new_mean, place, ctx.Output("MeanOut"));
    WriteChannels<T>(new_var, place, ctx.Output("VarianceOut"));
  }
  WriteChannels<T>(mu, place, ctx.Output("SavedMean"));
  WriteChannels<T>(inv_std, place, ctx.Output("SavedVariance"));

  // Y = X * a_c + b_c with a = gamma / std and b = beta - mu * a.
  const std::vector<double> gamma = ChannelValues<T>(scale);
  const std::vector<double> beta = ChannelValues<T>(bias);
  std::vector<double> a(l.c), b(l.c);
  for (int64_t c = 0; c < l.c; ++c) {
    a[c] = gamma[c] * inv_std[c];
    b[c] = beta[c] - mu[c] * a[c];
  }
  const T* in = x.data<T>();
  y->Resize(x.dims());
  y->set_lod(x.lod());
  T* o = y->mutable_data<T>(place);
  dev.ParallelFor(x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t c = l.ChannelOf(k);
      o[k] = static_cast<T>(static_cast<double>(in[k]) * a[c] + b[c]);
    }
  });
}

template void BatchNormPlainCompute<float>(const ExecutionContext& ctx, const CrossRankSum&);
template void BatchNormPlainCompute<double>(const ExecutionContext& ctx, const CrossRankSum&);

template <typename T>
void ApplyFusedRelu(const ExecutionContext& ctx) {
  if (!ctx.HasAttr("fuse_with_relu") || !ctx.Attr<bool>("fuse_with_relu")) return;
  DenseTensor* y = ctx.Output("Y");
  T* o = y->data<T>();
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      y->numel(), 1 << 14, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) o[k] = o[k] > T(0) ? o[k] : T(0);
      });
}

template void ApplyFusedRelu<float>(const ExecutionContext& ctx);
template void ApplyFusedRelu<double>(const ExecutionContext& ctx);

namespace {

template <typename T>
struct BatchNormKernel {
  static void Compute(const ExecutionContext& ctx) {
    BatchNormPlainCompute<T>(ctx);
    ApplyFusedRelu<T>(ctx);
  }
};

template <typename T>
struct SyncBatchNormKernel {
  static void Compute(const ExecutionContext& ctx) {
    BatchNormPlainCompute<T>(ctx, SyncBatchNormRanks(ctx));
    ApplyFusedRelu<T>(ctx);
  }
};

// One fused batch_norm_grad op. It reads X, Scale, the statistics that normalised X and dY:
// SavedMean / SavedVariance in training, Mean / Variance in inference mode.
void BatchNormGradMaker(framework::GradOpBuilder* g) {
  const framework::OpDesc& fwd = g->Forward();
  PL_ENFORCE(!BoolAttrOr(fwd, "fuse_with_relu", false),
             errors::Unimplemented("op `%s` attribute `fuse_with_relu`: no gradient through the "
                                   "fused relu; keep the relu as an op of its own to train",
                                   kBatchNormOp));
  const bool global =
      UsesGlobalStats(BoolAttrOr(fwd, "is_test", false), BoolAttrOr(fwd, "use_global_stats", false),
                      BoolAttrOr(fwd, "trainable_statistics", false));
  framework::VariableNameMap inputs = {
      {"X", g->Input("X")}, {"Scale", g->Input("Scale")}, {"Y@GRAD", g->OutputGrad("Y")}};
  if (global) {
    inputs["Mean"] = g->Input("Mean");
    inputs["Variance"] = g->Input("Variance");
  } else {
    inputs["SavedMean"] = g->Output("SavedMean");
    inputs["SavedVariance"] = g->Output("SavedVariance");
  }
  g->AddOp(fwd.Type() == kSyncBatchNormOp ? kSyncBatchNormGradOp : kBatchNormGradOp, inputs,
           {{"X@GRAD", g->InputGrad("X")},
            {"Scale@GRAD", g->InputGrad("Scale")},
            {"Bias@GRAD", g->InputGrad("Bias")}},
           PickAttrs(fwd, {"epsilon", "is_test", "data_layout", "use_global_stats",
                           "trainable_statistics"}));
}

}  // namespace

PL_REGISTER_OPS(RegisterBatchNormOp) {
  framework::RegisterOp<XTypedOp, BatchNormOpMaker>(kBatchNormOp)
      .InferShape(BatchNormInferShape)
      .InferVarType(BatchNormInferVarType)
      .GradOpMaker(BatchNormGradMaker);
  RegisterPlainCpuFloatKernels<BatchNormKernel>(kBatchNormOp);
  RegisterBatchNormGradOps();
  framework::RegisterOp<XTypedOp, SyncBatchNormOpMaker>(kSyncBatchNormOp)
      .InferShape(BatchNormInferShape)
      .InferVarType(BatchNormInferVarType)
      .GradOpMaker(BatchNormGradMaker);
  RegisterPlainCpuFloatKernels<SyncBatchNormKernel>(kSyncBatchNormOp);
}

}  // namespace operators
}  // namespace paddle_like
