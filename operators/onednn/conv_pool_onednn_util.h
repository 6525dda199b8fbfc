// Helpers shared by the oneDNN kernels of conv2d / pool2d and of their grads: output
// buffers, reorders, and the oneDNN descriptors built from the geometry of
// operators/nn/conv_pool_shape.h (so forward and backward describe the same convolution or
// pooling).
#pragma once

#include <initializer_list>
#include <optional>
#include <oneapi/dnnl/dnnl.hpp>

#include "framework/dense_tensor.h"
#include "framework/op_kernel.h"
#include "framework/operator.h"
#include "operators/activation/fused_activation.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/onednn/onednn_layout.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

// A oneDNN memory over the float32 data of `t`, which the primitive only reads (oneDNN takes
// non-const handles).
dnnl::memory ReadOnlyMemory(const dnnl::memory::desc& md, const framework::DenseTensor& t,
                            const dnnl::engine& engine);

// oneDNN memory of a descriptor over a buffer from the runtime's allocator, which caches
// freed blocks: a scratch buffer made on every run (a reordered input, an output in the
// primitive's format) costs no page faults, where oneDNN's own allocation of a large one maps
// and unmaps its pages each time (a quarter of a 64x56x56 convolution's time).
class ScratchMemory {
 public:
  ScratchMemory() = default;
  ScratchMemory(const dnnl::memory::desc& md, const dnnl::engine& engine);
  // Wraps memory the caller owns (no buffer of its own).
  explicit ScratchMemory(dnnl::memory user) : mem_(std::move(user)) {}

  const dnnl::memory& mem() const { return mem_; }
  // Usable where a dnnl::memory is expected, from a named ScratchMemory only: a temporary's
  // buffer would be freed before the primitive runs.
  operator const dnnl::memory&() const& { return mem_; }  // NOLINT: implicit by design.
  operator const dnnl::memory&() const&& = delete;

 private:
  platform::AllocationPtr buffer_;
  dnnl::memory mem_;
};

// A dnnl::memory kept between runs of a kernel and pointed at each run's buffer: oneDNN
// allocates every memory object it makes (an aligned block and its storage), which on the
// small maps of a mobile network costs as much as the convolution. Made again only when the
// descriptor changes.
class KeptMemory {
 public:
  // Memory of `md` over `data` (only read when the primitive takes it as an input).
  const dnnl::memory& Over(const dnnl::memory::desc& md, const void* data,
                           const dnnl::engine& engine);

 private:
  dnnl::memory::desc md_;
  dnnl::memory mem_;
};

// Whether `t`'s data is arranged as DescOf(t, user) says: row-major, or in a oneDNN layout
// of the same logical dims (InputMemory converts the rest).
bool ArrangedAsDescOf(const framework::DenseTensor& t, const dnnl::memory::desc& user);

// Memory over input `t` as InputMemory gives it, through `kept` when `t`'s data is arranged
// as DescOf(t, user) says (the usual case, which needs no copy).
dnnl::memory KeptInputMemory(KeptMemory* kept, const framework::DenseTensor& t,
                             const dnnl::memory::desc& user, const dnnl::engine& engine);

// Memory in the primitive's format `want`: `user` itself or a reordered copy.
ScratchMemory ToFormat(dnnl::memory user, const dnnl::memory::desc& want,
                       const platform::OneDNNContext& dev);

// An output in the primitive's format `want` over the user's buffer `data` (format
// `user_md`); Store() reorders it into the user's buffer when the formats differ.
class PrimitiveOutput {
 public:
  PrimitiveOutput(const dnnl::memory::desc& user_md, float* data, const dnnl::memory::desc& want,
                  const dnnl::engine& engine)
      : user_(user_md, engine, data),
        scratch_(want == user_md ? ScratchMemory(user_) : ScratchMemory(want, engine)) {}
  const dnnl::memory& mem() const { return scratch_.mem(); }
  void Store(const platform::OneDNNContext& dev) const {
    if (mem().get() != user_.get()) Reorder(mem(), user_, dev);
  }

 private:
  dnnl::memory user_;
  ScratchMemory scratch_;
};

// An output a kernel's primitive writes in format `want`, over the user's buffer through
// memory kept between runs when the user's arrangement is `want`, else through a staging
// buffer (a PrimitiveOutput) that Store() reorders into the user's buffer.
class KeptOutput {
 public:
  const dnnl::memory& Bind(const dnnl::memory::desc& user_md, float* data,
                           const dnnl::memory::desc& want, const dnnl::engine& engine);
  // After the primitive ran: the staged output into the user's buffer, if there is one.
  void Store(const platform::OneDNNContext& dev);

 private:
  KeptMemory kept_;
  std::optional<PrimitiveOutput> staged_;
};

// A filter in a primitive's weights format: the user's buffer when that is the format, else a
// packed copy, made again only when the filter's variable was written since the last packing
// (framework::VariableStamp). So a steady-state inference run, and the forward passes between
// two optimizer steps, reorder only activations.
class PackedFilter {
 public:
  // For a new primitive: `user` describes the filter's row-major data, `want` is the
  // primitive's weights format. A packed copy of the same format stays valid.
  void Reset(const dnnl::memory::desc& user, const dnnl::memory::desc& want,
             const dnnl::engine& engine);
  // Memory for DNNL_ARG_WEIGHTS over the current value of input `slot`.
  const dnnl::memory& Get(const framework::ExecutionContext& ctx, framework::NameRef slot,
                          const platform::OneDNNContext& dev);

