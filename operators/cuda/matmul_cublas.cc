// CUDA kernels of mul, matmul_v2, matmul (1.x) and their grads on cuBLAS. Shapes come from the
// shape rules the CPU kernels use (matmul/matmul_shape.h). cuBLAS runs in its default math
// mode: float products are computed in float (no TF32), so they match the CPU kernels closely;
// float16 products accumulate in float.
#include <cublas_v2.h>

#include <type_traits>
#include <vector>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/math/broadcast_cuda.h"
#include "operators/matmul/matmul_shape.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

// C[M, N] = op(A) * op(B) for row-major matrices, `batch` of them at the given element
// strides (a stride of 0 reuses one matrix). cuBLAS is column-major: it computes
// C^T = op(B)^T * op(A)^T, which is the same memory.
struct GemmArgs {
  bool trans_a = false, trans_b = false;
  int64_t M = 0, N = 0, K = 0;
  int64_t batch = 1, stride_a = 0, stride_b = 0, stride_c = 0;
  double alpha = 1;  // C = alpha * op(A) * op(B).
};

void CheckDims(const ExecutionContext& ctx, const GemmArgs& g) {
  const int64_t limit = 0x7fffffff;
  PL_ENFORCE(g.M <= limit && g.N <= limit && g.K <= limit && g.batch <= limit,
             errors::InvalidArgument("op `%s`: matrix dims M=%lld N=%lld K=%lld (batch %lld) "
                                     "exceed cuBLAS's 32-bit limits",
                                     ctx.Type(), static_cast<long long>(g.M),
                                     static_cast<long long>(g.N), static_cast<long long>(g.K),
                                     static_cast<long long>(g.batch)));
}

