// conv2d_grad / depthwise_conv2d_grad on dnnl::convolution_backward_data and
// convolution_backward_weights, conv2d_transpose_grad / depthwise_conv2d_transpose_grad on
// convolution_forward and convolution_backward_weights, pool2d_grad on
// dnnl::pooling_backward; float32.
//
// The descriptors are those of the forward kernels (conv_pool_onednn_util.h), so both
// directions see one geometry. The convolution backward primitives pick every format
// (format_tag::any), except where nhwc is measured to be faster (BackwardWeightsDesc,
// BackwardDataDesc): operands are reordered to it and results back to the user's layout
// and OIHW. Including the reorders, this is faster than keeping the user's NCHW, which
// oneDNN serves with its gemm-based implementation (LeNet's shapes, batch 64, one thread:
// Filter@GRAD of conv 1->20 5x5 on 28x28 0.66 ms against 1.19 ms; both gradients of conv
// 20->50 5x5 on 12x12 4.85 ms against 5.55 ms; the plain kernel takes 1.37 and 13.6 ms).
// Input@GRAD of an ungrouped NCHW convolution whose input channels oneDNN's blocks would
// pad is a GEMM per image on oneDNN's sgemm instead (BackwardDataDesc).
// Operands may come in oneDNN's blocked layouts (onednn_layout.h), and Input@GRAD and
// X@GRAD stay in the primitive's format where the executor allows it. Pooling gradients
// otherwise keep the user's layout.
//
// Max pooling backward needs the forward pass's workspace (where each maximum was); the op
// does not keep it, so the kernel reruns the forward pooling (forward_training) on X. In
// NCHW the two primitives together are slower than the plain kernel, so max pooling in
// NCHW runs the plain code (batch 64, one thread, 2x2 windows, stride 2: X [64, 20, 24, 24]
// plain 0.99 ms, oneDNN 1.97 ms; [64, 50, 8, 8] 0.25 against 0.65 ms). In NHWC oneDNN is
// faster (1.98 against 1.26 ms, 0.52 against 0.34 ms for the same shapes), and so it is for
// avg pooling in both layouts (NCHW 1.11 against 0.71 ms, NHWC 2.12 against 0.31 ms).
//
// Ties: with several equal maxima in a window the plain kernel routes the gradient to the
// first in row-major order. oneDNN promises no order: its vectorized NCHW implementation
// picked another of the tied maxima (16 or more channels, overlapping 3x3 windows); in NHWC
// it picked the first in every case tried. Either is a valid subgradient; the two kernels
// agree exactly when every window has one maximum.
#include <algorithm>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <unordered_map>

#include "framework/op_registry.h"
#include "framework/passes/fuse_relu_grad_pass.h"
#include "operators/nn/conv_nchw.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/onednn/channel_runs.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "operators/onednn/onednn_gemm.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/op_family.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;
using framework::DenseTensor;
using framework::ExecutionContext;

void FillZero(DenseTensor* t) {
  float* p = t->data<float>();
  std::fill(p, p + t->numel(), 0.0f);
}

// A backward convolution primitive (convolution_backward_data or _weights) for src and dst
// in the given formats, weights in the primitive's.
template <typename Primitive>
typename Primitive::primitive_desc BackwardDesc(
    const platform::OneDNNContext& dev, const OneDNNConvDescs& d,
    const dnnl::convolution_forward::primitive_desc& hint, const memory::desc& src,
    const memory::desc& dst) {
  return typename Primitive::primitive_desc(
      typename Primitive::desc(dnnl::algorithm::convolution_direct, src, d.weights_any, dst,
                               d.strides, d.dilates, d.pad_l, d.pad_r),
      dev.engine(), hint);
}

// The same with src and dst in nhwc, when oneDNN has a fast implementation for that.
template <typename Primitive>
std::optional<typename Primitive::primitive_desc> FastNhwcBackwardDesc(
    const platform::OneDNNContext& dev, const OneDNNConvDescs& d,
    const dnnl::convolution_forward::primitive_desc& hint) {
  try {
    auto pd = BackwardDesc<Primitive>(dev, d, hint, ChannelLastDesc(d.src), ChannelLastDesc(d.dst));
    if (!IsSlowImplementation(pd)) return pd;
  } catch (const dnnl::error&) {
    // No implementation for nhwc.
  }
  return std::nullopt;
}

