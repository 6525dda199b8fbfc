// cuDNN kernels of conv2d and depthwise_conv2d (with the fused epilogue of inference
// programs: Bias, ResidualData, fuse_activation) and of their grad ops conv2d_grad and
// depthwise_conv2d_grad, for float, double and float16 (accumulated in float).
//
// The geometry is the plain kernels' (ResolveConv2d, conv_pool_shape.h); buffers, descriptors
// (FMA math for float, no TF32) and the algorithms cached per shape are cudnn_conv.h's.
// depthwise_conv2d is a grouped convolution (groups = C_in). With FLAGS_cudnn_deterministic
// only deterministic algorithms are taken, so the kernels are registered as deterministic and
// honour the flag themselves.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "framework/op_registry.h"
#include "operators/activation/fused_activation.h"
#include "operators/cuda/cudnn_conv.h"
#include "operators/nn/conv_fusion.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/op_family.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

namespace {

using cudnn::AlgoCache;
using cudnn::AlgoChoice;
using cudnn::ConvDescs;
using cudnn::ConvDirection;
using cudnn::ConvPlan;
using framework::DataType;
using framework::DenseTensor;
using framework::DeviceType;
using framework::ExecutionContext;
using framework::LibraryType;
using platform::CheckCudnn;
using platform::CUDADeviceContext;

// cuDNN's activation equal to `a`, or false when it has none (the host applies it then).
bool CudnnActivation(const FusedActivation& a, cudnnActivationMode_t* mode, double* coef) {
  *coef = 0.0;
  if (a.name == "relu") {
    *mode = CUDNN_ACTIVATION_RELU;
  } else if (a.name == "sigmoid") {
    *mode = CUDNN_ACTIVATION_SIGMOID;
  } else if (a.name == "tanh") {
    *mode = CUDNN_ACTIVATION_TANH;
  } else if ((a.name == "relu6" || (a.name == "clip" && a.alpha == 0.0f)) && a.beta > 0.0f) {
    *mode = CUDNN_ACTIVATION_CLIPPED_RELU;  // min(max(x, 0), coef)
    *coef = a.beta;
  } else {
    return false;
  }
  return true;
}

// Applies `a` to the n values at device pointer `y` through host memory, with the plain
// kernels' code: for the activations cuDNN has no equal of (rare, inference only).
template <typename T>
void ActivationOnHost(const CUDADeviceContext& dev, const FusedActivation& a, T* y, int64_t n) {
  if constexpr (std::is_same_v<T, platform::float16>) {
    throw errors::Unimplemented("fused activation `%s` of a float16 convolution on the GPU: "
                                "cuDNN has no equal of it; run it as its own op",
                                a.name);
  } else {
    std::vector<T> host(static_cast<size_t>(n));
    const size_t bytes = static_cast<size_t>(n) * sizeof(T);
    platform::Copy(platform::CPUPlace(), host.data(), dev.GetPlace(), y, bytes);
    ApplyFusedActivation(a, host.data(), n);
    platform::Copy(dev.GetPlace(), y, platform::CPUPlace(), host.data(), bytes);
  }
}

template <typename T>
class Conv2dCudnnKernel : public framework::OpKernel {
 public:
  void Compute(const ExecutionContext& ctx) override {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
    const DenseTensor* residual =
        ctx.HasInput("ResidualData") ? ctx.Input("ResidualData") : nullptr;
    const Resolved& r = Resolve(ctx, *input, *filter, bias, residual);
    const Conv2dGeometry& g = r.g;
    const ConvFusion& fusion = r.fusion;
    DenseTensor* output = ctx.Output("Output");
    // The result cannot be written over an operand: use a fresh buffer then.
    DenseTensor fresh;
    DenseTensor* target =
        (output == input || output == filter || output == bias || output == residual) ? &fresh
                                                                                      : output;
    target->Resize(g.OutputDims());
    target->set_dtype(input->dtype());
    T* out = target->mutable_data<T>(ctx.GetPlace());
    if (target->numel() > 0) {
      Run(ctx, r, *input, *filter, fusion.bias ? bias : nullptr,
          fusion.residual ? residual : nullptr, out);
    }
    if (target == &fresh) *output = std::move(fresh);
  }

 private:
  // What the attributes and one set of operand shapes resolve to. A network runs each op on
  // one shape, so the last resolution is kept: its attribute lookups cost the host
  // microseconds that a small convolution's device time does not hide.
  struct Resolved {
    framework::DDim input, filter, bias, residual;  // Empty when the input is absent.
    Conv2dGeometry g;
    ConvFusion fusion;
    ConvPlan p;
  };

