// nearest_interp_v2 and bilinear_interp_v2 (and their 1.x forms nearest_interp and
// bilinear_interp): resizing of 4-D images, as PaddlePaddle computes it, index for index;
// fused grad ops <type>_grad scatter the output gradient back with the same weights.
//
// Output size, in PaddlePaddle's order of precedence:
//   SizeTensor (one-element int tensors [h], [w])
//   else OutSize (int tensor [h, w]), and before it Scale (tensor) or `scale` (attribute):
//        a scale gives out = int(in * scale) and also sets the sampling ratio (v2 only);
//        OutSize, when present, replaces the size but not that ratio
//   else the attributes out_h, out_w.
// Sampling ratio per axis (in float, as PaddlePaddle does): align_corners gives
// (in - 1) / (out - 1); otherwise 1 / scale when a scale is in force (v2) else in / out.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

// The 1.x ops take one float `scale` and never use it for the sampling ratio.
// `type` is a forward op or its grad op.
bool IsV2(const std::string& type) { return type.find("_interp_v2") != std::string::npos; }

class InterpOpMaker : public OpProtoAndCheckerMaker {
 public:
  InterpOpMaker(std::string method, bool v2) : method_(std::move(method)), v2_(v2) {}

  void Make() override {
    AddInput("X", "Images [N, C, H, W] (NHWC: [N, H, W, C]).");
    AddInput("OutSize", "int32/int64 tensor [out_h, out_w]; overrides scales and out_h/out_w.")
        .AsDispensable();
    AddInput("SizeTensor", "One-element int32/int64 tensors out_h, out_w; overrides the rest.")
        .AsDuplicable()
        .AsDispensable();
    AddInput("Scale", v2_ ? "Float tensor: one scale for both axes or [scale_h, scale_w]; "
                            "overrides the attribute `scale`."
                          : "One-element float tensor; overrides the attribute `scale`.")
        .AsDispensable();
    AddOutput("Out", "Resized images [N, C, out_h, out_w] (NHWC: [N, out_h, out_w, C]).");
    AddAttr<std::string>("data_layout", "NCHW or NHWC (AnyLayout = NCHW).")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout"});
    AddAttr<int>("out_d", "Output depth (5-D inputs; unused for 4-D).").SetDefault(-1);
    AddAttr<int>("out_h", "Output height when no tensor or scale gives it.").SetDefault(-1);
    AddAttr<int>("out_w", "Output width when no tensor or scale gives it.").SetDefault(-1);
    if (v2_) {
      AddAttr<std::vector<float>>("scale", "[scale_h, scale_w] (> 0), or empty.")
          .SetDefault(std::vector<float>{});
    } else {
      AddAttr<float>("scale", "One scale for both axes (> 0), or 0 for none.").SetDefault(0.0f);
    }
    AddAttr<std::string>("interp_method", "nearest or bilinear.")
        .SetDefault(method_)
        .InEnum({"nearest", "bilinear"});
    AddAttr<bool>("align_corners",
                  "Map the corner pixels of input and output onto each other: ratio "
                  "(in - 1) / (out - 1).")
        .SetDefault(true);
    AddAttr<int>("align_mode",
                 "bilinear without align_corners: 0 samples at (o + 0.5) * ratio - 0.5 "
                 "(half-pixel), 1 at o * ratio.")
        .SetDefault(1)
        .InEnum({0, 1});
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Interpolation (image resizing), as PaddlePaddle's nearest_interp_v2 / bilinear_interp_v2.

For output row o the sampling ratio r is (H_in - 1) / (H_out - 1) with align_corners,
otherwise 1 / scale_h when a scale gives the size (v2 ops) or H_in / H_out; likewise for
columns. An output as large as the input is a copy.

nearest: $$Out[o_y, o_x] = X[\lfloor r_y o_y + a \rfloor, \lfloor r_x o_x + a \rfloor]$$
with a = 0.5 under align_corners, else 0.

bilinear: with s = r (o + 0.5) - 0.5 clamped at 0 (align_mode 0 without align_corners) or
s = r o, source rows y0 = floor(s), y1 = min(y0 + 1, H_in - 1), weight l = s - y0:
$$Out = (1 - l_y)(1 - l_x) X[y_0, x_0] + l_y (1 - l_x) X[y_1, x_0]
      + (1 - l_y) l_x X[y_0, x_1] + l_y l_x X[y_1, x_1]$$

Size: SizeTensor, else OutSize, else int(H_in * scale) from Scale or `scale`, else
out_h / out_w. Example: X [1, 1, 2, 2] = [[1, 2], [3, 4]], nearest, out 4x4,
align_corners false -> each pixel repeated in a 2x2 block.

Gradient (fused op `<type>_grad`): each output gradient is added back to the input pixels it
read, with the same weights.
)DOC");
  }

 private:
  std::string method_;
  bool v2_;
};