// dInput: the transposed convolution of dOutput with Filter, by the primitive this returns,
// or, where it returns nothing, by the GEMM of conv_nchw.h on oneDNN's sgemm.
// With few input channels per group the blocked formats do not fit dInput, and oneDNN's
// implementation for them is slow: those keep the user's layout (LeNet's first layer, one
// input channel, batch 64, one thread: 0.84 ms against 5.43 ms with format_tag::any; the
// plain kernel 1.34 ms; tests/benchmarks/conv_benchmark).
// Where oneDNN's own choice pads dInput's channels to fill its blocks (LeNet's 20 channels
// in 16-channel blocks on AVX-512), its implementations are slow in every format: blocked
// 6.4-6.7 ms, nhwc 5.2-5.3 ms for Input@GRAD of LeNet's conv 20->50 5x5 on 12x12 (batch 64,
// one thread, reorders included). One GEMM per image, dcol = Filter^T * dOutput, then
// col2im into row-major NCHW, is faster: both gradients of that layer 6.3-8.5 ms against
// 7.6-9.1 ms with the nhwc primitive (conv_benchmark, minima of five alternations on a
// noisy machine). That runs for ungrouped NCHW convolutions; the others take nhwc when
// oneDNN has a fast implementation for it. Where Input is channel-last in oneDNN's layout
// (after a channel-last pooling), the GEMM reads dOutput and writes dInput channel-last
// (ConvInputGradNhwc), whose col2im adds whole window rows: conv2d_grad of LeNet's second
// layer 2.68-2.90 ms against 2.51-2.58 ms (2 threads, docs/benchmarks.md), and no reorders
// on either side.
std::optional<dnnl::convolution_backward_data::primitive_desc> BackwardDataDesc(
    const platform::OneDNNContext& dev, const Conv2dGeometry& g, const OneDNNConvDescs& d,
    const dnnl::convolution_forward::primitive_desc& hint) {
  using Data = dnnl::convolution_backward_data;
  if (g.in_c / g.groups < 8) return BackwardDesc<Data>(dev, d, hint, d.src, d.dst);
  auto pd = BackwardDesc<Data>(dev, d, hint, d.src_any, d.dst_any);
  const memory::desc chosen = pd.diff_src_desc();
  if (chosen.data.padded_dims[1] == chosen.data.dims[1]) return pd;
  if (g.groups == 1 && !g.channel_last) return std::nullopt;
  auto nhwc = FastNhwcBackwardDesc<Data>(dev, d, hint);
  return nhwc ? *nhwc : pd;
}

// The backward-weights primitive with Input and dOutput in nhwc where oneDNN has a fast
// implementation for it, else in the formats it picks (16-channel blocks on AVX-512, which
// pad LeNet's 20 channels to 32). Filter@GRAD in tests/benchmarks/conv_benchmark, batch 64,
// one thread, AVX-512, reorders included: conv 20->50 5x5 on 12x12 3.1-4.1 ms against
// 7.3-8.3 ms in the blocked formats, conv 1->20 5x5 on 28x28 1.6-2.0 against 2.2-2.3 ms.
dnnl::convolution_backward_weights::primitive_desc BackwardWeightsDesc(
    const platform::OneDNNContext& dev, const OneDNNConvDescs& d,
    const dnnl::convolution_forward::primitive_desc& hint) {
  using Weights = dnnl::convolution_backward_weights;
  auto nhwc = FastNhwcBackwardDesc<Weights>(dev, d, hint);
  return nhwc ? *nhwc : BackwardDesc<Weights>(dev, d, hint, d.src_any, d.dst_any);
}

// dFilter: Input correlated with dOutput, summed over the batch, by a primitive of
// BackwardWeightsDesc (always row-major OIHW: the optimizer reads it).
void ConvBackwardWeights(const platform::OneDNNContext& dev, const OneDNNConvDescs& d,
                         const dnnl::convolution_backward_weights::primitive_desc& pd,
                         const dnnl::convolution_backward_weights& primitive,
                         const memory& input, const memory& dout, DenseTensor* dfilter) {
  const ScratchMemory src = ToFormat(input, pd.src_desc(), dev);
  const ScratchMemory diff_dst = ToFormat(dout, pd.diff_dst_desc(), dev);
  const PrimitiveOutput diff_w(d.weights, dfilter->data<float>(), pd.diff_weights_desc(),
                               dev.engine());
  Execute(
      primitive, dev.stream(),
      {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_WEIGHTS, diff_w.mem()}});
  diff_w.Store(dev);
}

