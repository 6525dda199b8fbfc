// fractional_max_pool2d and fractional_max_pool3d (paddle.nn.functional.fractional_max_pool*d,
// Graham's fractional max-pooling): max pooling over windows whose starts follow a pseudo-random
// fractional stride, with PaddlePaddle's index rule; the flat index of each maximum in Mask, and
// a fused backward that routes dOut through it.
#include <algorithm>
#include <cfloat>
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/nn/scatter_by_index.h"
#include "operators/op_family.h"
#include "operators/random/random_transforms.h"
#include "operators/tensor/tensor_op_util.h"
#include "platform/random.h"

namespace paddle_like {
namespace operators {
namespace {

template <int kDims>
class FractionalMaxPoolOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    const bool two = kDims == 2;
    AddInput("x", two ? "Images [N, C, H, W]." : "Volumes [N, C, D, H, W].");
    AddOutput("out", two ? "[N, C, H_out, W_out]." : "[N, C, D_out, H_out, W_out].");
    AddOutput("mask",
              "out's shape, int32: the index of each maximum within its input plane (row-major "
              "over the spatial dims).");
    AddAttr<std::vector<int>>("output_size", two ? "[H_out, W_out]." : "[D_out, H_out, W_out].");
    AddAttr<std::vector<int>>("kernel_size",
                              "The window size per spatial dim; 0s (the default) let each window "
                              "end where the next starts.")
        .SetDefault(std::vector<int>(kDims, 0));
    AddAttr<float>("random_u",
                   "The pseudo-random offset u in (0, 1); 0 draws it from the random generator.")
        .SetDefault(0.0f);
    AddAttr<bool>("return_mask", "Not read: mask is always written.").SetDefault(true);
    AddComment(R"DOC(
Fractional max pooling. Per spatial dim, with input size n, output size m, window size k:
$$\alpha = \frac{n - k}{m - [k > 0]}, \quad u' = u \;(k > 0), \quad
u' = u \min\Big(\frac{\lfloor n/m \rfloor + 2}{\alpha} - 1,
\frac{n + 1 - \lfloor n/m \rfloor}{\alpha} - (m - 1)\Big) \;(k = 0)$$
$$start_i = \lfloor (i + u') \alpha \rfloor - \lfloor u' \alpha \rfloor, \quad
end_i = start_i + k \;(k > 0), \quad end_i = \lfloor (i + 1 + u') \alpha \rfloor -
\lfloor u' \alpha \rfloor \;(k = 0)$$
(float arithmetic, as PaddlePaddle computes them), clipped to [0, n); each output is the
maximum of its window, mask its first (row-major) position. Requires n >= m - 1 + k.

Gradient, by the fused op <type>_grad: $$dx[mask] \mathrel{+}= dout$$
)DOC");
  }
};

class FractionalMaxPoolOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("x") ? "x" : "out@GRAD");
  }
};

struct FractionalAxis {
  int64_t in = 0, out = 0, kernel = 0;
  float alpha = 0, u = 0;
  // The window [*begin, *end) of output index i.
  void Window(int64_t i, int64_t* begin, int64_t* end) const {
    const int64_t start =
        static_cast<int64_t>((static_cast<float>(i) + u) * alpha) - static_cast<int64_t>(u * alpha);
    const int64_t stop = kernel > 0
                             ? start + kernel
                             : static_cast<int64_t>((static_cast<float>(i + 1) + u) * alpha) -
                                   static_cast<int64_t>(u * alpha);
    *begin = std::max<int64_t>(start, 0);
    *end = std::min(stop, in);
  }
};