// Two sub-makers so that RegisterOp can default-construct them.
template <bool kV2>
class NearestInterpMaker : public InterpOpMaker {
 public:
  NearestInterpMaker() : InterpOpMaker("nearest", kV2) {}
};
template <bool kV2>
class BilinearInterpMaker : public InterpOpMaker {
 public:
  BilinearInterpMaker() : InterpOpMaker("bilinear", kV2) {}
};

class InterpOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
  // OutSize, SizeTensor and Scale are read as they are.
  bool CastsInput(const std::string& slot, DataType, DataType) const override {
    return slot == "X" || slot == "Out@GRAD";
  }
};

// Everything a kernel needs, resolved from the inputs and attributes.
struct InterpGeometry {
  bool channel_last = false;
  bool nearest = true;
  bool align_corners = true;
  int align_mode = 1;
  int64_t n = 0, c = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  float ratio_h = 0.f, ratio_w = 0.f;

  DDim OutDims() const {
    return channel_last ? DDim{n, out_h, out_w, c} : DDim{n, c, out_h, out_w};
  }
  int64_t Offset(int64_t b, int64_t ch, int64_t y, int64_t x, int64_t h, int64_t w) const {
    return channel_last ? ((b * h + y) * w + x) * c + ch : ((b * c + ch) * h + y) * w + x;
  }
};

void RequireRank4(const std::string& op, const DDim& x) {
  PL_ENFORCE(x.size() == 4,
             errors::Unimplemented("op `%s` input `X`: only 4-D images [N, C, H, W] are "
                                   "supported, received shape %s",
                                   op, x.ToString()));
}

bool ChannelLast(const framework::AttributeMap& attrs) {
  return std::get<std::string>(attrs.at("data_layout")) == "NHWC";
}

std::vector<double> ReadScaleTensor(const std::string& op, const DenseTensor& t) {
  std::vector<double> v;
  if (t.dtype() == DataType::FLOAT32) {
    v.assign(t.data<float>(), t.data<float>() + t.numel());
  } else if (t.dtype() == DataType::FLOAT64) {
    v.assign(t.data<double>(), t.data<double>() + t.numel());
  } else {
    throw errors::InvalidArgument("op `%s` input `Scale`: expected float32 or float64, received %s",
                                  op, platform::DataTypeName(t.dtype()));
  }
  PL_ENFORCE(v.size() == 1 || v.size() == 2,
             errors::InvalidArgument("op `%s` input `Scale`: expected 1 or 2 values, received %zu",
                                     op, v.size()));
  return v;
}

