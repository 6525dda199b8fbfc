// float16 on the device (nvcc only): conversions of platform::float16 (IEEE half storage)
// to and from float with CUDA's intrinsics, and the adaptor that runs a functor written for
// float on float16 storage: each value is widened to float, computed in float and rounded
// once to half, as cuDNN and cuBLAS do with float compute types.
#pragma once

#include <cuda_fp16.h>

#include "platform/float16.h"

namespace paddle_like {
namespace operators {
namespace cuda {

__device__ __forceinline__ float HalfToFloat(platform::float16 h) {
  return __half2float(__ushort_as_half(h.x));
}

__device__ __forceinline__ platform::float16 FloatToHalf(float f) {
  platform::float16 h;
  h.x = __half_as_ushort(__float2half_rn(f));
  return h;
}

// A value as double, and a double as T: through float for float16 (sums accumulated in
// double read and write their elements with these).
template <typename T>
__device__ __forceinline__ double ToDouble(T v) {
  return static_cast<double>(v);
}
template <>
__device__ __forceinline__ double ToDouble(platform::float16 v) {
  return HalfToFloat(v);
}
template <typename T>
__device__ __forceinline__ T FromDouble(double v) {
  return static_cast<T>(v);
}
template <>
__device__ __forceinline__ platform::float16 FromDouble(double v) {
  return FloatToHalf(static_cast<float>(v));
}

// F, a functor of float values, on float16 values.
template <typename F>
struct HalfViaFloat {
  F f;
  __device__ platform::float16 operator()(platform::float16 a) const {
    return FloatToHalf(f(HalfToFloat(a)));
  }
  __device__ platform::float16 operator()(platform::float16 a, platform::float16 b) const {
    return FloatToHalf(f(HalfToFloat(a), HalfToFloat(b)));
  }
};

// The functor a CUDA kernel of element type T runs for the functor template F: F<T>, and for
// float16 F<float> through HalfViaFloat.
template <typename T, template <typename> class F>
struct DeviceFunctor {
  using type = F<T>;
};
template <template <typename> class F>
struct DeviceFunctor<platform::float16, F> {
  using type = HalfViaFloat<F<float>>;
};

}  // namespace cuda
}  // namespace operators
}  // namespace paddle_like
