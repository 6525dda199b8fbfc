// cuDNN kernels of conv2d_transpose and depthwise_conv2d_transpose (with the optional Bias of
// inference programs) and of their grad ops, for float and double.
//
// The geometry is the plain kernel's (ResolveConv2dTranspose): a convolution C whose input x
// is this op's Output and whose output y is this op's Input; Filter [C_in, C_out / groups, kh,
// kw] is C's filter as it stands. So, as in conv2d_transpose_op.cc:
//   Output  = C's backward-data of Input  (cudnnConvolutionBackwardData, dy = Input),
//   dInput  = C(dOutput)                  (cudnnConvolutionForward, x = dOutput),
//   dFilter = C's backward-filter with x = dOutput, dy = Input (cudnnConvolutionBackwardFilter).
// Asymmetric paddings, output_padding and output_size give x rows or columns that cuDNN's
// symmetric padding cannot place: x then goes through a zero-padded buffer (cudnn_conv.h).
// Buffers, FMA math, the algorithms cached per shape and FLAGS_cudnn_deterministic are
// cudnn_conv.h's.
#include <algorithm>
#include <string>

#include "framework/op_registry.h"
#include "operators/cuda/cudnn_conv.h"
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

template <typename T>
class Conv2dTransposeCudnnKernel : public framework::OpKernel {
 public:
  void Compute(const ExecutionContext& ctx) override {
    const std::string& op = ctx.Type();
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
    const Conv2dGeometry g = ResolveConv2dTransposeAt(ctx);
    if (bias != nullptr) CheckConvTransposeBias(op, bias->dims(), g.in_c);
    // A fresh buffer: Output may be the variable of an operand.
    DenseTensor fresh(g.InputDims(), input->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    if (fresh.numel() > 0) Run(ctx, g, *input, *filter, bias, out);
    *ctx.Output("Output") = std::move(fresh);
  }

 private:
  void Run(const ExecutionContext& ctx, const Conv2dGeometry& g, const DenseTensor& input,
           const DenseTensor& filter, const DenseTensor* bias, T* out) {
    const std::string& op = ctx.Type();
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    const cudnnHandle_t h = dev.cudnn_handle();
    const ConvPlan p = cudnn::MakeConvPlan(g, true);
    const cudnnDataType_t type = cudnn::DataTypeOf<T>::value;
    const cudnn::Scale<T> one = 1, zero = 0;
    // The result as packed NCHW (the output itself, or a buffer for NHWC), computed in the
    // padded buffer cuDNN writes when it needs one.
    platform::AllocationPtr nchw_hold, x_hold, dy_hold;
    T* nchw = g.channel_last ? cudnn::TemporaryBuffer<T>(dev, p.XNchw().numel(), &nchw_hold) : out;
    if (input.numel() == 0 || filter.numel() == 0) {
      // No input channels: every output is an empty sum (the plain kernel's 0).
      cudnn::FillDevice<T>(dev, op, nchw, p.XNchw().numel(), 0);
    } else {
      T* x = p.explicit_pad ? cudnn::TemporaryBuffer<T>(dev, p.XBuffer().numel(), &x_hold) : nchw;
      const T* dy = cudnn::StageY(dev, op, p, input.data<T>(), &dy_hold);
      const T* w = filter.data<T>();
      const ConvDescs<T>& d = descs_.Get(op, p);
      const bool timed = cudnn::TimeAlgorithms(ctx);
      const AlgoChoice algo =
          cache_.Get(dev.device_id(), p, ConvDirection::kBackwardData, timed,
                     [&] { return cudnn::ChooseBackwardData<T>(dev, op, p, d, w, dy, x, timed); });
      void* workspace = dev.Workspace(algo.workspace);
      CheckCudnn(cudnnConvolutionBackwardData(h, &one, d.w.get(), w, d.y.get(), dy, d.conv.get(),
                                              static_cast<cudnnConvolutionBwdDataAlgo_t>(algo.algo),
                                              workspace, algo.workspace, &zero, d.x.get(), x),
                 "cudnnConvolutionBackwardData");
      if (p.explicit_pad) cudnn::UnstageX(dev, op, p, x, p.XNchw(), nchw);
    }
    if (bias != nullptr) {
      cudnn::TensorDesc bias_desc, out_desc;
      bias_desc.Set(op, type, cudnn::PackedNchw(1, g.in_c, 1, 1));
      out_desc.Set(op, type, p.XNchw());
      CheckCudnn(
          cudnnAddTensor(h, &one, bias_desc.get(), bias->data<T>(), &one, out_desc.get(), nchw),
          "cudnnAddTensor");
    }
    if (g.channel_last) cudnn::TransformTensor<T>(dev, op, p.XNchw(), nchw, 0, p.XUser(), out);
  }

  cudnn::ConvDescCache<T> descs_;
  AlgoCache<T> cache_;
};

template <typename T>
class Conv2dTransposeGradCudnnKernel : public framework::OpKernel {
 public:
  void Compute(const ExecutionContext& ctx) override {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    const Conv2dGeometry g = ResolveConv2dTransposeGrad(ctx);
    cudnn::ComputeConvGrads<T>(ctx, *input, *filter, *dout, [&](T* dx, T* dw) {
      Run(ctx, g, *input, *filter, *dout, dx, dw);
    });
  }