// The scales the attributes or the Scale tensor give, or {-1, -1} for none.
void ResolveScales(const ExecutionContext& ctx, bool v2, float* scale_h, float* scale_w) {
  const std::string& op = ctx.Type();
  *scale_h = *scale_w = -1.f;
  if (ctx.HasInput("Scale")) {
    const std::vector<double> s = ReadScaleTensor(op, *ctx.Input("Scale"));
    *scale_h = static_cast<float>(s[0]);
    *scale_w = static_cast<float>(s.size() > 1 && v2 ? s[1] : s[0]);
  } else if (v2) {
    const auto& s = ctx.Attr<std::vector<float>>("scale");
    PL_ENFORCE(s.empty() || s.size() == 2,
               errors::InvalidArgument("op `%s` attribute `scale`: expected no values or 2 "
                                       "[scale_h, scale_w], received %zu",
                                       op, s.size()));
    if (s.size() == 2) {
      *scale_h = s[0];
      *scale_w = s[1];
    }
  } else {
    const float s = ctx.Attr<float>("scale");
    if (s > 0) *scale_h = *scale_w = s;
  }
  const bool given = ctx.HasInput("Scale") || *scale_h != -1.f;
  PL_ENFORCE(!given || (*scale_h > 0 && *scale_w > 0),
             errors::InvalidArgument("op `%s` %s: expected scales > 0, received [%g, %g]", op,
                                     ctx.HasInput("Scale") ? "input `Scale`" : "attribute `scale`",
                                     *scale_h, *scale_w));
}

InterpGeometry ResolveInterp(const ExecutionContext& ctx, const DDim& x) {
  const std::string& op = ctx.Type();
  RequireRank4(op, x);
  const bool v2 = IsV2(op);
  InterpGeometry g;
  g.channel_last = ctx.Attr<std::string>("data_layout") == "NHWC";
  g.n = x[0];
  g.c = g.channel_last ? x[3] : x[1];
  g.in_h = g.channel_last ? x[1] : x[2];
  g.in_w = g.channel_last ? x[2] : x[3];
  g.nearest = ctx.Attr<std::string>("interp_method") == "nearest";
  g.align_corners = ctx.Attr<bool>("align_corners");
  g.align_mode = ctx.Attr<int>("align_mode");
  float scale_h = -1.f, scale_w = -1.f;
  int64_t out_h = ctx.Attr<int>("out_h"), out_w = ctx.Attr<int>("out_w");
  std::string origin = "attributes `out_h`, `out_w`";
  if (ctx.HasInput("SizeTensor")) {
    std::string list_origin;
    const std::vector<int64_t> size = ReadIntList(ctx, "", "SizeTensor", "", &list_origin);
    PL_ENFORCE(size.size() == 2,
               errors::InvalidArgument("op `%s` input `SizeTensor`: expected 2 tensors (out_h, "
                                       "out_w), received %zu values",
                                       op, size.size()));
    out_h = size[0];
    out_w = size[1];
    origin = "input `SizeTensor`";
  } else {
    ResolveScales(ctx, v2, &scale_h, &scale_w);
    if (scale_h > 0 && scale_w > 0) {
      out_h = static_cast<int64_t>(static_cast<float>(g.in_h) * scale_h);
      out_w = static_cast<int64_t>(static_cast<float>(g.in_w) * scale_w);
      origin = ctx.HasInput("Scale") ? "input `Scale`" : "attribute `scale`";
    }
    if (ctx.HasInput("OutSize")) {
      const std::vector<int64_t> size = ReadIntValues(*ctx.Input("OutSize"), op, "OutSize");
      PL_ENFORCE(size.size() == 2,
                 errors::InvalidArgument(
                     "op `%s` input `OutSize`: expected 2 values [out_h, out_w], received %zu", op,
                     size.size()));
      out_h = size[0];
      out_w = size[1];
      origin = "input `OutSize`";
    }
  }
  PL_ENFORCE(out_h > 0 && out_w > 0,
             errors::InvalidArgument("op `%s` %s: expected an output size > 0, received "
                                     "[%lld, %lld] for X %s",
                                     op, origin, static_cast<long long>(out_h),
                                     static_cast<long long>(out_w), x.ToString()));
  g.out_h = out_h;
  g.out_w = out_w;
  // Ratios in float, with PaddlePaddle's expressions, so that the sampled pixels are the same.
  auto ratio = [&](int64_t in, int64_t out, float scale) -> float {
    if (out <= 1) return 0.f;
    if (g.align_corners) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
    if (v2 && scale > 0) return static_cast<float>(1. / scale);
    return static_cast<float>(in) / static_cast<float>(out);
  };
  g.ratio_h = ratio(g.in_h, g.out_h, scale_h);
  g.ratio_w = ratio(g.in_w, g.out_w, scale_w);
  return g;
}

