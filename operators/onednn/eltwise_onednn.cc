// dnnl::eltwise_forward for the activation ops (relu, sigmoid, tanh, exp, square, gelu,
// leaky_relu) and dnnl::eltwise_backward for PaddlePaddle's fused grad ops (relu_grad,
// sigmoid_grad, tanh_grad, exp_grad, square_grad, gelu_grad, leaky_relu_grad), float32.
//
// log stays on the plain kernel: oneDNN 2.6's eltwise_log is off by up to 3.6e-6 near X = 1,
// where log is near 0 (log(1) gives -1.43e-6 instead of 0).
//
// The ops are elementwise, so a row-major tensor is described as 1-D and one in a oneDNN
// layout (onednn_layout.h) by that layout, which the output then shares. A grad op that
// reads Out uses the algorithm's *_use_dst_for_bwd form, one that reads X the plain form. An
// output may be the same variable as an input: the kernels hold copies of their inputs
// (sharing the buffers), so such an output gets a buffer of its own and the inputs stay
// readable, also when their buffers are shared with tensors outside the op. Primitives are
// created per call; oneDNN's primitive cache makes repeated shapes cheap.
//
// Below a per-op element count the plain kernel runs instead (plain_fallback.h): the
// thresholds come from tests/benchmarks/activation_benchmark (2 threads, [64, width]), where
// the plain relu stays faster up to 262144 elements, the plain grads and softmax up to about
// 8192, and the transcendental forwards up to about 1000.
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "operators/common.h"
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

dnnl::eltwise_forward::primitive_desc ForwardPd(const Eltwise& e, const memory::desc& md,
                                                const dnnl::engine& engine) {
  return dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, e.alg, md, e.alpha), engine);
}

// The smallest inputs (in elements) each kind of op hands to oneDNN.
constexpr int64_t kCheapForwardMin = int64_t{1} << 20;  // relu, leaky_relu, square.
constexpr int64_t kForwardMin = int64_t{1} << 10;       // sigmoid, tanh, exp, gelu.
constexpr int64_t kGradMin = int64_t{1} << 13;          // Every fused grad op.

// Out = f(X), with the shape and LoD of X. X in a oneDNN layout is computed in it (whatever
// its size: a reorder would cost more), and Out keeps that layout where the executor lets it.
template <Eltwise (*kAlgo)(const ExecutionContext&), int64_t kMinNumel>
void EltwiseKernel(const ExecutionContext& ctx) {
  // Copies that share the inputs' buffers: when an output is one of these variables and its
  // buffer is shared elsewhere, the output gets a new buffer and the input values stay here.
  const DenseTensor x_in = *ctx.Input("X");
  const DenseTensor* x = &x_in;
  const OneDNNLayout* layout = OneDNNLayoutOf(*x);
  if (layout == nullptr && BelowOneDNNThreshold(x->numel(), kMinNumel)) {
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor* out = ctx.Output("Out");
  const Eltwise e = kAlgo(ctx);
  const framework::LoD lod = x->lod();
  const DDim dims = x->dims();
  const int64_t n = x->numel();
  const memory::desc md = layout != nullptr ? layout->desc() : Flat(n);
  const bool keep_layout = layout != nullptr && ctx.OutputMayBeOpaque("Out");
  out->Resize(dims);
  if (keep_layout) out->set_opaque_layout(x->opaque_layout());
  out->mutable_data<float>(ctx.GetPlace());
  if (n > 0) {
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const auto threads = LimitThreadsForWork(dev, static_cast<double>(n));
    try {
      const auto pd = ForwardPd(e, md, dev.engine());
      // oneDNN takes non-const handles; X is only read.
      const memory src(md, dev.engine(), const_cast<void*>(x->raw_data()));
      const PrimitiveOutput dst(layout == nullptr || keep_layout ? md : layout->plain_desc(),
                                OutputData(out), md, dev.engine());
      Execute(dnnl::eltwise_forward(pd), dev.stream(),
              {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst.mem()}});
      dst.Store(dev);
      dev.stream().wait();
    } catch (const dnnl::error& ex) {
      throw errors::Fatal("op `%s`: oneDNN eltwise forward failed for X %s: %s", ctx.Type(),
                          dims.ToString(), ex.what());
    }
  }
  out->set_lod(lod);
}

// Patches dX where the plain kernel's formula and the primitive's differ; reads the forward
// value, dOut and dX, all of n elements in one arrangement.
using GradPatch = void (*)(const ExecutionContext& ctx, const float* dep, const float* dout,
                           float* dx, int64_t n);

