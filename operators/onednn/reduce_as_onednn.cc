// reduce_as (X summed down to Target's shape: the gradient of a broadcast) on X in oneDNN's
// layouts, float32.
//
// In training, reduce_as sums a convolution's output gradient into its bias gradient and
// passes the same gradient on to the convolution's gradient op (equal shapes: a copy, in
// place). Taking X in the layout the gradient ops before it wrote (blocked or channel-last)
// lets that gradient reach the convolution's gradient without two reorders:
// - equal shapes: Out is X, in X's layout where the executor lets Out stay in it (in place
//   when granted, else a copy of the bytes), row-major otherwise;
// - Target one value per channel of X (dim 1), X's channels in contiguous runs
//   (ChannelRuns): each image's positions are summed in double in order, then the images in
//   order, so the bits do not depend on the number of threads;
// - anything else, and row-major X: the plain kernel (on a row-major copy of X).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "framework/op_kernel.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/onednn/channel_runs.h"
#include "operators/onednn/onednn_layout.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/plain_fallback.h"
#include "operators/op_family.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

class ReduceAsOneDNN final : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    const DDim& x = ctx.Input("X")->dims();
    const DDim aligned = math::AlignInside(ctx.Type(), "X", x, "Target",
                                           ctx.Input("Target")->dims(), ctx.Attr<int>("axis"));
    same_shape_ = aligned == x;
    per_channel_ = x.size() >= 2 && aligned[1] == x[1];
    for (int i = 0; i < aligned.size() && per_channel_; ++i) {
      per_channel_ = i == 1 || aligned[i] == 1;
    }
    x_user_ = x.size() > 0 ? RowMajorDesc(x) : dnnl::memory::desc();  // 0-D X is row-major.
  }

  void Compute(const ExecutionContext& ctx) override {
    const DenseTensor* x = ctx.Input("X");
    const OneDNNLayout* layout = x->dtype() == DataType::FLOAT32 ? OneDNNLayoutOf(*x) : nullptr;
    // Only a layout whose dims are X's own, in order, has X's dim 1 as its channels.
    if (layout == nullptr || layout->plain_desc() != x_user_) {
      RunPlainKernel(ctx);
      return;
    }
    if (same_shape_) {
      PassOn(ctx, *x);
    } else if (per_channel_ && ChannelRuns::Fits(layout->desc())) {
      SumPerChannel(ctx, *x, ChannelRuns(layout->desc()));
    } else {
      RunPlainKernel(ctx);
    }
  }

 private:
  // Out = X, kept in X's layout where allowed.
  static void PassOn(const ExecutionContext& ctx, const DenseTensor& x) {
    DenseTensor* out = ctx.Output("Out");
    const framework::LoD lod = x.lod();
    if (!ctx.OutputMayBeOpaque("Out")) {
      out->EndInPlace();  // Row-major bytes never go over X's blocked ones.
      DenseTensor fresh;
      DenseTensor* target = OutputTarget(out, {&x}, &fresh, x.dims());
      x.opaque_layout()->ToPlain(x.raw_data(), OutputData(target));
      target->set_lod(lod);
      if (target == &fresh) *out = std::move(fresh);
      return;
    }
    auto layout = std::static_pointer_cast<const OneDNNLayout>(x.opaque_layout());
    DenseTensor fresh;
    DenseTensor* target = OutputTarget(out, {&x}, &fresh, x.dims(), layout);
    // In place (the executor's grant) the bytes are already there.
    if (OutputData(target) != x.raw_data()) {
      std::memcpy(OutputData(target), x.raw_data(), layout->bytes());
    }
    target->set_lod(lod);
    if (target == &fresh) *out = std::move(fresh);
  }

  void SumPerChannel(const ExecutionContext& ctx, const DenseTensor& x, const ChannelRuns& runs) {
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const int64_t images = runs.images();
    const float* in = static_cast<const float*>(x.raw_data());
    if (runs.spans()) {
      SumSpans(dev, in, runs);
    } else {
      SumRuns(dev, in, runs);
    }
    DenseTensor* out = ctx.Output("Out");
    out->EndInPlace();
    out->Resize(ctx.Input("Target")->dims());
    float* o = out->mutable_data<float>(ctx.GetPlace());
    for (int64_t c = 0; c < runs.channels(); ++c) {
      double total = 0.0;
      for (int64_t n = 0; n < images; ++n) total += partial_[n * stride_ + c];
      o[c] = static_cast<float>(total);
    }
  }

  // partial_[n * stride_ + c]: image n's sum of channel c, over its runs.
  void SumRuns(const platform::CPUDeviceContext& dev, const float* in, const ChannelRuns& runs) {
    const int64_t padded = runs.runs() * runs.run();
    stride_ = padded;
    partial_.assign(static_cast<size_t>(runs.images() * padded), 0.0);
    dev.ParallelFor(runs.images(), 1, [&](int64_t begin, int64_t end) {
      runs.WithRunLength([&](auto run) {
        for (int64_t n = begin; n < end; ++n) {
          double* sums = partial_.data() + n * stride_;
          runs.ForEachOfImage(n, [&](int64_t offset, int64_t r) {
            const float* a = in + offset;
            double* s = sums + r * run;
            for (int64_t i = 0; i < run; ++i) s[i] += a[i];
          });
        }
      });
    });
  }

  // The same over packed channel-last data, span by span: each image's elements are added
  // into one span of sums, which is then folded onto the channels.
  void SumSpans(const platform::CPUDeviceContext& dev, const float* in, const ChannelRuns& runs) {
    const int64_t span = runs.span(), channels = runs.channels();
    const int64_t per_image = runs.positions() * channels;
    stride_ = span;
    partial_.assign(static_cast<size_t>(runs.images() * span), 0.0);
    dev.ParallelFor(runs.images(), 1, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) {
        double* sums = partial_.data() + n * span;
        const float* image = in + n * per_image;
        for (int64_t at = 0; at < per_image; at += span) {
          const float* a = image + at;
          const int64_t len = std::min(span, per_image - at);
          for (int64_t i = 0; i < len; ++i) sums[i] += a[i];
        }
        for (int64_t i = channels; i < span; ++i) sums[i % channels] += sums[i];
      }
    });
  }

  bool same_shape_ = false;
  bool per_channel_ = false;  // Target is one value per channel (dim 1) of X.
  dnnl::memory::desc x_user_;
  std::vector<double> partial_;  // Per image: stride_ sums, channel c's at c.
  int64_t stride_ = 0;
};

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterReduceAsOneDNNKernels) {
  framework::RegisterKernel("reduce_as", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                            framework::MakeKernel<ReduceAsOneDNN>);
  auto& registry = framework::KernelRegistry::Instance();
  // As the plain kernel: equal shapes write Out over a dying X.
  registry.DeclareInPlace("reduce_as", LibraryType::kOneDNN, {{"X", "Out"}});
  registry.DeclareOpaqueInputs("reduce_as", LibraryType::kOneDNN, {"X"});
}

}  // namespace operators
}  // namespace paddle_like
