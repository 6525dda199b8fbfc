// dnnl::batch_normalization_forward / _backward for batch_norm and batch_norm_grad, float32.
//
// A row-major X (NCHW or NHWC, ranks 2 to 5) is described to oneDNN as [N, C, 1, spatial]
// with a plain or channel-last format tag. With the running statistics (inference), a 4-D
// NCHW X in a oneDNN layout without padding (channel-last, or blocks that fill the channels)
// is normalised in that layout, and Y keeps it where the executor lets it: a DenseNet's
// batch norms read the channel-last output of the concat before them (concat_onednn.cc).
// Any other X in a oneDNN layout is converted to row-major first. Scale and Bias go in through
// use_scale / use_shift, without a copy. The primitives give the batch mean and the
// biased batch variance; the running averages and PaddlePaddle's SavedVariance (the inverse
// standard deviation) are computed here from them, in double as in the plain kernel.
#include <cmath>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <vector>

#include "operators/nn/batch_norm_util.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "operators/onednn/norm_onednn.h"
#include "operators/onednn/onednn_layout.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/onednn_threads.h"
#include "operators/onednn/plain_fallback.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;
using Flags = dnnl::normalization_flags;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

// X as oneDNN sees it, in its own layout: [N, C] for rank 2, else [N, C, 1, spatial] with the
// spatial dims merged (the same memory), since oneDNN's optimised CPU implementations take
// only some ranks and layouts (no 3-D, no channel-last 5-D).
memory::desc DataDesc(const ChannelLayout& l, int rank) {
  if (rank == 2) return memory::desc({l.n, l.c}, kF32, Tag::ab);
  return memory::desc({l.n, l.c, 1, l.inner}, kF32, l.channels_last ? Tag::acdb : Tag::abcd);
}

// batch_norm as a kernel class: the primitive is created per input shape (Prepare) and kept;
// inputs oneDNN cannot take (empty X, one value per channel in training) go to the plain
// code. Scale, Bias and the statistics are read in place, so there is nothing to pre-pack.
class BatchNormOneDNN final : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    primitive_.reset();
    const DenseTensor& x = *ctx.Input("X");
    layout_ = MakeChannelLayout(kBatchNormOp, x.dims(), ctx.Attr<std::string>("data_layout"));
    global_ = UsesGlobalStats(ctx.Attr<bool>("is_test"), ctx.Attr<bool>("use_global_stats"),
                              ctx.Attr<bool>("trainable_statistics"));
    plain_ = x.numel() == 0 || (!global_ && layout_.PerChannel() <= 1);
    opaque_ = false;
    if (plain_) return;
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    threads_ = ThreadsForWork(dev, static_cast<double>(x.numel()));
    const auto threads = dev.LimitThreads(threads_);
    opaque_ = TakesLayoutOf(x);
    try {
      md_ = opaque_ ? OneDNNLayoutOf(x)->desc() : DataDesc(layout_, x.dims().size());
      channel_md_ = memory::desc({layout_.c}, kF32, Tag::a);
      // In a oneDNN layout Y is not read row-major afterwards: the primitive applies the relu.
      const bool fused_relu =
          opaque_ && ctx.HasAttr("fuse_with_relu") && ctx.Attr<bool>("fuse_with_relu");
      const Flags flags = Flags::use_scale | Flags::use_shift |
                          (global_ ? Flags::use_global_stats : Flags::none) |
                          (fused_relu ? Flags::fuse_norm_relu : Flags::none);
      const dnnl::batch_normalization_forward::primitive_desc pd(
          dnnl::batch_normalization_forward::desc(
              global_ ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training,
              md_, ctx.Attr<float>("epsilon"), flags),
          dev.engine());
      primitive_ = std::make_unique<dnnl::batch_normalization_forward>(pd);
    } catch (const dnnl::error& err) {
      throw Failure(ctx, x, err);
    }
  }

  void Compute(const ExecutionContext& ctx) override;

 private:
  // Whether X is normalised in its oneDNN layout (after layout_ and global_ are set): with the
  // running statistics, 4-D NCHW data in a layout without padding.
  bool TakesLayoutOf(const DenseTensor& x) const {
    const OneDNNLayout* l = OneDNNLayoutOf(x);
    return global_ && l != nullptr && x.dims().size() == 4 && !layout_.channels_last &&
           l->desc().get_size() == static_cast<size_t>(x.numel()) * sizeof(float);
  }

  static platform::FatalError Failure(const ExecutionContext& ctx, const DenseTensor& x,
                                      const dnnl::error& err) {
    return errors::Fatal("op `%s`: oneDNN batch normalization failed for X %s (%s): %s",
                         kBatchNormOp, x.dims().ToString(), ctx.Attr<std::string>("data_layout"),
                         err.what());
  }

  ChannelLayout layout_;
  bool global_ = false;
  bool plain_ = false;
  bool opaque_ = false;  // X is normalised in its oneDNN layout, md_.
  int threads_ = 1;  // The primitive's OpenMP threads (onednn_threads.h).
  memory::desc md_, channel_md_;
  std::unique_ptr<dnnl::batch_normalization_forward> primitive_;
};