// Build-time shape: known only when the attributes give the size.
void InterpInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const std::string& op = ctx->OpType();
  const DDim x = ctx->GetInputDim("X");
  RequireRank4(op, x);
  if (ctx->IsRuntime()) return;  // The kernel resolves the size from the tensors.
  const bool channel_last = ChannelLast(ctx->Attrs());
  const int64_t n = x[0], c = channel_last ? x[3] : x[1];
  const int64_t in_h = channel_last ? x[1] : x[2], in_w = channel_last ? x[2] : x[3];
  int64_t out_h = -1, out_w = -1;
  if (!ctx->HasInput("SizeTensor") && !ctx->HasInput("Scale") && !ctx->HasInput("OutSize")) {
    float sh = -1.f, sw = -1.f;
    if (IsV2(op)) {
      const auto& s = ctx->Attr<std::vector<float>>("scale");
      if (s.size() == 2) {
        sh = s[0];
        sw = s[1];
      }
    } else if (ctx->Attr<float>("scale") > 0) {
      sh = sw = ctx->Attr<float>("scale");
    }
    if (sh > 0 && sw > 0) {
      out_h = in_h < 0 ? -1 : static_cast<int64_t>(static_cast<float>(in_h) * sh);
      out_w = in_w < 0 ? -1 : static_cast<int64_t>(static_cast<float>(in_w) * sw);
    } else {
      out_h = ctx->Attr<int>("out_h");
      out_w = ctx->Attr<int>("out_w");
    }
  }
  ctx->SetOutputDim("Out", channel_last ? DDim{n, out_h, out_w, c} : DDim{n, c, out_h, out_w});
}

// Per output index along one axis: the two source indices and the weight of the second.
struct AxisSamples {
  std::vector<int64_t> lo, hi;
  std::vector<float> w_hi;
};

AxisSamples BilinearSamples(int64_t in, int64_t out, float ratio, bool align_flag) {
  AxisSamples s;
  for (int64_t o = 0; o < out; ++o) {
    int64_t lo = align_flag ? static_cast<int64_t>(ratio * (o + 0.5) - 0.5)
                            : static_cast<int64_t>(ratio * static_cast<float>(o));
    lo = lo > 0 ? lo : 0;
    const int64_t hi = lo + 1 < in - 1 ? lo + 1 : in - 1;
    float src = static_cast<float>(ratio * (o + 0.5) - 0.5);
    src = src > 0 ? src : 0;
    const float w = align_flag ? src - static_cast<float>(lo)
                               : ratio * static_cast<float>(o) - static_cast<float>(lo);
    s.lo.push_back(lo);
    s.hi.push_back(hi);
    s.w_hi.push_back(w);
  }
  return s;
}

std::vector<int64_t> NearestSamples(int64_t out, float ratio, bool align_corners) {
  std::vector<int64_t> idx;
  for (int64_t o = 0; o < out; ++o) {
    idx.push_back(align_corners ? static_cast<int64_t>(ratio * static_cast<float>(o) + 0.5)
                                : static_cast<int64_t>(ratio * static_cast<float>(o)));
  }
  return idx;
}

