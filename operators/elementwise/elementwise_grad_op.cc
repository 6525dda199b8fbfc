// PaddlePaddle grad op types of the binary elementwise ops: elementwise_add_grad,
// elementwise_sub_grad, elementwise_mul_grad and elementwise_div_grad, fused CPU kernels that
// programs built by PaddlePaddle hold. paddle_like's own backward pass writes these gradients
// with differentiable ops instead (elementwise_op.cc); these ops are first order only.
//
// Each kernel forms the gradient of one input on Out's shape and sums it over the dims where
// that input was broadcast (math::SumToShape), the broadcasting being the forward op's (its
// `axis` rule, math::ComputeBroadcastDims).
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "operators/common.h"
#include "operators/elementwise/elementwise_op.h"
#include "operators/math/broadcast.h"
#include "operators/math/reduce.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

template <typename Tag>
constexpr bool kReadsOut = std::is_same_v<Tag, ElementwiseDivTag>;

// The gradients of a sum or difference read only the dims of X and Y.
template <typename Tag>
constexpr bool kReadsOnlyDimsOfXY =
    std::is_same_v<Tag, ElementwiseAddTag> || std::is_same_v<Tag, ElementwiseSubTag>;

template <typename Tag>
class ElementwiseGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    auto x = AddInput("X", "The forward op's X.");
    auto y = AddInput("Y", "The forward op's Y.");
    if (kReadsOnlyDimsOfXY<Tag>) {
      x.AsNoNeedBuffer();
      y.AsNoNeedBuffer();
    }
    if (kReadsOut<Tag>) AddInput("Out", "The forward op's Out.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.").AsDispensable();
    AddOutput("Y@GRAD", "Gradient of Y, with Y's shape.").AsDispensable();
    AddAttr<int>("axis", "As in the forward op: where the lower-rank input is aligned.")
        .SetDefault(-1);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(std::string("Gradient of `") + Tag::kType +
               "` as PaddlePaddle's programs hold it (fused kernel, first order only):\n\n$$" +
               Tag::kGradFormula +
               "$$\n\nreduce_as sums an Out-shaped value over the dims where that input was "
               "broadcast by the forward op (its `axis` rule); an input of Out's shape takes "
               "the value as it is. Sums accumulate in double in a fixed order.\n");
  }
};

class ElementwiseGradOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void ElementwiseGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireInput("Out@GRAD");
  const DDim x = ctx->GetInputDim("X");
  const DDim y = ctx->GetInputDim("Y");
  const math::BroadcastDims dims =
      math::ComputeBroadcastDims(ctx->OpType(), x, y, ctx->Attr<int>("axis"));
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  PL_ENFORCE(dout.HasUnknown() || dims.out.HasUnknown() || dout == dims.out,
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the broadcast shape "
                                     "%s, received %s",
                                     ctx->OpType(), dims.out.ToString(), dout.ToString()));
  if (ctx->HasOutput("X@GRAD")) {
    ctx->SetOutputDim("X@GRAD", x);
    ctx->ShareLoD("X", "X@GRAD");
  }
  if (ctx->HasOutput("Y@GRAD")) ctx->SetOutputDim("Y@GRAD", y);
}

// result[k] = f(a[k], b broadcast) over Out's shape: `a` has Out's shape, `b` is the input
// aligned as `b_aligned`. result may be `a`.
template <typename T, typename F>
void OutShaped(const platform::CPUDeviceContext& dev, const F& f, const T* a, const T* b,
               const DDim& out_dims, const DDim& b_aligned, T* result) {
  const math::BroadcastPlan plan =
      math::MakeBroadcastPlan(math::BroadcastDims{out_dims, b_aligned, out_dims});
  if (plan.numel == 0) return;
  const int64_t bs = plan.y_inner_stride();
  dev.ParallelFor(plan.numel, 1 << 14, [&](int64_t begin, int64_t end) {
    math::ForEachBroadcastRun(plan, begin, end,
                              [&](int64_t oo, int64_t ao, int64_t bo, int64_t n) {
                                for (int64_t k = 0; k < n; ++k) {
                                  result[oo + k] = f(a[ao + k], b[bo + k * bs]);
                                }
                              });
  });
}

// Writes the gradient of one input (dims `dims`, aligned inside Out as `aligned`) into
// `grad`: `fill(buffer)` writes the Out-shaped value, which is then summed over the
// broadcast dims (or written straight into the gradient when there are none).
template <typename T, typename Fill>
void WriteInputGrad(const ExecutionContext& ctx, const DDim& dims, const DDim& aligned,
                    const DDim& out_dims, DenseTensor* grad, Fill&& fill) {
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
  DenseTensor result(dims, platform::ToDataType<T>());
  T* r = result.mutable_data<T>(ctx.GetPlace());
  if (out_dims.numel() == 0) {
    std::fill(r, r + dims.numel(), T(0));
  } else if (dims.numel() == out_dims.numel()) {
    fill(r);
  } else {
    std::vector<T> full(static_cast<size_t>(out_dims.numel()));
    fill(full.data());
    math::SumToShape(dev, full.data(), out_dims, aligned, r);
  }
  *grad = std::move(result);
}

