// cuDNN kernels of conv2d and depthwise_conv2d (with the fused epilogue of inference
// programs: Bias, ResidualData, fuse_activation) and of their grad ops conv2d_grad and
// depthwise_conv2d_grad, for float and double.
//
// The geometry is the plain kernels' (ResolveConv2d, conv_pool_shape.h). cuDNN pads both
// sides of an axis equally: asymmetric paddings (four-value `paddings`, SAME) are applied by
// copying the input into a zero-padded buffer convolved without padding. NHWC tensors are
// copied to NCHW buffers and back (cudnnTransformTensor). depthwise_conv2d is a grouped
// convolution (groups = C_in).
//
// Float convolutions run with CUDNN_FMA_MATH: cuDNN's default math lets Ampere and newer GPUs
// compute float data in TF32 (10-bit mantissa, ~1e-3 relative error); FMA keeps results within
// float rounding of the CPU kernels.
//
// Algorithms are chosen per shape and cached in the kernel object: cuDNN's heuristics
// (cudnnGet*Algorithm_v7), or timing every algorithm (cudnnFind*AlgorithmEx) when
// FLAGS_cudnn_exhaustive_search is set. With FLAGS_cudnn_deterministic only algorithms cuDNN
// reports as deterministic are taken (backward ALGO_0 accumulates with atomics), so the
// kernels are registered as deterministic and honour the flag themselves.
#include <algorithm>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/op_registry.h"
#include "operators/activation/fused_activation.h"
#include "operators/cuda/cudnn_util.h"
#include "operators/nn/conv_fusion.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/op_family.h"
#include "platform/enforce.h"
#include "platform/flags.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DenseTensor;
using framework::DeviceType;
using framework::ExecutionContext;
using framework::LibraryType;
using platform::CheckCudnn;
using platform::CUDADeviceContext;

// The largest workspace an algorithm may use (PaddlePaddle's default
// FLAGS_conv_workspace_size_limit); algorithms that need more are passed over.
constexpr size_t kWorkspaceLimit = size_t{512} << 20;
// Shapes whose algorithms a kernel object remembers before it starts again.
constexpr size_t kMaxCachedShapes = 64;

// The convolution as cuDNN computes it.
struct ConvPlan {
  Conv2dGeometry g;
  bool explicit_pad = false;     // Asymmetric paddings: x goes into a zero-padded buffer.
  bool stage_x = false;          // x is read from a packed NCHW buffer (NHWC or explicit_pad).
  int64_t xh = 0, xw = 0;        // x's spatial dims as cuDNN sees them.
  int64_t pad_h = 0, pad_w = 0;  // The paddings cuDNN applies (each on both sides).

  cudnn::View4d XBuffer() const { return cudnn::PackedNchw(g.batch, g.in_c, xh, xw); }
  // Where the user's input lies in XBuffer().
  cudnn::View4d XInterior() const {
    if (!explicit_pad) return XBuffer();
    return cudnn::PaddedInterior(g.batch, g.in_c, g.in_h, g.in_w, g.pad_top, g.pad_bottom,
                                 g.pad_left, g.pad_right);
  }
  cudnn::View4d XUser() const {
    return cudnn::UserLayout(g.batch, g.in_c, g.in_h, g.in_w, g.channel_last);
  }
  cudnn::View4d YBuffer() const { return cudnn::PackedNchw(g.batch, g.out_c, g.out_h, g.out_w); }
  cudnn::View4d YUser() const {
    return cudnn::UserLayout(g.batch, g.out_c, g.out_h, g.out_w, g.channel_last);
  }
  std::vector<int64_t> Key() const {
    return {g.batch,    g.in_c,     xh,         xw,           g.out_c,      g.groups,
            g.kernel_h, g.kernel_w, g.out_h,    g.out_w,      pad_h,        pad_w,
            g.stride_h, g.stride_w, g.dilation_h, g.dilation_w};
  }
};

