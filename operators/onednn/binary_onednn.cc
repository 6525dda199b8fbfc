// dnnl::binary for elementwise_add, _sub, _mul and _div (forward), float32.
//
// Broadcasting follows the plain kernel's `axis` rule (math::ComputeBroadcastDims): Y is
// described with Out's rank and 1s where it broadcasts, which the primitive broadcasts
// itself. The primitive broadcasts src1 only: where X broadcasts over Y, add and mul compute
// Y + X and Y * X (the same values; an SE block written scales * features, as
// paddle.vision's MobileNetV3 is), and sub and div, like 0-D or empty tensors and an input
// of another dtype (which it rejects), run the plain kernel (RunPlainKernel).
//
// X in a oneDNN blocked layout (the output of a convolution) is computed in that layout and
// Out takes it where the executor allows; with Y one value per channel (a bias) or per image
// and channel (an SE block's scales) over such X, or channel-last X, a loop over X's channel
// runs computes it (ChannelRuns), not the primitive. Row-major X of fewer than kMinNumel elements
// goes to the plain kernel: the ops are memory-bound and the plain loop vectorises, so on row-major
// data the primitive only pays off on large tensors: in tests/benchmarks/onednn_misc_benchmark (2
// threads) [64, 20, 24, 24] + [20] takes 88.8 us plain and 97.1 us on oneDNN, [64, 64, 56, 56] +
// [64] 2147 and 1981 us; [64, 500] + [500] 3.1 and 6.8 us.
//
// Out may be X (the primitive's in-place pair); Out that is Y, or X changing arrangement,
// gets a fresh buffer, moved into Out at the end. Out gets X's LoD.
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

#include "framework/op_kernel.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/onednn/channel_runs.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "operators/onednn/onednn_layout.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/onednn_threads.h"
#include "operators/onednn/plain_fallback.h"
#include "operators/op_family.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::algorithm;
using dnnl::memory;

constexpr int64_t kMinNumel = int64_t{1} << 22;