cublasStatus_t GemmCall(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n,
                        int m, int k, const float* alpha, const float* b, int ldb,
                        int64_t stride_b, const float* a, int lda, int64_t stride_a,
                        const float* beta, float* c, int ldc, int64_t stride_c, int batch) {
  if (batch == 1) return cublasSgemm(h, tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
  return cublasSgemmStridedBatched(h, tb, ta, n, m, k, alpha, b, ldb, stride_b, a, lda, stride_a,
                                   beta, c, ldc, stride_c, batch);
}
cublasStatus_t GemmCall(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n,
                        int m, int k, const double* alpha, const double* b, int ldb,
                        int64_t stride_b, const double* a, int lda, int64_t stride_a,
                        const double* beta, double* c, int ldc, int64_t stride_c, int batch) {
  if (batch == 1) return cublasDgemm(h, tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
  return cublasDgemmStridedBatched(h, tb, ta, n, m, k, alpha, b, ldb, stride_b, a, lda, stride_a,
                                   beta, c, ldc, stride_c, batch);
}

// float16 operands with float accumulation (cuBLAS's CUBLAS_COMPUTE_32F; tensor cores may
// run it, their products are exact in float).
cublasStatus_t GemmCall(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n,
                        int m, int k, const float* alpha, const platform::float16* b, int ldb,
                        int64_t stride_b, const platform::float16* a, int lda, int64_t stride_a,
                        const float* beta, platform::float16* c, int ldc, int64_t stride_c,
                        int batch) {
  if (batch == 1) {
    return cublasGemmEx(h, tb, ta, n, m, k, alpha, b, CUDA_R_16F, ldb, a, CUDA_R_16F, lda, beta,
                        c, CUDA_R_16F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  return cublasGemmStridedBatchedEx(h, tb, ta, n, m, k, alpha, b, CUDA_R_16F, ldb, stride_b, a,
                                    CUDA_R_16F, lda, stride_a, beta, c, CUDA_R_16F, ldc, stride_c,
                                    batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

// The type of alpha and beta: float for float16 operands.
template <typename T>
using GemmScalar = std::conditional_t<std::is_same_v<T, platform::float16>, float, T>;

template <typename T>
void Gemm(const ExecutionContext& ctx, const GemmArgs& g, const T* a, const T* b, T* c) {
  if (g.M == 0 || g.N == 0 || g.batch == 0) return;
  CheckDims(ctx, g);
  const GemmScalar<T> alpha = static_cast<GemmScalar<T>>(g.alpha), beta = 0;
  if (g.K == 0) {  // An empty sum: C = 0.
    platform::CheckCuda(cudaMemsetAsync(c, 0, sizeof(T) * g.M * g.N * g.batch, cuda::Stream(ctx)),
                        "cudaMemsetAsync");
    return;
  }
  const int lda = static_cast<int>(g.trans_a ? g.M : g.K);
  const int ldb = static_cast<int>(g.trans_b ? g.K : g.N);
  platform::CheckCublas(
      GemmCall(cuda::Device(ctx).cublas_handle(), g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
               g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(g.N),
               static_cast<int>(g.M), static_cast<int>(g.K), &alpha, b, ldb, g.stride_b, a, lda,
               g.stride_a, &beta, c, static_cast<int>(g.N), g.stride_c,
               static_cast<int>(g.batch)),
      "cuBLAS gemm");
}

template <typename T>
struct MulCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor y = *ctx.Input("Y");
    CheckOperandTypes(ctx.Type(), x, y, platform::ToDataType<T>());
    const MulShape s = AnalyzeMul(ctx.Type(), x.dims(), y.dims(), ctx.Attr<int>("x_num_col_dims"),
                                  ctx.Attr<int>("y_num_col_dims"));
    DenseTensor result(s.out_dims, x.dtype());
    GemmArgs g;
    g.M = s.M, g.N = s.N, g.K = s.K;
    Gemm<T>(ctx, g, x.data<T>(), y.data<T>(), result.mutable_data<T>(ctx.GetPlace()));
    result.set_lod(x.lod());
    *ctx.Output("Out") = std::move(result);
  }
};

template <typename T>
struct MulGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor y = *ctx.Input("Y");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    const MulShape s = AnalyzeMul(ctx.Type(), x.dims(), y.dims(), ctx.Attr<int>("x_num_col_dims"),
                                  ctx.Attr<int>("y_num_col_dims"));
    PL_ENFORCE(dout.numel() == s.M * s.N,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld elements (Out's "
                                       "shape %s), received shape %s",
                                       ctx.Type(), static_cast<long long>(s.M * s.N),
                                       s.out_dims.ToString(), dout.dims().ToString()));
    if (DenseTensor* dx = ctx.Output("X@GRAD")) {  // dX[M, K] = dOut[M, N] * Y^T
      DenseTensor r(x.dims(), x.dtype());
      GemmArgs g;
      g.trans_b = true;
      g.M = s.M, g.N = s.K, g.K = s.N;
      Gemm<T>(ctx, g, dout.data<T>(), y.data<T>(), r.mutable_data<T>(ctx.GetPlace()));
      r.set_lod(x.lod());
      *dx = std::move(r);
    }
    if (DenseTensor* dy = ctx.Output("Y@GRAD")) {  // dY[K, N] = X^T * dOut[M, N]
      DenseTensor r(y.dims(), y.dtype());
      GemmArgs g;
      g.trans_a = true;
      g.M = s.K, g.N = s.N, g.K = s.M;
      Gemm<T>(ctx, g, x.data<T>(), dout.data<T>(), r.mutable_data<T>(ctx.GetPlace()));
      *dy = std::move(r);
    }
  }
};

// The batches of a matmul_v2 as gemm calls: one strided-batched call when the operands'
// offsets step evenly (0 for a broadcast operand), else one call per batch.
template <typename T>
void BatchedGemm(const ExecutionContext& ctx, GemmArgs g, const T* a,
                 const std::vector<int64_t>& a_offsets, const T* b,
                 const std::vector<int64_t>& b_offsets, T* c) {
  const int64_t n = static_cast<int64_t>(a_offsets.size());
  const auto even = [&](const std::vector<int64_t>& o, int64_t* stride) {
    *stride = n > 1 ? o[1] - o[0] : 0;
    for (int64_t i = 0; i < n; ++i) {
      if (o[i] != o[0] + i * *stride) return false;
    }
    return true;
  };
  g.stride_c = g.M * g.N;
  if (even(a_offsets, &g.stride_a) && even(b_offsets, &g.stride_b)) {
    g.batch = n;
    Gemm<T>(ctx, g, a + (n > 0 ? a_offsets[0] : 0), b + (n > 0 ? b_offsets[0] : 0), c);
    return;
  }
  g.batch = 1;
  for (int64_t i = 0; i < n; ++i) {
    Gemm<T>(ctx, g, a + a_offsets[i], b + b_offsets[i], c + i * g.stride_c);
  }
}

// Out = alpha * op(X) * op(Y) under matmul_v2's rules (shape `s` from AnalyzeMatmulV2).
template <typename T>
DenseTensor MatmulForward(const ExecutionContext& ctx, const MatmulV2Shape& s,
                          const DenseTensor& x, const DenseTensor& y, double alpha) {
  DenseTensor result(s.out_dims, x.dtype());
  T* o = result.mutable_data<T>(ctx.GetPlace());
  std::vector<int64_t> xo, yo;
  s.BatchOffsets(&xo, &yo);
  GemmArgs g;
  g.trans_a = s.trans_x, g.trans_b = s.trans_y;
  g.M = s.M, g.N = s.N, g.K = s.K;
  g.alpha = alpha;
  BatchedGemm<T>(ctx, g, x.data<T>(), xo, y.data<T>(), yo, o);
  return result;
}

template <typename T>
struct MatmulV2CudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor y = *ctx.Input("Y");
    CheckOperandTypes(ctx.Type(), x, y, platform::ToDataType<T>());
    const MatmulV2Shape s = AnalyzeMatmulV2(ctx.Type(), x.dims(), y.dims(),
                                            ctx.Attr<bool>("trans_x"), ctx.Attr<bool>("trans_y"));
    *ctx.Output("Out") = MatmulForward<T>(ctx, s, x, y, 1.0);
  }
};