ConvPlan MakePlan(const Conv2dGeometry& g) {
  ConvPlan p;
  p.g = g;
  p.explicit_pad = g.pad_top != g.pad_bottom || g.pad_left != g.pad_right;
  p.stage_x = p.explicit_pad || g.channel_last;
  p.xh = g.in_h + (p.explicit_pad ? g.pad_top + g.pad_bottom : 0);
  p.xw = g.in_w + (p.explicit_pad ? g.pad_left + g.pad_right : 0);
  p.pad_h = p.explicit_pad ? 0 : g.pad_top;
  p.pad_w = p.explicit_pad ? 0 : g.pad_left;
  return p;
}

// The descriptors of one convolution of element type T.
template <typename T>
struct ConvDescs {
  cudnn::TensorDesc x, y;
  cudnn::FilterDesc w;
  cudnn::ConvDesc conv;

  ConvDescs(const std::string& op, const ConvPlan& p) {
    const cudnnDataType_t type = cudnn::DataTypeOf<T>::value;
    const Conv2dGeometry& g = p.g;
    x.Set(op, type, p.XBuffer());
    y.Set(op, type, p.YBuffer());
    w.Set(op, type, g.out_c, g.in_c / g.groups, g.kernel_h, g.kernel_w);
    CheckCudnn(cudnnSetConvolution2dDescriptor(
                   conv.get(), cudnn::ToInt(op, "paddings", p.pad_h),
                   cudnn::ToInt(op, "paddings", p.pad_w), cudnn::ToInt(op, "strides", g.stride_h),
                   cudnn::ToInt(op, "strides", g.stride_w),
                   cudnn::ToInt(op, "dilations", g.dilation_h),
                   cudnn::ToInt(op, "dilations", g.dilation_w), CUDNN_CROSS_CORRELATION, type),
               "cudnnSetConvolution2dDescriptor");
    CheckCudnn(cudnnSetConvolutionGroupCount(conv.get(), cudnn::ToInt(op, "groups", g.groups)),
               "cudnnSetConvolutionGroupCount");
    // No TF32 for float (see the file comment); double has no tensor-op math anyway.
    CheckCudnn(cudnnSetConvolutionMathType(
                   conv.get(), std::is_same<T, float>::value ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH),
               "cudnnSetConvolutionMathType");
    // cuDNN must agree with the op's shape inference, which sized the output.
    int n = 0, c = 0, h = 0, wd = 0;
    CheckCudnn(cudnnGetConvolution2dForwardOutputDim(conv.get(), x.get(), w.get(), &n, &c, &h, &wd),
               "cudnnGetConvolution2dForwardOutputDim");
    PL_ENFORCE(n == g.batch && c == g.out_c && h == g.out_h && wd == g.out_w,
               errors::Fatal("op `%s`: cuDNN computes output [%d, %d, %d, %d], the op's shape "
                             "inference [%lld, %lld, %lld, %lld]",
                             op, n, c, h, wd, static_cast<long long>(g.batch),
                             static_cast<long long>(g.out_c), static_cast<long long>(g.out_h),
                             static_cast<long long>(g.out_w)));
  }
};

enum class ConvDirection { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };

const char* DirectionName(ConvDirection d) {
  switch (d) {
    case ConvDirection::kForward:
      return "forward";
    case ConvDirection::kBackwardData:
      return "backward-data";
    case ConvDirection::kBackwardFilter:
      return "backward-filter";
  }
  return "?";
}

struct AlgoChoice {
  int algo = 0;
  size_t workspace = 0;
};

