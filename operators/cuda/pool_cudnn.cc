// cuDNN kernels of pool2d and pool2d_grad (max and avg; fixed, global and adaptive windows),
// for float, double and float16; registered as the plain CUDA kernels too, since pool2d declares
// use_cudnn = false by default (as PaddlePaddle) and no other CUDA pooling exists.
//
// The geometry is the plain kernels' (ResolvePool2d, conv_pool_shape.h). cuDNN pools with
// equal paddings on both sides of an axis and floor-rounded output sizes. Where that gives
// the op's windows (same starts, same count) cuDNN pools the input directly: windows clipped
// to the image, avg exclusive counting only image elements, as the plain kernels do.
// Otherwise (asymmetric paddings that change the count, ceil_mode adding a window) the
// input is copied into a buffer holding the paddings explicitly, large enough for every
// window, and pooled without padding: filled with -inf for max; with 0 for avg, pooled with
// a divisor of kh * kw, then multiplying each result by kh * kw / (its divisor: the elements
// of its window inside the image for exclusive avg, PaddlePaddle's clipped extent otherwise),
// a map computed on the host once per shape.
//
// Refused (UnimplementedError naming the op; such an op runs on the CPU):
// adaptive windows of unequal sizes (output size not dividing the input size), and windows
// lying wholly in the padding (the plain kernels' 0).
//
// Max pooling uses CUDNN_POOLING_MAX_DETERMINISTIC, so both kernels are deterministic. Ties
// in a window may route the gradient to another element than the plain kernel's first one.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "framework/op_registry.h"
#include "operators/cuda/cudnn_util.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/op_family.h"
#include "platform/enforce.h"

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

// The pooling as cuDNN computes it.
struct PoolPlan {
  Pool2dGeometry g;          // Adaptive pooling already turned into its fixed windows.
  bool padded = false;       // x goes into a buffer holding the paddings explicitly.
  bool stage_x = false;      // x is read from a packed NCHW buffer (padded or NHWC).
  bool scale = false;        // padded avg: results times kh * kw / divisor (see ScaleMap).
  int64_t xh = 0, xw = 0;    // x's spatial dims as cuDNN sees them.
  int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1;  // Told to cuDNN.

  cudnn::View4d XBuffer() const { return cudnn::PackedNchw(g.batch, g.channels, xh, xw); }
  // Where the user's input lies in XBuffer().
  cudnn::View4d XInterior() const {
    if (!padded) return XBuffer();
    return cudnn::PaddedInterior(g.batch, g.channels, g.in_h, g.in_w, g.pad_top,
                                 xh - g.in_h - g.pad_top, g.pad_left, xw - g.in_w - g.pad_left);
  }
  cudnn::View4d XUser() const {
    return cudnn::UserLayout(g.batch, g.channels, g.in_h, g.in_w, g.channel_last);
  }
  cudnn::View4d YBuffer() const {
    return cudnn::PackedNchw(g.batch, g.channels, g.out_h, g.out_w);
  }
  cudnn::View4d YUser() const {
    return cudnn::UserLayout(g.batch, g.channels, g.out_h, g.out_w, g.channel_last);
  }
  std::vector<int64_t> ScaleKey() const {
    return {g.in_h, g.in_w, g.out_h, g.out_w, g.kernel_h, g.kernel_w, g.stride_h, g.stride_w,
            g.pad_top, g.pad_left};
  }
};

// cuDNN's output size: floor((in + 2 pad - k) / stride) + 1, or 0 when the window does not fit.
int64_t FloorOutputSize(int64_t in, int64_t k, int64_t pad, int64_t stride) {
  const int64_t span = in + 2 * pad - k;
  return span < 0 ? 0 : span / stride + 1;
}

// The number of elements of [o * stride - pad, + k) inside [0, in).
int64_t ClippedExtent(int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t in) {
  const int64_t start = o * stride - pad;
  return std::max<int64_t>(0, std::min(start + k, in) - std::max<int64_t>(start, 0));
}