 private:
  // dx and dw are the gradients of this op's Input and Filter (null when not wanted); in C's
  // terms, dx is y = C(dOutput) and dw is C's filter gradient.
  void Run(const ExecutionContext& ctx, const Conv2dGeometry& g, const DenseTensor& input,
           const DenseTensor& filter, const DenseTensor& dout, T* dx, T* dw) {
    const std::string& op = ctx.Type();
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    const cudnnHandle_t h = dev.cudnn_handle();
    const ConvPlan p = cudnn::MakeConvPlan(g, true);
    const cudnn::Scale<T> one = 1, zero = 0;
    const ConvDescs<T>& d = descs_.Get(op, p);
    const bool timed = cudnn::TimeAlgorithms(ctx);
    const T* w = filter.data<T>();
    platform::AllocationPtr x_hold, dy_hold, y_hold;
    // C's x: dOutput, padded and in NCHW as cuDNN reads it.
    const T* x = cudnn::StageX(dev, op, p, dout.data<T>(), &x_hold);
    // C's y = dInput: computed in NCHW, then moved to an NHWC Input@GRAD.
    T* y = nullptr;
    if (dx != nullptr) {
      y = g.channel_last ? cudnn::TemporaryBuffer<T>(dev, p.YBuffer().numel(), &y_hold) : dx;
    }
    // C's output gradient dy = Input, for the filter gradient.
    const T* dy = dw != nullptr ? cudnn::StageY(dev, op, p, input.data<T>(), &dy_hold) : nullptr;
    AlgoChoice forward_algo, filter_algo;
    if (dx != nullptr) {
      forward_algo = forward_cache_.Get(dev.device_id(), p, ConvDirection::kForward, timed, [&] {
        return cudnn::ChooseForward<T>(dev, op, p, d, x, w, y, timed);
      });
    }
    if (dw != nullptr) {
      filter_algo = filter_cache_.Get(
          dev.device_id(), p, ConvDirection::kBackwardFilter, timed,
          [&] { return cudnn::ChooseBackwardFilter<T>(dev, op, p, d, x, dy, dw, timed); });
    }
    // One workspace for both calls (a second Workspace() call may move it).
    const size_t ws_bytes = std::max(forward_algo.workspace, filter_algo.workspace);
    void* workspace = dev.Workspace(ws_bytes);
    if (dx != nullptr) {
      CheckCudnn(cudnnConvolutionForward(h, &one, d.x.get(), x, d.w.get(), w, d.conv.get(),
                                         static_cast<cudnnConvolutionFwdAlgo_t>(forward_algo.algo),
                                         workspace, forward_algo.workspace, &zero, d.y.get(), y),
                 "cudnnConvolutionForward");
      if (g.channel_last) {
        cudnn::TransformTensor<T>(dev, op, p.YBuffer(), y, 0, p.YUser(), dx);
      }
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
  AlgoCache<T> forward_cache_, filter_cache_;
};

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterConvTransposeCudnnKernels) {
  // Also the plain CUDA kernels: PaddlePaddle's programs often set use_cudnn = false, and no
  // other CUDA transposed convolution exists, so a GPU program runs these either way.
  for (const LibraryType library : {LibraryType::kCUDNN, LibraryType::kPlain}) {
    for (const std::string type : {"conv2d_transpose", "depthwise_conv2d_transpose"}) {
      // Deterministic: the kernels take only deterministic algorithms under
      // FLAGS_cudnn_deterministic (cudnn_conv.h).
      framework::RegisterKernelClass<Conv2dTransposeCudnnKernel<float>>(
          type, DeviceType::kCUDA, DataType::FLOAT32, library, true);
      framework::RegisterKernelClass<Conv2dTransposeCudnnKernel<double>>(
          type, DeviceType::kCUDA, DataType::FLOAT64, library, true);
      framework::RegisterKernelClass<Conv2dTransposeGradCudnnKernel<float>>(
          type + "_grad", DeviceType::kCUDA, DataType::FLOAT32, library, true);
      framework::RegisterKernelClass<Conv2dTransposeGradCudnnKernel<double>>(
          type + "_grad", DeviceType::kCUDA, DataType::FLOAT64, library, true);
      // float16, accumulated in float.
      framework::RegisterKernelClass<Conv2dTransposeCudnnKernel<platform::float16>>(
          type, DeviceType::kCUDA, DataType::FLOAT16, library, true);
      framework::RegisterKernelClass<Conv2dTransposeGradCudnnKernel<platform::float16>>(
          type + "_grad", DeviceType::kCUDA, DataType::FLOAT16, library, true);
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
