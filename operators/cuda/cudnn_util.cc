#include "operators/cuda/cudnn_util.h"

#include <limits>

#include "operators/cuda/fill_cuda.h"
#include "platform/errors.h"

namespace paddle_like {
namespace operators {
namespace cudnn {

using platform::CheckCuda;
using platform::CheckCudnn;

View4d PackedNchw(int64_t n, int64_t c, int64_t h, int64_t w) {
  View4d v;
  v.dims[0] = n;
  v.dims[1] = c;
  v.dims[2] = h;
  v.dims[3] = w;
  v.strides[3] = 1;
  v.strides[2] = w;
  v.strides[1] = h * w;
  v.strides[0] = c * h * w;
  return v;
}

View4d UserLayout(int64_t n, int64_t c, int64_t h, int64_t w, bool channel_last) {
  if (!channel_last) return PackedNchw(n, c, h, w);
  View4d v;
  v.dims[0] = n;
  v.dims[1] = c;
  v.dims[2] = h;
  v.dims[3] = w;
  v.strides[1] = 1;
  v.strides[3] = c;
  v.strides[2] = w * c;
  v.strides[0] = h * w * c;
  return v;
}

View4d PaddedInterior(int64_t n, int64_t c, int64_t h, int64_t w, int64_t top, int64_t bottom,
                      int64_t left, int64_t right) {
  const int64_t hp = top + h + bottom, wp = left + w + right;
  View4d v = PackedNchw(n, c, hp, wp);
  v.dims[2] = h;
  v.dims[3] = w;
  v.offset = top * wp + left;
  return v;
}

int ToInt(const std::string& op, const char* what, int64_t value) {
  if (value < 0 || value > std::numeric_limits<int>::max()) {
    throw errors::Unimplemented(
        "op `%s`: the cuDNN kernel takes %s up to %d, received %lld (run the op on the CPU "
        "instead)",
        op, what, std::numeric_limits<int>::max(), static_cast<long long>(value));
  }
  return static_cast<int>(value);
}

TensorDesc::TensorDesc() {
  CheckCudnn(cudnnCreateTensorDescriptor(&desc_), "cudnnCreateTensorDescriptor");
}
TensorDesc::~TensorDesc() { cudnnDestroyTensorDescriptor(desc_); }

void TensorDesc::Set(const std::string& op, cudnnDataType_t type, const View4d& v) {
  // cuDNN addresses a tensor's elements with ints: the last element must be reachable.
  int64_t last = 0;
  for (int i = 0; i < 4; ++i) last += (v.dims[i] - 1) * v.strides[i];
  ToInt(op, "tensors spanning a number of elements", last + 1);
  int dims[4], strides[4];
  for (int i = 0; i < 4; ++i) {
    dims[i] = ToInt(op, "tensor dims", v.dims[i]);
    strides[i] = ToInt(op, "tensor strides", v.strides[i]);
  }
  CheckCudnn(cudnnSetTensor4dDescriptorEx(desc_, type, dims[0], dims[1], dims[2], dims[3],
                                          strides[0], strides[1], strides[2], strides[3]),
             "cudnnSetTensor4dDescriptorEx");
}

FilterDesc::FilterDesc() {
  CheckCudnn(cudnnCreateFilterDescriptor(&desc_), "cudnnCreateFilterDescriptor");
}
FilterDesc::~FilterDesc() { cudnnDestroyFilterDescriptor(desc_); }

void FilterDesc::Set(const std::string& op, cudnnDataType_t type, int64_t k, int64_t c, int64_t r,
                     int64_t s) {
  ToInt(op, "filters of a number of elements", k * c * r * s);
  CheckCudnn(cudnnSetFilter4dDescriptor(desc_, type, CUDNN_TENSOR_NCHW, ToInt(op, "filter dims", k),
                                        ToInt(op, "filter dims", c), ToInt(op, "filter dims", r),
                                        ToInt(op, "filter dims", s)),
             "cudnnSetFilter4dDescriptor");
}

ConvDesc::ConvDesc() {
  CheckCudnn(cudnnCreateConvolutionDescriptor(&desc_), "cudnnCreateConvolutionDescriptor");
}
ConvDesc::~ConvDesc() { cudnnDestroyConvolutionDescriptor(desc_); }

PoolDesc::PoolDesc() {
  CheckCudnn(cudnnCreatePoolingDescriptor(&desc_), "cudnnCreatePoolingDescriptor");
}
PoolDesc::~PoolDesc() { cudnnDestroyPoolingDescriptor(desc_); }

ActivationDesc::ActivationDesc() {
  CheckCudnn(cudnnCreateActivationDescriptor(&desc_), "cudnnCreateActivationDescriptor");
}
ActivationDesc::~ActivationDesc() { cudnnDestroyActivationDescriptor(desc_); }

OpTensorDesc::OpTensorDesc() {
  CheckCudnn(cudnnCreateOpTensorDescriptor(&desc_), "cudnnCreateOpTensorDescriptor");
}
OpTensorDesc::~OpTensorDesc() { cudnnDestroyOpTensorDescriptor(desc_); }

template <typename T>
void TransformTensor(const platform::CUDADeviceContext& dev, const std::string& op,
                     const View4d& src_view, const T* src, Scale<T> beta,
                     const View4d& dst_view, T* dst) {
  if (src_view.numel() == 0) return;
  TensorDesc src_desc, dst_desc;
  src_desc.Set(op, DataTypeOf<T>::value, src_view);
  dst_desc.Set(op, DataTypeOf<T>::value, dst_view);
  const Scale<T> one = 1;
  CheckCudnn(cudnnTransformTensor(dev.cudnn_handle(), &one, src_desc.get(), src + src_view.offset,
                                  &beta, dst_desc.get(), dst + dst_view.offset),
             "cudnnTransformTensor");
}

template <typename T>
void FillDevice(const platform::CUDADeviceContext& dev, const std::string& /*op*/, T* dst,
                int64_t count, double value) {
  if (count <= 0) return;
  if (value == 0) {
    CheckCuda(cudaMemsetAsync(dst, 0, static_cast<size_t>(count) * sizeof(T), dev.stream()),
              "cudaMemsetAsync");
    return;
  }
  T typed;
  if constexpr (std::is_same_v<T, platform::float16>) {
    typed = platform::float16(static_cast<float>(value));
  } else {
    typed = static_cast<T>(value);
  }
  cuda::FillOnStream<T>(dev.stream(), dst, count, typed);
}

#define PL_CUDNN_UTIL_INSTANTIATE(T)                                                        \
  template void TransformTensor<T>(const platform::CUDADeviceContext&, const std::string&,   \
                                   const View4d&, const T*, Scale<T>, const View4d&, T*);     \
  template void FillDevice<T>(const platform::CUDADeviceContext&, const std::string&, T*,    \
                              int64_t, double);
PL_CUDNN_UTIL_INSTANTIATE(float)
PL_CUDNN_UTIL_INSTANTIATE(double)
PL_CUDNN_UTIL_INSTANTIATE(platform::float16)
#undef PL_CUDNN_UTIL_INSTANTIATE

}  // namespace cudnn
}  // namespace operators
}  // namespace paddle_like