// Batch dims padded with 1s, then the two matrix dims: the operand as Out's batches see it.
DDim BatchedDims(const std::vector<int64_t>& batch, int64_t rows, int64_t cols) {
  std::vector<int64_t> d = batch;
  d.push_back(rows);
  d.push_back(cols);
  return DDim(d);
}

// The gradients of Out = alpha * op(X) * op(Y) (shape `s` from AnalyzeMatmulV2) for the
// non-null ones of dx and dy, each with its operand's dims.
template <typename T>
void MatmulBackward(const ExecutionContext& ctx, const MatmulV2Shape& s, const DenseTensor& x,
                    const DenseTensor& y, const DenseTensor& dout, double alpha,
                    DenseTensor* dx, DenseTensor* dy) {
  std::vector<int64_t> xo, yo;
  s.BatchOffsets(&xo, &yo);
  const int64_t batches = s.BatchCount();
  std::vector<int64_t> out_offsets(static_cast<size_t>(batches));
  for (int64_t i = 0; i < batches; ++i) out_offsets[i] = i * s.M * s.N;
  const T* g = dout.data<T>();
  // Each gradient is computed per Out batch, then summed over the batches its operand was
  // broadcast along.
  const auto write = [&](const DenseTensor& operand, const std::vector<int64_t>& own_batch,
                         int64_t rows, int64_t cols, GemmArgs args, const T* a,
                         const std::vector<int64_t>& a_off, const T* b,
                         const std::vector<int64_t>& b_off, DenseTensor* grad) {
    DenseTensor r(operand.dims(), operand.dtype());
    T* rp = r.mutable_data<T>(ctx.GetPlace());
    args.M = rows, args.N = cols;
    args.alpha = alpha;
    if (own_batch == s.batch) {
      BatchedGemm<T>(ctx, args, a, a_off, b, b_off, rp);
    } else {
      auto full = cuda::Device(ctx).Temporary(sizeof(T) * batches * rows * cols);
      T* fp = static_cast<T*>(full->ptr());
      BatchedGemm<T>(ctx, args, a, a_off, b, b_off, fp);
      math::SumToShapeCuda<T>(cuda::Stream(ctx), fp, BatchedDims(s.batch, rows, cols),
                              BatchedDims(own_batch, rows, cols), 1.0, rp);
    }
    *grad = std::move(r);
  };
  if (dx != nullptr) {
    GemmArgs args;
    args.K = s.N;
    if (!s.trans_x) {  // dX[M, K] = dOut[M, N] * op(Y)^T
      args.trans_a = false, args.trans_b = !s.trans_y;
      write(x, s.x_batch, s.M, s.K, args, g, out_offsets, y.data<T>(), yo, dx);
    } else {  // dX[K, M] = op(Y)[K, N] * dOut^T
      args.trans_a = s.trans_y, args.trans_b = true;
      write(x, s.x_batch, s.K, s.M, args, y.data<T>(), yo, g, out_offsets, dx);
    }
  }
  if (dy != nullptr) {
    GemmArgs args;
    args.K = s.M;
    if (!s.trans_y) {  // dY[K, N] = op(X)^T[K, M] * dOut[M, N]
      args.trans_a = !s.trans_x, args.trans_b = false;
      write(y, s.y_batch, s.K, s.N, args, x.data<T>(), xo, g, out_offsets, dy);
    } else {  // dY[N, K] = dOut^T[N, M] * op(X)[M, K]
      args.trans_a = true, args.trans_b = s.trans_x;
      write(y, s.y_batch, s.N, s.K, args, g, out_offsets, x.data<T>(), xo, dy);
    }
  }
}

