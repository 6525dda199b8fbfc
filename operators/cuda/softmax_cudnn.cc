// softmax, log_softmax and their gradients on CUDA, by cuDNN (CUDNN_SOFTMAX_ACCURATE, which
// subtracts the row maximum first; CUDNN_SOFTMAX_LOG for log_softmax, whose gradient is
// dX = dOut - exp(Out) * sum(dOut)). The dims around the softmax axis, [outer, n, inner], are
// cuDNN's NCHW tensor [outer, n, inner, 1] in CUDNN_SOFTMAX_MODE_CHANNEL. No other CUDA
// softmax kernel exists, and PaddlePaddle's saved models set use_cudnn = false on softmax:
// every kernel here serves as the plain CUDA kernel and as the cuDNN one.
#include <cudnn.h>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/cuda/cudnn_util.h"
#include "operators/softmax/softmax_op.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DenseTensor;
using framework::ExecutionContext;

// An NCHW tensor descriptor for [outer, n, inner, 1], destroyed with the object.
class RowsDescriptor {
 public:
  RowsDescriptor(const ExecutionContext& ctx, const SoftmaxDims& d, cudnnDataType_t type) {
    const int64_t limit = 0x7fffffff;
    PL_ENFORCE(d.outer <= limit && d.n <= limit && d.inner <= limit,
               errors::InvalidArgument("op `%s`: dims [%lld, %lld, %lld] around the softmax "
                                       "axis exceed cuDNN's 32-bit limits",
                                       ctx.Type(), static_cast<long long>(d.outer),
                                       static_cast<long long>(d.n),
                                       static_cast<long long>(d.inner)));
    platform::CheckCudnn(cudnnCreateTensorDescriptor(&desc_), "cudnnCreateTensorDescriptor");
    platform::CheckCudnn(
        cudnnSetTensor4dDescriptor(desc_, CUDNN_TENSOR_NCHW, type, static_cast<int>(d.outer),
                                   static_cast<int>(d.n), static_cast<int>(d.inner), 1),
        "cudnnSetTensor4dDescriptor");
  }
  ~RowsDescriptor() { cudnnDestroyTensorDescriptor(desc_); }
  RowsDescriptor(const RowsDescriptor&) = delete;
  RowsDescriptor& operator=(const RowsDescriptor&) = delete;
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

// Kernel<T> runs cuDNN's softmax forward with algorithm kAlgo.
template <cudnnSoftmaxAlgorithm_t kAlgo>
struct SoftmaxCudnn {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx);
  };
};

template <cudnnSoftmaxAlgorithm_t kAlgo>
template <typename T>
void SoftmaxCudnn<kAlgo>::Kernel<T>::Compute(const ExecutionContext& ctx) {
  const DenseTensor x = *ctx.Input("X");
  DenseTensor* out = ctx.Output("Out");
  out->Resize(x.dims());
  out->set_lod(x.lod());
  T* o = out->mutable_data<T>(ctx.GetPlace());
  if (x.numel() == 0) return;
  const SoftmaxDims d = GetSoftmaxDims(ctx.Type(), x.dims(), ctx.Attr<int>("axis"));
  const RowsDescriptor desc(ctx, d, cudnn::DataTypeOf<T>::value);
  const cudnn::Scale<T> alpha = 1, beta = 0;
  platform::CheckCudnn(
      cudnnSoftmaxForward(cuda::Device(ctx).cudnn_handle(), kAlgo, CUDNN_SOFTMAX_MODE_CHANNEL,
                          &alpha, desc.get(), x.data<T>(), &beta, desc.get(), o),
      "cudnnSoftmaxForward");
}

// Kernel<T> runs cuDNN's softmax backward with algorithm kAlgo, from Out and Out@GRAD.
template <cudnnSoftmaxAlgorithm_t kAlgo>
struct SoftmaxGradCudnn {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx);
  };
};

template <cudnnSoftmaxAlgorithm_t kAlgo>
template <typename T>
void SoftmaxGradCudnn<kAlgo>::Kernel<T>::Compute(const ExecutionContext& ctx) {
  const DenseTensor y = *ctx.Input("Out");
  const DenseTensor dy = *ctx.Input("Out@GRAD");
  PL_ENFORCE(y.dims() == dy.dims(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected Out's shape %s, "
                                     "received %s",
                                     ctx.Type(), y.dims().ToString(), dy.dims().ToString()));
  DenseTensor* dx = ctx.Output("X@GRAD");
  dx->Resize(y.dims());
  dx->set_lod(y.lod());
  T* o = dx->mutable_data<T>(ctx.GetPlace());
  if (y.numel() == 0) return;
  const SoftmaxDims d = GetSoftmaxDims(ctx.Type(), y.dims(), ctx.Attr<int>("axis"));
  const RowsDescriptor desc(ctx, d, cudnn::DataTypeOf<T>::value);
  const cudnn::Scale<T> alpha = 1, beta = 0;
  platform::CheckCudnn(
      cudnnSoftmaxBackward(cuda::Device(ctx).cudnn_handle(), kAlgo, CUDNN_SOFTMAX_MODE_CHANNEL,
                           &alpha, desc.get(), y.data<T>(), desc.get(), dy.data<T>(), &beta,
                           desc.get(), o),
      "cudnnSoftmaxBackward");
}

}  // namespace

CudaKernelTable SoftmaxCudaKernels() {
  CudaKernelTable kernels;
  using Accurate = SoftmaxCudnn<CUDNN_SOFTMAX_ACCURATE>;
  using AccurateGrad = SoftmaxGradCudnn<CUDNN_SOFTMAX_ACCURATE>;
  using Log = SoftmaxCudnn<CUDNN_SOFTMAX_LOG>;
  using LogGrad = SoftmaxGradCudnn<CUDNN_SOFTMAX_LOG>;
  AddCudaKernels<Accurate::Kernel, float, double>(&kernels, "softmax");
  AddCudaKernels<AccurateGrad::Kernel, float, double>(&kernels, "softmax_grad");
  AddCudaKernels<Log::Kernel, float, double>(&kernels, "log_softmax");
  AddCudaKernels<LogGrad::Kernel, float, double>(&kernels, "log_softmax_grad");
  // float16 (cuDNN computes in float).
  AddCudaKernels<Accurate::Kernel, platform::float16>(&kernels, "softmax");
  AddCudaKernels<AccurateGrad::Kernel, platform::float16>(&kernels, "softmax_grad");
  AddCudaKernels<Log::Kernel, platform::float16>(&kernels, "log_softmax");
  AddCudaKernels<LogGrad::Kernel, platform::float16>(&kernels, "log_softmax_grad");
  // The same kernels under the cuDNN backend.
  const size_t plain_count = kernels.size();
  for (size_t i = 0; i < plain_count; ++i) {
    CudaKernelEntry as_cudnn = kernels[i];  // By value: the vector grows below.
    as_cudnn.backend = framework::LibraryType::kCUDNN;
    kernels.push_back(as_cudnn);
  }
  return kernels;
}

}  // namespace operators
}  // namespace paddle_like