// X@GRAD from Out@GRAD and the forward value in slot `dep_slot` ("Out": the algorithm is a
// *_use_dst_for_bwd one, "X": a plain one), with the shape and LoD of that value. When an
// operand is in a oneDNN layout all three are computed in it; X@GRAD keeps it where the
// executor lets it.
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
  // The arrangement computed in: the first operand's oneDNN layout, else flat.
  const OneDNNLayout* layout = OneDNNLayoutOf(*dep);
  const DenseTensor* layout_owner = dep;
  if (layout == nullptr) {
    layout = OneDNNLayoutOf(*dout);
    layout_owner = dout;
  }
  const memory::desc md = layout != nullptr ? layout->desc() : Flat(n);
  const memory::desc plain = layout != nullptr ? layout->plain_desc() : Flat(n);
  const bool keep_layout = layout != nullptr && ctx.OutputMayBeOpaque("X@GRAD");
  dx->Resize(dims);
  if (keep_layout) dx->set_opaque_layout(layout_owner->opaque_layout());
  dx->mutable_data<float>(ctx.GetPlace());
  if (n > 0) {
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const bool reads_out = std::string(dep_slot) == "Out";
    try {
      const auto hint = ForwardPd(e, md, dev.engine());
      const dnnl::eltwise_backward::primitive_desc pd(
          dnnl::eltwise_backward::desc(e.alg, md, md, e.alpha), dev.engine(), hint);
      const ScratchMemory d = ToFormat(InputMemory(*dep, plain, dev.engine()), md, dev);
      const ScratchMemory g = ToFormat(InputMemory(*dout, plain, dev.engine()), md, dev);
      const PrimitiveOutput gx(keep_layout ? md : plain, OutputData(dx), md, dev.engine());
      Execute(dnnl::eltwise_backward(pd), dev.stream(),
              {{reads_out ? DNNL_ARG_DST : DNNL_ARG_SRC, d},
               {DNNL_ARG_DIFF_DST, g},
               {DNNL_ARG_DIFF_SRC, gx.mem()}});
      dev.stream().wait();
      if (patch != nullptr) {
        // Elementwise over the buffers as computed (padding included).
        patch(ctx, static_cast<const float*>(d.mem().get_data_handle()),
              static_cast<const float*>(g.mem().get_data_handle()),
              static_cast<float*>(gx.mem().get_data_handle()),
              static_cast<int64_t>(md.get_size() / sizeof(float)));
      }
      gx.Store(dev);
      dev.stream().wait();
    } catch (const dnnl::error& ex) {
      throw errors::Fatal("op `%s`: oneDNN eltwise backward failed for %s %s: %s", ctx.Type(),
                          dep_slot, dims.ToString(), ex.what());
    }
  }
  dx->set_lod(lod);
}

// Whether the grad op's operands are all row-major (small ones then go to the plain kernel).
bool PlainOperands(const ExecutionContext& ctx, const char* dep) {
  return ctx.Input(dep)->is_plain() && ctx.Input("Out@GRAD")->is_plain();
}

template <const char* kDep, Eltwise (*kAlgo)(const ExecutionContext&)>
void EltwiseGradKernel(const ExecutionContext& ctx) {
  if (PlainOperands(ctx, kDep) && BelowOneDNNThreshold(ctx.Input(kDep)->numel(), kGradMin)) {
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
  if (PlainOperands(ctx, "X") && BelowOneDNNThreshold(ctx.Input("X")->numel(), kGradMin)) {
    RunPlainKernel(ctx);
    return;
  }
  EltwiseGrad(ctx, "X", LeakyRelu(ctx), LeakyReluGradPatch);
}

constexpr char kOut[] = "Out";
constexpr char kX[] = "X";

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterEltwiseOneDNNKernels) {
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
  // Elementwise: any oneDNN layout is read as it is.
  auto& registry = framework::KernelRegistry::Instance();
  for (const char* forward : {"relu", "sigmoid", "tanh", "exp", "square", "gelu", "leaky_relu"}) {
    registry.DeclareOpaqueInputs(forward, LibraryType::kOneDNN, {"X"});
  }
  for (const char* grad : {"relu_grad", "sigmoid_grad", "tanh_grad", "exp_grad"}) {
    registry.DeclareOpaqueInputs(grad, LibraryType::kOneDNN, {"Out", "Out@GRAD"});
  }
  for (const char* grad : {"square_grad", "gelu_grad", "leaky_relu_grad"}) {
    registry.DeclareOpaqueInputs(grad, LibraryType::kOneDNN, {"X", "Out@GRAD"});
  }
  // The primitives compute in place (dst over src, diff_src over diff_dst). Not
  // leaky_relu_grad: its patch reads dOut after the primitive has written dX.
  for (const char* forward : {"relu", "sigmoid", "tanh", "exp", "square", "gelu", "leaky_relu"}) {
    registry.DeclareInPlace(forward, LibraryType::kOneDNN, {{"X", "Out"}});
  }
  for (const char* grad :
       {"relu_grad", "sigmoid_grad", "tanh_grad", "exp_grad", "square_grad", "gelu_grad"}) {
    registry.DeclareInPlace(grad, LibraryType::kOneDNN, {{"Out@GRAD", "X@GRAD"}});
  }
}

}  // namespace operators
}  // namespace paddle_like