// The first entry of `perf` (cuDNN's order, best first) that cuDNN can run, that is
// deterministic when `deterministic`, that does not compute in tensor-op math and whose
// workspace (asked of cuDNN by `workspace_size(algo, &bytes)`) is within kWorkspaceLimit.
template <typename PerfT, typename WorkspaceFn>
AlgoChoice PickAlgo(const std::string& op, ConvDirection dir, const ConvPlan& p,
                    const std::vector<PerfT>& perf, int count, bool deterministic,
                    WorkspaceFn&& workspace_size) {
  std::string why;
  bool nondeterministic_only = count > 0;
  for (int i = 0; i < count; ++i) {
    const PerfT& r = perf[i];
    const int algo = static_cast<int>(r.algo);
    std::string reason;
    size_t bytes = 0;
    if (r.status != CUDNN_STATUS_SUCCESS) {
      reason = cudnnGetErrorString(r.status);
    } else if (deterministic && r.determinism != CUDNN_DETERMINISTIC) {
      reason = "not deterministic";
    } else if (r.mathType == CUDNN_TENSOR_OP_MATH ||
               r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) {
      reason = "tensor-op math";
    } else {
      const cudnnStatus_t s = workspace_size(r.algo, &bytes);
      if (s != CUDNN_STATUS_SUCCESS) {
        reason = std::string("workspace size: ") + cudnnGetErrorString(s);
      } else if (bytes > kWorkspaceLimit) {
        reason = platform::Sprintf("workspace of %llu bytes",
                                   static_cast<unsigned long long>(bytes));
      } else {
        return AlgoChoice{algo, bytes};
      }
    }
    if (reason != "not deterministic") nondeterministic_only = false;
    why += platform::Sprintf("%salgo %d: %s", why.empty() ? "" : "; ", algo, reason);
  }
  const Conv2dGeometry& g = p.g;
  const std::string shape = platform::Sprintf(
      "Input %s, Filter [%lld, %lld, %lld, %lld], groups %lld",
      g.InputDims().ToString(), static_cast<long long>(g.out_c),
      static_cast<long long>(g.in_c / g.groups), static_cast<long long>(g.kernel_h),
      static_cast<long long>(g.kernel_w), static_cast<long long>(g.groups));
  if (nondeterministic_only) {
    throw errors::Unimplemented(
        "op `%s`: cuDNN has no deterministic %s algorithm for %s while FLAGS_cudnn_deterministic "
        "is set (%s); run the op on the CPU (FLAGS_cpu_deterministic) instead",
        op, DirectionName(dir), shape, why);
  }
  throw errors::Unavailable("op `%s`: cuDNN offers no usable %s algorithm for %s (%s)", op,
                            DirectionName(dir), shape, why.empty() ? "none returned" : why);
}

// Algorithms chosen per shape, direction and flags; one per kernel object.
class AlgoCache {
 public:
  template <typename ChooseFn>
  AlgoChoice Get(const ConvPlan& p, ConvDirection dir, ChooseFn&& choose) {
    std::vector<int64_t> key = p.Key();
    key.push_back(static_cast<int64_t>(dir));
    key.push_back(FLAGS_cudnn_deterministic ? 1 : 0);
    key.push_back(FLAGS_cudnn_exhaustive_search ? 1 : 0);
    auto it = map_.find(key);
    if (it != map_.end()) return it->second;
    const AlgoChoice choice = choose();
    if (map_.size() >= kMaxCachedShapes) map_.clear();
    map_.emplace(std::move(key), choice);
    return choice;
  }

 private:
  std::map<std::vector<int64_t>, AlgoChoice> map_;
};

template <typename T>
AlgoChoice ChooseForward(const CUDADeviceContext& dev, const std::string& op, const ConvPlan& p,
                         const ConvDescs<T>& d, const T* x, const T* w, T* y) {
  const cudnnHandle_t h = dev.cudnn_handle();
  int max_count = 0;
  CheckCudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_count),
             "cudnnGetConvolutionForwardAlgorithmMaxCount");
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  if (FLAGS_cudnn_exhaustive_search) {
    const platform::AllocationPtr ws = dev.Temporary(kWorkspaceLimit);
    CheckCudnn(cudnnFindConvolutionForwardAlgorithmEx(h, d.x.get(), x, d.w.get(), w, d.conv.get(),
                                                      d.y.get(), y, max_count, &returned,
                                                      perf.data(), ws->ptr(), kWorkspaceLimit),
               "cudnnFindConvolutionForwardAlgorithmEx");
  } else {
    CheckCudnn(cudnnGetConvolutionForwardAlgorithm_v7(h, d.x.get(), d.w.get(), d.conv.get(),
                                                      d.y.get(), max_count, &returned,
                                                      perf.data()),
               "cudnnGetConvolutionForwardAlgorithm_v7");
  }
  return PickAlgo(op, ConvDirection::kForward, p, perf, returned, FLAGS_cudnn_deterministic,
                  [&](cudnnConvolutionFwdAlgo_t algo, size_t* bytes) {
                    return cudnnGetConvolutionForwardWorkspaceSize(
                        h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), algo, bytes);
                  });
}