  const Resolved& Resolve(const ExecutionContext& ctx, const DenseTensor& input,
                          const DenseTensor& filter, const DenseTensor* bias,
                          const DenseTensor* residual) {
    const framework::DDim none;
    const framework::DDim& bias_dims = bias ? bias->dims() : none;
    const framework::DDim& residual_dims = residual ? residual->dims() : none;
    if (resolved_ && resolved_->input == input.dims() && resolved_->filter == filter.dims() &&
        resolved_->bias == bias_dims && resolved_->residual == residual_dims) {
      return *resolved_;
    }
    resolved_.reset();  // A failed resolution below leaves nothing stale behind.
    const std::string& op = ctx.Type();
    Resolved r;
    r.input = input.dims();
    r.filter = filter.dims();
    r.bias = bias_dims;
    r.residual = residual_dims;
    r.g = ResolveConv2d(op, input.dims(), filter.dims(), ctx.op().Attrs());
    r.fusion = ResolveConvFusion(op, ctx.op().Attrs(), r.g, bias ? &bias->dims() : nullptr,
                                 residual ? &residual->dims() : nullptr);
    r.p = cudnn::MakeConvPlan(r.g, false);
    resolved_ = std::move(r);
    return *resolved_;
  }

  void Run(const ExecutionContext& ctx, const Resolved& r, const DenseTensor& input,
           const DenseTensor& filter, const DenseTensor* bias, const DenseTensor* residual,
           T* out) {
    const std::string& op = ctx.Type();
    const Conv2dGeometry& g = r.g;
    const ConvFusion& fusion = r.fusion;
    const ConvPlan& p = r.p;
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    const cudnnHandle_t h = dev.cudnn_handle();
    const cudnn::View4d y_view = p.YBuffer();
    const cudnnDataType_t type = cudnn::DataTypeOf<T>::value;
    const cudnn::Scale<T> one = 1, zero = 0;
    // The result in NCHW: the output itself, or a buffer for NHWC.
    platform::AllocationPtr y_hold, x_hold;
    T* y = g.channel_last ? cudnn::TemporaryBuffer<T>(dev, y_view.numel(), &y_hold) : out;
    if (input.numel() == 0 || filter.numel() == 0) {
      // No input channels or taps: every output is an empty sum (the plain kernel's 0).
      cudnn::FillDevice<T>(dev, op, y, y_view.numel(), 0);
    } else {
      const T* x = cudnn::StageX(dev, op, p, input.data<T>(), &x_hold);
      const T* w = filter.data<T>();
      const ConvDescs<T>& d = descs_.Get(op, p);
      const bool timed = cudnn::TimeAlgorithms(ctx);
      const AlgoChoice algo = cache_.Get(dev.device_id(), p, ConvDirection::kForward, timed, [&] {
        return cudnn::ChooseForward<T>(dev, op, p, d, x, w, y, timed);
      });
      void* workspace = dev.Workspace(algo.workspace);
      CheckCudnn(cudnnConvolutionForward(h, &one, d.x.get(), x, d.w.get(), w, d.conv.get(),
                                         static_cast<cudnnConvolutionFwdAlgo_t>(algo.algo),
                                         workspace, algo.workspace, &zero, d.y.get(), y),
                 "cudnnConvolutionForward");
    }
    // The epilogue, in the plain kernels' order: + Bias[c], + ResidualData, activation.
    cudnnActivationMode_t mode = CUDNN_ACTIVATION_IDENTITY;
    double coef = 0.0;
    const bool device_act = !fusion.act.empty() && CudnnActivation(fusion.act, &mode, &coef);
    // The descriptor of y as the epilogue's calls see it (made only for an epilogue: cuDNN's
    // descriptors cost the host microseconds).
    std::optional<cudnn::TensorDesc> y_desc;
    if (bias != nullptr || device_act) y_desc.emplace().Set(op, type, y_view);
    if (bias != nullptr) {
      cudnn::TensorDesc bias_desc;
      bias_desc.Set(op, type, cudnn::PackedNchw(1, g.out_c, 1, 1));
      CheckCudnn(cudnnAddTensor(h, &one, bias_desc.get(), bias->data<T>(), &one, y_desc->get(), y),
                 "cudnnAddTensor");
    }
    if (residual != nullptr) {
      cudnn::TransformTensor<T>(dev, op, p.YUser(), residual->data<T>(), 1, y_view, y);
    }
    if (device_act) {
      cudnn::ActivationDesc act;
      CheckCudnn(cudnnSetActivationDescriptor(act.get(), mode, CUDNN_PROPAGATE_NAN, coef),
                 "cudnnSetActivationDescriptor");
      CheckCudnn(
          cudnnActivationForward(h, act.get(), &one, y_desc->get(), y, &zero, y_desc->get(), y),
          "cudnnActivationForward");
    }
    if (g.channel_last) cudnn::TransformTensor<T>(dev, op, y_view, y, 0, p.YUser(), out);
    if (!fusion.act.empty() && !device_act) ActivationOnHost(dev, fusion.act, out, y_view.numel());
  }

  std::optional<Resolved> resolved_;
  cudnn::ConvDescCache<T> descs_;
  AlgoCache<T> cache_;
};

template <typename T>
class Conv2dGradCudnnKernel : public framework::OpKernel {
 public:
  void Compute(const ExecutionContext& ctx) override {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    const Conv2dGeometry g = ResolveConv2dGrad(ctx);
    cudnn::ComputeConvGrads<T>(ctx, *input, *filter, *dout, [&](T* dx, T* dw) {
      Run(ctx, g, *input, *filter, *dout, dx, dw);
    });
  }

