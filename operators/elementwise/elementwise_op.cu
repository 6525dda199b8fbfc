// CUDA kernels of the binary elementwise ops, of their fused grad ops and of sum, from the
// functors of elementwise_op.h shared with the CPU kernels (float16 ones compute in float).
// Broadcasting follows math/broadcast.h.
#include <type_traits>
#include <vector>

#include "framework/selected_rows.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/half_cuda.cuh"
#include "operators/elementwise/broadcast_binary.cuh"
#include "operators/elementwise/elementwise_op.h"
#include "operators/math/broadcast.h"
#include "operators/math/broadcast_cuda.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

using cuda::LaunchBinary;

template <typename Tag>
struct ElementwiseCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor x = *ctx.Input("X");
      const DenseTensor y = *ctx.Input("Y");
      const math::BroadcastDims dims =
          math::ComputeBroadcastDims(ctx.Type(), x.dims(), y.dims(), ctx.Attr<int>("axis"));
      DenseTensor* out = ctx.Output("Out");
      out->Resize(dims.out);
      T* o = out->mutable_data<T>(ctx.GetPlace());
      if (dims.out.numel() == 0) return;
      LaunchBinary<T>(ctx, x.data<T>(), y.data<T>(), dims, o,
                      typename cuda::DeviceFunctor<T, Tag::template Functor>::type{});
    }
  };
};

// The device functor of F for element type T (F<float> through HalfViaFloat for float16).
template <typename T, template <typename> class F>
using Fn = typename cuda::DeviceFunctor<T, F>::type;

// Functors of the gradient values before summing to the input's shape.
template <typename T>
struct FirstFunctor {  // dOut (the first operand) as it is
  __device__ T operator()(T dout, T) const { return dout; }
};
template <typename T>
struct NegFirstFunctor {
  __device__ T operator()(T dout, T) const { return -dout; }
};
template <typename T>
struct NegMulDivFunctor {  // -(dOut * Out) / Y, with (dOut * Out) computed first
  __device__ T operator()(T dout_out, T y) const { return -dout_out / y; }
};

// Writes the gradient of one input (dims `dims`, aligned inside Out as `aligned`): the
// Out-shaped value f(a, b) (a and b read through `value_dims`), summed over the broadcast
// dims.
template <typename T, typename F>
void WriteGrad(const ExecutionContext& ctx, const T* a, const T* b,
               const math::BroadcastDims& value_dims, const DDim& dims, const DDim& aligned,
               DenseTensor* grad, F f) {
  DenseTensor result(dims, platform::ToDataType<T>());
  T* r = result.mutable_data<T>(ctx.GetPlace());
  const DDim& out_dims = value_dims.out;
  const cudaStream_t stream = cuda::Stream(ctx);
  if (dims.numel() == out_dims.numel()) {
    LaunchBinary<T>(ctx, a, b, value_dims, r, f);
  } else {
    auto full = cuda::Device(ctx).Temporary(sizeof(T) * out_dims.numel());
    T* f_ptr = static_cast<T*>(full->ptr());
    LaunchBinary<T>(ctx, a, b, value_dims, f_ptr, f);
    math::SumToShapeCuda<T>(stream, f_ptr, out_dims, aligned, 1.0, r);
  }
  *grad = std::move(result);
}