template <typename T>
AlgoChoice ChooseBackwardData(const CUDADeviceContext& dev, const std::string& op,
                              const ConvPlan& p, const ConvDescs<T>& d, const T* w, const T* dy,
                              T* dx) {
  const cudnnHandle_t h = dev.cudnn_handle();
  int max_count = 0;
  CheckCudnn(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max_count),
             "cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  if (FLAGS_cudnn_exhaustive_search) {
    const platform::AllocationPtr ws = dev.Temporary(kWorkspaceLimit);
    CheckCudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(
                   h, d.w.get(), w, d.y.get(), dy, d.conv.get(), d.x.get(), dx, max_count,
                   &returned, perf.data(), ws->ptr(), kWorkspaceLimit),
               "cudnnFindConvolutionBackwardDataAlgorithmEx");
  } else {
    CheckCudnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.get(), d.y.get(), d.conv.get(),
                                                           d.x.get(), max_count, &returned,
                                                           perf.data()),
               "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  }
  return PickAlgo(op, ConvDirection::kBackwardData, p, perf, returned, FLAGS_cudnn_deterministic,
                  [&](cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
                    return cudnnGetConvolutionBackwardDataWorkspaceSize(
                        h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), algo, bytes);
                  });
}

template <typename T>
AlgoChoice ChooseBackwardFilter(const CUDADeviceContext& dev, const std::string& op,
                                const ConvPlan& p, const ConvDescs<T>& d, const T* x,
                                const T* dy, T* dw) {
  const cudnnHandle_t h = dev.cudnn_handle();
  int max_count = 0;
  CheckCudnn(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &max_count),
             "cudnnGetConvolutionBackwardFilterAlgorithmMaxCount");
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(
      static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  if (FLAGS_cudnn_exhaustive_search) {
    const platform::AllocationPtr ws = dev.Temporary(kWorkspaceLimit);
    CheckCudnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                   h, d.x.get(), x, d.y.get(), dy, d.conv.get(), d.w.get(), dw, max_count,
                   &returned, perf.data(), ws->ptr(), kWorkspaceLimit),
               "cudnnFindConvolutionBackwardFilterAlgorithmEx");
  } else {
    CheckCudnn(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x.get(), d.y.get(),
                                                             d.conv.get(), d.w.get(), max_count,
                                                             &returned, perf.data()),
               "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  }
  return PickAlgo(op, ConvDirection::kBackwardFilter, p, perf, returned,
                  FLAGS_cudnn_deterministic,
                  [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
                    return cudnnGetConvolutionBackwardFilterWorkspaceSize(
                        h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), algo, bytes);
                  });
}

// x as cuDNN reads it: the user's buffer, or a packed NCHW copy (zero-padded with
// explicit_pad) held by `hold`.
template <typename T>
const T* StageInput(const CUDADeviceContext& dev, const std::string& op, const ConvPlan& p,
                    const T* x, platform::AllocationPtr* hold) {
  if (!p.stage_x) return x;
  const cudnn::View4d buffer = p.XBuffer();
  T* staged = cudnn::TemporaryBuffer<T>(dev, buffer.numel(), hold);
  if (p.explicit_pad) cudnn::FillDevice<T>(dev, op, staged, buffer.numel(), T(0));
  cudnn::TransformTensor<T>(dev, op, p.XUser(), x, T(0), p.XInterior(), staged);
  return staged;
}

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
  std::vector<T> host(static_cast<size_t>(n));
  const size_t bytes = static_cast<size_t>(n) * sizeof(T);
  platform::Copy(platform::CPUPlace(), host.data(), dev.GetPlace(), y, bytes);
  ApplyFusedActivation(a, host.data(), n);
  platform::Copy(dev.GetPlace(), y, platform::CPUPlace(), host.data(), bytes);
}