 private:
  dnnl::memory::desc user_;
  bool packs_ = false;
  dnnl::memory packed_;
  KeptMemory user_mem_;
  framework::VariableStamp stamp_;
};

// One convolution in oneDNN's terms. `src`, `dst` are in the user's layout (nchw or nhwc),
// `weights` OIHW (GOIHW with groups); the `_any` descs let the primitive pick its formats.
struct OneDNNConvDescs {
  dnnl::memory::desc src, dst, weights;
  dnnl::memory::desc bias;  // [C_out], for a fused Bias.
  dnnl::memory::desc src_any, dst_any, weights_any;
  dnnl::memory::dims strides, dilates, pad_l, pad_r;
};
OneDNNConvDescs MakeOneDNNConvDescs(const Conv2dGeometry& g);
// The bottom / right padding for which oneDNN's exact size check
// ((in + pad_l + pad_r - extent) / stride + 1 == out) holds between a convolution's input of
// size `in` and its output `out`, given the geometry's paddings `pad_l`, `pad_r`. A
// transposed convolution's output (the convolution's input) may have extra rows or columns
// (output_padding, output_size): up to stride - 1 of them the division drops, more (which a
// dilation above the stride allows) come off pad_r.
int64_t ExactRightPadding(int64_t in, int64_t out, int64_t k, int64_t dilation, int64_t stride,
                          int64_t pad_l, int64_t pad_r);
// The convolution of a transposed convolution's geometry (ResolveConv2dTranspose) in oneDNN's
// terms: MakeOneDNNConvDescs with pad_r from ExactRightPadding.
OneDNNConvDescs MakeOneDNNTransposedConvDescs(const Conv2dGeometry& g);

// Weights in the primitive's format; src and dst each in the user's layout, or in the
// primitive's with `src_any` / `dst_any`. With `bias`, the convolution adds it per output
// channel.
dnnl::convolution_forward::desc ConvForwardDesc(const OneDNNConvDescs& d, dnnl::prop_kind kind,
                                                bool src_any = false, bool dst_any = false,
                                                const dnnl::memory::desc* bias = nullptr);
// The same with src and dst in the given formats, by algorithm `alg`.
dnnl::convolution_forward::desc ConvForwardDesc(
    const OneDNNConvDescs& d, dnnl::prop_kind kind, const dnnl::memory::desc& src,
    const dnnl::memory::desc& dst, const dnnl::memory::desc* bias,
    dnnl::algorithm alg = dnnl::algorithm::convolution_direct);

// Winograd's minimal filtering (oneDNN's F(4x4, 3x3) and F(2x2, 3x3) kernels, AVX-512
// only, blocked formats) for a convolution oneDNN's direct kernel computes, where it is
// measured to be faster: 3x3, stride 1, no dilation, ungrouped, 32 or more input and output
// channels, and an output of at least 32768 values. Null where the geometry is not such or
// oneDNN has no fast Winograd implementation for it with these post-ops. Its float32 error
// is of the direct kernel's order (see the top of conv_pool_onednn.cc).
std::optional<dnnl::convolution_forward::primitive_desc> WinogradForwardDesc(
    const Conv2dGeometry& g, const OneDNNConvDescs& d, const dnnl::memory::desc* bias,
    const dnnl::primitive_attr& attr, const dnnl::engine& engine);

// `md`'s dims (rank 4) in float32, channel-last (nhwc).
dnnl::memory::desc ChannelLastDesc(const dnnl::memory::desc& md);

// Whether oneDNN picked a reference (scalar) or GEMM-based implementation for `pd`: the
// slow ones, that a choice of formats should avoid.
bool IsSlowImplementation(const dnnl::primitive_desc_base& pd);

// Appends the eltwise post-ops computing `a` (nothing for none); false when oneDNN has no
// post-op for it (hard_swish other than x relu6(x + 3) / 6), leaving `ops` unchanged.
bool AppendActivationPostOps(const FusedActivation& a, dnnl::post_ops* ops);

// One pooling in oneDNN's terms, activations in the user's layout. oneDNN sizes the output
// by rounding down; ceil_mode's extra window becomes more padding at the bottom / right.
struct OneDNNPoolDescs {
  dnnl::algorithm algorithm;
  dnnl::memory::desc src, dst;
  dnnl::memory::dims strides, kernel, pad_l, pad_r;
};
OneDNNPoolDescs MakeOneDNNPoolDescs(const Pool2dGeometry& g);
dnnl::pooling_forward::desc PoolForwardDesc(const OneDNNPoolDescs& d, dnnl::prop_kind kind);

// Memory over pooling input `x` (InputMemory). When `x` is in a oneDNN blocked format, `d` is
// changed to pool in it: `src` that format, `dst` format_tag::any (the primitive then picks
// the same format).
// The blocked-channels format oneDNN's vector kernels read on this CPU: nChw16c with
// AVX-512, else nChw8c.
dnnl::memory::format_tag BlockedChannelsTag();

dnnl::memory PoolInputMemory(const framework::DenseTensor& x, OneDNNPoolDescs* d,
                             const dnnl::engine& engine);

}  // namespace operators
}  // namespace paddle_like