template <typename Tag>
struct ElementwiseGradCpuKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      const DenseTensor* y = ctx.Input("Y");
      const DenseTensor* dout_t = ctx.Input("Out@GRAD");
      const math::BroadcastDims dims = math::ComputeBroadcastDims(
          ctx.Type(), x->dims(), y->dims(), ctx.Attr<int>("axis"));
      PL_ENFORCE(dout_t->numel() == dims.out.numel(),
                 errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the broadcast "
                                         "shape %s, received %s",
                                         ctx.Type(), dims.out.ToString(),
                                         dout_t->dims().ToString()));
      const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
      const int64_t n = dims.out.numel();
      const T* dout = n > 0 ? dout_t->data<T>() : nullptr;
      // A sum or difference reads only the dims of X and Y: their buffers may be freed.
      const T* xp = !kReadsOnlyDimsOfXY<Tag> && x->numel() > 0 ? x->data<T>() : nullptr;
      const T* yp = !kReadsOnlyDimsOfXY<Tag> && y->numel() > 0 ? y->data<T>() : nullptr;
      const DDim x_dims = x->dims();
      const DDim y_dims = y->dims();
      const auto copy = [&](T* r) { std::copy(dout, dout + n, r); };
      const auto negate = [&](T* r) {
        for (int64_t k = 0; k < n; ++k) r[k] = -dout[k];
      };
      DenseTensor* dx = ctx.Output("X@GRAD");
      DenseTensor* dy = ctx.Output("Y@GRAD");
      if constexpr (std::is_same_v<Tag, ElementwiseAddTag>) {
        if (dx) WriteInputGrad<T>(ctx, x_dims, dims.x, dims.out, dx, copy);
        if (dy) WriteInputGrad<T>(ctx, y_dims, dims.y, dims.out, dy, copy);
      } else if constexpr (std::is_same_v<Tag, ElementwiseSubTag>) {
        if (dx) WriteInputGrad<T>(ctx, x_dims, dims.x, dims.out, dx, copy);
        if (dy) WriteInputGrad<T>(ctx, y_dims, dims.y, dims.out, dy, negate);
      } else if constexpr (std::is_same_v<Tag, ElementwiseMulTag>) {
        // dX = dOut * Y, dY = dOut * X, each before summing.
        const MulFunctor<T> mul{};
        if (dx) {
          WriteInputGrad<T>(ctx, x_dims, dims.x, dims.out, dx, [&](T* r) {
            OutShaped(dev, mul, dout, yp, dims.out, dims.y, r);
          });
        }
        if (dy) {
          WriteInputGrad<T>(ctx, y_dims, dims.y, dims.out, dy, [&](T* r) {
            OutShaped(dev, mul, dout, xp, dims.out, dims.x, r);
          });
        }
      } else {
        static_assert(std::is_same_v<Tag, ElementwiseDivTag>, "an elementwise op without grad");
        // dX = dOut / Y, dY = -dOut * Out / Y, each before summing.
        if (dx) {
          WriteInputGrad<T>(ctx, x_dims, dims.x, dims.out, dx, [&](T* r) {
            OutShaped(dev, DivFunctor<T>{}, dout, yp, dims.out, dims.y, r);
          });
        }
        if (dy) {
          const DenseTensor* out_t = ctx.Input("Out");
          PL_ENFORCE(out_t->numel() == n,
                     errors::InvalidArgument("op `%s` input `Out`: expected the broadcast shape "
                                             "%s, received %s",
                                             ctx.Type(), dims.out.ToString(),
                                             out_t->dims().ToString()));
          const T* out = n > 0 ? out_t->data<T>() : nullptr;
          WriteInputGrad<T>(ctx, y_dims, dims.y, dims.out, dy, [&](T* r) {
            for (int64_t k = 0; k < n; ++k) r[k] = -dout[k] * out[k];
            OutShaped(dev, DivFunctor<T>{}, r, yp, dims.out, dims.y, r);
          });
        }
      }
    }
  };
};

}  // namespace

PL_REGISTER_OPS(RegisterElementwiseGradOps) {
  ForEachElementwiseWithFusedGrad([](auto tag) {
    using Tag = decltype(tag);
    const std::string type = std::string(Tag::kType) + "_grad";
    framework::RegisterOp<ElementwiseGradOp, ElementwiseGradOpMaker<Tag>>(type).InferShape(
        ElementwiseGradInferShape);
    RegisterPlainCpuFloatKernels<ElementwiseGradCpuKernel<Tag>::template Kernel>(type);
  });
}

}  // namespace operators
}  // namespace paddle_like
