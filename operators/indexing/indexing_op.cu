// CUDA kernels of gather and index_select and their grad ops, on the CPU kernels' host side
// (index_util.h): the indices are copied to the host once and checked there, so an index out
// of range raises the CPU kernel's error before any launch. The gradients are deterministic
// without atomics: the host groups the positions of each index value (BucketPositions), and
// one thread per element of dX sums them in the CPU kernel's order (the two agree bitwise).
#include <string>
#include <vector>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/index_kernels.cuh"
#include "operators/indexing/index_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

// What a gather-like kernel resolved on the host: X split at the indexed axis, the checked
// indices and Out's dims.
struct Selection {
  AxisSplit split;
  std::vector<int64_t> index;
  DDim out_dims;
};

Selection ResolveSelection(const ExecutionContext& ctx, const DDim& x) {
  const DenseTensor& index_t = *ctx.Input("Index");
  Selection s;
  if (ctx.Type().rfind("gather", 0) == 0) {
    const int axis = GatherAxis(ctx, x.size());
    s.out_dims = GatherDims(ctx.Type(), x, index_t.dims(), axis);
    s.index = ReadIndices(ctx.Type(), "Index", index_t, x[axis], /*allow_negative=*/false);
    s.split = SplitAtAxis(x, axis);
  } else {
    const int dim = NormalizeAxis(ctx.Type(), "attribute `dim`", ctx.Attr<int>("dim"), x.size());
    s.out_dims = IndexSelectDims(ctx.Type(), x, index_t.dims(), dim);
    s.index = ReadIndices(ctx.Type(), "Index", index_t, x[dim], /*allow_negative=*/true);
    s.split = SplitAtAxis(x, dim);
  }
  return s;
}

template <typename T>
struct GatherCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const Selection s = ResolveSelection(ctx, x.dims());
    DenseTensor fresh(s.out_dims, x.dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const auto n = static_cast<int64_t>(s.index.size());
    if (fresh.numel() > 0) {
      const DenseTensor index = cuda::UploadInt64(ctx, s.index);
      cuda::GatherSlices<T>(ctx, x.data<T>(), s.split.outer, s.split.axis, s.split.inner,
                            index.data<int64_t>(), n, out);
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct GatherGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    const Selection s = ResolveSelection(ctx, x.dims());
    PL_ENFORCE(dout.dims() == s.out_dims,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), s.out_dims.ToString(), dout.dims().ToString()));
    DenseTensor fresh(x.dims(), dout.dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    if (fresh.numel() > 0) {
      const IndexBuckets b = BucketPositions(s.index, s.split.axis, /*skip=*/-1);
      const DenseTensor offsets = cuda::UploadInt64(ctx, b.offsets);
      const DenseTensor positions = cuda::UploadInt64(ctx, b.positions);
      cuda::SumBuckets<T>(
          ctx, dout.numel() > 0 ? dout.data<T>() : nullptr, s.split.outer,
          static_cast<int64_t>(s.index.size()), s.split.inner, offsets.data<int64_t>(),
          b.positions.empty() ? nullptr : positions.data<int64_t>(), s.split.axis, dx);
    }
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

}  // namespace

CudaKernelTable IndexingCudaKernels() {
  CudaKernelTable table;
  for (const std::string type : {"gather", "index_select"}) {
    AddCudaKernels<GatherCudaKernel, float, double, int32_t, int64_t, bool>(&table, type);
    AddCudaKernels<GatherGradCudaKernel, float, double>(&table, type + "_grad");
  }
  return table;
}

}  // namespace operators
}  // namespace paddle_like
