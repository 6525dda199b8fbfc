// CUDA kernels of arg_max, arg_min and top_k (float, double, int32, int64) and top_k_grad (float,
// double), on the CPU kernels' host-side checks and orders (arg_max_op.h: first maximum on
// ties, first NaN wins; top_k_op.h: larger first, NaN above all, ties by index). arg_max runs
// one thread per searched line (a flattened search runs on one thread). top_k ranks each
// element against its row, one thread per element (O(n^2) per row: meant for the short rows
// of classification heads), and writes those ranked below k: the CPU's values, with equal
// values by index where the CPU kernel follows PaddlePaddle's CPU order (paddle_line_order.h).
#include <type_traits>

#include "framework/data_transform.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/search/arg_max_op.h"
#include "operators/search/top_k_op.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DenseTensor;
using framework::ExecutionContext;

template <bool kMax, typename T, typename IndexT>
__global__ void ArgExtremeLines(const T* x, IndexT* out, int64_t outer, int64_t n, int64_t inner) {
  const int64_t lines = outer * inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < lines;
       k += step) {
    const int64_t o = k / inner, i = k % inner;
    out[k] = static_cast<IndexT>(ArgExtremeAlong<kMax>(x + o * n * inner + i, n, inner));
  }
}

template <bool kMax>
struct ArgExtremeCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor x = *ctx.Input("X");
      DataType out_type;
      const ArgMaxShape s = PrepareArgMax(ctx, &out_type);
      DenseTensor* out = ctx.Output("Out");
      const int64_t lines = s.outer * s.inner;
      const auto launch = [&](auto* o) {
        using IndexT = std::remove_pointer_t<decltype(o)>;
        if (lines == 0) return;
        ArgExtremeLines<kMax, T, IndexT>
            <<<cuda::Blocks(lines), cuda::kThreads, 0, cuda::Stream(ctx)>>>(x.data<T>(), o, s.outer,
                                                                            s.n, s.inner);
        cuda::CheckLaunch(ctx);
      };
      if (out_type == DataType::INT32) {
        launch(out->mutable_data<int32_t>(ctx.GetPlace()));
      } else {
        launch(out->mutable_data<int64_t>(ctx.GetPlace()));
      }
    }
  };
};

// Element a of row r goes to place rank(a) of the row's top k, where rank(a) counts the
// elements before it in top_k's order (unique: the order is total).
template <typename T>
__global__ void TopKRanks(const T* x, int64_t rows, int64_t n, int64_t k, T* out, int64_t* idx) {
  const int64_t total = rows * n;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    const int64_t r = e / n, a = e % n;
    const T* row = x + r * n;
    int64_t rank = 0;
    for (int64_t b = 0; b < n && rank < k; ++b) {
      if (TopKBefore(row, b, a)) ++rank;
    }
    if (rank < k) {
      out[r * k + rank] = row[a];
      idx[r * k + rank] = a;
    }
  }
}

template <typename T>
struct TopKCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const TopKShape s = PrepareTopK(ctx);
    T* out = ctx.Output("Out")->mutable_data<T>(ctx.GetPlace());
    int64_t* idx = ctx.Output("Indices")->mutable_data<int64_t>(ctx.GetPlace());
    const int64_t total = s.rows * s.n;
    if (total == 0) return;
    TopKRanks<T><<<cuda::Blocks(total), cuda::kThreads, 0, cuda::Stream(ctx)>>>(x.data<T>(), s.rows,
                                                                                s.n, s.k, out, idx);
    cuda::CheckLaunch(ctx);
  }
};

// dx[r, c] = the sum of dout[r, j] over the j with idx[r, j] == c, in increasing j (the
// CPU's order of additions), one thread per element of dx.
template <typename T>
__global__ void TopKGradElements(const T* g, const int64_t* idx, int64_t rows, int64_t n, int64_t k,
                                 T* dx) {
  const int64_t total = rows * n;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += step) {
    const int64_t r = e / n, c = e % n;
    T sum = T(0);
    for (int64_t j = 0; j < k; ++j) {
      if (idx[r * k + j] == c) sum += g[r * k + j];
    }
    dx[e] = sum;
  }
}

template <typename T>
struct TopKGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor indices = *ctx.Input("Indices");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    const TopKShape s = CheckTopKGradInputs(ctx);
    // The indices are checked on the host, as the CPU kernel checks them.
    const DenseTensor host = framework::OnCpu(indices);
    const int64_t* h = indices.numel() > 0 ? host.data<int64_t>() : nullptr;
    for (int64_t i = 0; i < indices.numel(); ++i) CheckTopKIndex(h[i], s.n);
    DenseTensor dx(x.dims(), dout.dtype());
    T* o = dx.mutable_data<T>(ctx.GetPlace());
    const int64_t total = s.rows * s.n;
    if (total > 0) {
      TopKGradElements<T><<<cuda::Blocks(total), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          s.k > 0 ? dout.data<T>() : nullptr, s.k > 0 ? indices.data<int64_t>() : nullptr, s.rows,
          s.n, s.k, o);
      cuda::CheckLaunch(ctx);
    }
    dx.set_lod(x.lod());
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

CudaKernelTable SearchCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<ArgExtremeCudaKernel<true>::Kernel, float, double, int32_t, int64_t>(&table,
                                                                                      kArgMaxOp);
  AddCudaKernels<ArgExtremeCudaKernel<false>::Kernel, float, double, int32_t, int64_t>(&table,
                                                                                       kArgMinOp);
  AddCudaKernels<TopKCudaKernel, float, double, int32_t, int64_t>(&table, "top_k");
  AddCudaKernels<TopKGradCudaKernel, float, double>(&table, "top_k_grad");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
