// batch_norm_grad: the fused gradient of batch_norm (first order only).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/nn/batch_norm_util.h"
#include "operators/nn/nn_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

class BatchNormGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Scale", "The forward op's Scale (gamma), [C].");
    AddInput("SavedMean", "The forward op's SavedMean (the batch mean): read in training, [C].")
        .AsDispensable();
    AddInput("SavedVariance",
             "The forward op's SavedVariance (the inverse standard deviation): read in "
             "training, [C].")
        .AsDispensable();
    AddInput("Mean", "The running mean: read in inference mode, [C].").AsDispensable();
    AddInput("Variance", "The running variance: read in inference mode, [C].").AsDispensable();
    AddInput("MeanOut",
             "The forward op's MeanOut (the running mean), as PaddlePaddle 3.x programs pass it; "
             "read in inference mode when Mean is absent, [C].")
        .AsDispensable();
    AddInput("VarianceOut",
             "The forward op's VarianceOut (the running variance), as PaddlePaddle 3.x programs "
             "pass it; read in inference mode when Variance is absent, [C].")
        .AsDispensable();
    AddInput("Bias", "Not read; accepted because PaddlePaddle's programs pass it.")
        .AsDispensable();
    // PaddlePaddle's programs pass the forward op's ReserveSpace (empty here).
    AddInput("ReserveSpace", "Workspace of GPU kernels; not read by the CPU kernel.")
        .AsDispensable()
        .AsExtra()
        .AsNoNeedBuffer();
    AddInput("Y@GRAD", "Gradient of the forward op's Y.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.").AsDispensable();
    AddOutput("Scale@GRAD", "Gradient of Scale, [C].").AsDispensable();
    AddOutput("Bias@GRAD", "Gradient of Bias, [C].").AsDispensable();
    AddAttr<float>("epsilon", "As in `batch_norm`.").SetDefault(1e-5f).InRange(0.0f, 1e-3f);
    AddAttr<bool>("is_test", "As in `batch_norm`.").SetDefault(false);
    AddAttr<std::string>("data_layout", "As in `batch_norm`.")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout"});
    AddAttr<bool>("use_global_stats", "As in `batch_norm`.").SetDefault(false);
    AddAttr<bool>("trainable_statistics", "As in `batch_norm`.").SetDefault(false);
    AddComment(R"DOC(
Gradient of `batch_norm` (fused kernel, not differentiable again). Per channel, with
$\hat{x} = (X - \mu) \cdot r$, r the inverse standard deviation and sums over the m values
of the channel:
$$dBias = \sum dY, \quad dScale = \sum dY \cdot \hat{x}$$
Training (mu = SavedMean, r = SavedVariance):
$$dX = \frac{\gamma r}{m} \left(m \cdot dY - \sum dY - \hat{x} \sum dY \hat{x}\right)$$
Inference mode (mu = Mean, r = 1 / sqrt(Variance + epsilon); MeanOut and VarianceOut stand
in for absent Mean and Variance): $$dX = \gamma \, r \, dY$$
A channel with a single value was passed through by the forward op: dX = dY there.
)DOC");
  }
};

void BatchNormGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Scale", "Y@GRAD"}) ctx->RequireInput(slot);
  const DDim x = ctx->GetInputDim("X");
  const DDim dy = ctx->GetInputDim("Y@GRAD");
  PL_ENFORCE(x.HasUnknown() || dy.HasUnknown() || x == dy,
             errors::InvalidArgument("op `%s` input `Y@GRAD`: expected the shape of X %s, "
                                     "received %s",
                                     ctx->OpType(), x.ToString(), dy.ToString()));
  if (ctx->HasOutput("X@GRAD")) {
    ctx->SetOutputDim("X@GRAD", x);
    ctx->ShareLoD("X", "X@GRAD");
  }
  const DDim scale = ctx->GetInputDim("Scale");
  for (const char* slot : {"Scale@GRAD", "Bias@GRAD"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDim(slot, scale);
  }
}

void BatchNormGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType x = ctx->GetInputDataType("X");
  for (const char* slot : {"X@GRAD", "Scale@GRAD", "Bias@GRAD"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDataType(slot, x);
  }
}

}  // namespace

BatchNormGradInputs CheckBatchNormGradInputs(const ExecutionContext& ctx) {
  const DenseTensor& x = *ctx.Input("X");
  const DenseTensor& dy = *ctx.Input("Y@GRAD");
  BatchNormGradInputs in;
  in.layout = MakeChannelLayout(kBatchNormGradOp, x.dims(), ctx.Attr<std::string>("data_layout"));
  PL_ENFORCE(dy.dims() == x.dims(),
             errors::InvalidArgument("op `%s` input `Y@GRAD`: expected the shape of X %s, "
                                     "received %s",
                                     kBatchNormGradOp, x.dims().ToString(), dy.dims().ToString()));
  in.global = UsesGlobalStats(ctx.Attr<bool>("is_test"), ctx.Attr<bool>("use_global_stats"),
                              ctx.Attr<bool>("trainable_statistics"));
  // Inference mode reads the running statistics: Mean/Variance, or MeanOut/VarianceOut
  // (the same variables) in PaddlePaddle 3.x programs.
  const auto running = [&ctx](const char* slot, const char* out_slot) {
    return ctx.HasInput(slot) || !ctx.HasInput(out_slot) ? slot : out_slot;
  };
  in.mean_slot = in.global ? running("Mean", "MeanOut") : "SavedMean";
  in.var_slot = in.global ? running("Variance", "VarianceOut") : "SavedVariance";
  for (const char* slot : {"Scale", in.mean_slot, in.var_slot}) {
    const DenseTensor* t = ctx.Input(slot);
    PL_ENFORCE(t != nullptr,
               errors::NotFound("op `%s` input `%s`: required %s but not given", kBatchNormGradOp,
                                slot, in.global ? "in inference mode" : "in training"));
    CheckChannelTensor(kBatchNormGradOp, slot, *t, in.layout);
  }
  return in;
}

template <typename T>
void BatchNormGradPlainCompute(const ExecutionContext& ctx, const CrossRankSum& across_ranks) {
  const BatchNormGradInputs in = CheckBatchNormGradInputs(ctx);
  const ChannelLayout& l = in.layout;
  const bool global = in.global;
  const char* mean_slot = in.mean_slot;
  const char* var_slot = in.var_slot;
  const DenseTensor x = *ctx.Input("X");
  const DenseTensor dy = *ctx.Input("Y@GRAD");
  const std::vector<double> gamma = ChannelValues<T>(*ctx.Input("Scale"));
  const std::vector<double> mu = ChannelValues<T>(*ctx.Input(mean_slot));
  std::vector<double> r = ChannelValues<T>(*ctx.Input(var_slot));
  if (global) {
    const double epsilon = ctx.Attr<float>("epsilon");
    for (double& v : r) v = 1.0 / std::sqrt(v + epsilon);
  }
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
  const T* xd = x.data<T>();
  const T* g = dy.data<T>();
  std::vector<double> sum_dy =
      SumPerChannel(dev, l, [&](int64_t k, int64_t) { return static_cast<double>(g[k]); });
  std::vector<double> sum_dy_xhat = SumPerChannel(dev, l, [&](int64_t k, int64_t c) {
    return static_cast<double>(g[k]) * (static_cast<double>(xd[k]) - mu[c]) * r[c];
  });
  // dX in training reads the sums over the values that shared the statistics: every rank's
  // with `across_ranks`.
  double m = static_cast<double>(l.PerChannel());
  std::vector<double> job_sum_dy = sum_dy, job_sum_dy_xhat = sum_dy_xhat;
  if (across_ranks && !global) {
    std::vector<double> sums = sum_dy;
    sums.insert(sums.end(), sum_dy_xhat.begin(), sum_dy_xhat.end());
    sums.push_back(m);
    across_ranks(&sums);
    job_sum_dy.assign(sums.begin(), sums.begin() + l.c);
    job_sum_dy_xhat.assign(sums.begin() + l.c, sums.begin() + 2 * l.c);
    m = sums.back();
  }
  const bool passed_through = !global && m <= 1;
  if (passed_through) {
    std::fill(sum_dy.begin(), sum_dy.end(), 0.0);
    std::fill(sum_dy_xhat.begin(), sum_dy_xhat.end(), 0.0);
  }
  const platform::Place place = ctx.GetPlace();
  if (DenseTensor* dbias = ctx.Output("Bias@GRAD")) WriteChannels<T>(sum_dy, place, dbias);
  if (DenseTensor* dscale = ctx.Output("Scale@GRAD")) WriteChannels<T>(sum_dy_xhat, place, dscale);
  DenseTensor* dx = ctx.Output("X@GRAD");
  if (dx == nullptr) return;
  // dX = a_c * dY + b_c * X + d_c, linear per channel.
  std::vector<double> a(l.c), b(l.c), d(l.c);
  for (int64_t c = 0; c < l.c; ++c) {
    if (passed_through) {
      a[c] = 1.0;
    } else if (global) {
      a[c] = gamma[c] * r[c];
    } else {
      // gamma r / m (m dY - sum dY - (x - mu) r sum(dY xhat)).
      a[c] = gamma[c] * r[c];
      b[c] = -gamma[c] * r[c] * r[c] * job_sum_dy_xhat[c] / m;
      d[c] = -gamma[c] * r[c] * job_sum_dy[c] / m - b[c] * mu[c];
    }
  }
  dx->Resize(x.dims());
  dx->set_lod(x.lod());
  T* o = dx->mutable_data<T>(place);
  dev.ParallelFor(x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t c = l.ChannelOf(k);
      o[k] = static_cast<T>(a[c] * static_cast<double>(g[k]) + b[c] * static_cast<double>(xd[k]) +
                            d[c]);
    }
  });
}