void BatchNormOneDNN::Compute(const ExecutionContext& ctx) {
  // Local copies share the buffers: an output that is the same variable as an input then
  // gets a fresh buffer from mutable_data, and the input values stay readable.
  DenseTensor x = *ctx.Input("X");
  const OneDNNLayout* x_layout = OneDNNLayoutOf(x);
  if (plain_ && x_layout != nullptr) {
    RunPlainKernel(ctx);  // Converts X to row-major.
    return;
  }
  if (!plain_) {
    // X arranged otherwise than when the primitive was made (another producer this run, or
    // a fetch that keeps it row-major): the primitive is made again.
    const bool takes = TakesLayoutOf(x);
    if (takes != opaque_ || (takes && x_layout->desc() != md_)) Prepare(ctx);
    // A oneDNN layout the primitive does not take: normalised from a row-major copy.
    if (!opaque_ && x_layout != nullptr) {
      DenseTensor row_major(x.dims(), DataType::FLOAT32);
      x_layout->ToPlain(x.raw_data(), row_major.mutable_data<float>(ctx.GetPlace()));
      row_major.set_lod(x.lod());
      x = std::move(row_major);
    }
  }
  const ChannelLayout& l = layout_;
  const bool global = global_;
  for (const auto* slot : {"Scale", "Bias", "Mean", "Variance"}) {
    CheckChannelTensor(kBatchNormOp, slot, *ctx.Input(slot), l);
  }
  if (plain_) {
    BatchNormPlainCompute<float>(ctx);
    ApplyFusedRelu<float>(ctx);
    return;
  }
  const DenseTensor scale = *ctx.Input("Scale");
  const DenseTensor bias = *ctx.Input("Bias");
  const DenseTensor mean = *ctx.Input("Mean");
  const DenseTensor variance = *ctx.Input("Variance");
  const float epsilon = ctx.Attr<float>("epsilon");
  const platform::Place place = ctx.GetPlace();
  DenseTensor* y = ctx.Output("Y");
  y->Resize(x.dims());
  y->set_lod(x.lod());
  const bool keep_layout = opaque_ && ctx.OutputMayBeOpaque("Y");
  y->set_opaque_layout(keep_layout ? x.opaque_layout() : nullptr);
  y->mutable_data<float>(place);
  // Training: the primitive writes the batch statistics here.
  DenseTensor batch_mean, batch_var;
  if (!global) {
    TargetOrScratch(nullptr, DDim({l.c}), &batch_mean);
    TargetOrScratch(nullptr, DDim({l.c}), &batch_var);
  }
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  const auto threads = dev.LimitThreads(threads_);
  try {
    const dnnl::engine& e = dev.engine();
    const memory::desc& md = md_;
    const memory::desc& channel_md = channel_md_;
    // Y row-major while X is normalised in its oneDNN layout: staged, then reordered.
    const PrimitiveOutput dst(opaque_ && !keep_layout ? OneDNNLayoutOf(x)->plain_desc() : md,
                              OutputData(y), md, e);
    Execute(*primitive_, dev.stream(),
            {{DNNL_ARG_SRC, memory(md, e, const_cast<void*>(x.raw_data()))},
             {DNNL_ARG_DST, dst.mem()},
             {DNNL_ARG_SCALE, WrapTensor(channel_md, e, scale)},
             {DNNL_ARG_SHIFT, WrapTensor(channel_md, e, bias)},
             {DNNL_ARG_MEAN, WrapTensor(channel_md, e, global ? mean : batch_mean)},
             {DNNL_ARG_VARIANCE, WrapTensor(channel_md, e, global ? variance : batch_var)}});
    dst.Store(dev);
    dev.stream().wait();
  } catch (const dnnl::error& err) {
    throw Failure(ctx, x, err);
  }

  std::vector<double> mu, inv_std(l.c);
  if (global) {
    KeepRunningStat(ctx, "Mean", "MeanOut");
    KeepRunningStat(ctx, "Variance", "VarianceOut");
    mu = ChannelValues<float>(mean);
    const std::vector<double> var = ChannelValues<float>(variance);
    for (int64_t c = 0; c < l.c; ++c) inv_std[c] = 1.0 / std::sqrt(var[c] + epsilon);
  } else {
    mu = ChannelValues<float>(batch_mean);
    const std::vector<double> var = ChannelValues<float>(batch_var);
    const std::vector<double> old_mean = ChannelValues<float>(mean);
    const std::vector<double> old_var = ChannelValues<float>(variance);
    const double momentum = BatchNormMomentum<float>(ctx);
    std::vector<double> new_mean(l.c), new_var(l.c);
    for (int64_t c = 0; c < l.c; ++c) {
      new_mean[c] = momentum * old_mean[c] + (1.0 - momentum) * mu[c];
      new_var[c] = momentum * old_var[c] + (1.0 - momentum) * var[c];
      inv_std[c] = 1.0 / std::sqrt(var[c] + static_cast<double>(epsilon));
    }
    WriteChannels<float>(new_mean, place, ctx.Output("MeanOut"));
    WriteChannels<float>(new_var, place, ctx.Output("VarianceOut"));
  }
  WriteChannels<float>(mu, place, ctx.Output("SavedMean"));
  WriteChannels<float>(inv_std, place, ctx.Output("SavedVariance"));
  if (!opaque_) ApplyFusedRelu<float>(ctx);
}

}  // namespace

