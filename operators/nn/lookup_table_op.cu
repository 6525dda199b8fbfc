// CUDA kernels of lookup_table_v2 and lookup_table and their grad ops (float, double), on
// the CPU kernels' checks (lookup_table_util.h): the ids are copied to the host once and
// checked there, so an id outside [0, V) raises the CPU kernel's error before any launch.
//
// The dense gradient is deterministic without atomics: the host lists, for every row of W,
// the positions of the ids that name it (a stable counting sort, so in increasing order),
// and one thread per element of dW sums the matching Out@GRAD elements in that order, which
// is the CPU kernel's order: the two agree bitwise. The sparse gradient (is_sparse) is a
// SelectedRows whose rows (host metadata) are the ids and whose value, on the device, holds
// the Out@GRAD rows, zero for padding_idx.
#include <cstdint>
#include <string>
#include <vector>

#include "framework/selected_rows.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/cuda/index_kernels.cuh"
#include "operators/indexing/index_util.h"
#include "operators/nn/lookup_table_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;
using lookup_table::Lookup;

// Row i of the n x d result: zeros where ids[i] is the padding row, else row ids[i] of src
// when `gather` (the forward, from W) or row i of src (the sparse gradient, from Out@GRAD).
template <typename T>
__global__ void GatherRows(const T* src, const int64_t* ids, int64_t pad, bool gather, int64_t n,
                           int64_t d, T* out) {
  const int64_t total = n * d;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const int64_t i = k / d, col = k % d;
    const int64_t id = ids[i];
    out[k] = id == pad ? T(0) : src[(gather ? id : i) * d + col];
  }
}

template <typename T>
struct LookupTableCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor w = *ctx.Input("W");
    const Lookup l = lookup_table::ResolveLookup(ctx);
    DenseTensor* out = ctx.Output("Out");
    const framework::LoD lod = ctx.Input("Ids")->lod();
    out->Resize(l.out_dims);
    T* o = out->mutable_data<T>(ctx.GetPlace());
    out->set_lod(lod);
    const int64_t n = static_cast<int64_t>(l.ids.size());
    if (n * l.d == 0) return;
    const DenseTensor ids = cuda::UploadInt64(ctx, l.ids);
    GatherRows<T><<<cuda::Blocks(n * l.d), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
        w.data<T>(), ids.data<int64_t>(), l.pad, true, n, l.d, o);
    cuda::CheckLaunch(ctx);
  }
};

template <typename T>
struct LookupTableGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    const Lookup l = lookup_table::ResolveLookup(ctx);
    const int64_t n = static_cast<int64_t>(l.ids.size());
    const cudaStream_t stream = cuda::Stream(ctx);
    if (ctx.Attr<bool>("is_sparse")) {
      framework::SelectedRows* dw = ctx.OutputVar("W@GRAD")->GetMutable<framework::SelectedRows>();
      DenseTensor value(DDim({n, l.d}), dout.dtype());
      T* val = value.mutable_data<T>(ctx.GetPlace());
      if (n * l.d > 0) {
        const DenseTensor ids = cuda::UploadInt64(ctx, l.ids);
        GatherRows<T><<<cuda::Blocks(n * l.d), cuda::kThreads, 0, stream>>>(
            dout.data<T>(), ids.data<int64_t>(), l.pad, false, n, l.d, val);
        cuda::CheckLaunch(ctx);
      }
      *dw->mutable_rows() = l.ids;
      dw->set_height(l.v);
      *dw->mutable_value() = std::move(value);
      return;
    }
    // Each row's positions in increasing order; the padding row gets none.
    const IndexBuckets b = BucketPositions(l.ids, l.v, l.pad);
    DenseTensor* dw = ctx.Output("W@GRAD");
    dw->Resize(DDim({l.v, l.d}));
    T* o = dw->mutable_data<T>(ctx.GetPlace());
    if (l.v * l.d == 0) return;
    const DenseTensor offsets = cuda::UploadInt64(ctx, b.offsets);
    const DenseTensor positions = cuda::UploadInt64(ctx, b.positions);
    cuda::SumBuckets<T>(ctx, b.positions.empty() ? nullptr : dout.data<T>(), 1, n, l.d,
                        offsets.data<int64_t>(),
                        b.positions.empty() ? nullptr : positions.data<int64_t>(), l.v, o);
  }
};

}  // namespace

CudaKernelTable LookupTableCudaKernels() {
  CudaKernelTable table;
  for (const std::string type : {"lookup_table_v2", "lookup_table"}) {
    AddCudaKernels<LookupTableCudaKernel, float, double>(&table, type);
    AddCudaKernels<LookupTableGradCudaKernel, float, double>(&table, type + "_grad");
  }
  return table;
}

}  // namespace operators
}  // namespace paddle_like