 private:
  void Run(const ExecutionContext& ctx, const Conv2dGeometry& g, const DenseTensor& input,
           const DenseTensor& filter, const DenseTensor& dout, T* dx, T* dw) {
    const std::string& op = ctx.Type();
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    const cudnnHandle_t h = dev.cudnn_handle();
    const ConvPlan p = cudnn::MakeConvPlan(g, false);
    const cudnn::Scale<T> one = 1, zero = 0;
    const ConvDescs<T>& d = descs_.Get(op, p);
    const bool timed = cudnn::TimeAlgorithms(ctx);
    const T* w = filter.data<T>();
    platform::AllocationPtr dy_hold, x_hold, dx_hold;
    const T* dy = cudnn::StageY(dev, op, p, dout.data<T>(), &dy_hold);
    // cuDNN's dx covers XBuffer(): the user's gradient itself, or a buffer whose interior is
    // copied out (the gradient of the explicit padding is dropped).
    T* dx_buffer = nullptr;
    if (dx != nullptr) {
      dx_buffer = p.stage_x ? cudnn::TemporaryBuffer<T>(dev, p.XBuffer().numel(), &dx_hold) : dx;
    }
    const T* x = dw != nullptr ? cudnn::StageX(dev, op, p, input.data<T>(), &x_hold) : nullptr;
    AlgoChoice data_algo, filter_algo;
    if (dx != nullptr) {
      data_algo = data_cache_.Get(dev.device_id(), p, ConvDirection::kBackwardData, timed, [&] {
        return cudnn::ChooseBackwardData<T>(dev, op, p, d, w, dy, dx_buffer, timed);
      });
    }
    if (dw != nullptr) {
      filter_algo = filter_cache_.Get(
          dev.device_id(), p, ConvDirection::kBackwardFilter, timed,
          [&] { return cudnn::ChooseBackwardFilter<T>(dev, op, p, d, x, dy, dw, timed); });
    }
    // One workspace for both calls (a second Workspace() call may move it).
    const size_t ws_bytes = std::max(data_algo.workspace, filter_algo.workspace);
    void* workspace = dev.Workspace(ws_bytes);
    if (dx != nullptr) {
      CheckCudnn(cudnnConvolutionBackwardData(
                     h, &one, d.w.get(), w, d.y.get(), dy, d.conv.get(),
                     static_cast<cudnnConvolutionBwdDataAlgo_t>(data_algo.algo), workspace,
                     data_algo.workspace, &zero, d.x.get(), dx_buffer),
                 "cudnnConvolutionBackwardData");
      if (p.stage_x) cudnn::UnstageX(dev, op, p, dx_buffer, p.XUser(), dx);
    }
    if (dw != nullptr) {
      CheckCudnn(cudnnConvolutionBackwardFilter(
                     h, &one, d.x.get(), x, d.y.get(), dy, d.conv.get(),
                     static_cast<cudnnConvolutionBwdFilterAlgo_t>(filter_algo.algo), workspace,
                     filter_algo.workspace, &zero, d.w.get(), dw),
                 "cudnnConvolutionBackwardFilter");
    }
  }

  cudnn::ConvDescCache<T> descs_;
  AlgoCache<T> data_cache_, filter_cache_;
};

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterConvCudnnKernels) {
  // Also the plain CUDA kernels: PaddlePaddle's programs set use_cudnn = false on
  // depthwise_conv2d (and some on conv2d), and no other CUDA convolution exists, so a GPU
  // program convolves here either way.
  for (const LibraryType library : {LibraryType::kCUDNN, LibraryType::kPlain}) {
    for (const std::string type : {"conv2d", "depthwise_conv2d"}) {
      // Deterministic: the kernels take only deterministic algorithms under
      // FLAGS_cudnn_deterministic (see the file comment).
      framework::RegisterKernelClass<Conv2dCudnnKernel<float>>(
          type, DeviceType::kCUDA, DataType::FLOAT32, library, true);
      framework::RegisterKernelClass<Conv2dCudnnKernel<double>>(
          type, DeviceType::kCUDA, DataType::FLOAT64, library, true);
      // float16, accumulated in float.
      framework::RegisterKernelClass<Conv2dCudnnKernel<platform::float16>>(
          type, DeviceType::kCUDA, DataType::FLOAT16, library, true);
      framework::RegisterKernelClass<Conv2dGradCudnnKernel<float>>(
          type + "_grad", DeviceType::kCUDA, DataType::FLOAT32, library, true);
      framework::RegisterKernelClass<Conv2dGradCudnnKernel<double>>(
          type + "_grad", DeviceType::kCUDA, DataType::FLOAT64, library, true);
      framework::RegisterKernelClass<Conv2dGradCudnnKernel<platform::float16>>(
          type + "_grad", DeviceType::kCUDA, DataType::FLOAT16, library, true);
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