// One prepared elementwise op. Prepare resolves the broadcast; the primitive is made for the
// first pair of input formats seen and again only when they change (creating it costs more
// than running it on the small tensors of a squeeze-and-excitation block).
template <algorithm kAlg>
class BinaryOneDNN final : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    bd_ = math::ComputeBroadcastDims(ctx.Type(), ctx.Input("X")->dims(), ctx.Input("Y")->dims(),
                                     ctx.Attr<int>("axis"));
    // The primitive broadcasts src1 only: a commutative op whose X broadcasts over Y takes Y
    // as src0 (bd_.x and bd_.y then describe the primitive's operands).
    swapped_ = kCommutative && bd_.x != bd_.out && bd_.y == bd_.out;
    if (swapped_) std::swap(bd_.x, bd_.y);
    computable_ = bd_.x == bd_.out && bd_.out.size() > 0 && bd_.out.numel() > 0;
    x_user_ = RowMajorDesc(bd_.out);
    y_user_ = RowMajorDesc(bd_.y);
    // Y holding one value per channel of X (dim 1), as a bias does, or one per image and
    // channel, as an SE block's scales over a batch do.
    bool per_channel = computable_ && bd_.out.size() >= 2 && bd_.y[1] == bd_.out[1] &&
                       (bd_.y[0] == 1 || bd_.y[0] == bd_.out[0]);
    for (int i = 2; i < bd_.y.size() && per_channel; ++i) per_channel = bd_.y[i] == 1;
    y_images_ = per_channel ? bd_.y[0] : 0;
    primitive_.reset();
    unsupported_ = false;
    chosen_ = false;
  }

  void Compute(const ExecutionContext& ctx) override {
    // The primitive's operands: src0 `x` (Out's dims) and src1 `y` (broadcast).
    const DenseTensor* x = ctx.Input(swapped_ ? "Y" : "X");
    const DenseTensor* y = ctx.Input(swapped_ ? "X" : "Y");
    // X in a blocked layout is computed in it, whatever its size: handing it to the plain
    // kernel would cost a reorder of X and one of Out back for the next oneDNN op, more than
    // the primitive (an SE block's channel scaling, x * y[c], between two convolutions).
    if (x->dtype() != DataType::FLOAT32 || y->dtype() != DataType::FLOAT32 || !computable_ ||
        (OneDNNLayoutOf(*x) == nullptr && BelowOneDNNThreshold(bd_.out.numel(), kMinNumel))) {
      RunPlainKernel(ctx);
      return;
    }
    DenseTensor* out = ctx.Output("Out");
    const framework::LoD lod = ctx.Input("X")->lod();
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    // The primitive is made and run on the same count: it follows Out's size (bd_.out).
    const auto threads = LimitThreadsForWork(dev, static_cast<double>(bd_.out.numel()));
    // Wrap the inputs before Out gets a buffer: Out may be X or Y.
    const memory src0 = KeptInputMemory(&x_mem_, *x, x_user_, dev.engine());
    const memory y_mem = KeptInputMemory(&y_mem_, *y, y_user_, dev.engine());
    const memory::desc dst_md = src0.get_desc();
    if (!chosen_ || dst_md != src0_desc_ || y_mem.get_desc() != y_desc_) {
      src0_desc_ = dst_md;
      y_desc_ = y_mem.get_desc();
      // Y one value per channel and X's channels in contiguous runs (blocked or channel
      // last): a loop over the runs. oneDNN 2.6 has only its reference code for such a
      // broadcast on a padded blocked format, and its jit code for channel-last X with few
      // channels took twice the loop's time (PP-LCNet's SE scaling of [1, 8, 56, 56] by Y
      // that a 1x1 convolution wrote in 16-channel blocks: 0.040 against 0.021 ms).
      by_channel_ = y_images_ > 0 && ChannelRuns::Fits(src0_desc_);
      if (!by_channel_) ChoosePrimitive(dev);
      blocked_layout_ = OutputLayout(true, src0_desc_, x_user_);
      chosen_ = true;
    }
    // Formats the primitive has only its reference code for: the plain kernel on row-major
    // copies.
    if (!by_channel_ && unsupported_) {
      RunPlainKernel(ctx);
      return;
    }
    DenseTensor fresh;
    std::shared_ptr<const OneDNNLayout> layout =
        ctx.OutputMayBeOpaque("Out") ? blocked_layout_ : nullptr;
    // Out that is X and keeps X's arrangement is computed in place (dst may be src0);
    // otherwise an aliased Out gets a fresh buffer, moved into it at the end.
    const bool in_place = out == x && (layout ? layout->desc() == dst_md : dst_md == x_user_);
    DenseTensor* target = in_place
                              ? OutputTarget(out, {y}, &fresh, bd_.out, std::move(layout))
                              : OutputTarget(out, {x, y}, &fresh, bd_.out, std::move(layout));
    try {
      const memory& dst =
          dst_.Bind(DescOf(*target, x_user_), OutputData(target), dst_md, dev.engine());
      if (by_channel_) {
        ComputeByChannel(src0, PlainValues(*y), dst, dev);
      } else {
        // Y in the format the primitive was made for: a reordered copy when Y's own format
        // only had oneDNN's reference implementation.
        const ScratchMemory src1 = ToFormat(y_mem, src1_desc_, dev);
        args_[DNNL_ARG_SRC_0] = src0;
        args_[DNNL_ARG_SRC_1] = src1;
        args_[DNNL_ARG_DST] = dst;
        Execute(*primitive_, dev.stream(), args_);
      }
      dst_.Store(dev);
      dev.stream().wait();
    } catch (const dnnl::error& e) {
      throw errors::Fatal("op `%s`: oneDNN binary failed for X %s, Y %s (axis %d): %s", ctx.Type(),
                          ctx.Input("X")->dims().ToString(), ctx.Input("Y")->dims().ToString(),
                          ctx.Attr<int>("axis"), e.what());
    }
    target->set_lod(lod);
    if (target == &fresh) *out = std::move(fresh);
  }

 private:
  // dst = src (op) y[c], or y[n][c] where Y varies with the image too, over `src`'s channel
  // runs; dst has src's format (it may be src). oneDNN's jit binary took 60 us for such a Y
  // over [4, 8, 56, 56] channel-last (PP-LCNet's first SE scaling in chunks of 4 images).
  void ComputeByChannel(const memory& src, const float* y, const memory& dst,
                        const platform::OneDNNContext& dev) {
    const ChannelRuns runs(src.get_desc());
    const float* in = static_cast<const float*>(src.get_data_handle());
    float* out = static_cast<float*>(dst.get_data_handle());
    // `count` is a compile-time constant for whole 8- or 16-channel blocks (WithRunLength).
    auto apply = [](const float* a, const float* b, float* o, auto count) {
      for (int64_t i = 0; i < count; ++i) o[i] = Apply(a[i], b[i]);
    };
    if (runs.spans()) {
      runs.SpanValues(y, &lanes_, y_images_);
      const float* lanes = lanes_.data();
      if (y_images_ == 1) {
        runs.ForEachSpan(dev, [&](int64_t begin, int64_t end) {
          apply(in + begin, lanes, out + begin, end - begin);
        });
      } else {
        runs.ForEachSpanOfImages(dev, [&](int64_t begin, int64_t end, int64_t n) {
          apply(in + begin, lanes + n * runs.span(), out + begin, end - begin);
        });
      }
      return;
    }
    // Padding lanes stay 0: 0 + 0, 0 - 0, 0 * 0, 0 / 1.
    runs.PaddedValues(y, kAlg == algorithm::binary_div ? 1.f : 0.f, &lanes_, y_images_);
    const float* lanes = lanes_.data();
    const int64_t image_step = y_images_ == 1 ? 0 : runs.run() * runs.runs();
    runs.WithRunLength([&](auto run) {
      runs.ForEachWithImage(dev, [&](int64_t offset, int64_t r, int64_t n) {
        apply(in + offset, lanes + n * image_step + r * run, out + offset, run);
      });
    });
  }

  static float Apply(float a, float b) {
    if constexpr (kAlg == algorithm::binary_add) return a + b;
    if constexpr (kAlg == algorithm::binary_sub) return a - b;
    if constexpr (kAlg == algorithm::binary_mul) return a * b;
    return a / b;
  }

  // Y's values in row-major order: its own data, or a copy when it is in a oneDNN format (an
  // SE block's scale, written by a 1x1 convolution).
  const float* PlainValues(const DenseTensor& y) {
    if (y.is_plain()) return y.data<float>();
    y_plain_.resize(static_cast<size_t>(y.numel()));
    y.opaque_layout()->ToPlain(y.raw_data(), y_plain_.data());
    return y_plain_.data();
  }

  static constexpr bool kCommutative =
      kAlg == algorithm::binary_add || kAlg == algorithm::binary_mul;

  math::BroadcastDims bd_;
  bool swapped_ = false;        // X broadcasts over Y: the primitive computes Y (op) X.
  std::vector<float> y_plain_;  // PlainValues' copy.
  bool computable_ = false;
  // Y is one value per channel of X (1) or per image and channel (X's images); else 0.
  int64_t y_images_ = 0;
  std::vector<float> lanes_;  // ComputeByChannel's padded Y.
  memory::desc x_user_, y_user_;
  // Makes the primitive for X in src0_desc_ and Y in y_desc_. Mixed formats (X channel-last,
  // Y blocked, as after a 1x1 convolution on few channels) may have only oneDNN's reference
  // implementation, a scalar loop that took 3.5 ms for [1, 8, 56, 56] * [1, 8, 1, 1] where
  // the jit one takes 0.02 ms: Y is then read in X's format (same dims) or row-major, and
  // when every choice is the reference one, the plain kernel computes the op.
  void ChoosePrimitive(const platform::OneDNNContext& dev) {
    primitive_.reset();
    unsupported_ = true;
    std::vector<memory::desc> candidates = {y_desc_};
    if (y_desc_.dims() == src0_desc_.dims() && src0_desc_ != y_desc_) {
      candidates.push_back(src0_desc_);
    }
    if (y_desc_ != y_user_) candidates.push_back(y_user_);
    for (size_t i = 0; i < candidates.size(); ++i) {
      try {
        dnnl::binary::primitive_desc pd(dnnl::binary::desc(kAlg, src0_desc_, candidates[i], src0_desc_),
                                        dev.engine());
        if (IsSlowImplementation(pd)) continue;  // The plain kernel is faster than that.
        pd_ = pd;
        src1_desc_ = candidates[i];
        primitive_ = std::make_unique<dnnl::binary>(pd_);
        unsupported_ = false;
        return;
      } catch (const dnnl::error&) {
        // Not implemented for this pair of formats: try the next.
      }
    }
  }

  // The formats of X and Y primitive_ was made for (unsupported_ when none works), and the
  // format it reads Y in.
  memory::desc src0_desc_, y_desc_, src1_desc_;
  bool chosen_ = false;      // src0_desc_ and y_desc_ hold the formats last chosen for.
  bool by_channel_ = false;  // ComputeByChannel computes the op, not the primitive.
  std::shared_ptr<const OneDNNLayout> blocked_layout_;  // Out's layout when it may be blocked.
  KeptMemory x_mem_, y_mem_;
  KeptOutput dst_;
  std::unordered_map<int, memory> args_;
  bool unsupported_ = false;
  dnnl::binary::primitive_desc pd_;
  std::unique_ptr<dnnl::binary> primitive_;
};

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterBinaryOneDNNKernels) {
  // float64 stays on the plain kernels (no f64 binary primitive).
  struct Entry {
    const char* type;
    framework::KernelFactory make;
  };
  const Entry entries[] = {
      {"elementwise_add", framework::MakeKernel<BinaryOneDNN<algorithm::binary_add>>},
      {"elementwise_sub", framework::MakeKernel<BinaryOneDNN<algorithm::binary_sub>>},
      {"elementwise_mul", framework::MakeKernel<BinaryOneDNN<algorithm::binary_mul>>},
      {"elementwise_div", framework::MakeKernel<BinaryOneDNN<algorithm::binary_div>>},
  };
  for (const Entry& e : entries) {
    framework::RegisterKernel(e.type, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                              e.make);
    // dnnl::binary computes dst over src0 (and the plain kernel it hands small inputs to
    // over either input).
    auto& registry = framework::KernelRegistry::Instance();
    registry.DeclareInPlace(e.type, LibraryType::kOneDNN, {{"X", "Out"}});
    // Blocked inputs stay blocked (Y is converted to row-major where its dims need it).
    registry.DeclareOpaqueInputs(e.type, LibraryType::kOneDNN, {"X", "Y"});
  }
}

}  // namespace operators
}  // namespace paddle_like
