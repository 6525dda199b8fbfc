// dnnl::convolution_forward for conv2d / depthwise_conv2d and dnnl::pooling_forward for
// pool2d, float32.
//
// The geometry (resolved paddings, output size) comes from operators/nn/conv_pool_shape.h,
// the same code the plain kernels use; conv_pool_onednn_util.h turns it into oneDNN
// descriptors. The convolution picks its formats (format_tag::any) when the input has 8 or
// more channels per group, or is depthwise with 8 or more channels (oneDNN's depthwise
// kernel reads nChw8c; on nchw it computes through GEMM, 3-4x slower), which beats the
// user's NCHW even with a reorder on each side
// (LeNet's 20->50 5x5 layer, batch 64, one thread: 1.74 against 2.54 ms;
// tests/benchmarks/conv_benchmark). Where the executor lets the output stay in oneDNN's
// layout (framework/layout_planning.h) it does, and an input already in the primitive's
// format is read without a reorder; with fewer channels the blocked formats do not fit and
// source and destination stay in the user's layout. Filters go to the primitive's format
// once per filter value: the convolution is a kernel class (framework/op_kernel.h) that
// keeps its primitive and packed filter between runs. Pooling reads its input in the layout
// it comes in and writes the same format; it keeps its primitive too.
//
// 3x3 stride-1 convolutions of 32 or more channels with outputs of 32768 values or more run
// by Winograd's algorithm where oneDNN has it (AVX-512; WinogradForwardDesc): 1.8-2.3x the
// direct kernel's speed on ResNet-20's 32- and 64-channel stages at batch 16, 2x on a
// 64-channel 56x56 map at batch 1 (tests/benchmarks/conv_vs_onednn_benchmark). Its
// transforms round differently, at float32's scale (ResNet-20 at batch 16 within 2.25e-7 of
// PaddlePaddle's largest output; docs/benchmarks.md). With 16 channels it is no faster than
// direct, and on small outputs its split across threads varied widely between runs;
// post-ops it lacks (swish, gelu, ...) keep the direct kernel.
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <unordered_map>

#include "framework/op_registry.h"
#include "operators/nn/conv_fusion.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "operators/onednn/onednn_gemm.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/onednn_threads.h"
#include "operators/op_family.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

using dnnl::memory;
using framework::DenseTensor;
using framework::ExecutionContext;