// Checks x against the attributes; out's dims (unknown input dims stay -1).
template <typename Context>
DDim FractionalOutDims(const std::string& op, int dims, const DDim& x, const Context& ctx) {
  PL_ENFORCE(x.size() == dims + 2,
             errors::InvalidArgument("op `%s` input `x`: expected rank %d, received %s", op,
                                     dims + 2, x.ToString()));
  const auto& out = ctx.template Attr<std::vector<int>>("output_size");
  const auto& kernel = ctx.template Attr<std::vector<int>>("kernel_size");
  PL_ENFORCE(static_cast<int>(out.size()) == dims &&
                 (kernel.empty() || static_cast<int>(kernel.size()) == dims),
             errors::InvalidArgument("op `%s` attributes `output_size` and `kernel_size`: expected "
                                     "%d values each, received %s and %s",
                                     op, dims, ListToString(out), ListToString(kernel)));
  std::vector<int64_t> od = {x[0], x[1]};
  for (int d = 0; d < dims; ++d) {
    const int64_t k = kernel.empty() ? 0 : kernel[d];
    PL_ENFORCE(out[d] > 0 && k >= 0,
               errors::InvalidArgument("op `%s` attribute `output_size`: expected positive sizes "
                                       "and kernel sizes >= 0, received %s and %s",
                                       op, ListToString(out), ListToString(kernel)));
    PL_ENFORCE(
        x[d + 2] < 0 || (x[d + 2] > 0 && x[d + 2] >= out[d] - 1 + k),
        errors::InvalidArgument("op `%s` input `x` of shape %s: spatial dim %d (%lld) must "
                                "be positive and at least output_size - 1 + kernel_size = %lld",
                                op, x.ToString(), d, static_cast<long long>(x[d + 2]),
                                static_cast<long long>(out[d] - 1 + k)));
    od.push_back(out[d]);
  }
  return DDim(od);
}

void FractionalInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("out", ctx->GetInputDataType("x"));
  ctx->SetOutputDataType("mask", DataType::INT32);
}

template <int kDims>
void FractionalInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireOutput("out");
  const DDim out = FractionalOutDims(ctx->OpType(), kDims, ctx->GetInputDim("x"), *ctx);
  ctx->SetOutputDim("out", out);
  if (ctx->HasOutput("mask")) {
    ctx->SetOutputDim("mask", out);
    ctx->SetOutputDataType("mask", DataType::INT32);
  }
}

template <typename T, int kDims>
struct FractionalMaxPoolKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DDim od = FractionalOutDims(ctx.Type(), kDims, x->dims(), ctx);
    const float random_u = ctx.Attr<float>("random_u");
    const float u = random_u != 0.0f
                        ? random_u
                        : static_cast<float>(RandomSource(platform::ResolveSeed(0)).Uniform());
    const auto& kernel = ctx.Attr<std::vector<int>>("kernel_size");
    FractionalAxis axes[3];
    for (int d = 0; d < kDims; ++d) {
      FractionalAxis& a = axes[d];
      a.in = x->dims()[d + 2];
      a.out = od[d + 2];
      a.kernel = kernel.empty() ? 0 : kernel[d];
      // One output of a fixed window: it starts at 0 (PaddlePaddle would divide by 0).
      const int64_t steps = a.out - (a.kernel > 0 ? 1 : 0);
      a.alpha = steps == 0 ? 0.0f : static_cast<float>(a.in - a.kernel) / static_cast<float>(steps);
      if (a.kernel > 0) {
        a.u = u;
      } else {  // PaddlePaddle's bound on u, which keeps the last window inside the input.
        const int64_t base = a.in / a.out;
        const float max1 = static_cast<float>(base + 2) / a.alpha - 1;
        const float max2 =
            static_cast<float>(a.in + 1 - base) / a.alpha - static_cast<float>(a.out - 1);
        a.u = u * std::min(max1, max2);
      }
    }
    if (kDims == 2) axes[2] = {1, 1, 1, 1.0f, 0.0f};  // A third axis of size 1.
    const FractionalAxis& ad = kDims == 3 ? axes[0] : axes[2];
    const FractionalAxis& ah = kDims == 3 ? axes[1] : axes[0];
    const FractionalAxis& aw = kDims == 3 ? axes[2] : axes[1];
    PL_ENFORCE(ad.in * ah.in * aw.in <= std::numeric_limits<int32_t>::max(),
               errors::InvalidArgument("op `%s` input `x` of shape %s: a plane is beyond the int32 "
                                       "mask",
                                       ctx.Type(), x->dims().ToString()));
    DenseTensor out(od, x->dtype()), mask(od, DataType::INT32);
    T* o = out.mutable_data<T>(ctx.GetPlace());
    int32_t* m = mask.mutable_data<int32_t>(ctx.GetPlace());
    const int64_t in_plane = ad.in * ah.in * aw.in, out_plane = ad.out * ah.out * aw.out;
    const T* xp = x->numel() > 0 ? x->data<T>() : nullptr;
    for (int64_t q = 0; q < od[0] * od[1]; ++q) {
      const T* in = xp + q * in_plane;
      for (int64_t pd = 0; pd < ad.out; ++pd) {
        int64_t d0 = 0, d1 = 1;
        if (kDims == 3) ad.Window(pd, &d0, &d1);
        for (int64_t ph = 0; ph < ah.out; ++ph) {
          int64_t h0, h1;
          ah.Window(ph, &h0, &h1);
          for (int64_t pw = 0; pw < aw.out; ++pw) {
            int64_t w0, w1;
            aw.Window(pw, &w0, &w1);
            T best = static_cast<T>(-FLT_MAX);
            int64_t index = -1;
            for (int64_t d = d0; d < d1; ++d) {
              for (int64_t h = h0; h < h1; ++h) {
                for (int64_t w = w0; w < w1; ++w) {
                  const int64_t e = (d * ah.in + h) * aw.in + w;
                  if (best < in[e]) {
                    best = in[e];
                    index = e;
                  }
                }
              }
            }
            const int64_t at = q * out_plane + (pd * ah.out + ph) * aw.out + pw;
            o[at] = best;
            m[at] = static_cast<int32_t>(index);
          }
        }
      }
    }
    *ctx.Output("out") = std::move(out);
    if (DenseTensor* mo = ctx.Output("mask")) *mo = std::move(mask);
  }
};

void FractionalGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  if (ctx->HasOutput("x@GRAD")) ctx->SetOutputDim("x@GRAD", ctx->GetInputDim("x"));
}

template <typename T>
struct FractionalMaxPoolGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DenseTensor* mask = ctx.Input("mask");
    const DenseTensor* dout = ctx.Input("out@GRAD");
    CheckSameShape(ctx.Type(), "out@GRAD", dout->dims(), "mask", mask->dims());
    PL_ENFORCE(
        mask->dtype() == DataType::INT32 && x->dims().size() == mask->dims().size() &&
            x->dims().size() >= 2 && x->dims()[0] == mask->dims()[0] &&
            x->dims()[1] == mask->dims()[1],
        errors::InvalidArgument("op `%s` input `mask`: expected int32 of shape [%lld, "
                                "%lld, ...] (x's batch and channels), received %s %s",
                                ctx.Type(), static_cast<long long>(x->dims()[0]),
                                static_cast<long long>(x->dims()[1]),
                                platform::DataTypeName(mask->dtype()), mask->dims().ToString()));
    const int64_t planes = x->dims()[0] * x->dims()[1];
    const int64_t in_plane = planes > 0 ? x->numel() / planes : 0;
    const int64_t out_plane = planes > 0 ? mask->numel() / planes : 0;
    DenseTensor dx(x->dims(), dout->dtype());  // x's dims only: no-need-buffer.
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(g, g + dx.numel(), T(0));
    if (mask->numel() > 0) {
      ScatterByIndex(ctx.Type(), "mask", dout->data<T>(), mask->data<int32_t>(), planes, out_plane,
                     in_plane, true, g);
    }
    *ctx.Output("x@GRAD") = std::move(dx);
  }
};

template <typename T>
using FractionalMaxPool2dKernel = FractionalMaxPoolKernel<T, 2>;
template <typename T>
using FractionalMaxPool3dKernel = FractionalMaxPoolKernel<T, 3>;

template <int kDims, template <typename> class KernelT>
void RegisterFractional(const std::string& type) {
  const framework::FusedGradDecl grad{
      {"x", "mask"}, {"out"}, {"x"}, R"DOC($$dx[mask] += dout$$)DOC", {"x"}};
  framework::RegisterOp<FractionalMaxPoolOp, FractionalMaxPoolOpMaker<kDims>>(type)
      .InferShape(FractionalInferShape<kDims>)
      .InferVarType(FractionalInferVarType)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<KernelT>(type);
  framework::RegisterFusedGradOp(type, grad).InferShape(FractionalGradInferShape);
  RegisterPlainCpuFloatKernels<FractionalMaxPoolGradKernel>(type + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterFractionalMaxPoolOps) {
  RegisterFractional<2, FractionalMaxPool2dKernel>("fractional_max_pool2d");
  RegisterFractional<3, FractionalMaxPool3dKernel>("fractional_max_pool3d");
}

}  // namespace operators
}  // namespace paddle_like
