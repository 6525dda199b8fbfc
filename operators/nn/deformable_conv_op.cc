// deformable_conv (v2, modulated: with Mask) and deformable_conv_v1: convolutions whose taps
// move by learned offsets (DCN, as in PP-YOLO's backbones), as PaddlePaddle computes them:
// the taps are sampled bilinearly into columns, which a GEMM per group multiplies by the
// filter. The fused gradient op writes the gradients of Input, Offset, Mask and Filter.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

template <bool kMask>
class DeformableConvOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Images [N, C, H, W].");
    AddInput("Offset",
             "Tap offsets [N, 2 G k_h k_w, H_out, W_out]: per deformable group and "
             "tap, (dy, dx).");
    if (kMask) {
      // Dispensable (PaddlePaddle requires it): PIR's deformable_conv takes an optional
      // mask, and a program without one runs as deformable_conv_v1.
      AddInput("Mask", "Tap modulation [N, G k_h k_w, H_out, W_out]; absent: all ones.")
          .AsDispensable();
    }
    AddInput("Filter", "Filter [M, C / groups, k_h, k_w].");
    AddOutput("Output", "[N, M, H_out, W_out].");
    AddAttr<std::vector<int>>("strides", "[stride_h, stride_w].")
        .SetDefault(std::vector<int>{1, 1});
    AddAttr<std::vector<int>>("paddings", "[pad_h, pad_w] (or [top, bottom, left, right]).")
        .SetDefault(std::vector<int>{0, 0});
    AddAttr<std::vector<int>>("dilations", "[dilation_h, dilation_w].")
        .SetDefault(std::vector<int>{1, 1});
    AddAttr<int>("groups", "Filter groups: C and M divisible by it.").SetDefault(1);
    AddAttr<int>("deformable_groups", "Offset groups G: C divisible by it.").SetDefault(1);
    AddAttr<int>("im2col_step", "Images per column buffer in PaddlePaddle (no effect here).")
        .SetDefault(64);
    AddComment(R"DOC(
Deformable convolution. For output pixel (y, x), tap (i, j) of channel c, in deformable group
g = c / (C / G), samples Input bilinearly at
$$p = (y s_h - pad_h + i d_h + \Delta y_{g,i,j}(y, x), \ \ x s_w - pad_w + j d_w + \Delta x_{g,i,j}(y, x))$$
(0 when p lies outside (-1, H) x (-1, W), and each of the four neighbouring pixels outside the
image counts 0), scaled by the mask m_{g,i,j}(y, x) (1 for deformable_conv_v1), and
$$Output[n, o, y, x] = \sum_{c \in group(o)} \sum_{i, j} Filter[o, c, i, j] \, m \, X_c(p)$$
Offset holds (dy, dx) for tap t = i k_w + j of group g at channels g 2 k_h k_w + 2 t and + 1;
Mask holds it at g k_h k_w + t. Output size: (in + 2 pad - (d (k - 1) + 1)) / s + 1.

Gradient (fused op): Input@GRAD scatters the column gradients with the bilinear weights,
Offset@GRAD and Mask@GRAD are their derivatives (bilinear slopes and sampled values),
Filter@GRAD is Output@GRAD times the columns.
)DOC");
  }
};

class DeformableConvOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
};

struct DeformGeometry {
  int64_t n, c, h, w, m, kh, kw, oh, ow;
  int64_t stride_h, stride_w, pad_top, pad_left, dil_h, dil_w;
  int64_t groups, dgroups;
  int64_t Taps() const { return kh * kw; }
  int64_t Pixels() const { return oh * ow; }
};

std::vector<int64_t> Pair(const std::string& op, const char* name, const std::vector<int>& v) {
  PL_ENFORCE(v.size() == 2, errors::InvalidArgument("op `%s` attribute `%s`: expected 2 values, "
                                                    "received %zu",
                                                    op, name, v.size()));
  return {v[0], v[1]};
}