namespace {

// The convolution primitive of one prepared conv2d / depthwise_conv2d and its filter in the
// primitive's format (PackedFilter). Prepare (new input or filter dims) creates the
// primitive.
class Conv2dOneDNN final : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
    const DenseTensor* residual = ctx.HasInput("ResidualData") ? ctx.Input("ResidualData") : nullptr;
    g_ = ResolveConv2d(ctx.Type(), input->dims(), filter->dims(), ctx.op().Attrs());
    fusion_ = ResolveConvFusion(ctx.Type(), ctx.op().Attrs(), g_, bias ? &bias->dims() : nullptr,
                                residual ? &residual->dims() : nullptr);
    primitive_.reset();
    output_layout_.reset();
    dnnl::post_ops post_ops;
    if (fusion_.residual) post_ops.append_sum(1.0f);
    // An activation oneDNN has no post-op for: the plain kernel computes the whole op.
    plain_ = !AppendActivationPostOps(fusion_.act, &post_ops);
    if (plain_ || g_.OutputDims().numel() == 0) return;
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    threads_ = ThreadsForWork(dev, static_cast<double>(g_.batch) * g_.out_c * g_.out_h * g_.out_w *
                                       (g_.in_c / g_.groups) * g_.kernel_h * g_.kernel_w);
    const auto threads = dev.LimitThreads(threads_);
    Try(ctx, *input, *filter, [&] {
      descs_ = MakeOneDNNConvDescs(g_);
      dnnl::primitive_attr attr;
      attr.set_post_ops(post_ops);
      // Blocked activations need 8 channels per group, or depthwise groups (one input
      // channel each), which oneDNN's depthwise kernels compute in nChw8c. With fewer input
      // channels (an RGB image) the source stays in the user's layout but the destination
      // may still be blocked: oneDNN's direct "first layer" kernel, 10x faster than GEMM
      // there (PP-LCNet's 3->8 3x3 stride-2 conv on 224x224: 1.45 against 0.13 ms).
      const int64_t per_group = g_.in_c / g_.groups;
      const bool src_any = per_group >= 8 || (per_group == 1 && g_.in_c >= 8);
      const bool dst_any = src_any || (g_.groups == 1 && g_.out_c >= 8);
      const memory::desc* bias_desc = fusion_.bias ? &descs_.bias : nullptr;
      memory::desc src = descs_.src, dst = descs_.dst;
      if (SingleChannelLast(ctx)) {
        src = ChannelLastDesc(descs_.src);
        dst = ChannelLastDesc(descs_.dst);
      } else {
        if (src_any) src = descs_.src_any;
        if (dst_any) dst = src_any ? descs_.dst_any : FewChannelDst(dev, attr, bias_desc);
      }
      const auto winograd =
          src_any ? WinogradForwardDesc(g_, descs_, bias_desc, attr, dev.engine()) : std::nullopt;
      pd_ = winograd ? *winograd
                     : dnnl::convolution_forward::primitive_desc(
                           ConvForwardDesc(descs_, dnnl::prop_kind::forward_inference, src, dst,
                                           bias_desc),
                           attr, dev.engine());
      primitive_ = std::make_unique<dnnl::convolution_forward>(pd_);
      output_layout_ = OutputLayout(true, pd_.dst_desc(), descs_.dst);
      src_want_ = pd_.src_desc();
      dst_want_ = pd_.dst_desc();
      args_.clear();
      weights_.Reset(descs_.weights, pd_.weights_desc(), dev.engine());
    });
  }

  // A single input channel, NCHW, and an output that may stay in oneDNN's layout: the
  // convolution runs channel-last (its input's bytes are already arranged so). oneDNN's own
  // choice there, 16-channel blocks, pads LeNet's 20 output channels to 32, and the ops after
  // it (bias, relu, pooling and their gradients) pay for the padding and lose their in-place
  // buffers; channel-last is also what the next convolution and the gradient kernels read.
  // LeNet's conv 1->20 5x5 on 28x28, batch 64, 2 threads: 0.35 ms channel-last against
  // 0.28 ms blocked plus 0.28 ms to reorder the blocks to NCHW.
  bool SingleChannelLast(const ExecutionContext& ctx) const {
    return g_.in_c == 1 && g_.groups == 1 && !g_.channel_last && ctx.OutputMayBeOpaque("Output");
  }

  // The destination format for a source of few channels: oneDNN's choice, except where its
  // AVX-512 kernel would pad a multiple of 8 output channels to 16-channel blocks; its AVX2
  // first-layer kernel writes 8-channel blocks (for 8 channels, channel-last itself), half the
  // bytes, and the next convolution reads them without padding. PP-LCNet's 3->8 3x3 stride-2
  // convolution on 224x224, batch 16, 2 threads: 1.05 against 1.28 ms, the 1x1 one after it
  // 0.57 against 0.67 ms (paddle_like bench --profile); unchanged at batch 1.
  // The source is in the user's layout (few channels per group); `attr` and `bias` are the
  // convolution's post-ops and bias, which the 8-channel kernel must take as well.
  memory::desc FewChannelDst(const platform::OneDNNContext& dev, const dnnl::primitive_attr& attr,
                             const memory::desc* bias) const {
    if (g_.groups != 1 || g_.out_c % 16 == 0 || g_.out_c % 8 != 0) return descs_.dst_any;
    const memory::desc blocks8(descs_.dst.dims(), memory::data_type::f32,
                               memory::format_tag::nChw8c);
    try {
      const dnnl::convolution_forward::primitive_desc pd(
          ConvForwardDesc(descs_, dnnl::prop_kind::forward_inference, descs_.src, blocks8, bias),
          attr, dev.engine());
      if (!IsSlowImplementation(pd)) return blocks8;
    } catch (const dnnl::error&) {
      // No 8-channel kernel for these post-ops: oneDNN's choice.
    }
    return descs_.dst_any;
  }

  void Compute(const ExecutionContext& ctx) override {
    if (plain_) {
      // The plain code reads the residual while it writes the output: no in-place grant.
      ctx.Output("Output")->EndInPlace();
      ctx.WithPlainInputs(
          [](const ExecutionContext& plain) { Conv2dPlainCompute<float>(plain, &OneDNNGemm); });
      return;
    }
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* bias = fusion_.bias ? ctx.Input("Bias") : nullptr;
    const DenseTensor* residual = fusion_.residual ? ctx.Input("ResidualData") : nullptr;
    DenseTensor* output = ctx.Output("Output");
    DenseTensor fresh;
    DenseTensor* target =
        OutputTarget(output, {input, filter, bias, residual}, &fresh, g_.OutputDims(),
                     ctx.OutputMayBeOpaque("Output") ? output_layout_ : nullptr);
    if (primitive_ != nullptr) {
      const auto& dev = ctx.device_context<platform::OneDNNContext>();
      const auto threads = dev.LimitThreads(threads_);
      Try(ctx, *input, *filter, [&] {
        const dnnl::engine& engine = dev.engine();
        // Inputs and output in the primitive's formats (the steady state of a chain of
        // oneDNN ops) go through memory kept from the last run; others through copies.
        const ScratchMemory src =
            ToFormat(KeptInputMemory(&src_mem_, *input, descs_.src, engine), src_want_, dev);
        const memory& dst = dst_.Bind(DescOf(*target, descs_.dst), OutputData(target), dst_want_, engine);
        args_[DNNL_ARG_SRC] = src;
        args_[DNNL_ARG_WEIGHTS] = weights_.Get(ctx, "Filter", dev);
        args_[DNNL_ARG_DST] = dst;
        if (bias != nullptr) {
          args_[DNNL_ARG_BIAS] = bias_mem_.Over(descs_.bias, bias->data<float>(), engine);
        }
        // The sum post-op adds what the destination holds: the residual, in its format.
        if (residual != nullptr) {
          const memory res = InputMemory(*residual, descs_.dst, engine);
          if (res.get_data_handle() != dst.get_data_handle()) {
            Reorder(res, dst, dev);
          } else if (res.get_desc() != dst.get_desc()) {
            // Output over the residual's buffer (in place) in another arrangement of the
            // same bytes: through a copy, not a reorder onto itself.
            const ScratchMemory copy(res.get_desc(), engine);
            Reorder(res, copy.mem(), dev);
            Reorder(copy.mem(), dst, dev);
          }  // Else the residual is already where and how the post-op reads it.
        }
        Execute(*primitive_, dev.stream(), args_);
        dst_.Store(dev);
        dev.stream().wait();
      });
    }
    if (target == &fresh) *output = std::move(fresh);
  }

 private:
  template <typename Fn>
  void Try(const ExecutionContext& ctx, const DenseTensor& input, const DenseTensor& filter,
           Fn&& fn) {
    try {
      fn();
    } catch (const dnnl::error& e) {
      primitive_.reset();
      throw errors::Fatal("op `%s`: oneDNN convolution failed for Input %s, Filter %s: %s",
                          ctx.Type(), input.dims().ToString(), filter.dims().ToString(),
                          e.what());
    }
  }

  Conv2dGeometry g_;
  ConvFusion fusion_;
  bool plain_ = false;  // The fusion needs the plain kernel.
  int threads_ = 1;     // The primitive's OpenMP threads (onednn_threads.h).
  OneDNNConvDescs descs_;
  dnnl::convolution_forward::primitive_desc pd_;
  std::unique_ptr<dnnl::convolution_forward> primitive_;
  std::shared_ptr<const OneDNNLayout> output_layout_;  // Null when the primitive writes the user's.
  PackedFilter weights_;
  memory::desc src_want_, dst_want_;  // The primitive's formats.
  KeptMemory src_mem_, bias_mem_;
  KeptOutput dst_;
  std::unordered_map<int, memory> args_;  // Kept: no map nodes allocated per run.
};