template <typename T>
struct MatmulV2GradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor y = *ctx.Input("Y");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    const MatmulV2Shape s = AnalyzeMatmulV2(ctx.Type(), x.dims(), y.dims(),
                                            ctx.Attr<bool>("trans_x"), ctx.Attr<bool>("trans_y"));
    PL_ENFORCE(dout.numel() == s.out_dims.numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected Out's shape %s, "
                                       "received %s",
                                       ctx.Type(), s.out_dims.ToString(), dout.dims().ToString()));
    MatmulBackward<T>(ctx, s, x, y, dout, 1.0, ctx.Output("X@GRAD"), ctx.Output("Y@GRAD"));
  }
};

// `t` with the dims `dims` (same element count), sharing its buffer.
DenseTensor View(const DenseTensor& t, const DDim& dims) {
  DenseTensor v = t;
  v.Resize(dims);
  return v;
}

// matmul (1.x): matmul_v2's computation on the operands as AnalyzeMatmulV1Op reads them.
template <typename T>
struct MatmulCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor& x = *ctx.Input("X");
    const DenseTensor& y = *ctx.Input("Y");
    CheckOperandTypes(ctx.Type(), x, y, platform::ToDataType<T>());
    const MatmulV1Shape s = AnalyzeMatmulV1Op(ctx.Type(), x.dims(), y.dims(), ctx.op().Attrs());
    DenseTensor out = MatmulForward<T>(ctx, s.v2, View(x, s.x), View(y, s.y),
                                       ctx.Attr<float>("alpha"));
    *ctx.Output("Out") = View(out, s.out_dims);
  }
};

template <typename T>
struct MatmulGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor& x = *ctx.Input("X");
    const DenseTensor& y = *ctx.Input("Y");
    const DenseTensor& dout = *ctx.Input("Out@GRAD");
    CheckOperandTypes(ctx.Type(), x, y, platform::ToDataType<T>());
    const MatmulV1Shape s = AnalyzeMatmulV1Op(ctx.Type(), x.dims(), y.dims(), ctx.op().Attrs());
    PL_ENFORCE(dout.dims() == s.out_dims,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), s.out_dims.ToString(), dout.dims().ToString()));
    DenseTensor* dx = ctx.Output("X@GRAD");
    DenseTensor* dy = ctx.Output("Y@GRAD");
    DenseTensor gx, gy;
    MatmulBackward<T>(ctx, s.v2, View(x, s.x), View(y, s.y), View(dout, s.v2.out_dims),
                      ctx.Attr<float>("alpha"), dx ? &gx : nullptr, dy ? &gy : nullptr);
    if (dx != nullptr) *dx = View(gx, x.dims());
    if (dy != nullptr) *dy = View(gy, y.dims());
  }
};

}  // namespace

CudaKernelTable MatmulCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<MulCudaKernel, float, double>(&table, "mul");
  AddCudaKernels<MulGradCudaKernel, float, double>(&table, "mul_grad");
  AddCudaKernels<MatmulV2CudaKernel, float, double>(&table, "matmul_v2");
  AddCudaKernels<MatmulV2GradCudaKernel, float, double>(&table, "matmul_v2_grad");
  AddCudaKernels<MatmulCudaKernel, float, double>(&table, "matmul");
  AddCudaKernels<MatmulGradCudaKernel, float, double>(&table, "matmul_grad");
  // float16 operands, accumulated in float.
  AddCudaKernels<MulCudaKernel, platform::float16>(&table, "mul");
  AddCudaKernels<MulGradCudaKernel, platform::float16>(&table, "mul_grad");
  AddCudaKernels<MatmulV2CudaKernel, platform::float16>(&table, "matmul_v2");
  AddCudaKernels<MatmulV2GradCudaKernel, platform::float16>(&table, "matmul_v2_grad");
  AddCudaKernels<MatmulCudaKernel, platform::float16>(&table, "matmul");
  AddCudaKernels<MatmulGradCudaKernel, platform::float16>(&table, "matmul_grad");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
