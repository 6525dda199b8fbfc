#include "operators/onednn/conv_pool_onednn_util.h"

#include <algorithm>

namespace paddle_like {
namespace operators {

using dnnl::memory;
using framework::DenseTensor;
using Tag = memory::format_tag;

memory ReadOnlyMemory(const memory::desc& md, const DenseTensor& t, const dnnl::engine& engine) {
  return memory(md, engine, const_cast<float*>(t.data<float>()));
}

const memory& KeptMemory::Over(const memory::desc& md, const void* data,
                               const dnnl::engine& engine) {
  void* handle = const_cast<void*>(data);  // oneDNN takes non-const handles.
  if (!mem_ || md != md_) {
    mem_ = memory(md, engine, handle);
    md_ = md;
  } else if (mem_.get_data_handle() != handle) {
    mem_.set_data_handle(handle);
  }
  return mem_;
}

bool ArrangedAsDescOf(const framework::DenseTensor& t, const memory::desc& user) {
  if (t.is_plain()) return true;
  const OneDNNLayout* layout = OneDNNLayoutOf(t);
  return layout != nullptr && layout->plain_desc() == user;
}

memory KeptInputMemory(KeptMemory* kept, const framework::DenseTensor& t,
                       const memory::desc& user, const dnnl::engine& engine) {
  if (ArrangedAsDescOf(t, user)) return kept->Over(DescOf(t, user), t.raw_data(), engine);
  return InputMemory(t, user, engine);
}

ScratchMemory::ScratchMemory(const memory::desc& md, const dnnl::engine& engine)
    : buffer_(platform::Alloc(platform::CPUPlace(), md.get_size())),
      mem_(md, engine, buffer_->ptr()) {}

const memory& KeptOutput::Bind(const memory::desc& user_md, float* data, const memory::desc& want,
                               const dnnl::engine& engine) {
  staged_.reset();
  if (SameBytes(user_md, want)) return kept_.Over(want, data, engine);
  return staged_.emplace(user_md, data, want, engine).mem();
}

void KeptOutput::Store(const platform::OneDNNContext& dev) {
  if (staged_) staged_->Store(dev);
  staged_.reset();
}

ScratchMemory ToFormat(memory user, const memory::desc& want, const platform::OneDNNContext& dev) {
  if (user.get_desc() == want) return ScratchMemory(std::move(user));
  // The same bytes under the name of the wanted format.
  if (SameBytes(user.get_desc(), want)) {
    return ScratchMemory(memory(want, dev.engine(), user.get_data_handle()));
  }
  ScratchMemory converted(want, dev.engine());
  Reorder(user, converted.mem(), dev);
  return converted;
}

void PackedFilter::Reset(const memory::desc& user, const memory::desc& want,
                         const dnnl::engine& engine) {
  user_ = user;
  packs_ = want != user;
  if (packs_ && (!packed_ || packed_.get_desc() != want)) {
    packed_ = memory(want, engine);
    stamp_ = framework::VariableStamp();
  }
}

const memory& PackedFilter::Get(const framework::ExecutionContext& ctx, framework::NameRef slot,
                                const platform::OneDNNContext& dev) {
  const DenseTensor& filter = *ctx.Input(slot);
  if (!packs_) return user_mem_.Over(user_, filter.data<float>(), dev.engine());
  const framework::VariableStamp stamp(*ctx.InputVar(slot));
  if (stamp != stamp_) {
    Reorder(ReadOnlyMemory(user_, filter, dev.engine()), packed_, dev);
    stamp_ = stamp;
    ctx.NotePrepack(slot, 0, packed_.get_desc().get_size(), "reorder to the primitive's weights format");
  }
  return packed_;
}

OneDNNConvDescs MakeOneDNNConvDescs(const Conv2dGeometry& g) {
  const auto f32 = memory::data_type::f32;
  const Tag layout = g.channel_last ? Tag::nhwc : Tag::nchw;
  const memory::dims w_dims =
      g.groups == 1
          ? memory::dims{g.out_c, g.in_c, g.kernel_h, g.kernel_w}
          : memory::dims{g.groups, g.out_c / g.groups, g.in_c / g.groups, g.kernel_h, g.kernel_w};
  OneDNNConvDescs d;
  d.src = memory::desc({g.batch, g.in_c, g.in_h, g.in_w}, f32, layout);
  d.dst = memory::desc({g.batch, g.out_c, g.out_h, g.out_w}, f32, layout);
  d.weights = memory::desc(w_dims, f32, g.groups == 1 ? Tag::oihw : Tag::goihw);
  d.src_any = memory::desc(d.src.dims(), f32, Tag::any);
  d.dst_any = memory::desc(d.dst.dims(), f32, Tag::any);
  d.weights_any = memory::desc(w_dims, f32, Tag::any);
  d.bias = memory::desc({g.out_c}, f32, Tag::a);
  d.strides = {g.stride_h, g.stride_w};
  d.dilates = {g.dilation_h - 1, g.dilation_w - 1};  // oneDNN counts the gaps.
  d.pad_l = {g.pad_top, g.pad_left};
  d.pad_r = {g.pad_bottom, g.pad_right};
  return d;
}

int64_t ExactRightPadding(int64_t in, int64_t out, int64_t k, int64_t dilation, int64_t stride,
                          int64_t pad_l, int64_t pad_r) {
  const int64_t extent = (k - 1) * dilation + 1;
  const int64_t excess = in + pad_l + pad_r - extent - (out - 1) * stride;  // >= 0
  return pad_r - excess / stride * stride;
}

OneDNNConvDescs MakeOneDNNTransposedConvDescs(const Conv2dGeometry& g) {
  OneDNNConvDescs d = MakeOneDNNConvDescs(g);
  d.pad_r = {ExactRightPadding(g.in_h, g.out_h, g.kernel_h, g.dilation_h, g.stride_h, g.pad_top,
                               g.pad_bottom),
             ExactRightPadding(g.in_w, g.out_w, g.kernel_w, g.dilation_w, g.stride_w, g.pad_left,
                               g.pad_right)};
  return d;
}

dnnl::convolution_forward::desc ConvForwardDesc(const OneDNNConvDescs& d, dnnl::prop_kind kind,
                                                bool src_any, bool dst_any,
                                                const dnnl::memory::desc* bias) {
  return ConvForwardDesc(d, kind, src_any ? d.src_any : d.src, dst_any ? d.dst_any : d.dst, bias);
}

dnnl::convolution_forward::desc ConvForwardDesc(const OneDNNConvDescs& d, dnnl::prop_kind kind,
                                                const memory::desc& src, const memory::desc& dst,
                                                const memory::desc* bias, dnnl::algorithm alg) {
  if (bias != nullptr) {
    return dnnl::convolution_forward::desc(kind, alg, src, d.weights_any, *bias, dst, d.strides,
                                           d.dilates, d.pad_l, d.pad_r);
  }
  return dnnl::convolution_forward::desc(kind, alg, src, d.weights_any, dst, d.strides, d.dilates,
                                         d.pad_l, d.pad_r);
}

std::optional<dnnl::convolution_forward::primitive_desc> WinogradForwardDesc(
    const Conv2dGeometry& g, const OneDNNConvDescs& d, const memory::desc* bias,
    const dnnl::primitive_attr& attr, const dnnl::engine& engine) {
  // Below 32 channels the transforms cost more than the products they save, and on small
  // outputs the kernel's split across threads does (tests/benchmarks/conv_vs_onednn_benchmark).
  constexpr int64_t kMinChannels = 32, kMinOutputValues = 32768;
  const bool square_3x3 = g.kernel_h == 3 && g.kernel_w == 3 && g.stride_h == 1 &&
                          g.stride_w == 1 && g.dilation_h == 1 && g.dilation_w == 1;
  if (!square_3x3 || g.groups != 1 || g.in_c < kMinChannels || g.out_c < kMinChannels ||
      g.batch * g.out_h * g.out_w * g.out_c < kMinOutputValues) {
    return std::nullopt;
  }
  try {
    dnnl::convolution_forward::primitive_desc pd(
        ConvForwardDesc(d, dnnl::prop_kind::forward_inference, d.src_any, d.dst_any, bias,
                        dnnl::algorithm::convolution_winograd),
        attr, engine);
    if (!IsSlowImplementation(pd)) return pd;
  } catch (const dnnl::error&) {
    // No Winograd kernel on this CPU, for these paddings or post-ops.
  }
  return std::nullopt;
}

memory::desc ChannelLastDesc(const memory::desc& md) {
  return memory::desc(md.dims(), memory::data_type::f32, Tag::nhwc);
}

bool IsSlowImplementation(const dnnl::primitive_desc_base& pd) {
  const std::string impl = pd.impl_info_str();
  return impl.rfind("ref", 0) == 0 || impl.find("gemm") != std::string::npos;
}

bool AppendActivationPostOps(const FusedActivation& a, dnnl::post_ops* ops) {
  using dnnl::algorithm;
  const std::string& f = a.name;
  if (f.empty()) return true;
  if (f == "hard_sigmoid") {
    ops->append_eltwise(1.0f, algorithm::eltwise_linear, a.alpha, a.beta);
    ops->append_eltwise(1.0f, algorithm::eltwise_clip, 0.0f, 1.0f);
    return true;
  }
  // oneDNN's hardswish has no parameters: x relu6(x + 3) / 6.
  if (f == "hard_swish") {
    if (a.alpha != 1.0f / 6.0f || a.beta != 0.5f) return false;
    ops->append_eltwise(1.0f, algorithm::eltwise_hardswish, 0.0f, 0.0f);
    return true;
  }
  struct Entry {
    const char* name;
    algorithm alg;
    float alpha, beta;
  };
  const Entry table[] = {{"relu", algorithm::eltwise_relu, 0.0f, 0.0f},
                         {"leaky_relu", algorithm::eltwise_relu, a.alpha, 0.0f},
                         {"relu6", algorithm::eltwise_clip, 0.0f, a.beta},
                         {"clip", algorithm::eltwise_clip, a.alpha, a.beta},
                         {"swish", algorithm::eltwise_swish, a.alpha, 0.0f},
                         {"sigmoid", algorithm::eltwise_logistic, 0.0f, 0.0f},
                         {"tanh", algorithm::eltwise_tanh, 0.0f, 0.0f},
                         {"gelu", algorithm::eltwise_gelu_erf, 0.0f, 0.0f},
                         {"gelu_tanh", algorithm::eltwise_gelu_tanh, 0.0f, 0.0f}};
  for (const Entry& e : table) {
    if (f == e.name) {
      ops->append_eltwise(1.0f, e.alg, e.alpha, e.beta);
      return true;
    }
  }
  return false;
}

OneDNNPoolDescs MakeOneDNNPoolDescs(const Pool2dGeometry& g) {
  const auto f32 = memory::data_type::f32;
  const Tag layout = g.channel_last ? Tag::nhwc : Tag::nchw;
  OneDNNPoolDescs d;
  d.algorithm = g.is_max ? dnnl::algorithm::pooling_max
                         : (g.exclusive ? dnnl::algorithm::pooling_avg_exclude_padding
                                        : dnnl::algorithm::pooling_avg_include_padding);
  d.src = memory::desc({g.batch, g.channels, g.in_h, g.in_w}, f32, layout);
  d.dst = memory::desc({g.batch, g.channels, g.out_h, g.out_w}, f32, layout);
  d.strides = {g.stride_h, g.stride_w};
  d.kernel = {g.kernel_h, g.kernel_w};
  d.pad_l = {g.pad_top, g.pad_left};
  // Padding that avg with exclude-padding does not count.
  d.pad_r = {std::max(g.pad_bottom, (g.out_h - 1) * g.stride_h + g.kernel_h - g.in_h - g.pad_top),
             std::max(g.pad_right, (g.out_w - 1) * g.stride_w + g.kernel_w - g.in_w - g.pad_left)};
  return d;
}

dnnl::pooling_forward::desc PoolForwardDesc(const OneDNNPoolDescs& d, dnnl::prop_kind kind) {
  return dnnl::pooling_forward::desc(kind, d.algorithm, d.src, d.dst, d.strides, d.kernel, d.pad_l,
                                     d.pad_r);
}

Tag BlockedChannelsTag() {
  static const Tag tag = [] {
    const int isa = static_cast<int>(dnnl::get_effective_cpu_isa());
    const int avx512 = static_cast<int>(dnnl::cpu_isa::avx512_core);
    return (isa & avx512) == avx512 ? Tag::nChw16c : Tag::nChw8c;
  }();
  return tag;
}

memory PoolInputMemory(const DenseTensor& x, OneDNNPoolDescs* d, const dnnl::engine& engine) {
  const memory src = InputMemory(x, d->src, engine);
  if (src.get_desc() != d->src) {
    d->src = src.get_desc();
    d->dst = memory::desc(d->dst.dims(), memory::data_type::f32, Tag::any);
  }
  return src;
}

}  // namespace operators
}  // namespace paddle_like