template <typename Tag>
struct ElementwiseGradCudaKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor x = *ctx.Input("X");
      const DenseTensor y = *ctx.Input("Y");
      const DenseTensor dout = *ctx.Input("Out@GRAD");
      const math::BroadcastDims dims =
          math::ComputeBroadcastDims(ctx.Type(), x.dims(), y.dims(), ctx.Attr<int>("axis"));
      PL_ENFORCE(dout.numel() == dims.out.numel(),
                 errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the broadcast "
                                         "shape %s, received %s",
                                         ctx.Type(), dims.out.ToString(),
                                         dout.dims().ToString()));
      DenseTensor* dx = ctx.Output("X@GRAD");
      DenseTensor* dy = ctx.Output("Y@GRAD");
      const int64_t n = dims.out.numel();
      const T* g = n > 0 ? dout.data<T>() : nullptr;
      // The value of each gradient is a function of dOut (at Out's shape) and one input read
      // through its aligned dims: the "other" operand.
      const math::BroadcastDims with_y{dims.out, dims.y, dims.out};
      const math::BroadcastDims with_x{dims.out, dims.x, dims.out};
      const math::BroadcastDims alone{dims.out, dims.out, dims.out};
      const DDim x_dims = x.dims(), y_dims = y.dims();
      if constexpr (std::is_same_v<Tag, ElementwiseAddTag> ||
                    std::is_same_v<Tag, ElementwiseSubTag>) {
        if (dx) WriteGrad<T>(ctx, g, g, alone, x_dims, dims.x, dx, Fn<T, FirstFunctor>{});
        if (dy) {
          if constexpr (std::is_same_v<Tag, ElementwiseAddTag>) {
            WriteGrad<T>(ctx, g, g, alone, y_dims, dims.y, dy, Fn<T, FirstFunctor>{});
          } else {
            WriteGrad<T>(ctx, g, g, alone, y_dims, dims.y, dy, Fn<T, NegFirstFunctor>{});
          }
        }
      } else if constexpr (std::is_same_v<Tag, ElementwiseMulTag>) {
        if (dx) WriteGrad<T>(ctx, g, y.data<T>(), with_y, x_dims, dims.x, dx, Fn<T, MulFunctor>{});
        if (dy) WriteGrad<T>(ctx, g, x.data<T>(), with_x, y_dims, dims.y, dy, Fn<T, MulFunctor>{});
      } else {
        static_assert(std::is_same_v<Tag, ElementwiseDivTag>, "an elementwise op without grad");
        if (dx) WriteGrad<T>(ctx, g, y.data<T>(), with_y, x_dims, dims.x, dx, Fn<T, DivFunctor>{});
        if (dy) {
          const DenseTensor out = *ctx.Input("Out");
          PL_ENFORCE(out.numel() == n,
                     errors::InvalidArgument("op `%s` input `Out`: expected the broadcast shape "
                                             "%s, received %s",
                                             ctx.Type(), dims.out.ToString(),
                                             out.dims().ToString()));
          // dY = -(dOut * Out) / Y, summed: first dOut * Out at Out's shape.
          auto prod = cuda::Device(ctx).Temporary(sizeof(T) * (n > 0 ? n : 1));
          T* p = static_cast<T*>(prod->ptr());
          LaunchBinary<T>(ctx, g, out.data<T>(), alone, p, Fn<T, MulFunctor>{});
          WriteGrad<T>(ctx, p, y.data<T>(), with_y, y_dims, dims.y, dy, Fn<T, NegMulDivFunctor>{});
        }
      }
    }
  };
};

