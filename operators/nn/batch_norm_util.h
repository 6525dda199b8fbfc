// Pieces shared by the batch_norm and batch_norm_grad kernels: the channel view of X, the
// choice between batch and running statistics, and deterministic per-channel sums.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

constexpr char kBatchNormOp[] = "batch_norm";
constexpr char kBatchNormGradOp[] = "batch_norm_grad";
constexpr char kSyncBatchNormOp[] = "sync_batch_norm";
constexpr char kSyncBatchNormGradOp[] = "sync_batch_norm_grad";

// Registers batch_norm_grad and sync_batch_norm_grad (batch_norm_grad_op.cc).
void RegisterBatchNormGradOps();

// Sums per-channel values over every rank of a data-parallel job, in place (sync_batch_norm's
// statistics); empty for an op normalising by its own batch.
using CrossRankSum = std::function<void(std::vector<double>* values)>;

// sync_batch_norm's CrossRankSum: an all-reduce on ring 0 (the job's) in training when the job
// has several ranks, else empty.
CrossRankSum SyncBatchNormRanks(const ExecutionContext& ctx);

// The plain CPU kernels of batch_norm and batch_norm_grad (T: float or double). The oneDNN
// kernels call them for the cases their primitives do not express. With `across_ranks`, the
// training statistics are the job's: the forward op's mean and variance over every rank's
// batch, the gradient's sums of dY and dY * xhat in dX over every rank's (dScale and dBias
// stay this rank's, as the data-parallel gradient all-reduce sums them).
template <typename T>
void BatchNormPlainCompute(const ExecutionContext& ctx, const CrossRankSum& across_ranks = {});
template <typename T>
void BatchNormGradPlainCompute(const ExecutionContext& ctx, const CrossRankSum& across_ranks = {});
// Y = max(Y, 0) when the op's `fuse_with_relu` attribute is set (inference programs whose
// relu was folded into the batch_norm); every kernel calls it last.
template <typename T>
void ApplyFusedRelu(const ExecutionContext& ctx);

inline bool IsChannelsLast(const std::string& data_layout) { return data_layout == "NHWC"; }

// Whether the op normalises with the running statistics Mean / Variance.
inline bool UsesGlobalStats(bool is_test, bool use_global_stats, bool trainable_statistics) {
  return (is_test && !trainable_statistics) || use_global_stats;
}

// X viewed as [n, c, inner] (NCHW: C is dim 1) or [n, inner, c] (NHWC: C is the last dim).
struct ChannelLayout {
  int64_t n = 0;
  int64_t c = 0;
  int64_t inner = 1;
  bool channels_last = false;

  int64_t Offset(int64_t ni, int64_t ci, int64_t i) const {
    return channels_last ? (ni * inner + i) * c + ci : (ni * c + ci) * inner + i;
  }
  int64_t ChannelOf(int64_t offset) const {
    return channels_last ? offset % c : (offset / inner) % c;
  }
  // Values per channel.
  int64_t PerChannel() const { return n * inner; }
};

// The layout of X for `op`; InvalidArgumentError unless X has rank 2 to 5.
ChannelLayout MakeChannelLayout(const char* op, const DDim& x, const std::string& data_layout);

// InvalidArgumentError naming `op` and `slot` unless `t` has shape [l.c].
void CheckChannelTensor(const char* op, const char* slot, const DenseTensor& t,
                        const ChannelLayout& l);

// Copies a running statistic to its output variable unless they are the same variable.
void KeepRunningStat(const ExecutionContext& ctx, const char* in_slot, const char* out_slot);

// The momentum of the running-average update: input MomentumTensor (of type T) when given,
// else the attribute `momentum`.
template <typename T>
double BatchNormMomentum(const ExecutionContext& ctx) {
  const DenseTensor* mt = ctx.Input("MomentumTensor");
  if (mt == nullptr) return ctx.Attr<float>("momentum");
  PL_ENFORCE(mt->numel() == 1, errors::InvalidArgument("op `%s` input `MomentumTensor`: expected "
                                                       "one element, received shape %s",
                                                       kBatchNormOp, mt->dims().ToString()));
  return static_cast<double>(mt->data<T>()[0]);
}

// What batch_norm_grad reads, its inputs checked: the layout of X, the mode, and the slots of
// the statistics that normalised X (SavedMean / SavedVariance, the mean and the inverse
// standard deviation, in training; the running Mean / Variance, or MeanOut / VarianceOut
// where those are absent, in inference mode).
struct BatchNormGradInputs {
  ChannelLayout layout;
  bool global = false;
  const char* mean_slot = nullptr;
  const char* var_slot = nullptr;
};
BatchNormGradInputs CheckBatchNormGradInputs(const ExecutionContext& ctx);

// The values of a [C] tensor of type T as doubles.
template <typename T>
std::vector<double> ChannelValues(const DenseTensor& t) {
  const T* p = t.data<T>();
  return std::vector<double>(p, p + t.numel());
}

// Writes per-channel `values` into `out` as a [C] tensor of T.
template <typename T>
void WriteChannels(const std::vector<double>& values, const platform::Place& place,
                   DenseTensor* out) {
  out->Resize(DDim({static_cast<int64_t>(values.size())}));
  T* o = out->mutable_data<T>(place);
  for (size_t c = 0; c < values.size(); ++c) o[c] = static_cast<T>(values[c]);
}

// sums[c] = sum of term(offset, c) over the values of channel c, in the order batch, then
// position; one task per channel, so the result does not depend on the thread count.
template <typename Fn>
std::vector<double> SumPerChannel(const platform::CPUDeviceContext& dev, const ChannelLayout& l,
                                  Fn term) {
  std::vector<double> sums(static_cast<size_t>(l.c), 0.0);
  dev.ParallelFor(l.c, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      double s = 0;
      for (int64_t ni = 0; ni < l.n; ++ni) {
        for (int64_t i = 0; i < l.inner; ++i) s += term(l.Offset(ni, c, i), c);
      }
      sums[c] = s;
    }
  });
  return sums;
}

}  // namespace operators
}  // namespace paddle_like
