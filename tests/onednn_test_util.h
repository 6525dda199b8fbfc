// Tensors in oneDNN's layouts for the oneDNN kernel tests: what a kernel receives from
// another oneDNN kernel when the executor keeps their variable in the library's layout.
#pragma once

#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "operators/onednn/onednn_layout.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {

// A float32 tensor of rank-4 `dims` in oneDNN format `format`, holding `values` (row-major
// NCHW order), with the OneDNNLayout an executor-kept output would carry.
inline DenseTensor OneDNNTensor(const DDim& dims, const std::vector<double>& values,
                                dnnl::memory::format_tag format) {
  const auto f32 = dnnl::memory::data_type::f32;
  const dnnl::memory::desc plain(dims.ToVector(), f32, dnnl::memory::format_tag::abcd);
  const dnnl::memory::desc desc(dims.ToVector(), f32, format);
  DenseTensor t;
  t.Resize(dims);
  t.set_opaque_layout(std::make_shared<operators::OneDNNLayout>(desc, plain));
  void* data = t.mutable_data(platform::CPUPlace(), DataType::FLOAT32);
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  std::vector<float> row_major(values.begin(), values.end());
  dnnl::memory from(plain, engine, row_major.data()), to(desc, engine, data);
  dnnl::stream stream(engine);
  dnnl::reorder(from, to).execute(stream, from, to);
  stream.wait();
  return t;
}

}  // namespace testing
}  // namespace paddle_like