DeformGeometry ResolveGeometry(const std::string& op, const DDim& input, const DDim& offset,
                               const DDim* mask, const DDim& filter,
                               const framework::AttributeMap& attrs) {
  PL_ENFORCE(input.size() == 4, errors::InvalidArgument("op `%s` input `Input`: expected [N, C, "
                                                        "H, W], received shape %s",
                                                        op, input.ToString()));
  PL_ENFORCE(filter.size() == 4, errors::InvalidArgument("op `%s` input `Filter`: expected [M, "
                                                         "C / groups, k_h, k_w], received %s",
                                                         op, filter.ToString()));
  DeformGeometry g;
  g.n = input[0];
  g.c = input[1];
  g.h = input[2];
  g.w = input[3];
  g.m = filter[0];
  g.kh = filter[2];
  g.kw = filter[3];
  g.groups = std::get<int>(attrs.at("groups"));
  g.dgroups = std::get<int>(attrs.at("deformable_groups"));
  const auto s = Pair(op, "strides", std::get<std::vector<int>>(attrs.at("strides")));
  const auto d = Pair(op, "dilations", std::get<std::vector<int>>(attrs.at("dilations")));
  const auto& p = std::get<std::vector<int>>(attrs.at("paddings"));
  PL_ENFORCE(p.size() == 2 || p.size() == 4,
             errors::InvalidArgument("op `%s` attribute `paddings`: expected 2 or 4 values, "
                                     "received %zu",
                                     op, p.size()));
  g.stride_h = s[0];
  g.stride_w = s[1];
  g.dil_h = d[0];
  g.dil_w = d[1];
  g.pad_top = p[0];
  g.pad_left = p.size() == 2 ? p[1] : p[2];
  const int64_t pad_bottom = p.size() == 2 ? p[0] : p[1];
  const int64_t pad_right = p.size() == 2 ? p[1] : p[3];
  PL_ENFORCE(g.stride_h > 0 && g.stride_w > 0 && g.dil_h > 0 && g.dil_w > 0 && g.pad_top >= 0 &&
                 g.pad_left >= 0 && pad_bottom >= 0 && pad_right >= 0,
             errors::InvalidArgument("op `%s`: expected strides and dilations > 0 and paddings "
                                     ">= 0",
                                     op));
  PL_ENFORCE(
      g.groups > 0 && g.c % g.groups == 0 && g.m % g.groups == 0 && filter[1] * g.groups == g.c,
      errors::InvalidArgument("op `%s` input `Filter` %s: expected [M, C / groups, k_h, "
                              "k_w] with C = %lld and M divisible by groups = %lld",
                              op, filter.ToString(), static_cast<long long>(g.c),
                              static_cast<long long>(g.groups)));
  PL_ENFORCE(
      g.dgroups > 0 && g.c % g.dgroups == 0,
      errors::InvalidArgument("op `%s` attribute `deformable_groups`: expected a divisor "
                              "of the %lld input channels, received %lld",
                              op, static_cast<long long>(g.c), static_cast<long long>(g.dgroups)));
  g.oh = (g.h + g.pad_top + pad_bottom - (g.dil_h * (g.kh - 1) + 1)) / g.stride_h + 1;
  g.ow = (g.w + g.pad_left + pad_right - (g.dil_w * (g.kw - 1) + 1)) / g.stride_w + 1;
  PL_ENFORCE(g.oh > 0 && g.ow > 0,
             errors::InvalidArgument("op `%s`: Input %s is smaller than the dilated filter %s", op,
                                     input.ToString(), filter.ToString()));
  const DDim want_offset{g.n, 2 * g.dgroups * g.Taps(), g.oh, g.ow};
  PL_ENFORCE(offset == want_offset,
             errors::InvalidArgument("op `%s` input `Offset`: expected shape %s, received %s", op,
                                     want_offset.ToString(), offset.ToString()));
  if (mask != nullptr) {
    const DDim want_mask{g.n, g.dgroups * g.Taps(), g.oh, g.ow};
    PL_ENFORCE(*mask == want_mask,
               errors::InvalidArgument("op `%s` input `Mask`: expected shape %s, received %s", op,
                                       want_mask.ToString(), mask->ToString()));
  }
  return g;
}

void DeformableConvInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  const bool with_mask = ctx->HasInput("Mask");
  for (const char* slot : {"Input", "Offset", "Filter"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Output");
  const DDim input = ctx->GetInputDim("Input"), filter = ctx->GetInputDim("Filter");
  const DDim offset = ctx->GetInputDim("Offset");
  const DDim mask = with_mask ? ctx->GetInputDim("Mask") : DDim();
  if (input.HasUnknown() || filter.HasUnknown() || offset.HasUnknown() || mask.HasUnknown()) {
    ctx->SetOutputDim("Output", DDim{input.size() == 4 ? input[0] : -1, filter[0], -1, -1});
    return;
  }
  const DeformGeometry g =
      ResolveGeometry(op, input, offset, with_mask ? &mask : nullptr, filter, ctx->Attrs());
  ctx->SetOutputDim("Output", DDim{g.n, g.m, g.oh, g.ow});
}

// Where tap (i, j) of output pixel p samples channel plane of image n, deformable group dg.
struct Tap {
  double y, x, mask;
};

template <typename T>
Tap TapOf(const DeformGeometry& g, const T* offset, const T* mask, int64_t n, int64_t dg, int64_t t,
          int64_t p) {
  const int64_t i = t / g.kw, j = t % g.kw, y = p / g.ow, x = p % g.ow;
  const int64_t px = g.Pixels();
  const T* off = offset + (n * 2 * g.dgroups * g.Taps() + dg * 2 * g.Taps() + 2 * t) * px + p;
  Tap tap;
  tap.y = static_cast<double>(y * g.stride_h - g.pad_top + i * g.dil_h) + off[0];
  tap.x = static_cast<double>(x * g.stride_w - g.pad_left + j * g.dil_w) + off[px];
  tap.mask =
      mask == nullptr
          ? 1.0
          : static_cast<double>(mask[(n * g.dgroups * g.Taps() + dg * g.Taps() + t) * px + p]);
  return tap;
}

// The four neighbours of (y, x) in an h x w plane: offsets (-1 outside) and weights, and the
// weights' slopes along y and x. All zero when (y, x) lies outside (-1, h) x (-1, w).
struct Bilinear {
  int64_t at[4] = {-1, -1, -1, -1};
  double w[4] = {0, 0, 0, 0}, dy[4] = {0, 0, 0, 0}, dx[4] = {0, 0, 0, 0};
};

Bilinear BilinearAt(double y, double x, int64_t h, int64_t w) {
  Bilinear b;
  if (!(y > -1 && x > -1 && y < h && x < w)) return b;
  const double y0 = std::floor(y), x0 = std::floor(x);
  const double ly = y - y0, lx = x - x0;
  for (int k = 0; k < 4; ++k) {
    const int oy = k >> 1, ox = k & 1;
    const auto py = static_cast<int64_t>(y0) + oy, pxl = static_cast<int64_t>(x0) + ox;
    if (py < 0 || py >= h || pxl < 0 || pxl >= w) continue;
    const double wy = oy ? ly : 1 - ly, wx = ox ? lx : 1 - lx;
    b.at[k] = py * w + pxl;
    b.w[k] = wy * wx;
    b.dy[k] = (oy ? 1 : -1) * wx;
    b.dx[k] = (ox ? 1 : -1) * wy;
  }
  return b;
}

// The columns of image n: [C k_h k_w, H_out W_out], each the masked bilinear sample.
template <typename T>
void FillColumns(const DeformGeometry& g, const T* x, const T* offset, const T* mask, int64_t n,
                 T* col) {
  const int64_t px = g.Pixels(), per_dg = g.c / g.dgroups;
  for (int64_t c = 0; c < g.c; ++c) {
    const T* plane = x + (n * g.c + c) * g.h * g.w;
    for (int64_t t = 0; t < g.Taps(); ++t) {
      T* row = col + (c * g.Taps() + t) * px;
      for (int64_t p = 0; p < px; ++p) {
        const Tap tap = TapOf(g, offset, mask, n, c / per_dg, t, p);
        const Bilinear b = BilinearAt(tap.y, tap.x, g.h, g.w);
        double v = 0;
        for (int k = 0; k < 4; ++k) {
          if (b.at[k] >= 0) v += b.w[k] * static_cast<double>(plane[b.at[k]]);
        }
        row[p] = static_cast<T>(v * tap.mask);
      }
    }
  }
}

template <typename T>
struct DeformableConvKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* offset = ctx.Input("Offset");
    const DenseTensor* mask = ctx.Input("Mask");  // nullptr: none (v1, or not given).
    const DenseTensor* filter = ctx.Input("Filter");
    const DDim mask_dims = mask ? mask->dims() : DDim();
    const DeformGeometry g =
        ResolveGeometry(ctx.Type(), input->dims(), offset->dims(), mask ? &mask_dims : nullptr,
                        filter->dims(), ctx.op().Attrs());
    DenseTensor fresh(DDim{g.n, g.m, g.oh, g.ow}, input->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const int64_t px = g.Pixels(), k = g.c / g.groups * g.Taps(), mg = g.m / g.groups;
    std::vector<T> col(static_cast<size_t>(g.c * g.Taps() * px));
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    for (int64_t n = 0; n < g.n; ++n) {
      FillColumns(g, input->data<T>(), offset->data<T>(), mask ? mask->data<T>() : nullptr, n,
                  col.data());
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        math::Gemm<T>(dev, false, false, mg, px, k, T(1), filter->data<T>() + grp * mg * k, k,
                      col.data() + grp * k * px, px, T(0), out + (n * g.m + grp * mg) * px, px);
      }
    }
    *ctx.Output("Output") = std::move(fresh);
  }
};

