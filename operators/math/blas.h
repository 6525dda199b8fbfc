// GEMM on the CPU for the matrix ops (matmul_v2, mul): plain C++ interface, Eigen inside.
//
// Matrices are row-major. op(A) is A or its transpose: A is stored as M x K (trans_a false)
// or K x M (trans_a true) with leading dimension lda (elements between rows); likewise B is
// K x N or N x K with ldb, and C is M x N with ldc.
//
// Work is split over rows of C with ctx.ParallelFor; the split depends only on the sizes and
// the context's thread count, so results are reproducible run to run. C must not overlap A
// or B. With beta == 0, C is not read (it may hold garbage). T: float, double,
// std::complex<float>, std::complex<double>.
#pragma once

#include <cstdint>
#include <vector>

#include "platform/device_context.h"

namespace paddle_like {
namespace operators {
namespace math {

// C = alpha * op(A) * op(B) + beta * C.
template <typename T>
void Gemm(const platform::CPUDeviceContext& ctx, bool trans_a, bool trans_b, int64_t M, int64_t N,
          int64_t K, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C,
          int64_t ldc);

// A GEMM with Gemm's interface and contract, for algorithms that callers may run on a faster
// one for their type (the oneDNN kernels bring oneDNN's sgemm: onednn/onednn_gemm.h).
template <typename T>
using GemmFn = void (*)(const platform::CPUDeviceContext&, bool trans_a, bool trans_b, int64_t M,
                        int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
                        int64_t ldb, T beta, T* C, int64_t ldc);

// For every b in [0, a_offsets.size()): C_b = alpha * op(A_b) * op(B_b) + beta * C_b with
// A_b = A + a_offsets[b], B_b = B + b_offsets[b] and C_b = C + b * M * ldc. The offsets let
// broadcast batches share one matrix. All rows of all batches are split over the threads
// together, so many small matrices still use every thread.
template <typename T>
void BatchedGemm(const platform::CPUDeviceContext& ctx, bool trans_a, bool trans_b, int64_t M,
                 int64_t N, int64_t K, T alpha, const T* A, const std::vector<int64_t>& a_offsets,
                 int64_t lda, const T* B, const std::vector<int64_t>& b_offsets, int64_t ldb,
                 T beta, T* C, int64_t ldc);

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
