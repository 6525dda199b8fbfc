#include "operators/matmul/matmul_compute.h"

#include <complex>
#include <type_traits>
#include <vector>

#include "operators/math/blas.h"
#include "operators/math/reduce.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

// One operand's gradient: per Out batch a `rows` x `cols` matrix that `product(c)` writes at
// c (batch b at c + b * rows * cols), summed over the batch dims the operand broadcast
// along (its batch dims, left-padded with 1s, are `own_batch`).
template <typename T, typename Product>
DenseTensor OperandGrad(const ExecutionContext& ctx, const MatmulV2Shape& s,
                        const std::vector<int64_t>& own_batch, const DDim& dims, int64_t rows,
                        int64_t cols, Product&& product) {
  DenseTensor result(dims, platform::ToDataType<T>());
  T* r = result.mutable_data<T>(ctx.GetPlace());
  const int64_t batches = s.BatchCount();
  int64_t own = 1;
  for (int64_t d : own_batch) own *= d;
  if (own == batches) {
    product(r);
  } else {
    std::vector<T> full(static_cast<size_t>(batches * rows * cols));
    product(full.data());
    std::vector<int64_t> full_dims = s.batch, target = own_batch;
    for (int64_t d : {rows, cols}) {
      full_dims.push_back(d);
      target.push_back(d);
    }
    math::SumToShape(ctx.device_context<platform::CPUDeviceContext>(), full.data(),
                     DDim(full_dims), DDim(target), r);
  }
  return result;
}

// `t` itself, or for complex T its conjugate in `storage`.
template <typename T>
const DenseTensor* ConjugateIfComplex(const DenseTensor& t, DenseTensor* storage) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    *storage = DenseTensor(t.dims(), t.dtype());
    T* o = storage->mutable_data<T>(platform::CPUPlace());
    const T* p = t.numel() > 0 ? t.data<T>() : nullptr;
    for (int64_t i = 0; i < t.numel(); ++i) o[i] = std::conj(p[i]);
    return storage;
  } else {
    return &t;
  }
}

}  // namespace

template <typename T>
void MatmulV2Forward(const platform::CPUDeviceContext& dev, const MatmulV2Shape& s, const T* x,
                     const T* y, T alpha, T* out) {
  std::vector<int64_t> x_offsets, y_offsets;
  s.BatchOffsets(&x_offsets, &y_offsets);
  math::BatchedGemm<T>(dev, s.trans_x, s.trans_y, s.M, s.N, s.K, alpha, x, x_offsets,
                       s.trans_x ? s.M : s.K, y, y_offsets, s.trans_y ? s.K : s.N, T(0), out, s.N);
}

template <typename T>
void MatmulV2Backward(const ExecutionContext& ctx, const MatmulV2Shape& s, const DenseTensor& xt,
                    const DenseTensor& yt, const DenseTensor& doutt, T alpha, DenseTensor* gx,
                    DenseTensor* gy) {
  // Complex operands enter conjugated: dX = dOut * conj(Y)^T, dY = conj(X)^T * dOut (the
  // gradient of a real loss by z = a + ib being dL/da + i dL/db).
  // Each operand is read only by the other's gradient.
  DenseTensor x_conj, y_conj;
  const DenseTensor* x = gy != nullptr ? ConjugateIfComplex<T>(xt, &x_conj) : &xt;
  const DenseTensor* y = gx != nullptr ? ConjugateIfComplex<T>(yt, &y_conj) : &yt;
  const DenseTensor* dout = &doutt;
  const int64_t M = s.M, N = s.N, K = s.K;
  const bool tx = s.trans_x, ty = s.trans_y;
  std::vector<int64_t> x_off, y_off;
  s.BatchOffsets(&x_off, &y_off);
  std::vector<int64_t> d_off(x_off.size());
  for (size_t b = 0; b < d_off.size(); ++b) d_off[b] = static_cast<int64_t>(b) * M * N;
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
  // Empty operands hold no buffer; their products are empty or zero (K = 0).
  const T* xp = x->numel() > 0 ? x->data<T>() : nullptr;
  const T* yp = y->numel() > 0 ? y->data<T>() : nullptr;
  const T* dp = dout->numel() > 0 ? dout->data<T>() : nullptr;
  // C = op(A) * op(B) per batch (C of m x n, ldc n).
  const auto gemm = [&](bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a,
                        const std::vector<int64_t>& a_off, int64_t lda, const T* b,
                        const std::vector<int64_t>& b_off, int64_t ldb, T* c) {
    math::BatchedGemm<T>(dev, ta, tb, m, n, k, alpha, a, a_off, lda, b, b_off, ldb, T(0), c, n);
  };
  if (gx != nullptr) {
    // X's matrix is M x K, stored K x M with trans_x.
    *gx = OperandGrad<T>(ctx, s, s.x_batch, x->dims(), tx ? K : M, tx ? M : K, [&](T* c) {
      if (!tx && !ty) gemm(false, true, M, K, N, dp, d_off, N, yp, y_off, N, c);
      if (tx && !ty) gemm(false, true, K, M, N, yp, y_off, N, dp, d_off, N, c);
      if (!tx && ty) gemm(false, false, M, K, N, dp, d_off, N, yp, y_off, K, c);
      if (tx && ty) gemm(true, true, K, M, N, yp, y_off, K, dp, d_off, N, c);
    });
  }
  if (gy != nullptr) {
    // Y's matrix is K x N, stored N x K with trans_y.
    *gy = OperandGrad<T>(ctx, s, s.y_batch, y->dims(), ty ? N : K, ty ? K : N, [&](T* c) {
      if (!tx && !ty) gemm(true, false, K, N, M, xp, x_off, K, dp, d_off, N, c);
      if (tx && !ty) gemm(false, false, K, N, M, xp, x_off, M, dp, d_off, N, c);
      if (!tx && ty) gemm(true, false, N, K, M, dp, d_off, N, xp, x_off, K, c);
      if (tx && ty) gemm(true, true, N, K, M, dp, d_off, N, xp, x_off, M, c);
    });
  }
}

#define PL_INSTANTIATE_MATMUL(T)                                                                   \
  template void MatmulV2Forward<T>(const platform::CPUDeviceContext&, const MatmulV2Shape&,        \
                                   const T*, const T*, T, T*);                                     \
  template void MatmulV2Backward<T>(const ExecutionContext&, const MatmulV2Shape&,                 \
                                    const DenseTensor&, const DenseTensor&, const DenseTensor&, T, \
                                    DenseTensor*, DenseTensor*);
PL_INSTANTIATE_MATMUL(float)
PL_INSTANTIATE_MATMUL(double)
PL_INSTANTIATE_MATMUL(std::complex<float>)
PL_INSTANTIATE_MATMUL(std::complex<double>)
#undef PL_INSTANTIATE_MATMUL
// Integer products have no gradient.
template void MatmulV2Forward<int32_t>(const platform::CPUDeviceContext&, const MatmulV2Shape&,
                                       const int32_t*, const int32_t*, int32_t, int32_t*);
template void MatmulV2Forward<int64_t>(const platform::CPUDeviceContext&, const MatmulV2Shape&,
                                       const int64_t*, const int64_t*, int64_t, int64_t*);

}  // namespace operators
}  // namespace paddle_like
