// CUDA kernel of arg_max (float, double, int32, int64), from the search of arg_max_op.h
// shared with the CPU kernel (first maximum on ties, first NaN wins) and its host-side checks.
// One thread per searched line: a flattened search runs on one thread.
#include <type_traits>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/search/arg_max_op.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DenseTensor;
using framework::ExecutionContext;

template <typename T, typename IndexT>
__global__ void ArgMaxLines(const T* x, IndexT* out, int64_t outer, int64_t n, int64_t inner) {
  const int64_t lines = outer * inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < lines;
       k += step) {
    const int64_t o = k / inner, i = k % inner;
    out[k] = static_cast<IndexT>(ArgMaxAlong(x + o * n * inner + i, n, inner));
  }
}

template <typename T>
struct ArgMaxCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DataType out_type;
    const ArgMaxShape s = PrepareArgMax(ctx, &out_type);
    DenseTensor* out = ctx.Output("Out");
    const int64_t lines = s.outer * s.inner;
    const auto launch = [&](auto* o) {
      using IndexT = std::remove_pointer_t<decltype(o)>;
      if (lines == 0) return;
      ArgMaxLines<T, IndexT><<<cuda::Blocks(lines), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          x.data<T>(), o, s.outer, s.n, s.inner);
      cuda::CheckLaunch(ctx);
    };
    if (out_type == DataType::INT32) {
      launch(out->mutable_data<int32_t>(ctx.GetPlace()));
    } else {
      launch(out->mutable_data<int64_t>(ctx.GetPlace()));
    }
  }
};

}  // namespace

CudaKernelTable SearchCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<ArgMaxCudaKernel, float, double, int32_t, int64_t>(&table, kArgMaxOp);
  return table;
}

}  // namespace operators
}  // namespace paddle_like
