// Helpers of the cuDNN kernels (conv_cudnn.cc, conv_transpose_cudnn.cc, pool_cudnn.cc, ...):
// owning wrappers of cuDNN's descriptors, the cuDNN element type of float and double, and 4-D
// strided views of device buffers, with which the kernels move data between the user's layout
// (NCHW or NHWC) and the packed, possibly padded, NCHW buffers cuDNN computes on.
//
// Every cuDNN and CUDA call is checked (platform::CheckCudnn / CheckCuda: FatalError naming
// the call). Shapes that cuDNN's 32-bit descriptors cannot hold raise UnimplementedError
// naming the op. Wrappers are neither copyable nor shared between threads.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "platform/cuda/cuda_device_context.h"
#include "platform/float16.h"

namespace paddle_like {
namespace operators {
namespace cudnn {

template <typename T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr cudnnDataType_t value = CUDNN_DATA_FLOAT;
};
template <>
struct DataTypeOf<double> {
  static constexpr cudnnDataType_t value = CUDNN_DATA_DOUBLE;
};
template <>
struct DataTypeOf<platform::float16> {
  static constexpr cudnnDataType_t value = CUDNN_DATA_HALF;
};

// The type of cuDNN's scaling factors (alpha, beta) for data of type T: double for double,
// float for float and float16.
template <typename T>
using Scale = std::conditional_t<std::is_same_v<T, double>, double, float>;

// A 4-D view of a device buffer: logical dims [n, c, h, w] with strides in elements,
// starting `offset` elements into the buffer.
struct View4d {
  int64_t dims[4] = {0, 0, 0, 0};
  int64_t strides[4] = {0, 0, 0, 0};
  int64_t offset = 0;

  int64_t numel() const { return dims[0] * dims[1] * dims[2] * dims[3]; }
};

// A packed NCHW tensor [n, c, h, w].
View4d PackedNchw(int64_t n, int64_t c, int64_t h, int64_t w);
// A packed tensor of logical dims [n, c, h, w] stored NCHW, or NHWC when `channel_last`.
View4d UserLayout(int64_t n, int64_t c, int64_t h, int64_t w, bool channel_last);
// The [n, c, h, w] interior of a packed NCHW buffer [n, c, top + h + bottom, left + w + right].
View4d PaddedInterior(int64_t n, int64_t c, int64_t h, int64_t w, int64_t top, int64_t bottom,
                      int64_t left, int64_t right);

// `value` as an int for a cuDNN argument; UnimplementedError naming `op` and `what` when it
// does not fit.
int ToInt(const std::string& op, const char* what, int64_t value);

class TensorDesc {
 public:
  TensorDesc();
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;

  // Describes `v`. UnimplementedError naming `op` when the view spans more elements than
  // cuDNN's int dims and strides address.
  void Set(const std::string& op, cudnnDataType_t type, const View4d& v);
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

class FilterDesc {
 public:
  FilterDesc();
  ~FilterDesc();
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;

  // A packed KCRS filter [k, c, r, s] (PaddlePaddle's [C_out, C_in / groups, kh, kw]).
  void Set(const std::string& op, cudnnDataType_t type, int64_t k, int64_t c, int64_t r,
           int64_t s);
  cudnnFilterDescriptor_t get() const { return desc_; }

 private:
  cudnnFilterDescriptor_t desc_ = nullptr;
};

class ConvDesc {
 public:
  ConvDesc();
  ~ConvDesc();
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  cudnnConvolutionDescriptor_t get() const { return desc_; }

 private:
  cudnnConvolutionDescriptor_t desc_ = nullptr;
};

class PoolDesc {
 public:
  PoolDesc();
  ~PoolDesc();
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
  cudnnPoolingDescriptor_t get() const { return desc_; }

 private:
  cudnnPoolingDescriptor_t desc_ = nullptr;
};

class ActivationDesc {
 public:
  ActivationDesc();
  ~ActivationDesc();
  ActivationDesc(const ActivationDesc&) = delete;
  ActivationDesc& operator=(const ActivationDesc&) = delete;
  cudnnActivationDescriptor_t get() const { return desc_; }

 private:
  cudnnActivationDescriptor_t desc_ = nullptr;
};

class OpTensorDesc {
 public:
  OpTensorDesc();
  ~OpTensorDesc();
  OpTensorDesc(const OpTensorDesc&) = delete;
  OpTensorDesc& operator=(const OpTensorDesc&) = delete;
  cudnnOpTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnOpTensorDescriptor_t desc_ = nullptr;
};

// dst = src + beta * dst over views of equal dims (layout changes, copies into and out of
// padded buffers, accumulation with beta = 1). T: float, double or float16. The views must
// not overlap.
template <typename T>
void TransformTensor(const platform::CUDADeviceContext& dev, const std::string& op,
                     const View4d& src_view, const T* src, Scale<T> beta,
                     const View4d& dst_view, T* dst);

// Sets the `count` elements at `dst` to `value` (converted to T) on the context's stream.
template <typename T>
void FillDevice(const platform::CUDADeviceContext& dev, const std::string& op, T* dst,
                int64_t count, double value);

// A device buffer of `count` elements of T on the context's device, kept alive by the
// returned allocation (work queued on the stream may use it after the allocation is freed:
// the caching allocator hands it out again only to work queued behind, cuda_allocator.h).
template <typename T>
T* TemporaryBuffer(const platform::CUDADeviceContext& dev, int64_t count,
                   platform::AllocationPtr* holder) {
  *holder = dev.Temporary(static_cast<size_t>(count > 0 ? count : 1) * sizeof(T));
  return static_cast<T*>((*holder)->ptr());
}

}  // namespace cudnn
}  // namespace operators
}  // namespace paddle_like