// Runs `fn` (a conv gradient kernel's work with oneDNN); a oneDNN failure drops the kernel's
// primitives (`reset`: the next run makes them again) and becomes a Fatal error naming the
// op, `what` and the operands' dims.
template <typename Fn, typename Reset>
void TryConvGrad(const ExecutionContext& ctx, const char* what, Fn&& fn, Reset&& reset) {
  try {
    fn();
  } catch (const dnnl::error& e) {
    reset();
    throw errors::Fatal(
        "op `%s`: oneDNN %s backward failed for Input %s, Filter %s, Output@GRAD %s: %s",
        ctx.Type(), what, ctx.Input("Input")->dims().ToString(),
        ctx.Input("Filter")->dims().ToString(), ctx.Input("Output@GRAD")->dims().ToString(),
        e.what());
  }
}

// The backward primitives of one prepared conv2d_grad / depthwise_conv2d_grad, made by
// Prepare (new input dims) and kept between runs: each descriptor makes oneDNN walk its
// list of implementations, and a step would otherwise create four of them per convolution.
class Conv2dGradOneDNN final : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    g_ = ResolveConv2dGrad(ctx);
    data_.reset();
    weights_.reset();
    // Empty sums (no images, no output channels, no input channels): the gradients are 0.
    empty_ = dout->numel() == 0 || input->numel() == 0 || filter->numel() == 0;
    if (empty_) return;
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    Try(ctx, [&] {
      descs_ = MakeOneDNNConvDescs(g_);
      const dnnl::convolution_forward::primitive_desc hint(
          ConvForwardDesc(descs_, dnnl::prop_kind::forward_training, /*src_any=*/true,
                          /*dst_any=*/true),
          dev.engine());
      gemm_input_grad_ = false;
      if (ctx.Output("Input@GRAD") != nullptr) {
        const auto data_pd = BackwardDataDesc(dev, g_, descs_, hint);
        gemm_input_grad_ = !data_pd.has_value();
        if (gemm_input_grad_) {
          nhwc_src_ =
              memory::desc(descs_.src.dims(), memory::data_type::f32, memory::format_tag::nhwc);
          nhwc_dst_ =
              memory::desc(descs_.dst.dims(), memory::data_type::f32, memory::format_tag::nhwc);
          nhwc_layout_ = OutputLayout(true, nhwc_src_, descs_.src);
        }
        if (data_pd) {
          data_pd_ = *data_pd;
          data_ = std::make_unique<dnnl::convolution_backward_data>(data_pd_);
          dinput_layout_ = OutputLayout(true, data_pd_.diff_src_desc(), descs_.src);
        }
      }
      if (ctx.Output("Filter@GRAD") != nullptr) {
        weights_pd_ = BackwardWeightsDesc(dev, descs_, hint);
        weights_ = std::make_unique<dnnl::convolution_backward_weights>(weights_pd_);
      }
    });
  }

  void Compute(const ExecutionContext& ctx) override {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    DenseTensor* dinput = ctx.Output("Input@GRAD");
    DenseTensor* dfilter = ctx.Output("Filter@GRAD");
    // Both results are written before either is moved into place: an output may be the same
    // variable as an input the other result still reads.
    DenseTensor fresh_input, fresh_filter;
    DenseTensor* din = nullptr;
    DenseTensor* dw = dfilter == nullptr ? nullptr
                                         : OutputTarget(dfilter, {input, filter, dout},
                                                        &fresh_filter, filter->dims());
    if (empty_) {
      if (dinput != nullptr) {
        din = OutputTarget(dinput, {input, filter, dout}, &fresh_input, input->dims());
        FillZero(din);
      }
      if (dw != nullptr) FillZero(dw);
    } else if (dinput != nullptr || dw != nullptr) {
      const auto& dev = ctx.device_context<platform::OneDNNContext>();
      const dnnl::engine& engine = dev.engine();
      Try(ctx, [&] {
        const memory dout_mem = InputMemory(*dout, descs_.dst, engine);
        const OneDNNLayout* input_layout = OneDNNLayoutOf(*input);
        if (dinput != nullptr && gemm_input_grad_ && input_layout != nullptr &&
            input_layout->desc() == nhwc_src_) {
          // Input channel-last (a channel-last pooling's output, say): so is dInput.
          din = OutputTarget(dinput, {input, filter, dout}, &fresh_input, input->dims(),
                             ctx.OutputMayBeOpaque("Input@GRAD") ? nhwc_layout_ : nullptr);
          const ScratchMemory dy = ToFormat(dout_mem, nhwc_dst_, dev);
          const PrimitiveOutput dx(DescOf(*din, descs_.src), OutputData(din), nhwc_src_, engine);
          dev.stream().wait();
          const DenseTensor w = framework::PlainTensor(*filter);
          ConvInputGradNhwc<float>(dev, g_, w.data<float>(),
                                   static_cast<const float*>(dy.mem().get_data_handle()),
                                   static_cast<float*>(dx.mem().get_data_handle()), &OneDNNGemm);
          dx.Store(dev);
        } else if (dinput != nullptr && gemm_input_grad_) {
          din = OutputTarget(dinput, {input, filter, dout}, &fresh_input, input->dims());
          InputGradByGemm(dev, *filter, *dout, din);
        } else if (dinput != nullptr) {
          // dInput: the transposed convolution of dOutput with Filter.
          const ScratchMemory w =
              ToFormat(ReadOnlyMemory(descs_.weights, *filter, engine), data_pd_.weights_desc(), dev);
          const ScratchMemory diff_dst = ToFormat(dout_mem, data_pd_.diff_dst_desc(), dev);
          din = OutputTarget(dinput, {input, filter, dout}, &fresh_input, input->dims(),
                             ctx.OutputMayBeOpaque("Input@GRAD") ? dinput_layout_ : nullptr);
          const PrimitiveOutput diff_src(DescOf(*din, descs_.src), OutputData(din),
                                         data_pd_.diff_src_desc(), engine);
          Execute(*data_, dev.stream(),
                  {{DNNL_ARG_DIFF_DST, diff_dst},
                   {DNNL_ARG_WEIGHTS, w},
                   {DNNL_ARG_DIFF_SRC, diff_src.mem()}});
          diff_src.Store(dev);
        }
        if (dw != nullptr) {
          ConvBackwardWeights(dev, descs_, weights_pd_, *weights_,
                              InputMemory(*input, descs_.src, engine), dout_mem, dw);
        }
        dev.stream().wait();
      });
    }
    if (din == &fresh_input) *dinput = std::move(fresh_input);
    if (dw == &fresh_filter) *dfilter = std::move(fresh_filter);
  }

 private:
  template <typename Fn>
  void Try(const ExecutionContext& ctx, Fn&& fn) {
    TryConvGrad(ctx, "convolution", fn, [this] {
      data_.reset();
      weights_.reset();
    });
  }

  // dInput [N, C_in, H, W] row-major by ConvInputGradNchw on oneDNN's sgemm (see
  // BackwardDataDesc), from Filter and dOutput in any layout.
  void InputGradByGemm(const platform::OneDNNContext& dev, const DenseTensor& filter,
                       const DenseTensor& dout, DenseTensor* din) const {
    // The tensors themselves where row-major (PlainTensor shares their buffers).
    const DenseTensor w = framework::PlainTensor(filter);
    const DenseTensor dy = framework::PlainTensor(dout);
    ConvInputGradNchw<float>(dev, g_, w.data<float>(), dy.data<float>(), OutputData(din),
                             &OneDNNGemm);
  }

  Conv2dGeometry g_;
  bool empty_ = false;
  OneDNNConvDescs descs_;
  bool gemm_input_grad_ = false;  // dInput by a GEMM per image, not by data_.
  // The GEMM path on channel-last data: Input's and Output's dims in nhwc, and dInput's
  // layout in nhwc (null where nhwc is the user's).
  memory::desc nhwc_src_, nhwc_dst_;
  std::shared_ptr<const OneDNNLayout> nhwc_layout_;
  dnnl::convolution_backward_data::primitive_desc data_pd_;
  std::unique_ptr<dnnl::convolution_backward_data> data_;  // Null without Input@GRAD or by GEMM.
  std::shared_ptr<const OneDNNLayout> dinput_layout_;  // Null when it writes the user's.
  dnnl::convolution_backward_weights::primitive_desc weights_pd_;
  std::unique_ptr<dnnl::convolution_backward_weights> weights_;  // Null without Filter@GRAD.
};