template void BatchNormGradPlainCompute<float>(const ExecutionContext& ctx, const CrossRankSum&);
template void BatchNormGradPlainCompute<double>(const ExecutionContext& ctx, const CrossRankSum&);

namespace {

template <typename T>
struct BatchNormGradKernel {
  static void Compute(const ExecutionContext& ctx) { BatchNormGradPlainCompute<T>(ctx); }
};

template <typename T>
struct SyncBatchNormGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    BatchNormGradPlainCompute<T>(ctx, SyncBatchNormRanks(ctx));
  }
};

class SyncBatchNormGradOpMaker : public BatchNormGradOpMaker {
 public:
  void Make() override {
    BatchNormGradOpMaker::Make();
    AddComment(R"DOC(
Gradient of `sync_batch_norm`: batch_norm_grad's formula, with the sums in dX taken over the
m values of the channel on every rank of the data-parallel job (all-reduced in float64 on
ring 0, the job's):
$$dX = \frac{\gamma r}{m} \left(m \cdot dY - \sum_{ranks} dY - \hat{x} \sum_{ranks} dY \hat{x}\right)$$
dScale and dBias are this rank's sums, $\sum dY \hat{x}$ and $\sum dY$: the data-parallel
gradient all-reduce adds the ranks' and scales by 1/nranks, as for every parameter. In
inference mode, and in a job of one process, it is batch_norm_grad.
)DOC");
  }
};

}  // namespace

void RegisterBatchNormGradOps() {
  framework::RegisterOp<XTypedOp, BatchNormGradOpMaker>(kBatchNormGradOp)
      .InferShape(BatchNormGradInferShape)
      .InferVarType(BatchNormGradInferVarType);
  RegisterPlainCpuFloatKernels<BatchNormGradKernel>(kBatchNormGradOp);
  framework::RegisterOp<XTypedOp, SyncBatchNormGradOpMaker>(kSyncBatchNormGradOp)
      .InferShape(BatchNormGradInferShape)
      .InferVarType(BatchNormGradInferVarType);
  RegisterPlainCpuFloatKernels<SyncBatchNormGradKernel>(kSyncBatchNormGradOp);
}

}  // namespace operators
}  // namespace paddle_like
