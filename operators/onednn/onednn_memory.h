// Small helpers that put DenseTensors behind dnnl::memory objects (float32 on the CPU).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "framework/dense_tensor.h"

namespace paddle_like {
namespace operators {

// `t`'s buffer as memory of `md`. oneDNN takes non-const handles; inputs are only read.
inline dnnl::memory WrapTensor(const dnnl::memory::desc& md, const dnnl::engine& engine,
                               const framework::DenseTensor& t) {
  return dnnl::memory(md, engine, const_cast<float*>(t.data<float>()));
}

// `out` resized to `dims` with a float buffer, or `scratch` so when `out` is null (an
// optional output the op does not ask for, which the primitive writes anyway).
inline framework::DenseTensor* TargetOrScratch(framework::DenseTensor* out,
                                               const framework::DDim& dims,
                                               framework::DenseTensor* scratch) {
  framework::DenseTensor* target = out != nullptr ? out : scratch;
  target->Resize(dims);
  target->mutable_data<float>(platform::CPUPlace());
  return target;
}

// A [n] float tensor holding `value`: a parameter the op does not have (gamma 1), or one
// the primitive takes but does not read (the shift of a backward pass).
inline framework::DenseTensor FilledTensor(int64_t n, float value) {
  framework::DenseTensor t(framework::DDim({n}), platform::DataType::FLOAT32);
  float* p = t.mutable_data<float>(platform::CPUPlace());
  for (int64_t i = 0; i < n; ++i) p[i] = value;
  return t;
}

}  // namespace operators
}  // namespace paddle_like