template <typename T>
class Conv2dCudnnKernel : public framework::OpKernel {
 public:
  void Compute(const ExecutionContext& ctx) override {
    const std::string& op = ctx.Type();
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const Conv2dGeometry g = ResolveConv2d(op, input->dims(), filter->dims(), ctx.op().Attrs());
    const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
    const DenseTensor* residual =
        ctx.HasInput("ResidualData") ? ctx.Input("ResidualData") : nullptr;
    const ConvFusion fusion =
        ResolveConvFusion(op, ctx.op().Attrs(), g, bias ? &bias->dims() : nullptr,
                          residual ? &residual->dims() : nullptr);
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
      Run(ctx, g, fusion, *input, *filter, fusion.bias ? bias : nullptr,
          fusion.residual ? residual : nullptr, out);
    }
    if (target == &fresh) *output = std::move(fresh);
  }

 private:
  void Run(const ExecutionContext& ctx, const Conv2dGeometry& g, const ConvFusion& fusion,
           const DenseTensor& input, const DenseTensor& filter, const DenseTensor* bias,
           const DenseTensor* residual, T* out) {
    const std::string& op = ctx.Type();
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    const cudnnHandle_t h = dev.cudnn_handle();
    const ConvPlan p = MakePlan(g);
    const cudnn::View4d y_view = p.YBuffer();
    const cudnnDataType_t type = cudnn::DataTypeOf<T>::value;
    const T one = 1, zero = 0;
    // The result in NCHW: the output itself, or a buffer for NHWC.
    platform::AllocationPtr y_hold, x_hold;
    T* y = g.channel_last ? cudnn::TemporaryBuffer<T>(dev, y_view.numel(), &y_hold) : out;
    cudnn::TensorDesc y_desc;
    y_desc.Set(op, type, y_view);
    if (input.numel() == 0 || filter.numel() == 0) {
      // No input channels or taps: every output is an empty sum (the plain kernel's 0).
      cudnn::FillDevice<T>(dev, op, y, y_view.numel(), T(0));
    } else {
      const T* x = StageInput(dev, op, p, input.data<T>(), &x_hold);
      const T* w = filter.data<T>();
      ConvDescs<T> d(op, p);
      const AlgoChoice algo = cache_.Get(p, ConvDirection::kForward, [&] {
        return ChooseForward<T>(dev, op, p, d, x, w, y);
      });
      void* workspace = dev.Workspace(algo.workspace);
      CheckCudnn(cudnnConvolutionForward(h, &one, d.x.get(), x, d.w.get(), w, d.conv.get(),
                                         static_cast<cudnnConvolutionFwdAlgo_t>(algo.algo),
                                         workspace, algo.workspace, &zero, d.y.get(), y),
                 "cudnnConvolutionForward");
    }
    // The epilogue, in the plain kernels' order: + Bias[c], + ResidualData, activation.
    if (bias != nullptr) {
      cudnn::TensorDesc bias_desc;
      bias_desc.Set(op, type, cudnn::PackedNchw(1, g.out_c, 1, 1));
      CheckCudnn(cudnnAddTensor(h, &one, bias_desc.get(), bias->data<T>(), &one, y_desc.get(), y),
                 "cudnnAddTensor");
    }
    if (residual != nullptr) {
      cudnn::TransformTensor<T>(dev, op, p.YUser(), residual->data<T>(), T(1), y_view, y);
    }
    cudnnActivationMode_t mode = CUDNN_ACTIVATION_IDENTITY;
    double coef = 0.0;
    const bool device_act = !fusion.act.empty() && CudnnActivation(fusion.act, &mode, &coef);
    if (device_act) {
      cudnn::ActivationDesc act;
      CheckCudnn(cudnnSetActivationDescriptor(act.get(), mode, CUDNN_PROPAGATE_NAN, coef),
                 "cudnnSetActivationDescriptor");
      CheckCudnn(cudnnActivationForward(h, act.get(), &one, y_desc.get(), y, &zero, y_desc.get(),
                                        y),
                 "cudnnActivationForward");
    }
    if (g.channel_last) cudnn::TransformTensor<T>(dev, op, y_view, y, T(0), p.YUser(), out);
    if (!fusion.act.empty() && !device_act) ActivationOnHost(dev, fusion.act, out, y_view.numel());
  }

  AlgoCache cache_;
};

