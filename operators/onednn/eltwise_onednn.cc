// dnnl::eltwise_forward for the activation ops (relu, sigmoid, tanh, exp, square, gelu,
// leaky_relu) and dnnl::eltwise_backward for PaddlePaddle's fused grad ops (relu_grad,
// sigmoid_grad, tanh_grad, exp_grad, square_grad, gelu_grad, leaky_relu_grad), float32.
//
// log stays on the plain kernel: oneDNN 2.6's eltwise_log is off by up to 3.6e-6 near X = 1,
// where log is near 0 (log(1) gives -1.43e-6 instead of 0).
//
// The ops are elementwise and the tensors dense, so every tensor is described as 1-D. A grad
// op that reads Out uses the algorithm's *_use_dst_for_bwd form, one that reads X the plain
// form. An output may be the same variable as an input: the kernels hold copies of their
// inputs (sharing the buffers), so such an output gets a buffer of its own and the inputs stay
// readable, also when their buffers are shared with tensors outside the op. Primitives are created per call; oneDNN's primitive cache makes repeated shapes cheap.
//
// Below a per-op element count the plain kernel runs instead (plain_fallback.h): the
// thresholds come from tests/benchmarks/activation_benchmark (2 threads, [64, width]), where
// the plain relu stays faster up to 262144 elements, the plain grads and softmax up to about
// 8192, and the transcendental forwards up to about 1000.
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "operators/common.h"
#include "operators/onednn/onednn_kernel_families.h"
#include "operators/onednn/plain_fallback.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::algorithm;
using dnnl::memory;

// An op's oneDNN algorithm and its alpha (the negative slope of eltwise_relu).
struct Eltwise {
  algorithm alg;
  float alpha = 0.0f;
};

template <algorithm kAlg>
Eltwise Fixed(const ExecutionContext&) {
  return {kAlg};
}

Eltwise Gelu(const ExecutionContext& ctx) {
  return {ctx.Attr<bool>("approximate") ? algorithm::eltwise_gelu_tanh
                                        : algorithm::eltwise_gelu_erf};
}

Eltwise LeakyRelu(const ExecutionContext& ctx) {
  return {algorithm::eltwise_relu, ctx.Attr<float>("alpha")};
}

memory::desc Flat(int64_t n) {
  return memory::desc({n}, memory::data_type::f32, memory::format_tag::a);
}

dnnl::eltwise_forward::primitive_desc ForwardPd(const Eltwise& e, int64_t n,
                                                const dnnl::engine& engine) {
  return dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, e.alg, Flat(n), e.alpha),
      engine);
}

// Out = f(X), with the shape and LoD of X.
// The smallest inputs (in elements) each kind of op hands to oneDNN.
constexpr int64_t kCheapForwardMin = int64_t{1} << 20;  // relu, leaky_relu, square.
constexpr int64_t kForwardMin = int64_t{1} << 10;       // sigmoid, tanh, exp, gelu.
constexpr int64_t kGradMin = int64_t{1} << 13;          // Every fused grad op.