// dnnl::pooling_forward: max, avg (exclusive or not), global, ceil_mode, NCHW or NHWC.
// Adaptive pooling (unless its windows are uniform), windows lying wholly in the padding and
// non-exclusive averages over windows reaching past the input and its leading padding (whose
// divisors are short of the kernel: Pool2dGeometry::AvgExtent), which the primitive does not
// express, are computed by the plain CPU code within this kernel.
// Prepare resolves the geometry; the primitive is made for the first input format seen and
// again only when the format changes, since creating it costs several times what running it
// does on the small maps of a squeeze-and-excitation block.
class Pool2dOneDNN final : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    g_ = ResolvePool2d(ctx.Type(), ctx.Input("X")->dims(), ctx.op().Attrs());
    if (g_.HasUniformAdaptiveWindows()) g_ = g_.AsFixedWindows();  // SE blocks' 1x1 pools.
    plain_ = g_.adaptive || g_.HasEmptyWindow() || g_.HasShortAvgWindow();
    primitive_.reset();
  }

  void Compute(const ExecutionContext& ctx) override {
    const DenseTensor* x = ctx.Input("X");
    // 2x2 max pooling at stride 2 of row-major NCHW data: the plain code's fast path beats
    // oneDNN's NCHW implementation (LeNet's X [64, 20, 24, 24], one thread, with the
    // gradient: 1.10 against 1.55 ms; BM_MaxPool2dWithGrad in conv_benchmark).
    if (plain_ || (g_.IsDisjointMax2x2() && !g_.channel_last && x->is_plain())) {
      ctx.WithPlainInputs([](const ExecutionContext& plain) { Pool2dPlainCompute<float>(plain); });
      return;
    }
    DenseTensor* out = ctx.Output("Out");
    DenseTensor fresh;
    if (g_.OutputDims().numel() == 0) {
      DenseTensor* target = OutputTarget(out, {x}, &fresh, g_.OutputDims());
      if (target == &fresh) *out = std::move(fresh);
      return;
    }
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const auto threads =
        LimitThreadsForWork(dev, static_cast<double>(g_.batch) * g_.channels * g_.in_h * g_.in_w);
    try {
      const dnnl::engine& engine = dev.engine();
      // An input in a blocked format is pooled in it, and the output takes the same format.
      // A row-major NCHW input of 8 or more channels is pooled in blocked channels too, from
      // a reordered copy: on row-major NCHW oneDNN pools with a scalar loop ("simple_nchw"),
      // 10-30x slower than its vector kernel (PP-YOLOE+'s SPP, max pooling 5x5, 9x9 and 13x13
      // at stride 1 over [1, 192, 10, 10]: 13.5 ms against 0.4 ms with the reorders).
      // The primitive, its descriptors and the output layout are made for the first input
      // format seen and kept while it stays.
      memory src;
      if (primitive_ == nullptr || !ArrangedAsDescOf(*x, user_src_) ||
          DescOf(*x, user_src_) != arrangement_) {
        OneDNNPoolDescs d = MakeOneDNNPoolDescs(g_);
        user_src_ = d.src;
        user_dst_ = d.dst;
        src = PoolInputMemory(*x, &d, engine);  // A row-major copy if X is read otherwise.
        arrangement_ = src.get_desc();
        block_input_ = !g_.channel_last && g_.channels >= 8 && arrangement_ == user_src_;
        if (block_input_) {
          d.src = memory::desc(user_src_.dims(), memory::data_type::f32, BlockedChannelsTag());
          d.dst = memory::desc(user_dst_.dims(), memory::data_type::f32, memory::format_tag::any);
        }
        if (primitive_ == nullptr || d.src != src_desc_) {
          pd_ = dnnl::pooling_forward::primitive_desc(
              PoolForwardDesc(d, dnnl::prop_kind::forward_inference), engine);
          primitive_ = std::make_unique<dnnl::pooling_forward>(pd_);
          src_desc_ = d.src;
          dst_desc_ = pd_.dst_desc();
          blocked_layout_ = OutputLayout(true, dst_desc_, user_dst_);
        }
      }
      if (ArrangedAsDescOf(*x, user_src_)) src = src_mem_.Over(arrangement_, x->raw_data(), engine);
      const ScratchMemory blocked =
          block_input_ ? ToFormat(src, src_desc_, dev) : ScratchMemory(src);
      src = blocked.mem();
      DenseTensor* target =
          OutputTarget(out, {x}, &fresh, g_.OutputDims(),
                       ctx.OutputMayBeOpaque("Out") ? blocked_layout_ : nullptr);
      args_[DNNL_ARG_SRC] = src;
      args_[DNNL_ARG_DST] =
          dst_.Bind(DescOf(*target, user_dst_), OutputData(target), dst_desc_, engine);
      Execute(*primitive_, dev.stream(), args_);
      dst_.Store(dev);
      dev.stream().wait();
      if (target == &fresh) *out = std::move(fresh);
    } catch (const dnnl::error& e) {
      throw errors::Fatal("op `%s`: oneDNN pooling failed for X %s: %s", ctx.Type(),
                          x->dims().ToString(), e.what());
    }
  }

 private:
  Pool2dGeometry g_;
  bool plain_ = false;
  memory::desc user_src_, user_dst_;  // Row-major X and Out.
  memory::desc arrangement_;          // How X came in the last run.
  bool block_input_ = false;          // X (row-major NCHW) is reordered to blocked channels.
  memory::desc src_desc_, dst_desc_;  // The formats primitive_ reads and writes.
  std::shared_ptr<const OneDNNLayout> blocked_layout_;  // Out's layout when it may be blocked.
  KeptMemory src_mem_;
  KeptOutput dst_;
  std::unordered_map<int, memory> args_;
  dnnl::pooling_forward::primitive_desc pd_;
  std::unique_ptr<dnnl::pooling_forward> primitive_;
};

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterConvPoolOneDNNKernels) {
  using framework::DataType;
  using framework::DeviceType;
  using framework::LibraryType;
  auto& registry = framework::KernelRegistry::Instance();
  for (const char* conv : {"conv2d", "depthwise_conv2d"}) {
    framework::RegisterKernelClass<Conv2dOneDNN>(conv, DeviceType::kCPU, DataType::FLOAT32,
                                                 LibraryType::kOneDNN);
    registry.DeclareOpaqueInputs(conv, LibraryType::kOneDNN, {"Input", "ResidualData"});
    // A fused residual add writes over the residual when nothing reads it afterwards.
    registry.DeclareInPlace(conv, LibraryType::kOneDNN, {{"ResidualData", "Output"}});
  }
  framework::RegisterKernelClass<Pool2dOneDNN>("pool2d", DeviceType::kCPU, DataType::FLOAT32,
                                               LibraryType::kOneDNN);
  registry.DeclareOpaqueInputs("pool2d", LibraryType::kOneDNN, {"X"});
}

}  // namespace operators
}  // namespace paddle_like