// The plan for geometry `resolved` of an input holding elements. UnimplementedError for
// the cases in the file comment.
PoolPlan MakePlan(const std::string& op, const Pool2dGeometry& resolved, bool global) {
  PoolPlan p;
  p.g = resolved;
  Pool2dGeometry& g = p.g;
  if (g.adaptive) {
    PL_ENFORCE(g.HasUniformAdaptiveWindows(),
               errors::Unimplemented(
                   "op `%s` attribute `adaptive`: the cuDNN kernel pools adaptively only when the "
                   "output size divides the input size, received input [%lld, %lld] and output "
                   "[%lld, %lld] (run the op on the CPU instead)",
                   op, static_cast<long long>(g.in_h), static_cast<long long>(g.in_w),
                   static_cast<long long>(g.out_h), static_cast<long long>(g.out_w)));
    g = g.AsFixedWindows();
  }
  PL_ENFORCE(!g.HasEmptyWindow(),
             errors::Unimplemented(
                 "op `%s` attribute `paddings`: some windows lie wholly in the padding (ksize "
                 "[%lld, %lld], paddings [%lld, %lld, %lld, %lld], input [%lld, %lld]), which "
                 "the cuDNN kernel does not pool (run the op on the CPU instead)",
                 op, static_cast<long long>(g.kernel_h), static_cast<long long>(g.kernel_w),
                 static_cast<long long>(g.pad_top), static_cast<long long>(g.pad_bottom),
                 static_cast<long long>(g.pad_left), static_cast<long long>(g.pad_right),
                 static_cast<long long>(g.in_h), static_cast<long long>(g.in_w)));
  // One window covers a global pooling's plane: the stride does not matter.
  p.stride_h = global ? 1 : g.stride_h;
  p.stride_w = global ? 1 : g.stride_w;
  const bool direct = FloorOutputSize(g.in_h, g.kernel_h, g.pad_top, p.stride_h) == g.out_h &&
                      FloorOutputSize(g.in_w, g.kernel_w, g.pad_left, p.stride_w) == g.out_w;
  if (direct) {
    p.stage_x = g.channel_last;
    p.xh = g.in_h;
    p.xw = g.in_w;
    p.pad_h = g.pad_top;
    p.pad_w = g.pad_left;
    return p;
  }
  // Room for the input after its top / left padding and for the last window whole; then
  // cuDNN's floor((xh - kh) / stride) + 1 is out_h, as out_h * stride >= in + top + 1 - kh.
  p.padded = true;
  p.stage_x = true;
  p.scale = !g.is_max && (g.exclusive || g.HasShortAvgWindow());
  p.xh = std::max((g.out_h - 1) * p.stride_h + g.kernel_h, g.pad_top + g.in_h);
  p.xw = std::max((g.out_w - 1) * p.stride_w + g.kernel_w, g.pad_left + g.in_w);
  return p;
}

// The descriptors of one pooling of element type T.
template <typename T>
struct PoolDescs {
  cudnn::TensorDesc x, y;
  cudnn::PoolDesc pool;

  PoolDescs(const std::string& op, const PoolPlan& p) {
    const cudnnDataType_t type = cudnn::DataTypeOf<T>::value;
    const Pool2dGeometry& g = p.g;
    x.Set(op, type, p.XBuffer());
    y.Set(op, type, p.YBuffer());
    cudnnPoolingMode_t mode = CUDNN_POOLING_MAX_DETERMINISTIC;
    if (!g.is_max) {
      // A padded buffer holds zeros where the image ends: divide by the whole window.
      mode = g.exclusive && !p.padded ? CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING
                                      : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    }
    CheckCudnn(cudnnSetPooling2dDescriptor(
                   pool.get(), mode, CUDNN_PROPAGATE_NAN, cudnn::ToInt(op, "ksize", g.kernel_h),
                   cudnn::ToInt(op, "ksize", g.kernel_w), cudnn::ToInt(op, "paddings", p.pad_h),
                   cudnn::ToInt(op, "paddings", p.pad_w), cudnn::ToInt(op, "strides", p.stride_h),
                   cudnn::ToInt(op, "strides", p.stride_w)),
               "cudnnSetPooling2dDescriptor");
    // cuDNN must agree with the op's shape inference, which sized the output.
    int n = 0, c = 0, h = 0, w = 0;
    CheckCudnn(cudnnGetPooling2dForwardOutputDim(pool.get(), x.get(), &n, &c, &h, &w),
               "cudnnGetPooling2dForwardOutputDim");
    PL_ENFORCE(n == g.batch && c == g.channels && h == g.out_h && w == g.out_w,
               errors::Fatal("op `%s`: cuDNN pools to [%d, %d, %d, %d], the op's shape "
                             "inference to [%lld, %lld, %lld, %lld]",
                             op, n, c, h, w, static_cast<long long>(g.batch),
                             static_cast<long long>(g.channels), static_cast<long long>(g.out_h),
                             static_cast<long long>(g.out_w)));
  }
};

