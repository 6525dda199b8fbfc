#include "operators/math/blas.h"

#include <Eigen/Core>
#include <algorithm>
#include <complex>

namespace paddle_like {
namespace operators {
namespace math {

namespace {

template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using MatrixMap = Eigen::Map<RowMajorMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// Rows [m0, m1) of C = alpha * op(A) * op(B) + beta * C, on the calling thread.
template <typename T>
void GemmRows(bool trans_a, bool trans_b, int64_t m0, int64_t m1, int64_t N, int64_t K, T alpha,
              const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  const int64_t rows = m1 - m0;
  if (rows <= 0 || N == 0) return;
  MatrixMap<T> c(C + m0 * ldc, rows, N, Eigen::OuterStride<>(ldc));
  if (K == 0) {  // An empty sum: op(A) * op(B) is all zeros.
    if (beta == T(0)) {
      c.setZero();
    } else {
      c *= beta;
    }
    return;
  }
  auto apply = [&](const auto& a, const auto& b) {
    if (beta == T(0)) {
      c.noalias() = alpha * a * b;
    } else {
      c *= beta;
      c.noalias() += alpha * a * b;
    }
  };
  // Stored B: K x N, or N x K when transposed.
  const ConstMatrixMap<T> b(B, trans_b ? N : K, trans_b ? K : N, Eigen::OuterStride<>(ldb));
  if (!trans_a) {
    const ConstMatrixMap<T> a(A + m0 * lda, rows, K, Eigen::OuterStride<>(lda));
    trans_b ? apply(a, b.transpose()) : apply(a, b);
  } else {
    // Stored A is K x M; rows m0.. of op(A) are its columns m0...
    const ConstMatrixMap<T> a(A + m0, K, rows, Eigen::OuterStride<>(lda));
    trans_b ? apply(a.transpose(), b.transpose()) : apply(a.transpose(), b);
  }
}

// Rows per parallel chunk: enough multiply-adds to pay for handing work to a thread.
int64_t RowGrain(int64_t N, int64_t K) {
  constexpr int64_t kMinWorkPerChunk = 1 << 15;
  const int64_t per_row = std::max<int64_t>(1, N * std::max<int64_t>(K, 1));
  return std::max<int64_t>(1, kMinWorkPerChunk / per_row);
}

}  // namespace

template <typename T>
void Gemm(const platform::CPUDeviceContext& ctx, bool trans_a, bool trans_b, int64_t M, int64_t N,
          int64_t K, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C,
          int64_t ldc) {
  ctx.ParallelFor(M, RowGrain(N, K), [&](int64_t m0, int64_t m1) {
    GemmRows(trans_a, trans_b, m0, m1, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  });
}

template <typename T>
void BatchedGemm(const platform::CPUDeviceContext& ctx, bool trans_a, bool trans_b, int64_t M,
                 int64_t N, int64_t K, T alpha, const T* A, const std::vector<int64_t>& a_offsets,
                 int64_t lda, const T* B, const std::vector<int64_t>& b_offsets, int64_t ldb,
                 T beta, T* C, int64_t ldc) {
  const int64_t batch = static_cast<int64_t>(a_offsets.size());
  if (batch == 0 || M == 0) return;
  // Rows of all batches form one index space [0, batch * M).
  ctx.ParallelFor(batch * M, RowGrain(N, K), [&](int64_t begin, int64_t end) {
    for (int64_t b = begin / M; b * M < end; ++b) {
      const int64_t m0 = std::max(begin - b * M, int64_t{0});
      const int64_t m1 = std::min(end - b * M, M);
      GemmRows(trans_a, trans_b, m0, m1, N, K, alpha, A + a_offsets[b], lda, B + b_offsets[b], ldb,
               beta, C + b * M * ldc, ldc);
    }
  });
}

#define PL_INSTANTIATE_GEMM(T)                                                                    \
  template void Gemm<T>(const platform::CPUDeviceContext&, bool, bool, int64_t, int64_t, int64_t, \
                        T, const T*, int64_t, const T*, int64_t, T, T*, int64_t);                 \
  template void BatchedGemm<T>(const platform::CPUDeviceContext&, bool, bool, int64_t, int64_t,   \
                               int64_t, T, const T*, const std::vector<int64_t>&, int64_t,        \
                               const T*, const std::vector<int64_t>&, int64_t, T, T*, int64_t);
PL_INSTANTIATE_GEMM(float)
PL_INSTANTIATE_GEMM(double)
PL_INSTANTIATE_GEMM(std::complex<float>)
PL_INSTANTIATE_GEMM(std::complex<double>)
PL_INSTANTIATE_GEMM(int32_t)  // Integer matmul (PaddlePaddle's takes int32 and int64).
PL_INSTANTIATE_GEMM(int64_t)
#undef PL_INSTANTIATE_GEMM

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