// sum of dense tensors, added in the order of the X list as on the CPU (the same roundings).
// SelectedRows inputs and outputs stay on the CPU kernel.
template <typename T>
struct SumCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    PL_ENFORCE(!ctx.OutputVar("Out")->IsType<framework::SelectedRows>(),
               errors::Unimplemented("op `sum` output `Out` (variable `%s`): the CUDA kernel "
                                     "adds dense tensors only; a SelectedRows sum runs on the "
                                     "CPU",
                                     ctx.OutputName("Out")));
    const DenseTensor* out = ctx.Output("Out");
    const DDim dims = out->dims();  // From shape inference: the inputs' shape.
    const framework::DataType dtype = platform::ToDataType<T>();
    std::vector<const T*> srcs;
    for (size_t i = 0; i < ctx.InputSize("X"); ++i) {
      PL_ENFORCE(!ctx.InputVar("X", i)->IsType<framework::SelectedRows>(),
                 errors::Unimplemented("op `sum` input `X` (variable `%s`): the CUDA kernel adds "
                                       "dense tensors only; a SelectedRows input runs on the CPU",
                                       ctx.InputName("X", i)));
      const DenseTensor* t = ctx.Input("X", i);
      PL_ENFORCE(t->dtype() == dtype,
                 errors::InvalidArgument("op `sum` input `X` (variable `%s`): expected dtype %s, "
                                         "received %s",
                                         ctx.InputName("X", i), platform::DataTypeName(dtype),
                                         platform::DataTypeName(t->dtype())));
      PL_ENFORCE(
          t->numel() == dims.numel(),
          errors::InvalidArgument("op `sum` input `X` (variable `%s`): expected shape %s, "
                                  "received %s",
                                  ctx.InputName("X", i), dims.ToString(), t->dims().ToString()));
      if (dims.numel() > 0) srcs.push_back(t->data<T>());
    }
    // A buffer of its own: Out may be one of the inputs, read after the first additions.
    DenseTensor result(dims, dtype);
    T* r = result.mutable_data<T>(ctx.GetPlace());
    const int64_t n = dims.numel();
    if (srcs.empty()) {
      cuda::Fill(ctx, r, n, T(0));
    } else if (srcs.size() == 1) {
      cuda::MapPair(ctx, srcs[0], srcs[0], r, n, Fn<T, FirstFunctor>{});
    } else {
      cuda::MapPair(ctx, srcs[0], srcs[1], r, n, AddFunctor<T>{});
      for (size_t k = 2; k < srcs.size(); ++k) {
        cuda::MapPair(ctx, static_cast<const T*>(r), srcs[k], r, n, AddFunctor<T>{});
      }
    }
    result.set_lod(out->lod());
    *ctx.Output("Out") = std::move(result);
  }
};

}  // namespace

CudaKernelTable ElementwiseCudaKernels() {
  CudaKernelTable table;
  ForEachElementwise([&](auto tag) {
    using Tag = decltype(tag);
    // Integer division, mod and floordiv by zero are undefined on the device (the CPU
    // kernels raise an error): integers run there.
    constexpr bool kIntegerSafe = std::is_same_v<Tag, ElementwiseAddTag> ||
                                  std::is_same_v<Tag, ElementwiseSubTag> ||
                                  std::is_same_v<Tag, ElementwiseMulTag> ||
                                  std::is_same_v<Tag, ElementwiseMaxTag> ||
                                  std::is_same_v<Tag, ElementwiseMinTag>;
    if constexpr (kIntegerSafe) {
      AddCudaKernels<ElementwiseCudaKernel<Tag>::template Kernel, float, double, int32_t,
                     int64_t>(&table, Tag::kType);
    } else {
      AddCudaKernels<ElementwiseCudaKernel<Tag>::template Kernel, float, double>(&table,
                                                                                 Tag::kType);
    }
    // float16 for the arithmetic of float16 inference programs (computed in float).
    constexpr bool kHalf = std::is_same_v<Tag, ElementwiseAddTag> ||
                           std::is_same_v<Tag, ElementwiseSubTag> ||
                           std::is_same_v<Tag, ElementwiseMulTag> ||
                           std::is_same_v<Tag, ElementwiseDivTag> ||
                           std::is_same_v<Tag, ElementwiseMaxTag> ||
                           std::is_same_v<Tag, ElementwiseMinTag>;
    if constexpr (kHalf) {
      AddCudaKernels<ElementwiseCudaKernel<Tag>::template Kernel, platform::float16>(&table,
                                                                                     Tag::kType);
    }
  });
  AddCudaKernels<SumCudaKernel, float, double, int32_t, int64_t>(&table, "sum");
  ForEachElementwiseWithFusedGrad([&](auto tag) {
    using Tag = decltype(tag);
    AddCudaKernels<ElementwiseGradCudaKernel<Tag>::template Kernel, float, double,
                   platform::float16>(&table, std::string(Tag::kType) + "_grad");
  });
  return table;
}

}  // namespace operators
}  // namespace paddle_like