template <Eltwise (*kAlgo)(const ExecutionContext&), int64_t kMinNumel>
void EltwiseKernel(const ExecutionContext& ctx) {
  // Copies that share the inputs' buffers: when an output is one of these variables and its
  // buffer is shared elsewhere, the output gets a new buffer and the input values stay here.
  const DenseTensor x_in = *ctx.Input("X");
  const DenseTensor* x = &x_in;
  if (BelowOneDNNThreshold(x->numel(), kMinNumel)) {
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor* out = ctx.Output("Out");
  const Eltwise e = kAlgo(ctx);
  const framework::LoD lod = x->lod();
  const DDim dims = x->dims();
  const int64_t n = x->numel();
  out->Resize(dims);
  float* o = out->mutable_data<float>(ctx.GetPlace());
  if (n > 0) {
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    try {
      const auto pd = ForwardPd(e, n, dev.engine());
      // oneDNN takes non-const handles; X is only read.
      const memory src(pd.src_desc(), dev.engine(), const_cast<float*>(x->data<float>()));
      const memory dst(pd.dst_desc(), dev.engine(), o);
      dnnl::eltwise_forward(pd).execute(dev.stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
      dev.stream().wait();
    } catch (const dnnl::error& ex) {
      throw errors::Fatal("op `%s`: oneDNN eltwise forward failed for X %s: %s", ctx.Type(),
                          dims.ToString(), ex.what());
    }
  }
  out->set_lod(lod);
}

// Patches dX where the plain kernel's formula and the primitive's differ; reads the forward
// value, dOut and dX, all of n elements.
using GradPatch = void (*)(const ExecutionContext& ctx, const float* dep, const float* dout,
                           float* dx, int64_t n);

// X@GRAD from Out@GRAD and the forward value in slot `dep_slot` ("Out": the algorithm is a
// *_use_dst_for_bwd one, "X": a plain one), with the shape and LoD of that value.
void EltwiseGrad(const ExecutionContext& ctx, const char* dep_slot, const Eltwise& e,
                 GradPatch patch) {
  // Copies that share the inputs' buffers: when an output is one of these variables and its
  // buffer is shared elsewhere, the output gets a new buffer and the input values stay here.
  const DenseTensor dep_in = *ctx.Input(dep_slot), dout_in = *ctx.Input("Out@GRAD");
  const DenseTensor* dep = &dep_in;
  const DenseTensor* dout = &dout_in;
  PL_ENFORCE(dep->numel() == dout->numel(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of `%s` %s, "
                                     "received %s",
                                     ctx.Type(), dep_slot, dep->dims().ToString(),
                                     dout->dims().ToString()));
  DenseTensor* dx = ctx.Output("X@GRAD");
  const framework::LoD lod = dep->lod();
  const DDim dims = dep->dims();
  const int64_t n = dep->numel();
  dx->Resize(dims);
  float* o = dx->mutable_data<float>(ctx.GetPlace());
  if (n > 0) {
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const bool reads_out = std::string(dep_slot) == "Out";
    try {
      const auto hint = ForwardPd(e, n, dev.engine());
      const dnnl::eltwise_backward::primitive_desc pd(
          dnnl::eltwise_backward::desc(e.alg, Flat(n), Flat(n), e.alpha), dev.engine(), hint);
      // oneDNN takes non-const handles; the inputs are only read.
      const memory d(Flat(n), dev.engine(), const_cast<float*>(dep->data<float>()));
      const memory g(Flat(n), dev.engine(), const_cast<float*>(dout->data<float>()));
      const memory gx(Flat(n), dev.engine(), o);
      dnnl::eltwise_backward(pd).execute(dev.stream(),
                                         {{reads_out ? DNNL_ARG_DST : DNNL_ARG_SRC, d},
                                          {DNNL_ARG_DIFF_DST, g},
                                          {DNNL_ARG_DIFF_SRC, gx}});
      dev.stream().wait();
    } catch (const dnnl::error& ex) {
      throw errors::Fatal("op `%s`: oneDNN eltwise backward failed for %s %s: %s", ctx.Type(),
                          dep_slot, dims.ToString(), ex.what());
    }
    if (patch != nullptr) patch(ctx, dep->data<float>(), dout->data<float>(), o, n);
  }
  dx->set_lod(lod);
}

template <const char* kDep, Eltwise (*kAlgo)(const ExecutionContext&)>
void EltwiseGradKernel(const ExecutionContext& ctx) {
  if (BelowOneDNNThreshold(ctx.Input(kDep)->numel(), kGradMin)) {
    RunPlainKernel(ctx);
    return;
  }
  EltwiseGrad(ctx, kDep, kAlgo(ctx), nullptr);
}

// The primitive's relu slope is 1 for X > 0 and alpha elsewhere; leaky_relu_grad's is 1 for
// X >= 0, alpha for X < 0 and 0 for NaN. Only X = 0 and NaN differ.
void LeakyReluGradPatch(const ExecutionContext& ctx, const float* x, const float* dout, float* dx,
                        int64_t n) {
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      n, 1 << 14, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          if (x[i] == 0.0f) {
            dx[i] = dout[i];
          } else if (x[i] != x[i]) {
            dx[i] = dout[i] * 0.0f;
          }
        }
      });
}

void LeakyReluGradKernel(const ExecutionContext& ctx) {
  if (BelowOneDNNThreshold(ctx.Input("X")->numel(), kGradMin)) {
    RunPlainKernel(ctx);
    return;
  }
  EltwiseGrad(ctx, "X", LeakyRelu(ctx), LeakyReluGradPatch);
}

constexpr char kOut[] = "Out";
constexpr char kX[] = "X";

}  // namespace

void RegisterEltwiseOneDNNKernels() {
  // Each plain kernel's formula, as the primitive computes it; float64 stays on the plain
  // kernels (no f64 eltwise primitive).
  struct Entry {
    const char* type;
    framework::KernelFn fn;
  };
  const Entry entries[] = {
      {"relu", EltwiseKernel<Fixed<algorithm::eltwise_relu>, kCheapForwardMin>},
      {"sigmoid", EltwiseKernel<Fixed<algorithm::eltwise_logistic>, kForwardMin>},
      {"tanh", EltwiseKernel<Fixed<algorithm::eltwise_tanh>, kForwardMin>},
      {"exp", EltwiseKernel<Fixed<algorithm::eltwise_exp>, kForwardMin>},
      {"square", EltwiseKernel<Fixed<algorithm::eltwise_square>, kCheapForwardMin>},
      {"gelu", EltwiseKernel<Gelu, kForwardMin>},
      {"leaky_relu", EltwiseKernel<LeakyRelu, kCheapForwardMin>},
      // The grad ops read what activation_op.h's kGradDep (or the op's maker) names.
      {"relu_grad", EltwiseGradKernel<kOut, Fixed<algorithm::eltwise_relu_use_dst_for_bwd>>},
      {"sigmoid_grad", EltwiseGradKernel<kOut, Fixed<algorithm::eltwise_logistic_use_dst_for_bwd>>},
      {"tanh_grad", EltwiseGradKernel<kOut, Fixed<algorithm::eltwise_tanh_use_dst_for_bwd>>},
      {"exp_grad", EltwiseGradKernel<kOut, Fixed<algorithm::eltwise_exp_use_dst_for_bwd>>},
      {"square_grad", EltwiseGradKernel<kX, Fixed<algorithm::eltwise_square>>},
      {"gelu_grad", EltwiseGradKernel<kX, Gelu>},
      {"leaky_relu_grad", LeakyReluGradKernel},
  };
  for (const Entry& e : entries) {
    framework::RegisterKernel(e.type, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                              e.fn);
  }
}

}  // namespace operators
}  // namespace paddle_like
