// dnnl::softmax_forward for softmax and dnnl::softmax_backward for softmax_grad, float32.
//
// A tensor of any rank is viewed as dense [outer, n, inner] with the softmax along dim 1 (the
// view softmax_op.h gives the plain kernel), so any axis, negative ones and a 0-D X included,
// is one 3-D primitive. An output may be the same variable as an input: the kernels hold
// copies of their inputs (sharing the buffers), so such an output gets a buffer of its own.
// Primitives are created per call; oneDNN's primitive cache makes repeated shapes cheap.
// Where oneDNN has only its scalar reference code (a softmax along an axis with inner
// elements), the plain kernel runs instead: it was 100x faster on [1, 17, 4, 1600], axis 1.
#include <oneapi/dnnl/dnnl.hpp>

#include "operators/common.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/onednn_threads.h"
#include "operators/onednn/plain_fallback.h"
#include "operators/op_family.h"
#include "operators/softmax/softmax_op.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;

constexpr int kAxis = 1;  // The softmax dim of the [outer, n, inner] view.
// Below this many elements the plain kernels are faster (tests/benchmarks/activation_benchmark).
constexpr int64_t kMinNumel = int64_t{1} << 13;

memory::desc View(const SoftmaxDims& d) {
  return memory::desc({d.outer, d.n, d.inner}, memory::data_type::f32, memory::format_tag::abc);
}

dnnl::softmax_forward::primitive_desc ForwardPd(const memory::desc& md,
                                                const dnnl::engine& engine) {
  return dnnl::softmax_forward::primitive_desc(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_training, md, kAxis), engine);
}

void SoftmaxOneDNNKernel(const ExecutionContext& ctx) {
  // Copies that share the inputs' buffers: when an output is one of these variables and its
  // buffer is shared elsewhere, the output gets a new buffer and the input values stay here.
  const DenseTensor x_in = *ctx.Input("X");
  const DenseTensor* x = &x_in;
  if (BelowOneDNNThreshold(x->numel(), kMinNumel)) {
    RunPlainKernel(ctx);
    return;
  }
  const SoftmaxDims d = GetSoftmaxDims(ctx.Type(), x->dims(), ctx.Attr<int>("axis"));
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  const auto threads = LimitThreadsForWork(dev, static_cast<double>(x->numel()));
  const memory::desc md = View(d);
  const auto pd = ForwardPd(md, dev.engine());
  if (IsSlowImplementation(pd)) {  // oneDNN's scalar reference (a softmax along an inner axis).
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor* out = ctx.Output("Out");
  const framework::LoD lod = x->lod();
  const DDim dims = x->dims();
  out->Resize(dims);
  float* o = out->mutable_data<float>(ctx.GetPlace());
  if (x->numel() > 0) {
    try {
      // oneDNN takes non-const handles; X is only read.
      const memory src(md, dev.engine(), const_cast<float*>(x->data<float>()));
      const memory dst(md, dev.engine(), o);
      Execute(dnnl::softmax_forward(pd), dev.stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      dev.stream().wait();
    } catch (const dnnl::error& e) {
      throw errors::Fatal("op `%s`: oneDNN softmax forward failed for X %s, axis %d: %s",
                          ctx.Type(), dims.ToString(), ctx.Attr<int>("axis"), e.what());
    }
  }
  out->set_lod(lod);
}

void SoftmaxGradOneDNNKernel(const ExecutionContext& ctx) {
  // Copies that share the inputs' buffers: when X@GRAD is one of these variables and its
  // buffer is shared elsewhere, X@GRAD gets a new buffer and the input values stay here.
  const DenseTensor out_in = *ctx.Input("Out"), dout_in = *ctx.Input("Out@GRAD");
  const DenseTensor* out = &out_in;
  const DenseTensor* dout = &dout_in;
  if (BelowOneDNNThreshold(out->numel(), kMinNumel)) {
    RunPlainKernel(ctx);
    return;
  }
  PL_ENFORCE(out->numel() == dout->numel(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of Out %s, "
                                     "received %s",
                                     ctx.Type(), out->dims().ToString(), dout->dims().ToString()));
  const SoftmaxDims d = GetSoftmaxDims(ctx.Type(), out->dims(), ctx.Attr<int>("axis"));
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  const memory::desc md = View(d);
  const auto hint = ForwardPd(md, dev.engine());
  const dnnl::softmax_backward::primitive_desc pd(dnnl::softmax_backward::desc(md, md, kAxis),
                                                  dev.engine(), hint);
  if (IsSlowImplementation(pd)) {
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor* dx = ctx.Output("X@GRAD");
  const framework::LoD lod = out->lod();
  const DDim dims = out->dims();
  dx->Resize(dims);
  float* o = dx->mutable_data<float>(ctx.GetPlace());
  if (out->numel() > 0) {
    try {
      // oneDNN takes non-const handles; the inputs are only read.
      const memory dst(md, dev.engine(), const_cast<float*>(out->data<float>()));
      const memory diff_dst(md, dev.engine(), const_cast<float*>(dout->data<float>()));
      const memory diff_src(md, dev.engine(), o);
      Execute(dnnl::softmax_backward(pd), dev.stream(),
              {{DNNL_ARG_DST, dst}, {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_SRC, diff_src}});
      dev.stream().wait();
    } catch (const dnnl::error& e) {
      throw errors::Fatal("op `%s`: oneDNN softmax backward failed for Out %s, axis %d: %s",
                          ctx.Type(), dims.ToString(), ctx.Attr<int>("axis"), e.what());
    }
  }
  dx->set_lod(lod);
}

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterSoftmaxOneDNNKernels) {
  // No f64 softmax primitive: float64 stays on the plain kernels.
  framework::RegisterKernel("softmax", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                            SoftmaxOneDNNKernel);
  framework::RegisterKernel("softmax_grad", DeviceType::kCPU, DataType::FLOAT32,
                            LibraryType::kOneDNN, SoftmaxGradOneDNNKernel);
}

}  // namespace operators
}  // namespace paddle_like
