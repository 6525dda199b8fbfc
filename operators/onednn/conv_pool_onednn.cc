// dnnl::convolution_forward for conv2d / depthwise_conv2d and dnnl::pooling_forward for
// pool2d, float32.
//
// The geometry (resolved paddings, output size) comes from operators/nn/conv_pool_shape.h,
// the same code the plain kernels use. Source and destination stay in the user's layout
// (NCHW or NHWC): with one op at a time, reordering activations to blocked formats and back
// costs more than it saves. Filters go to the format the primitive picks (format_tag::any),
// reordered when that differs from OIHW. Primitives are created per call; oneDNN's
// primitive cache makes repeated shapes cheap.
#include "operators/onednn/conv_pool_onednn.h"

#include <algorithm>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "operators/nn/conv_pool_shape.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;
using framework::DenseTensor;
using framework::ExecutionContext;
using Tag = memory::format_tag;

// The output buffer: `out` itself, or `fresh` when `out` is one of the operands.
DenseTensor* OutputTarget(DenseTensor* out, const DenseTensor* a, const DenseTensor* b,
                          DenseTensor* fresh, const framework::DDim& dims) {
  DenseTensor* target = (out == a || out == b) ? fresh : out;
  target->Resize(dims);
  target->mutable_data<float>(platform::CPUPlace());
  return target;
}

// Memory in the primitive's format `want`: `user` itself or a reordered copy.
memory ToFormat(memory user, const memory::desc& want, const platform::OneDNNContext& dev) {
  if (user.get_desc() == want) return user;
  memory converted(want, dev.engine());
  dnnl::reorder(user, converted).execute(dev.stream(), user, converted);
  return converted;
}

}  // namespace

void Conv2dOneDNNKernel(const ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  const DenseTensor* input = ctx.Input("Input");
  const DenseTensor* filter = ctx.Input("Filter");
  const Conv2dGeometry g = ResolveConv2d(op, input->dims(), filter->dims(), ctx.op().Attrs());
  DenseTensor* output = ctx.Output("Output");
  DenseTensor fresh;
  DenseTensor* target = OutputTarget(output, input, filter, &fresh, g.OutputDims());
  if (target->numel() > 0) {
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const Tag layout = g.channel_last ? Tag::nhwc : Tag::nchw;
    const memory::dims src_dims = {g.batch, g.in_c, g.in_h, g.in_w};
    const memory::dims dst_dims = {g.batch, g.out_c, g.out_h, g.out_w};
    const memory::dims w_dims =
        g.groups == 1 ? memory::dims{g.out_c, g.in_c, g.kernel_h, g.kernel_w}
                      : memory::dims{g.groups, g.out_c / g.groups, g.in_c / g.groups, g.kernel_h,
                                     g.kernel_w};
    const auto f32 = memory::data_type::f32;
    try {
      const memory::desc src_md(src_dims, f32, layout), dst_md(dst_dims, f32, layout);
      const memory::desc w_md(w_dims, f32, g.groups == 1 ? Tag::oihw : Tag::goihw);
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
          memory::desc(w_dims, f32, Tag::any), dst_md, {g.stride_h, g.stride_w},
          {g.dilation_h - 1, g.dilation_w - 1}, {g.pad_top, g.pad_left},
          {g.pad_bottom, g.pad_right});
      const dnnl::convolution_forward::primitive_desc pd(desc, dev.engine());
      // oneDNN takes non-const handles; Input and Filter are only read.
      memory src(src_md, dev.engine(), const_cast<float*>(input->data<float>()));
      memory w = ToFormat(memory(w_md, dev.engine(), const_cast<float*>(filter->data<float>())),
                          pd.weights_desc(), dev);
      memory dst(dst_md, dev.engine(), target->data<float>());
      dnnl::convolution_forward(pd).execute(
          dev.stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}});
      dev.stream().wait();
    } catch (const dnnl::error& e) {
      throw errors::Fatal("op `%s`: oneDNN convolution failed for Input %s, Filter %s: %s", op,
                          input->dims().ToString(), filter->dims().ToString(), e.what());
    }
  }
  if (target == &fresh) *output = std::move(fresh);
}

void Pool2dOneDNNKernel(const ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  const DenseTensor* x = ctx.Input("X");
  const Pool2dGeometry g = ResolvePool2d(op, x->dims(), ctx.op().Attrs());
  if (g.adaptive || g.HasEmptyWindow()) {
    Pool2dPlainCompute<float>(ctx);
    return;
  }
  DenseTensor* out = ctx.Output("Out");
  DenseTensor fresh;
  DenseTensor* target = OutputTarget(out, x, nullptr, &fresh, g.OutputDims());
  if (target->numel() > 0) {
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const Tag layout = g.channel_last ? Tag::nhwc : Tag::nchw;
    const auto f32 = memory::data_type::f32;
    // oneDNN sizes the output by rounding down; ceil_mode's extra window is more padding at
    // the bottom / right (which avg with exclude-padding does not count).
    const memory::dims pad_r = {
        std::max(g.pad_bottom, (g.out_h - 1) * g.stride_h + g.kernel_h - g.in_h - g.pad_top),
        std::max(g.pad_right, (g.out_w - 1) * g.stride_w + g.kernel_w - g.in_w - g.pad_left)};
    const dnnl::algorithm algorithm =
        g.is_max ? dnnl::algorithm::pooling_max
                 : (g.exclusive ? dnnl::algorithm::pooling_avg_exclude_padding
                                : dnnl::algorithm::pooling_avg_include_padding);
    try {
      const memory::desc src_md({g.batch, g.channels, g.in_h, g.in_w}, f32, layout);
      const memory::desc dst_md({g.batch, g.channels, g.out_h, g.out_w}, f32, layout);
      const dnnl::pooling_forward::desc desc(
          dnnl::prop_kind::forward_inference, algorithm, src_md, dst_md, {g.stride_h, g.stride_w},
          {g.kernel_h, g.kernel_w}, {g.pad_top, g.pad_left}, pad_r);
      const dnnl::pooling_forward::primitive_desc pd(desc, dev.engine());
      const memory src(src_md, dev.engine(), const_cast<float*>(x->data<float>()));
      const memory dst(dst_md, dev.engine(), target->data<float>());
      dnnl::pooling_forward(pd).execute(dev.stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      dev.stream().wait();
    } catch (const dnnl::error& e) {
      throw errors::Fatal("op `%s`: oneDNN pooling failed for X %s: %s", op,
                          x->dims().ToString(), e.what());
    }
  }
  if (target == &fresh) *out = std::move(fresh);
}

}  // namespace operators
}  // namespace paddle_like
