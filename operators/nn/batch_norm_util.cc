#include "operators/nn/batch_norm_util.h"

#include "operators/collective/collective_util.h"

namespace paddle_like {
namespace operators {

ChannelLayout MakeChannelLayout(const char* op, const DDim& x, const std::string& data_layout) {
  PL_ENFORCE(x.size() >= 2 && x.size() <= 5,
             errors::InvalidArgument("op `%s` input `X`: expected a tensor of rank 2 to 5, "
                                     "received shape %s",
                                     op, x.ToString()));
  ChannelLayout l;
  l.channels_last = IsChannelsLast(data_layout);
  l.n = x[0];
  l.c = l.channels_last ? x[x.size() - 1] : x[1];
  l.inner = l.channels_last ? Product(x, 1, x.size() - 1) : Product(x, 2, x.size());
  return l;
}

void CheckChannelTensor(const char* op, const char* slot, const DenseTensor& t,
                        const ChannelLayout& l) {
  PL_ENFORCE(t.dims().size() == 1 && t.dims()[0] == l.c,
             errors::InvalidArgument("op `%s` input `%s`: expected shape [C] = %s (C from "
                                     "input `X`), received %s",
                                     op, slot, DDim({l.c}).ToString(), t.dims().ToString()));
}

CrossRankSum SyncBatchNormRanks(const ExecutionContext& ctx) {
  if (UsesGlobalStats(ctx.Attr<bool>("is_test"), ctx.Attr<bool>("use_global_stats"),
                      ctx.Attr<bool>("trainable_statistics")) ||
      !platform::collective::CommRegistry::Instance().env().distributed()) {
    return {};
  }
  // Waits for the collectives already on the ring's communication thread: every rank then
  // meets this all-reduce at the same place in the ring's order.
  Communicator* ring = RingOf(ctx);
  return [ring](std::vector<double>* values) {
    const std::vector<double> local = *values;
    ring->AllReduce(local.data(), values->data(), static_cast<int64_t>(local.size()),
                    DataType::FLOAT64, ReduceOp::kSum);
  };
}

void KeepRunningStat(const ExecutionContext& ctx, const char* in_slot, const char* out_slot) {
  const DenseTensor* in = ctx.Input(in_slot);
  DenseTensor* out = ctx.Output(out_slot);
  if (out != nullptr && out != in) framework::CopyTensor(*in, ctx.GetPlace(), out);
}

}  // namespace operators
}  // namespace paddle_like