// conv2d_transpose_grad / depthwise_conv2d_transpose_grad. With C the convolution that
// ResolveConv2dTranspose describes (its input is the op's Output, its output the op's Input),
// Input@GRAD = C(Output@GRAD), a forward convolution, and Filter@GRAD is C's filter gradient
// with C's input Output@GRAD and C's output gradient Input; the filter, [C_in, C_out / groups,
// kh, kw], is C's OIHW as it is; the primitives pick their formats. With fewer than 8 output
// channels per group (not depthwise), where oneDNN has only its scalar reference code for C,
// or where it refuses the geometry, the plain kernel runs.
class Conv2dTransposeGradOneDNN final : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    const Conv2dGeometry g = ResolveConv2dTransposeGrad(ctx);
    forward_.reset();
    weights_.reset();
    // Few output channels per group (the convolution's input channels), not depthwise: the
    // plain kernel is faster (PP-OCRv3's last layer, 24 -> 1: 1.3 against 2.3 ms;
    // tests/benchmarks/conv_transpose_benchmark).
    const int64_t per_group = g.in_c / g.groups;
    const bool depthwise = per_group == 1 && g.in_c >= 8;
    plain_ = dout->numel() == 0 || input->numel() == 0 || filter->numel() == 0 ||
             (per_group < 8 && !depthwise);
    if (plain_) return;
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const dnnl::engine& engine = dev.engine();
    dnnl::convolution_forward::primitive_desc hint;
    try {
      descs_ = MakeOneDNNTransposedConvDescs(g);
      forward_pd_ = dnnl::convolution_forward::primitive_desc(
          ConvForwardDesc(descs_, dnnl::prop_kind::forward_inference, true, true), engine);
      hint = dnnl::convolution_forward::primitive_desc(
          ConvForwardDesc(descs_, dnnl::prop_kind::forward_training, true, true), engine);
    } catch (const dnnl::error&) {
      plain_ = true;  // A geometry oneDNN does not take.
      return;
    }
    if (std::string(forward_pd_.impl_info_str()).rfind("ref", 0) == 0) {
      plain_ = true;
      return;
    }
    Try(ctx, [&] {
      if (ctx.Output("Input@GRAD") != nullptr) {
        forward_ = std::make_unique<dnnl::convolution_forward>(forward_pd_);
        dinput_layout_ = OutputLayout(true, forward_pd_.dst_desc(), descs_.dst);
      }
      if (ctx.Output("Filter@GRAD") != nullptr) {
        weights_pd_ = BackwardWeightsDesc(dev, descs_, hint);
        weights_ = std::make_unique<dnnl::convolution_backward_weights>(weights_pd_);
      }
    });
  }

  void Compute(const ExecutionContext& ctx) override {
    if (plain_) {
      ctx.WithPlainInputs(
          [](const ExecutionContext& p) { Conv2dTransposeGradPlainCompute<float>(p); });
      return;
    }
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    DenseTensor* dinput = ctx.Output("Input@GRAD");
    DenseTensor* dfilter = ctx.Output("Filter@GRAD");
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const dnnl::engine& engine = dev.engine();
    // Both results are written before either is moved into place: an output may be the same
    // variable as an input the other result still reads.
    DenseTensor fresh_input, fresh_filter;
    DenseTensor* din = nullptr;
    DenseTensor* dw = nullptr;
    Try(ctx, [&] {
      const memory dout_mem = InputMemory(*dout, descs_.src, engine);
      if (dinput != nullptr) {
        const ScratchMemory src = ToFormat(dout_mem, forward_pd_.src_desc(), dev);
        const ScratchMemory w = ToFormat(ReadOnlyMemory(descs_.weights, *filter, engine),
                                         forward_pd_.weights_desc(), dev);
        din = OutputTarget(dinput, {input, filter, dout}, &fresh_input, input->dims(),
                           ctx.OutputMayBeOpaque("Input@GRAD") ? dinput_layout_ : nullptr);
        const PrimitiveOutput dst(DescOf(*din, descs_.dst), OutputData(din),
                                  forward_pd_.dst_desc(), engine);
        Execute(*forward_, dev.stream(),
                {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst.mem()}});
        dst.Store(dev);
      }
      if (dfilter != nullptr) {
        dw = OutputTarget(dfilter, {input, filter, dout}, &fresh_filter, filter->dims());
        ConvBackwardWeights(dev, descs_, weights_pd_, *weights_, dout_mem,
                            InputMemory(*input, descs_.dst, engine), dw);
      }
      dev.stream().wait();
    });
    if (din == &fresh_input) *dinput = std::move(fresh_input);
    if (dw == &fresh_filter) *dfilter = std::move(fresh_filter);
  }

 private:
  template <typename Fn>
  void Try(const ExecutionContext& ctx, Fn&& fn) {
    TryConvGrad(ctx, "transposed convolution", fn, [this] {
      forward_.reset();
      weights_.reset();
    });
  }

  bool plain_ = false;  // The plain kernel computes the op (see Prepare).
  OneDNNConvDescs descs_;  // Of C.
  dnnl::convolution_forward::primitive_desc forward_pd_;
  std::unique_ptr<dnnl::convolution_forward> forward_;  // Null without Input@GRAD.
  std::shared_ptr<const OneDNNLayout> dinput_layout_;
  dnnl::convolution_backward_weights::primitive_desc weights_pd_;
  std::unique_ptr<dnnl::convolution_backward_weights> weights_;  // Null without Filter@GRAD.
};

