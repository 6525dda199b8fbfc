// dnnl::convolution_forward for conv2d / depthwise_conv2d and dnnl::pooling_forward for
// pool2d, float32.
//
// The geometry (resolved paddings, output size) comes from operators/nn/conv_pool_shape.h,
// the same code the plain kernels use; conv_pool_onednn_util.h turns it into oneDNN
// descriptors. The convolution picks its formats (format_tag::any) when the input has 8 or
// more channels per group: the activations are reordered to it and the result back, which
// still beats the user's NCHW (LeNet's 20->50 5x5 layer, batch 64, one thread: 1.74 against
// 2.54 ms; tests/benchmarks/conv_benchmark). With fewer channels the blocked formats do not
// fit and source and destination stay in the user's layout. Filters always go to the
// primitive's format. Pooling keeps the user's layout. Primitives are created per call;
// oneDNN's primitive cache makes repeated shapes cheap.
#include "operators/onednn/conv_pool_onednn.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "operators/nn/conv_pool_shape.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

using dnnl::memory;
using framework::DenseTensor;
using framework::ExecutionContext;

void Conv2dOneDNNKernel(const ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  const DenseTensor* input = ctx.Input("Input");
  const DenseTensor* filter = ctx.Input("Filter");
  const Conv2dGeometry g = ResolveConv2d(op, input->dims(), filter->dims(), ctx.op().Attrs());
  DenseTensor* output = ctx.Output("Output");
  DenseTensor fresh;
  DenseTensor* target = OutputTarget(output, {input, filter}, &fresh, g.OutputDims());
  if (target->numel() > 0) {
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    try {
      const OneDNNConvDescs d = MakeOneDNNConvDescs(g);
      const dnnl::convolution_forward::primitive_desc pd(
          ConvForwardDesc(d, dnnl::prop_kind::forward_inference, g.in_c / g.groups >= 8),
          dev.engine());
      const memory src = ToFormat(ReadOnlyMemory(d.src, *input, dev.engine()), pd.src_desc(), dev);
      const memory w =
          ToFormat(ReadOnlyMemory(d.weights, *filter, dev.engine()), pd.weights_desc(), dev);
      const PrimitiveOutput dst(d.dst, target->data<float>(), pd.dst_desc(), dev.engine());
      dnnl::convolution_forward(pd).execute(
          dev.stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst.mem()}});
      dst.Store(dev);
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
  DenseTensor* target = OutputTarget(out, {x}, &fresh, g.OutputDims());
  if (target->numel() > 0) {
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    try {
      const OneDNNPoolDescs d = MakeOneDNNPoolDescs(g);
      const dnnl::pooling_forward::primitive_desc pd(
          PoolForwardDesc(d, dnnl::prop_kind::forward_inference), dev.engine());
      const memory src = ReadOnlyMemory(d.src, *x, dev.engine());
      const memory dst(d.dst, dev.engine(), target->data<float>());
      dnnl::pooling_forward(pd).execute(dev.stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      dev.stream().wait();
    } catch (const dnnl::error& e) {
      throw errors::Fatal("op `%s`: oneDNN pooling failed for X %s: %s", op, x->dims().ToString(),
                          e.what());
    }
  }
  if (target == &fresh) *out = std::move(fresh);
}

}  // namespace operators
}  // namespace paddle_like