// x as cuDNN reads it: the user's buffer, or a packed NCHW copy (with its paddings filled
// by -inf for max, 0 for avg) held by `hold`.
template <typename T>
const T* StageInput(const CUDADeviceContext& dev, const std::string& op, const PoolPlan& p,
                    const T* x, platform::AllocationPtr* hold) {
  if (!p.stage_x) return x;
  const cudnn::View4d buffer = p.XBuffer();
  T* staged = cudnn::TemporaryBuffer<T>(dev, buffer.numel(), hold);
  if (p.padded) {
    const double fill = p.g.is_max ? -std::numeric_limits<double>::infinity() : 0.0;
    cudnn::FillDevice<T>(dev, op, staged, buffer.numel(), fill);
  }
  cudnn::TransformTensor<T>(dev, op, p.XUser(), x, 0, p.XInterior(), staged);
  return staged;
}

// A tensor of the op's output shape as an NCHW device buffer: its own, or a copy.
template <typename T>
const T* StageOutputShaped(const CUDADeviceContext& dev, const std::string& op,
                           const PoolPlan& p, const T* y, platform::AllocationPtr* hold) {
  if (!p.g.channel_last) return y;
  T* staged = cudnn::TemporaryBuffer<T>(dev, p.YBuffer().numel(), hold);
  cudnn::TransformTensor<T>(dev, op, p.YUser(), y, 0, p.YBuffer(), staged);
  return staged;
}

// The scale map of padded avg pooling: [1, 1, out_h, out_w] on the device, values kh * kw /
// divisor, the divisor being the elements of the window inside the image (exclusive) or its
// extent clipped to the image plus the leading padding (non-exclusive, AvgExtent). Kept per
// shape by the kernel object.
template <typename T>
class ScaleMap {
 public:
  const T* Get(const ExecutionContext& ctx, const PoolPlan& p) {
    const std::vector<int64_t> key = p.ScaleKey();
    if (key == key_ && map_.initialized()) return map_.data<T>();
    const Pool2dGeometry& g = p.g;
    std::vector<T> host(static_cast<size_t>(g.out_h * g.out_w));
    // Computed in cuDNN's scaling type (float for float16), then stored as T.
    using S = cudnn::Scale<T>;
    const S window = static_cast<S>(g.kernel_h * g.kernel_w);
    for (int64_t oy = 0; oy < g.out_h; ++oy) {
      const int64_t rows = ClippedExtent(oy, g.stride_h, g.pad_top, g.kernel_h, g.in_h);
      for (int64_t ox = 0; ox < g.out_w; ++ox) {
        const int64_t cols = ClippedExtent(ox, g.stride_w, g.pad_left, g.kernel_w, g.in_w);
        // rows * cols >= 1: MakePlan refused windows lying wholly in the padding.
        const int64_t divisor =
            g.exclusive ? rows * cols : g.AvgExtent(true, oy) * g.AvgExtent(false, ox);
        host[static_cast<size_t>(oy * g.out_w + ox)] = T(window / static_cast<S>(divisor));
      }
    }
    key_.clear();
    map_ = DenseTensor(framework::DDim{g.out_h, g.out_w}, platform::ToDataType<T>());
    T* dst = map_.mutable_data<T>(ctx.GetPlace());
    platform::Copy(ctx.GetPlace(), dst, platform::CPUPlace(), host.data(), host.size() * sizeof(T));
    key_ = key;
    return dst;
  }