// pool2d_grad. The forward and backward primitives are made for the first input format seen
// and again only when it changes (Prepare resolves the geometry), as in the forward kernel.
class Pool2dGradOneDNN final : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    const std::string& op = ctx.Type();
    g_ = ResolvePool2d(op, ctx.Input("X")->dims(), ctx.op().Attrs());
    CheckGradInputShape(op, "Out", g_.OutputDims(), ctx.Input("Out")->dims());
    CheckGradInputShape(op, "Out@GRAD", g_.OutputDims(), ctx.Input("Out@GRAD")->dims());
    // Adaptive windows, windows wholly in the padding and averages over windows that reach
    // past the input and its leading padding (their divisors) are not oneDNN poolings.
    plain_geometry_ = g_.adaptive || g_.HasEmptyWindow() || g_.HasShortAvgWindow();
    disjoint_max_ = g_.IsDisjointMax() && !g_.channel_last;
    relu_ = op == framework::kFusedReluPool2dGrad;
    backward_.reset();
  }

  void Compute(const ExecutionContext& ctx) override {
    const DenseTensor* x = ctx.Input("X");
    // X@GRAD may be granted X's buffer (X dies here): only the loop over channel runs reads
    // each element of X before writing its gradient; the other paths read X after writing
    // (the relu mask), so they write a buffer of their own.
    try {
      if (DisjointMaxOverChannelRuns(ctx)) return;
    } catch (const dnnl::error& e) {
      throw errors::Fatal("op `%s`: oneDNN reorder for the pooling gradient failed for X %s: %s",
                          ctx.Type(), x->dims().ToString(), e.what());
    }
    ctx.Output("X@GRAD")->EndInPlace();
    // Max pooling of row-major NCHW data is faster in the plain code (see the top of this
    // file), but not of data already in a blocked layout.
    if (plain_geometry_ || (g_.is_max && !g_.channel_last && x->is_plain())) {
      ctx.WithPlainInputs(
          [](const ExecutionContext& plain) { Pool2dGradPlainCompute<float>(plain); });
      return;
    }
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    DenseTensor* dx = ctx.Output("X@GRAD");
    DenseTensor fresh;
    if (x->numel() == 0) {
      DenseTensor* target = OutputTarget(dx, {x, out, dout}, &fresh, x->dims());
      if (target == &fresh) *dx = std::move(fresh);
      WriteChannelSums(ctx, *dx);
      return;
    }
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const dnnl::engine& engine = dev.engine();
    try {
      // Data in a blocked format is pooled in it; X@GRAD then takes X's format.
      OneDNNPoolDescs d = MakeOneDNNPoolDescs(g_);
      const memory::desc user_src = d.src, user_dst = d.dst;
      const memory src = PoolInputMemory(*x, &d, engine);
      if (backward_ == nullptr || src.get_desc() != src_desc_) {
        forward_pd_ = dnnl::pooling_forward::primitive_desc(
            PoolForwardDesc(d, dnnl::prop_kind::forward_training), engine);
        backward_pd_ = dnnl::pooling_backward::primitive_desc(
            dnnl::pooling_backward::desc(d.algorithm, d.src, forward_pd_.dst_desc(), d.strides,
                                         d.kernel, d.pad_l, d.pad_r),
            engine, forward_pd_);
        backward_ = std::make_unique<dnnl::pooling_backward>(backward_pd_);
        forward_ = std::make_unique<dnnl::pooling_forward>(forward_pd_);
        if (g_.is_max) {
          workspace_ = memory(forward_pd_.workspace_desc(), engine);
          scratch_dst_ = memory(forward_pd_.dst_desc(), engine);
        }
        src_desc_ = src.get_desc();
        dx_layout_ = OutputLayout(true, backward_pd_.diff_src_desc(), user_src);
      }
      DenseTensor* target = OutputTarget(dx, {x, out, dout}, &fresh, x->dims(),
                                         ctx.OutputMayBeOpaque("X@GRAD") ? dx_layout_ : nullptr);
      const PrimitiveOutput diff_src(DescOf(*target, user_src), OutputData(target),
                                     backward_pd_.diff_src_desc(), engine);
      const ScratchMemory diff_dst =
          ToFormat(InputMemory(*dout, user_dst, engine), backward_pd_.diff_dst_desc(), dev);
      std::unordered_map<int, memory> args = {{DNNL_ARG_DIFF_DST, diff_dst},
                                              {DNNL_ARG_DIFF_SRC, diff_src.mem()}};
      if (g_.is_max) {
        // Where each maximum was: the op does not keep the forward pass's workspace, so the
        // forward pooling runs again on X.
        Execute(
            *forward_, dev.stream(),
            {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, scratch_dst_}, {DNNL_ARG_WORKSPACE, workspace_}});
        args.emplace(DNNL_ARG_WORKSPACE, workspace_);
      }
      Execute(*backward_, dev.stream(), args);
      if (relu_) MaskByPositive(src, diff_src.mem(), dev);
      diff_src.Store(dev);
      dev.stream().wait();
      if (target == &fresh) *dx = std::move(fresh);
      WriteChannelSums(ctx, *dx);
    } catch (const dnnl::error& e) {
      backward_.reset();
      throw errors::Fatal("op `%s`: oneDNN pooling backward failed for X %s, Out@GRAD %s: %s",
                          ctx.Type(), x->dims().ToString(), dout->dims().ToString(), e.what());
    }
  }

 private:
  // Max pooling over disjoint windows of X in a packed channel-run format (a convolution's
  // blocked or channel-last output): MaxPoolGradOverChannelRuns, with Out and Out@GRAD in
  // X's kind of format and X@GRAD in X's format, in place over X where the executor grants
  // it. False, having done nothing, for others.
  bool DisjointMaxOverChannelRuns(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const OneDNNLayout* layout = OneDNNLayoutOf(*x);
    if (!disjoint_max_ || layout == nullptr || x->numel() == 0) return false;
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const OneDNNPoolDescs d = MakeOneDNNPoolDescs(g_);
    if (layout->plain_desc() != d.src || !ChannelRuns::Fits(layout->desc())) return false;
    const ChannelRuns runs(layout->desc());
    if (!runs.packed() || runs.rank() != 4) return false;
    const dnnl::engine& engine = dev.engine();
    const memory::desc want = runs.PackedDesc(d.dst.dims());
    const ScratchMemory out = ToFormat(InputMemory(*ctx.Input("Out"), d.dst, engine), want, dev);
    const ScratchMemory dout =
        ToFormat(InputMemory(*ctx.Input("Out@GRAD"), d.dst, engine), want, dev);
    dev.stream().wait();
    DenseTensor* dx = ctx.Output("X@GRAD");
    DenseTensor fresh;
    DenseTensor* target =
        OutputTarget(dx, {x, ctx.Input("Out"), ctx.Input("Out@GRAD")}, &fresh, x->dims(),
                     ctx.OutputMayBeOpaque("X@GRAD")
                         ? std::static_pointer_cast<const OneDNNLayout>(x->opaque_layout())
                         : nullptr);
    const PrimitiveOutput diff_src(DescOf(*target, d.src), OutputData(target), layout->desc(),
                                   engine);
    float* sums = nullptr;
    if (ctx.HasOutput("ChannelSum")) {
      DenseTensor* channel_sum = ctx.Output("ChannelSum");
      channel_sum->Resize(framework::DDim({g_.channels}));
      sums = channel_sum->mutable_data<float>(ctx.GetPlace());
    }
    MaxPoolGradOverChannelRuns(runs, g_.out_h, g_.out_w, g_.kernel_h, g_.kernel_w,
                               static_cast<const float*>(x->raw_data()),
                               static_cast<const float*>(out.mem().get_data_handle()),
                               static_cast<const float*>(dout.mem().get_data_handle()),
                               static_cast<float*>(diff_src.mem().get_data_handle()), relu_, dev,
                               sums);
    diff_src.Store(dev);
    dev.stream().wait();
    if (target == &fresh) *dx = std::move(fresh);
    return true;
  }

  // fused_relu_pool2d_grad's ChannelSum, where the op has it, from X@GRAD as written.
  void WriteChannelSums(const ExecutionContext& ctx, const DenseTensor& dx) const {
    if (!ctx.HasOutput("ChannelSum")) return;
    const DenseTensor plain = framework::PlainTensor(dx);
    operators::WriteChannelSums(plain.numel() > 0 ? plain.data<float>() : nullptr, g_.channel_last,
                                g_.batch, g_.channels, g_.in_h * g_.in_w, ctx.Output("ChannelSum"));
  }

  // fused_relu_pool2d_grad: relu_grad's product dX * (X > 0 ? 1 : 0), elementwise over
  // dX (format of `dx`) and X (`x`, reordered to that format first when it differs).
  static void MaskByPositive(const memory& x, const memory& dx,
                             const platform::OneDNNContext& dev) {
    const ScratchMemory same = ToFormat(x, dx.get_desc(), dev);
    dev.stream().wait();
    const float* xs = static_cast<const float*>(same.mem().get_data_handle());
    float* d = static_cast<float*>(dx.get_data_handle());
    const int64_t n = static_cast<int64_t>(dx.get_desc().get_size() / sizeof(float));
    dev.ParallelFor(n, 1 << 14, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) d[i] = d[i] * (xs[i] > 0.f ? 1.f : 0.f);
    });
  }

  Pool2dGeometry g_;
  bool plain_geometry_ = false;
  bool disjoint_max_ = false;  // NCHW max pooling over disjoint windows (IsDisjointMax).
  bool relu_ = false;          // fused_relu_pool2d_grad: X@GRAD is the relu's X's gradient.
  memory::desc src_desc_;  // The format the primitives read X in.
  std::shared_ptr<const OneDNNLayout> dx_layout_;  // X@GRAD's layout when it may be blocked.
  dnnl::pooling_forward::primitive_desc forward_pd_;
  dnnl::pooling_backward::primitive_desc backward_pd_;
  std::unique_ptr<dnnl::pooling_forward> forward_;
  std::unique_ptr<dnnl::pooling_backward> backward_;
  // Max pooling: the rerun forward pass's output and workspace, made with the primitives.
  memory scratch_dst_, workspace_;
};

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterConvPoolGradOneDNNKernels) {
  using framework::DataType;
  using framework::DeviceType;
  using framework::LibraryType;
  // oneDNN splits the filter and bias gradients (sums over batch and space) across threads in an order of its own (it may differ with
  // the thread count and the machine): not deterministic, so deterministic mode
  // (FLAGS_cpu_deterministic, KernelInfo::deterministic) runs the plain kernels instead.
  for (const char* grad : {"conv2d_grad", "depthwise_conv2d_grad"}) {
    framework::RegisterKernelClass<Conv2dGradOneDNN>(grad, DeviceType::kCPU, DataType::FLOAT32,
                                                     LibraryType::kOneDNN, false);
  }
  for (const char* grad : {"conv2d_transpose_grad", "depthwise_conv2d_transpose_grad"}) {
    framework::RegisterKernelClass<Conv2dTransposeGradOneDNN>(
        grad, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN, false);
  }
  for (const char* grad : {"pool2d_grad", framework::kFusedReluPool2dGrad}) {
    framework::RegisterKernelClass<Pool2dGradOneDNN>(grad, DeviceType::kCPU, DataType::FLOAT32,
                                                     LibraryType::kOneDNN);
  }
  // Inputs read in oneDNN's blocked layouts (onednn_layout.h); Filter is a parameter.
  auto& registry = framework::KernelRegistry::Instance();
  for (const char* grad : {"conv2d_grad", "depthwise_conv2d_grad", "conv2d_transpose_grad",
                           "depthwise_conv2d_transpose_grad"}) {
    registry.DeclareOpaqueInputs(grad, LibraryType::kOneDNN, {"Input", "Output@GRAD"});
  }
  for (const char* grad : {"pool2d_grad", framework::kFusedReluPool2dGrad}) {
    registry.DeclareOpaqueInputs(grad, LibraryType::kOneDNN, {"X", "Out", "Out@GRAD"});
    // The gradient of a channel-last or blocked X written over X (Pool2dGradOneDNN).
    registry.DeclareInPlace(grad, LibraryType::kOneDNN, {{"X", "X@GRAD"}});
  }
}

}  // namespace operators
}  // namespace paddle_like