// Calls fn(src_offset, dst_offset, weight) for every (output pixel, input pixel) pair of the
// resize, per image and channel.
template <typename Fn>
void ForEachSample(const InterpGeometry& g, Fn&& fn) {
  if (g.nearest) {
    const std::vector<int64_t> ys = NearestSamples(g.out_h, g.ratio_h, g.align_corners);
    const std::vector<int64_t> xs = NearestSamples(g.out_w, g.ratio_w, g.align_corners);
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t ch = 0; ch < g.c; ++ch)
        for (int64_t oy = 0; oy < g.out_h; ++oy)
          for (int64_t ox = 0; ox < g.out_w; ++ox)
            fn(g.Offset(b, ch, ys[oy], xs[ox], g.in_h, g.in_w),
               g.Offset(b, ch, oy, ox, g.out_h, g.out_w), 1.f);
    return;
  }
  const bool align_flag = g.align_mode == 0 && !g.align_corners;
  const AxisSamples ys = BilinearSamples(g.in_h, g.out_h, g.ratio_h, align_flag);
  const AxisSamples xs = BilinearSamples(g.in_w, g.out_w, g.ratio_w, align_flag);
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t ch = 0; ch < g.c; ++ch)
      for (int64_t oy = 0; oy < g.out_h; ++oy)
        for (int64_t ox = 0; ox < g.out_w; ++ox) {
          const int64_t dst = g.Offset(b, ch, oy, ox, g.out_h, g.out_w);
          const float wy = ys.w_hi[oy], wx = xs.w_hi[ox];
          fn(g.Offset(b, ch, ys.lo[oy], xs.lo[ox], g.in_h, g.in_w), dst, (1 - wy) * (1 - wx));
          fn(g.Offset(b, ch, ys.hi[oy], xs.lo[ox], g.in_h, g.in_w), dst, wy * (1 - wx));
          fn(g.Offset(b, ch, ys.lo[oy], xs.hi[ox], g.in_h, g.in_w), dst, (1 - wy) * wx);
          fn(g.Offset(b, ch, ys.hi[oy], xs.hi[ox], g.in_h, g.in_w), dst, wy * wx);
        }
}

template <typename T>
struct InterpKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const InterpGeometry g = ResolveInterp(ctx, x->dims());
    DenseTensor fresh(g.OutDims(), x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    if (g.in_h == g.out_h && g.in_w == g.out_w) {
      std::copy(in, in + x->numel(), out);
    } else {
      std::fill(out, out + fresh.numel(), T(0));
      ForEachSample(g, [&](int64_t src, int64_t dst, float w) { out[dst] += in[src] * T(w); });
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct InterpGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const InterpGeometry g = ResolveInterp(ctx, x->dims());
    PL_ENFORCE(dout->dims() == g.OutDims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), g.OutDims().ToString(),
                                       dout->dims().ToString()));
    DenseTensor fresh(x->dims(), dout->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    const T* dy = dout->numel() > 0 ? dout->data<T>() : nullptr;
    if (g.in_h == g.out_h && g.in_w == g.out_w) {
      std::copy(dy, dy + dout->numel(), dx);
    } else {
      std::fill(dx, dx + fresh.numel(), T(0));
      ForEachSample(g, [&](int64_t src, int64_t dst, float w) { dx[src] += dy[dst] * T(w); });
    }
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

template <typename MakerT>
void RegisterInterp(const std::string& type) {
  const framework::FusedGradDecl grad{
      {"X", "OutSize", "SizeTensor", "Scale"},
      {"Out"},
      {"X"},
      R"DOC($$dX[p] = \sum_{(o, w):\ Out[o] \text{ reads } X[p] \text{ with weight } w} w \cdot dOut[o]$$)DOC"};
  framework::RegisterOp<InterpOp, MakerT>(type)
      .InferShape(InterpInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<InterpKernel>(type);
  framework::RegisterFusedGradOp(type, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireOutput("X@GRAD");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuFloatKernels<InterpGradKernel>(type + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterInterpolateOps) {
  RegisterInterp<NearestInterpMaker<true>>("nearest_interp_v2");
  RegisterInterp<BilinearInterpMaker<true>>("bilinear_interp_v2");
  RegisterInterp<NearestInterpMaker<false>>("nearest_interp");
  RegisterInterp<BilinearInterpMaker<false>>("bilinear_interp");
}

}  // namespace operators
}  // namespace paddle_like
