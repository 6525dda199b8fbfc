// Small helpers that put DenseTensors behind dnnl::memory objects (float32 on the CPU).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>

#include "framework/dense_tensor.h"

namespace paddle_like {
namespace operators {

// Runs `primitive` on `args` as dnnl::primitive::execute does, without the std::vector copy
// of the arguments that execute allocates on every call.
inline void Execute(const dnnl::primitive& primitive, const dnnl::stream& stream,
                    const std::unordered_map<int, dnnl::memory>& args) {
  constexpr size_t kMaxArgs = 16;  // More than any primitive here takes.
  if (args.size() > kMaxArgs) {
    primitive.execute(stream, args);
    return;
  }
  dnnl_exec_arg_t c_args[kMaxArgs];
  int n = 0;
  for (const auto& a : args) c_args[n++] = {a.first, a.second.get(true)};
  dnnl::error::wrap_c_api(dnnl_primitive_execute(primitive.get(), stream.get(), n, c_args),
                          "could not execute a primitive");
}

// A dense row-major float32 descriptor of `dims` (rank >= 1; size-1 dims allowed, the
// broadcast operand of dnnl::binary).
inline dnnl::memory::desc RowMajorDesc(const framework::DDim& dims) {
  const dnnl::memory::dims d = dims.ToVector();
  dnnl::memory::dims strides(d.size());
  dnnl::memory::dim s = 1;
  for (size_t i = d.size(); i-- > 0;) {
    strides[i] = s;
    s *= d[i];
  }
  return dnnl::memory::desc(d, dnnl::memory::data_type::f32, strides);
}

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