 private:
  std::vector<int64_t> key_;
  DenseTensor map_;
};

// dst = src * scale, scale [out_h, out_w] broadcast over batch and channels.
template <typename T>
void MultiplyByScale(const CUDADeviceContext& dev, const std::string& op, const PoolPlan& p,
                     const T* src, const T* scale, T* dst) {
  const cudnnDataType_t type = cudnn::DataTypeOf<T>::value;
  cudnn::TensorDesc y_desc, scale_desc;
  y_desc.Set(op, type, p.YBuffer());
  scale_desc.Set(op, type, cudnn::PackedNchw(1, 1, p.g.out_h, p.g.out_w));
  cudnn::OpTensorDesc mul;
  // float16 is multiplied in float.
  const cudnnDataType_t compute = std::is_same_v<T, double> ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  CheckCudnn(
      cudnnSetOpTensorDescriptor(mul.get(), CUDNN_OP_TENSOR_MUL, compute, CUDNN_PROPAGATE_NAN),
      "cudnnSetOpTensorDescriptor");
  const cudnn::Scale<T> one = 1, zero = 0;
  CheckCudnn(cudnnOpTensor(dev.cudnn_handle(), mul.get(), &one, y_desc.get(), src, &one,
                           scale_desc.get(), scale, &zero, y_desc.get(), dst),
             "cudnnOpTensor");
}

template <typename T>
class Pool2dCudnnKernel : public framework::OpKernel {
 public:
  void Compute(const ExecutionContext& ctx) override {
    const std::string& op = ctx.Type();
    const DenseTensor* x = ctx.Input("X");
    const Pool2dGeometry g = ResolvePool2d(op, x->dims(), ctx.op().Attrs());
    DenseTensor* out = ctx.Output("Out");
    DenseTensor fresh;
    DenseTensor* target = out == x ? &fresh : out;
    target->Resize(g.OutputDims());
    target->set_dtype(x->dtype());
    T* y = target->mutable_data<T>(ctx.GetPlace());
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    if (target->numel() > 0) {
      if (x->numel() == 0) {
        // An empty plane: every window is empty (the plain kernels' 0).
        cudnn::FillDevice<T>(dev, op, y, target->numel(), 0);
      } else {
        Run(ctx, MakePlan(op, g, ctx.Attr<bool>("global_pooling")), x->data<T>(), y);
      }
    }
    if (target == &fresh) *out = std::move(fresh);
  }

 private:
  void Run(const ExecutionContext& ctx, const PoolPlan& p, const T* x, T* y) {
    const std::string& op = ctx.Type();
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    const cudnn::View4d y_view = p.YBuffer();
    platform::AllocationPtr x_hold, y_hold, pooled_hold;
    const T* xc = StageInput(dev, op, p, x, &x_hold);
    // The result in NCHW: the output itself, or a buffer for NHWC; before the scale map in
    // another buffer.
    T* y_nchw = p.g.channel_last ? cudnn::TemporaryBuffer<T>(dev, y_view.numel(), &y_hold) : y;
    T* pooled = p.scale ? cudnn::TemporaryBuffer<T>(dev, y_view.numel(), &pooled_hold) : y_nchw;
    PoolDescs<T> d(op, p);
    const cudnn::Scale<T> one = 1, zero = 0;
    CheckCudnn(cudnnPoolingForward(dev.cudnn_handle(), d.pool.get(), &one, d.x.get(), xc, &zero,
                                   d.y.get(), pooled),
               "cudnnPoolingForward");
    if (p.scale) MultiplyByScale(dev, op, p, pooled, scale_.Get(ctx, p), y_nchw);
    if (p.g.channel_last) cudnn::TransformTensor<T>(dev, op, y_view, y_nchw, 0, p.YUser(), y);
  }

  ScaleMap<T> scale_;
};