template <typename T>
class Conv2dGradCudnnKernel : public framework::OpKernel {
 public:
  void Compute(const ExecutionContext& ctx) override {
    const std::string& op = ctx.Type();
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    const Conv2dGeometry g = ResolveConv2d(op, input->dims(), filter->dims(), ctx.op().Attrs());
    CheckGradInputShape(op, "Output@GRAD", g.OutputDims(), dout->dims());
    DenseTensor* dinput = ctx.Output("Input@GRAD");
    DenseTensor* dfilter = ctx.Output("Filter@GRAD");
    if (dinput == nullptr && dfilter == nullptr) return;
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    // Both gradients go to fresh buffers, moved into place only at the end: an output
    // variable may be one of the inputs, which the other gradient still reads.
    DenseTensor input_grad, filter_grad;
    T* dx = nullptr;
    T* dw = nullptr;
    if (dinput != nullptr) {
      input_grad = DenseTensor(input->dims(), input->dtype());
      dx = input_grad.mutable_data<T>(ctx.GetPlace());
    }
    if (dfilter != nullptr) {
      filter_grad = DenseTensor(filter->dims(), filter->dtype());
      dw = filter_grad.mutable_data<T>(ctx.GetPlace());
    }
    if (input->numel() == 0 || filter->numel() == 0 || dout->numel() == 0) {
      // Empty sums: the gradients that exist are 0.
      if (dx != nullptr) cudnn::FillDevice<T>(dev, op, dx, input->numel(), T(0));
      if (dw != nullptr) cudnn::FillDevice<T>(dev, op, dw, filter->numel(), T(0));
    } else {
      Run(ctx, g, *input, *filter, *dout, dx, dw);
    }
    if (dinput != nullptr) *dinput = std::move(input_grad);
    if (dfilter != nullptr) *dfilter = std::move(filter_grad);
  }

 private:
  void Run(const ExecutionContext& ctx, const Conv2dGeometry& g, const DenseTensor& input,
           const DenseTensor& filter, const DenseTensor& dout, T* dx, T* dw) {
    const std::string& op = ctx.Type();
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    const cudnnHandle_t h = dev.cudnn_handle();
    const ConvPlan p = MakePlan(g);
    const T one = 1, zero = 0;
    ConvDescs<T> d(op, p);
    const T* w = filter.data<T>();
    platform::AllocationPtr dy_hold, x_hold, dx_hold;
    const T* dy = dout.data<T>();
    if (g.channel_last) {
      T* staged = cudnn::TemporaryBuffer<T>(dev, p.YBuffer().numel(), &dy_hold);
      cudnn::TransformTensor<T>(dev, op, p.YUser(), dy, T(0), p.YBuffer(), staged);
      dy = staged;
    }
    // cuDNN's dx covers XBuffer(): the user's gradient itself, or a buffer whose interior is
    // copied out (the gradient of the explicit padding is dropped).
    T* dx_buffer = nullptr;
    if (dx != nullptr) {
      dx_buffer = p.stage_x ? cudnn::TemporaryBuffer<T>(dev, p.XBuffer().numel(), &dx_hold) : dx;
    }
    const T* x = dw != nullptr ? StageInput(dev, op, p, input.data<T>(), &x_hold) : nullptr;
    AlgoChoice data_algo, filter_algo;
    if (dx != nullptr) {
      data_algo = data_cache_.Get(p, ConvDirection::kBackwardData, [&] {
        return ChooseBackwardData<T>(dev, op, p, d, w, dy, dx_buffer);
      });
    }
    if (dw != nullptr) {
      filter_algo = filter_cache_.Get(p, ConvDirection::kBackwardFilter, [&] {
        return ChooseBackwardFilter<T>(dev, op, p, d, x, dy, dw);
      });
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
      if (p.stage_x) {
        cudnn::TransformTensor<T>(dev, op, p.XInterior(), dx_buffer, T(0), p.XUser(), dx);
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

  AlgoCache data_cache_, filter_cache_;
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
      framework::RegisterKernelClass<Conv2dGradCudnnKernel<float>>(
          type + "_grad", DeviceType::kCUDA, DataType::FLOAT32, library, true);
      framework::RegisterKernelClass<Conv2dGradCudnnKernel<double>>(
          type + "_grad", DeviceType::kCUDA, DataType::FLOAT64, library, true);
    }
  }
}

}  // namespace operators
}  // namespace paddle_like
