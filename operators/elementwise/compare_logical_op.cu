// CUDA kernels of the comparison and logical ops, from the functors of compare_logical_op.h
// shared with the CPU kernels; broadcasting as in the elementwise ops (broadcast_binary.cuh).
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/elementwise/broadcast_binary.cuh"
#include "operators/elementwise/compare_logical_op.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DenseTensor;
using framework::ExecutionContext;

// InvalidArgumentError unless `t` holds T, as the CPU kernels check (nothing is cast).
template <typename T>
void CheckDtype(const ExecutionContext& ctx, const char* slot, const DenseTensor& t) {
  const framework::DataType want = platform::ToDataType<T>();
  PL_ENFORCE(t.dtype() == want,
             errors::InvalidArgument("op `%s` input `%s`: expected dtype %s, received %s",
                                     ctx.Type(), slot, platform::DataTypeName(want),
                                     platform::DataTypeName(t.dtype())));
}

// Out (bool) = f(X, Y) over the broadcast shape.
template <typename T, typename F>
void RunBroadcastBool(const ExecutionContext& ctx, int axis, F f) {
  const DenseTensor x = *ctx.Input("X");
  const DenseTensor y = *ctx.Input("Y");
  CheckDtype<T>(ctx, "X", x);
  CheckDtype<T>(ctx, "Y", y);
  const math::BroadcastDims dims = math::ComputeBroadcastDims(ctx.Type(), x.dims(), y.dims(), axis);
  DenseTensor* out = ctx.Output("Out");
  // A fresh buffer: Out may be X or Y.
  DenseTensor result(dims.out, framework::DataType::BOOL);
  bool* o = result.mutable_data<bool>(ctx.GetPlace());
  if (dims.out.numel() > 0) cuda::LaunchBinary(ctx, x.data<T>(), y.data<T>(), dims, o, f);
  result.set_lod(out->lod());
  *out = std::move(result);
}

template <typename T>
struct CompareCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const int axis = ctx.Attr<int>("axis");
    VisitCompare<T>(ctx.Type(), [&](auto f) { RunBroadcastBool<T>(ctx, axis, f); });
  }
};

template <typename T>
struct LogicalBinaryCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    VisitLogicalBinary<T>(ctx.Type(), [&](auto f) { RunBroadcastBool<T>(ctx, -1, f); });
  }
};

template <typename T>
struct LogicalNotCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    DenseTensor result(x.dims(), framework::DataType::BOOL);
    bool* o = result.mutable_data<bool>(ctx.GetPlace());
    if (x.numel() > 0) cuda::Map(ctx, x.data<T>(), o, x.numel(), LogicalNotFunctor<T>{});
    result.set_lod(out->lod());
    *out = std::move(result);
  }
};

}  // namespace

CudaKernelTable CompareLogicalCudaKernels() {
  CudaKernelTable table;
  for (const char* type :
       {"less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal"}) {
    AddCudaKernels<CompareCudaKernel, float, double, int32_t, int64_t, bool>(&table, type);
  }
  for (const char* type : {"logical_and", "logical_or", "logical_xor"}) {
    AddCudaKernels<LogicalBinaryCudaKernel, bool, float, double, int32_t, int64_t>(&table, type);
  }
  AddCudaKernels<LogicalNotCudaKernel, bool, float, double, int32_t, int64_t>(&table,
                                                                              "logical_not");
  return table;
}

}  // namespace operators
}  // namespace paddle_like
