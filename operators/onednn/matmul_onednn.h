// The dnnl::matmul call the oneDNN matrix kernels (matmul_onednn.cc: matmul_v2 and mul, as
// kernel classes that prepare the primitive per input shape and pack a weight Y once per
// value) share with the grad kernels (matmul_grad_onednn.cc).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "framework/operator.h"

namespace paddle_like {
namespace operators {

// Below this many multiply-adds the matrix kernels hand the product to the plain kernel
// (plain_fallback.h): in tests/benchmarks/onednn_misc_benchmark (2 threads) [64, 250] x
// [250, 10] (160000) takes 15.8 us plain and 19.1 us on oneDNN, [64, 400] x [400, 10]
// (256000) 22.5 and 18.0 us.
constexpr int64_t kOneDNNMatmulMinWork = 200000;

// One operand of RunOneDNNMatmul: a dense buffer read as a [batch..., rows, cols] matrix, or
// as its transpose when `transposed` (stored [batch..., cols, rows]). Batch dims of 1
// broadcast.
struct MatmulOperand {
  dnnl::memory::dims dims;
  bool transposed = false;
  const float* data = nullptr;
};

// dst [batch..., M, N] (dense, row-major) = src [batch..., M, K] x weights [batch..., K, N]
// on dnnl::matmul; `op` names the op in the Fatal error oneDNN failures raise.
void RunOneDNNMatmul(const char* op, const framework::ExecutionContext& ctx,
                     const MatmulOperand& src, const MatmulOperand& weights,
                     const dnnl::memory::dims& dst_dims, float* dst);

}  // namespace operators
}  // namespace paddle_like
