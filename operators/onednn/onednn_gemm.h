// oneDNN's single-precision GEMM (dnnl_sgemm) behind math::Gemm's interface, for the oneDNN
// kernels that run an algorithm of the plain ones (conv_nchw.h) on its faster GEMM: about
// 140 GFLOP/s on one AVX-512 core against 20 for math::Gemm, which Eigen compiles for the
// baseline instruction set.
//
// Threads: inside a parallel region (work already split, as SplitWork in conv_nchw.cc does)
// oneDNN runs the product on the calling thread; otherwise on `ctx.num_threads()` threads.
// oneDNN partitions the product by its sizes and the thread count only, so results repeat.
#pragma once

#include <cstdint>

#include "platform/device_context.h"

namespace paddle_like {
namespace operators {

// C = alpha * op(A) * op(B) + beta * C, row-major, with math::Gemm's arguments. A failure of
// oneDNN (which validates only the sizes math::Gemm's callers already satisfy) raises
// FatalError.
void OneDNNGemm(const platform::CPUDeviceContext& ctx, bool trans_a, bool trans_b, int64_t M,
                int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
                int64_t ldb, float beta, float* C, int64_t ldc);

}  // namespace operators
}  // namespace paddle_like