template <typename T>
struct DeformableConvGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* offset = ctx.Input("Offset");
    const DenseTensor* mask = ctx.Input("Mask");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    const DDim mask_dims = mask ? mask->dims() : DDim();
    const DeformGeometry g =
        ResolveGeometry(ctx.Type(), input->dims(), offset->dims(), mask ? &mask_dims : nullptr,
                        filter->dims(), ctx.op().Attrs());
    const DDim want{g.n, g.m, g.oh, g.ow};
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Output@GRAD`: expected shape %s, "
                                       "received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    const int64_t px = g.Pixels(), k = g.c / g.groups * g.Taps(), mg = g.m / g.groups;
    const int64_t per_dg = g.c / g.dgroups;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    std::vector<T> col(static_cast<size_t>(g.c * g.Taps() * px)), dcol(col.size());
    std::vector<double> dx(static_cast<size_t>(input->numel()), 0.0);
    std::vector<double> doff(static_cast<size_t>(offset->numel()), 0.0);
    std::vector<double> dmask(mask ? static_cast<size_t>(mask->numel()) : 0, 0.0);
    DenseTensor dfilter(filter->dims(), dout->dtype());
    T* dw = dfilter.mutable_data<T>(ctx.GetPlace());
    std::fill(dw, dw + dfilter.numel(), T(0));
    const T* x = input->data<T>();
    const T* off = offset->data<T>();
    const T* msk = mask ? mask->data<T>() : nullptr;
    for (int64_t n = 0; n < g.n; ++n) {
      FillColumns(g, x, off, msk, n, col.data());
      const T* go = dout->data<T>() + n * g.m * px;
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        // dcol = W^T dOut; dW += dOut col^T.
        math::Gemm<T>(dev, true, false, k, px, mg, T(1), filter->data<T>() + grp * mg * k, k,
                      go + grp * mg * px, px, T(0), dcol.data() + grp * k * px, px);
        math::Gemm<T>(dev, false, true, mg, k, px, T(1), go + grp * mg * px, px,
                      col.data() + grp * k * px, px, T(1), dw + grp * mg * k, k);
      }
      for (int64_t c = 0; c < g.c; ++c) {
        const T* plane = x + (n * g.c + c) * g.h * g.w;
        double* dplane = dx.data() + (n * g.c + c) * g.h * g.w;
        const int64_t dg = c / per_dg;
        for (int64_t t = 0; t < g.Taps(); ++t) {
          const T* drow = dcol.data() + (c * g.Taps() + t) * px;
          for (int64_t p = 0; p < px; ++p) {
            const double gc = static_cast<double>(drow[p]);
            if (gc == 0) continue;
            const Tap tap = TapOf(g, off, msk, n, dg, t, p);
            const Bilinear b = BilinearAt(tap.y, tap.x, g.h, g.w);
            double v = 0, vy = 0, vx = 0;
            for (int q = 0; q < 4; ++q) {
              if (b.at[q] < 0) continue;
              const double pix = static_cast<double>(plane[b.at[q]]);
              v += b.w[q] * pix;
              vy += b.dy[q] * pix;
              vx += b.dx[q] * pix;
              dplane[b.at[q]] += b.w[q] * tap.mask * gc;
            }
            const int64_t oi = (n * 2 * g.dgroups * g.Taps() + dg * 2 * g.Taps() + 2 * t) * px + p;
            doff[oi] += vy * tap.mask * gc;
            doff[oi + px] += vx * tap.mask * gc;
            if (msk) dmask[(n * g.dgroups * g.Taps() + dg * g.Taps() + t) * px + p] += v * gc;
          }
        }
      }
    }
    const auto emit = [&](const char* slot, const DDim& dims, const std::vector<double>& v) {
      DenseTensor* out = ctx.Output(slot);
      if (out == nullptr) return;
      DenseTensor t(dims, dout->dtype());
      T* p = t.mutable_data<T>(ctx.GetPlace());
      for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
      *out = std::move(t);
    };
    emit("Input@GRAD", input->dims(), dx);
    emit("Offset@GRAD", offset->dims(), doff);
    if (mask) emit("Mask@GRAD", mask->dims(), dmask);
    if (DenseTensor* out = ctx.Output("Filter@GRAD")) *out = std::move(dfilter);
  }
};

template <bool kMask>
void RegisterDeformableConv(const char* op) {
  const std::vector<std::string> inputs =
      kMask ? std::vector<std::string>{"Input", "Offset", "Mask", "Filter"}
            : std::vector<std::string>{"Input", "Offset", "Filter"};
  const framework::FusedGradDecl grad{
      inputs,
      {"Output"},
      inputs,
      R"DOC($$dFilter = \sum_n dOutput_n \, col_n^T, \quad dcol = Filter^T dOutput, \quad
dX, d\Delta, dm \text{ from } dcol \text{ through the bilinear samples}$$)DOC"};
  framework::RegisterOp<DeformableConvOp, DeformableConvOpMaker<kMask>>(op)
      .InferShape(DeformableConvInferShape)
      .InferVarType(OutputDataTypeOf("Input", "Output"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<DeformableConvKernel>(op);
  framework::RegisterFusedGradOp(op, grad).InferShape([](InferShapeContext* ctx) {
    for (const char* slot : {"Input", "Offset", "Mask", "Filter"}) {
      const std::string g = std::string(slot) + "@GRAD";
      if (ctx->HasOutput(g)) ctx->SetOutputDim(g, ctx->GetInputDim(slot));
    }
  });
  RegisterPlainCpuFloatKernels<DeformableConvGradKernel>(std::string(op) + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterDeformableConvOps) {
  RegisterDeformableConv<true>("deformable_conv");
  RegisterDeformableConv<false>("deformable_conv_v1");
}

}  // namespace operators
}  // namespace paddle_like