framework::KernelFactory BatchNormOneDNNKernel() {
  return &framework::MakeKernel<BatchNormOneDNN>;
}

void BatchNormGradOneDNNKernel(const ExecutionContext& ctx) {
  const BatchNormGradInputs in = CheckBatchNormGradInputs(ctx);
  const ChannelLayout& l = in.layout;
  const DenseTensor x = *ctx.Input("X");
  if (x.numel() == 0 || (!in.global && l.PerChannel() <= 1)) {
    BatchNormGradPlainCompute<float>(ctx);
    return;
  }
  DenseTensor* dx = ctx.Output("X@GRAD");
  DenseTensor* dscale = ctx.Output("Scale@GRAD");
  DenseTensor* dbias = ctx.Output("Bias@GRAD");
  if (dx == nullptr && dscale == nullptr && dbias == nullptr) return;
  const DenseTensor dy = *ctx.Input("Y@GRAD");
  const DenseTensor scale = *ctx.Input("Scale");
  const DenseTensor mean = *ctx.Input(in.mean_slot);
  const DenseTensor stat = *ctx.Input(in.var_slot);
  // The primitive wants the variance. Inference mode has it (the running one); training has
  // the inverse standard deviation r, and variance 1 / r^2 with epsilon 0 gives r back
  // without the cancellation of 1 / r^2 - epsilon.
  float epsilon = ctx.Attr<float>("epsilon");
  DenseTensor variance;
  if (in.global) {
    variance = stat;
  } else {
    epsilon = 0;
    const float* r = stat.data<float>();
    float* v = TargetOrScratch(nullptr, DDim({l.c}), &variance)->data<float>();
    for (int64_t c = 0; c < l.c; ++c) {
      v[c] = static_cast<float>(1.0 / (static_cast<double>(r[c]) * r[c]));
    }
  }
  // backward_data takes no scale (gamma), so it is always prop_kind backward with the
  // parameter gradients, into scratch tensors where the op does not ask for them; with
  // use_shift it takes a shift, which it does not read.
  const DenseTensor shift = FilledTensor(l.c, 0.0f);
  DenseTensor dx_scratch, dscale_scratch, dbias_scratch;
  DenseTensor* dx_target = TargetOrScratch(dx, x.dims(), &dx_scratch);
  if (dx != nullptr) dx->set_lod(x.lod());
  DenseTensor* dscale_target = TargetOrScratch(dscale, DDim({l.c}), &dscale_scratch);
  DenseTensor* dbias_target = TargetOrScratch(dbias, DDim({l.c}), &dbias_scratch);
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  try {
    const dnnl::engine& e = dev.engine();
    const memory::desc md = DataDesc(l, x.dims().size());
    const memory::desc channel_md({l.c}, kF32, Tag::a);
    const Flags flags =
        Flags::use_scale | Flags::use_shift | (in.global ? Flags::use_global_stats : Flags::none);
    const dnnl::batch_normalization_forward::primitive_desc hint(
        dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_training, md, epsilon,
                                                flags),
        e);
    const dnnl::batch_normalization_backward::primitive_desc pd(
        dnnl::batch_normalization_backward::desc(dnnl::prop_kind::backward, md, md, epsilon, flags),
        e, hint);
    Execute(dnnl::batch_normalization_backward(pd), dev.stream(),
            {{DNNL_ARG_SRC, WrapTensor(md, e, x)},
             {DNNL_ARG_DIFF_DST, WrapTensor(md, e, dy)},
             {DNNL_ARG_MEAN, WrapTensor(channel_md, e, mean)},
             {DNNL_ARG_VARIANCE, WrapTensor(channel_md, e, variance)},
             {DNNL_ARG_SCALE, WrapTensor(channel_md, e, scale)},
             {DNNL_ARG_SHIFT, WrapTensor(channel_md, e, shift)},
             {DNNL_ARG_DIFF_SRC, WrapTensor(md, e, *dx_target)},
             {DNNL_ARG_DIFF_SCALE, WrapTensor(channel_md, e, *dscale_target)},
             {DNNL_ARG_DIFF_SHIFT, WrapTensor(channel_md, e, *dbias_target)}});
    dev.stream().wait();
  } catch (const dnnl::error& err) {
    throw errors::Fatal("op `%s`: oneDNN batch normalization backward failed for X %s (%s): %s",
                        kBatchNormGradOp, x.dims().ToString(), ctx.Attr<std::string>("data_layout"),
                        err.what());
  }
}

}  // namespace operators
}  // namespace paddle_like