template <typename T>
class Pool2dGradCudnnKernel : public framework::OpKernel {
 public:
  void Compute(const ExecutionContext& ctx) override {
    const std::string& op = ctx.Type();
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const Pool2dGeometry g = ResolvePool2d(op, x->dims(), ctx.op().Attrs());
    const framework::DDim out_dims = g.OutputDims();
    CheckGradInputShape(op, "Out", out_dims, out->dims());
    CheckGradInputShape(op, "Out@GRAD", out_dims, dout->dims());
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    // A fresh buffer: X@GRAD may be one of the inputs.
    DenseTensor fresh(x->dims(), x->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    if (x->numel() > 0) {
      if (dout->numel() == 0) {
        cudnn::FillDevice<T>(dev, op, dx, x->numel(), 0);
      } else {
        Run(ctx, MakePlan(op, g, ctx.Attr<bool>("global_pooling")), x->data<T>(),
            out->data<T>(), dout->data<T>(), dx);
      }
    }
    *ctx.Output("X@GRAD") = std::move(fresh);
  }

 private:
  void Run(const ExecutionContext& ctx, const PoolPlan& p, const T* x, const T* y, const T* dy,
           T* dx) {
    const std::string& op = ctx.Type();
    const auto& dev = ctx.device_context<CUDADeviceContext>();
    platform::AllocationPtr x_hold, y_hold, dy_hold, scaled_hold, dx_hold;
    const T* xc = StageInput(dev, op, p, x, &x_hold);
    const T* yc = StageOutputShaped(dev, op, p, y, &y_hold);
    const T* dyc = StageOutputShaped(dev, op, p, dy, &dy_hold);
    if (p.scale) {
      T* scaled = cudnn::TemporaryBuffer<T>(dev, p.YBuffer().numel(), &scaled_hold);
      MultiplyByScale(dev, op, p, dyc, scale_.Get(ctx, p), scaled);
      dyc = scaled;
    }
    // cuDNN's dx covers XBuffer(): the user's gradient itself, or a buffer whose interior is
    // copied out (the gradient of the explicit padding is dropped).
    T* dx_buffer = p.stage_x ? cudnn::TemporaryBuffer<T>(dev, p.XBuffer().numel(), &dx_hold) : dx;
    PoolDescs<T> d(op, p);
    const cudnn::Scale<T> one = 1, zero = 0;
    CheckCudnn(cudnnPoolingBackward(dev.cudnn_handle(), d.pool.get(), &one, d.y.get(), yc,
                                    d.y.get(), dyc, d.x.get(), xc, &zero, d.x.get(), dx_buffer),
               "cudnnPoolingBackward");
    if (p.stage_x) {
      cudnn::TransformTensor<T>(dev, op, p.XInterior(), dx_buffer, 0, p.XUser(), dx);
    }
  }

  ScaleMap<T> scale_;
};

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterPoolCudnnKernels) {
  // Also the plain CUDA kernels: pool2d declares use_cudnn = false by default (as in
  // PaddlePaddle), and no other CUDA pooling exists, so a GPU program pools here either way.
  for (const LibraryType library : {LibraryType::kCUDNN, LibraryType::kPlain}) {
    framework::RegisterKernelClass<Pool2dCudnnKernel<float>>(
        "pool2d", DeviceType::kCUDA, DataType::FLOAT32, library, true);
    framework::RegisterKernelClass<Pool2dCudnnKernel<double>>(
        "pool2d", DeviceType::kCUDA, DataType::FLOAT64, library, true);
    framework::RegisterKernelClass<Pool2dCudnnKernel<platform::float16>>(
        "pool2d", DeviceType::kCUDA, DataType::FLOAT16, library, true);
    framework::RegisterKernelClass<Pool2dGradCudnnKernel<float>>(
        "pool2d_grad", DeviceType::kCUDA, DataType::FLOAT32, library, true);
    framework::RegisterKernelClass<Pool2dGradCudnnKernel<double>>(
        "pool2d_grad", DeviceType::kCUDA, DataType::FLOAT64, library, true);
    framework::RegisterKernelClass<Pool2dGradCudnnKernel<platform::float16>>(
        "pool2d_grad", DeviceType::kCUDA, DataType::FLOAT16, library, true);
  }
}

}  // namespace operators
}  // namespace paddle_like
