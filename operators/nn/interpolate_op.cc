// Interpolation (resizing) of 1-, 2- and 3-D images as PaddlePaddle computes it, index for
// index: linear_interp(_v2) on [N, C, W], nearest_interp(_v2), bilinear_interp(_v2) and
// bicubic_interp(_v2) on [N, C, H, W], nearest_interp(_v2) and trilinear_interp(_v2) on [N, C, D,
// H, W] (channels last with data_layout NHWC / NDHWC). The 1.x ops are the forms without _v2. Fused
// grad ops <type>_grad scatter the output gradient back with the same weights.
//
// Output size, in PaddlePaddle's order of precedence (one value per spatial axis):
//   SizeTensor (one-element int tensors, [d,] [h,] w)
//   else OutSize (int tensor), and before it Scale (tensor) or `scale` (attribute):
//        a scale gives out = int(in * scale) and also sets the sampling ratio (v2 only);
//        OutSize, when present, replaces the size but not that ratio
//   else the attributes out_d, out_h, out_w.
// Sampling ratio per axis (in float, as PaddlePaddle does): align_corners gives
// (in - 1) / (out - 1); otherwise 1 / scale when a scale is in force (v2) else in / out.
// Linear sampling is separable: the weight of a source pixel is the product of its axes'.
// The geometry is shared with the CUDA kernels (interpolate_util.h, interpolate_op.cu).
#include <algorithm>
#include <string>
#include <vector>

#include "framework/data_transform.h"
#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/nn/interpolate_util.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

using interp::AxisTaps;
using interp::AxisTapsOf;
using interp::InterpGeometry;
using interp::ResolveInterp;

// The 1.x ops take one float `scale` and never use it for the sampling ratio.
// `type` is a forward op or its grad op.
bool IsV2(const std::string& type) { return type.find("_interp_v2") != std::string::npos; }

class InterpOpMaker : public OpProtoAndCheckerMaker {
 public:
  InterpOpMaker(std::string method, bool v2) : method_(std::move(method)), v2_(v2) {}

  void Make() override {
    AddInput("X", "Images [N, C, W], [N, C, H, W] or [N, C, D, H, W] (channels last with "
                  "NHWC / NDHWC).");
    AddInput("OutSize", "int32/int64 tensor, one size per spatial axis ([d,] [h,] w); "
                        "overrides scales and the out_* attributes.")
        .AsDispensable();
    AddInput("SizeTensor", "One-element int32/int64 tensors, one per spatial axis; overrides "
                           "the rest.")
        .AsDuplicable()
        .AsDispensable();
    AddInput("Scale", v2_ ? "Float tensor: one scale for every spatial axis or one per axis; "
                            "overrides the attribute `scale`."
                          : "One-element float tensor; overrides the attribute `scale`.")
        .AsDispensable();
    AddOutput("Out", "Resized images, X's layout with the output's spatial size.");
    AddAttr<std::string>("data_layout",
                         "NCHW (also for 3-D and 5-D X) or NHWC (channels last); NCDHW and "
                         "NDHWC are read the same; AnyLayout = NCHW.")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout", "NCDHW", "NDHWC"});
    AddAttr<int>("out_d", "Output depth (5-D X) when no tensor or scale gives it.")
        .SetDefault(-1);
    AddAttr<int>("out_h", "Output height (4-D and 5-D X) when no tensor or scale gives it.")
        .SetDefault(-1);
    AddAttr<int>("out_w", "Output width when no tensor or scale gives it.").SetDefault(-1);
    if (v2_) {
      AddAttr<std::vector<float>>("scale",
                                  "Scales ([d,] [h,] w, each > 0; one value for every axis), "
                                  "or empty.")
          .SetDefault(std::vector<float>{});
    } else {
      AddAttr<float>("scale", "One scale for every axis (> 0), or 0 for none.").SetDefault(0.0f);
    }
    AddAttr<std::string>("interp_method",
                         "nearest (4-D, 5-D X), linear (3-D), bilinear or bicubic (4-D) or "
                         "trilinear (5-D).")
        .SetDefault(method_)
        .InEnum({"nearest", "linear", "bilinear", "bicubic", "trilinear"});
    AddAttr<bool>("align_corners",
                  "Map the corner pixels of input and output onto each other: ratio "
                  "(in - 1) / (out - 1).")
        .SetDefault(true);
    AddAttr<int>("align_mode",
                 "Linear methods without align_corners: 0 samples at (o + 0.5) * ratio - 0.5 "
                 "(half-pixel), 1 at o * ratio (bicubic always samples half-pixel).")
        .SetDefault(1)
        .InEnum({0, 1});
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Interpolation (image resizing), as PaddlePaddle's linear / bilinear / trilinear / nearest
_interp(_v2) ops.

For output index o along a spatial axis, the sampling ratio r is (in - 1) / (out - 1) with
align_corners, otherwise 1 / scale when a scale gives the size (v2 ops) or in / out. An
output as large as the input is a copy.

nearest: $$Out[o_y, o_x] = X[\lfloor r_y o_y + a \rfloor, \lfloor r_x o_x + a \rfloor]$$
with a = 0.5 under align_corners, else 0 (and likewise with a depth axis).

linear, bilinear, trilinear: along each axis, with s = r (o + 0.5) - 0.5 clamped at 0
(align_mode 0 without align_corners) or s = r o, source indices i0 = floor(s),
i1 = min(i0 + 1, in - 1) and weight l = s - i0; the output is the sum over the corners of
the product of the axes' weights ((1 - l) for i0, l for i1). Bilinear:
$$Out = (1 - l_y)(1 - l_x) X[y_0, x_0] + l_y (1 - l_x) X[y_1, x_0]
      + (1 - l_y) l_x X[y_0, x_1] + l_y l_x X[y_1, x_1]$$

bicubic: along each axis s = r o (align_corners) or r (o + 0.5) - 0.5, i = floor(s), t = s - i;
the pixels i - 1 .. i + 2 (clamped to the image) weigh Keys' cubic kernel with a = -0.75 at
distances t + 1, t, 1 - t, 2 - t: $$W(d) = (a + 2) |d|^3 - (a + 3) |d|^2 + 1 \ (|d| \le 1), \quad
a |d|^3 - 5 a |d|^2 + 8 a |d| - 4 a \ (1 < |d| < 2)$$ and the output is the sum over the 4x4
pixels of the product of the two axes' weights.

Size: SizeTensor, else OutSize, else int(in * scale) from Scale or `scale`, else out_d /
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

// Sub-makers per method, so that RegisterOp can default-construct them.
template <bool kV2>
class NearestInterpMaker : public InterpOpMaker {
 public:
  NearestInterpMaker() : InterpOpMaker("nearest", kV2) {}
};
template <bool kV2>
class LinearInterpMaker : public InterpOpMaker {
 public:
  LinearInterpMaker() : InterpOpMaker("linear", kV2) {}
};
template <bool kV2>
class BilinearInterpMaker : public InterpOpMaker {
 public:
  BilinearInterpMaker() : InterpOpMaker("bilinear", kV2) {}
};
template <bool kV2>
class BicubicInterpMaker : public InterpOpMaker {
 public:
  BicubicInterpMaker() : InterpOpMaker("bicubic", kV2) {}
};
template <bool kV2>
class TrilinearInterpMaker : public InterpOpMaker {
 public:
  TrilinearInterpMaker() : InterpOpMaker("trilinear", kV2) {}
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

const char* const kAxisNames[] = {"d", "h", "w"};

// The spatial axes' names of a rank-`rank` X for messages: "[out_h, out_w]" and the like.
std::string AxisList(const char* prefix, int rank) {
  std::string s = "[";
  for (int a = 5 - rank; a < 3; ++a) {
    s += std::string(a > 5 - rank ? ", " : "") + prefix + kAxisNames[a];
  }
  return s + "]";
}

// Checks X's rank against the method: PaddlePaddle computes linear on 3-D X, nearest and
// bilinear on 4-D, nearest and trilinear on 5-D (other pairs leave its output unwritten).
void CheckRankAndMethod(const std::string& op, const DDim& x, const std::string& method) {
  const int r = x.size();
  const bool ok =
      (r == 3 && method == "linear") ||
      (r == 4 && (method == "nearest" || method == "bilinear" || method == "bicubic")) ||
      (r == 5 && (method == "nearest" || method == "trilinear"));
  if (ok) return;
  if (r < 3 || r > 5) {
    throw errors::InvalidArgument(
        "op `%s` input `X`: expected a 3-D, 4-D or 5-D image ([N, C, W], [N, C, H, W] or "
        "[N, C, D, H, W]), received shape %s",
        op, x.ToString());
  }
  throw errors::InvalidArgument(
      "op `%s` attribute `interp_method`: `%s` does not apply to %d-D X %s (expected linear "
      "for 3-D, nearest, bilinear or bicubic for 4-D, nearest or trilinear for 5-D)",
      op, method, r, x.ToString());
}

bool ChannelLast(const std::string& layout) { return layout == "NHWC" || layout == "NDHWC"; }

// Fills g's rank, n, c and input sizes from X's dims.
void ReadImageDims(const DDim& x, bool channel_last, InterpGeometry* g) {
  g->rank = x.size();
  g->channel_last = channel_last;
  g->n = x[0];
  g->c = channel_last ? x[g->rank - 1] : x[1];
  const int first = channel_last ? 1 : 2;
  for (int i = 0; i < g->spatial(); ++i) g->in[3 - g->spatial() + i] = x[first + i];
}

// Scales given as `values` for a rank-`rank` X: one for every axis, or one per axis.
std::vector<float> ScalesPerAxis(const std::string& op, const std::string& origin,
                                 const std::vector<double>& values, int spatial) {
  PL_ENFORCE(values.size() == 1 || static_cast<int>(values.size()) == spatial,
             errors::InvalidArgument("op `%s` %s: expected 1 or %d values, received %zu", op,
                                     origin, spatial, values.size()));
  std::vector<float> s(3, -1.f);
  for (int i = 0; i < spatial; ++i) {
    s[3 - spatial + i] = static_cast<float>(values.size() == 1 ? values[0] : values[i]);
  }
  return s;
}

std::vector<double> ReadScaleTensor(const std::string& op, const DenseTensor& tensor) {
  std::vector<double> v;
  const DenseTensor t = framework::OnCpu(tensor);  // A GPU program's Scale lives there.
  if (t.dtype() == DataType::FLOAT32) {
    v.assign(t.data<float>(), t.data<float>() + t.numel());
  } else if (t.dtype() == DataType::FLOAT64) {
    v.assign(t.data<double>(), t.data<double>() + t.numel());
  } else {
    throw errors::InvalidArgument("op `%s` input `Scale`: expected float32 or float64, received %s",
                                  op, platform::DataTypeName(t.dtype()));
  }
  return v;
}

// The scales [d, h, w] the attribute or the Scale tensor give (-1 for none); empty for none.
std::vector<float> ResolveScales(const ExecutionContext& ctx, bool v2, int spatial) {
  const std::string& op = ctx.Type();
  std::vector<float> s;
  std::string origin;
  if (ctx.HasInput("Scale")) {
    origin = "input `Scale`";
    std::vector<double> values = ReadScaleTensor(op, *ctx.Input("Scale"));
    if (!v2 && !values.empty()) values.resize(1);  // 1.x: one scale.
    s = ScalesPerAxis(op, origin, values, spatial);
  } else if (v2) {
    origin = "attribute `scale`";
    const auto& attr = ctx.Attr<std::vector<float>>("scale");
    if (!attr.empty()) {
      s = ScalesPerAxis(op, origin, std::vector<double>(attr.begin(), attr.end()), spatial);
    }
  } else if (ctx.Attr<float>("scale") > 0) {
    origin = "attribute `scale`";
    s = ScalesPerAxis(op, origin, {ctx.Attr<float>("scale")}, spatial);
  }
  for (int a = 3 - spatial; a < 3 && !s.empty(); ++a) {
    PL_ENFORCE(s[a] > 0, errors::InvalidArgument("op `%s` %s: expected scales > 0, received %g",
                                                 op, origin, s[a]));
  }
  return s;
}

int64_t AttrSize(const framework::AttributeMap& attrs, int axis) {
  static const char* const kNames[] = {"out_d", "out_h", "out_w"};
  return std::get<int>(attrs.at(kNames[axis]));
}

}  // namespace

namespace interp {

DDim InterpGeometry::OutDims() const {
  std::vector<int64_t> d = {n};
  if (!channel_last) d.push_back(c);
  for (int a = 3 - spatial(); a < 3; ++a) d.push_back(out[a]);
  if (channel_last) d.push_back(c);
  return DDim(d);
}

InterpGeometry ResolveInterp(const ExecutionContext& ctx, const DDim& x) {
  const std::string& op = ctx.Type();
  const std::string method = ctx.Attr<std::string>("interp_method");
  CheckRankAndMethod(op, x, method);
  const bool v2 = IsV2(op);
  InterpGeometry g;
  ReadImageDims(x, ChannelLast(ctx.Attr<std::string>("data_layout")), &g);
  g.nearest = method == "nearest";
  g.cubic = method == "bicubic";
  g.align_corners = ctx.Attr<bool>("align_corners");
  g.align_mode = ctx.Attr<int>("align_mode");
  const int k = g.spatial(), first = 3 - k;
  std::vector<float> scales;
  int64_t out[3] = {1, 1, 1};
  for (int a = first; a < 3; ++a) out[a] = AttrSize(ctx.op().Attrs(), a);
  std::string origin = "attributes " + AxisList("out_", g.rank);
  auto take = [&](const std::vector<int64_t>& size, const std::string& from) {
    PL_ENFORCE(static_cast<int>(size.size()) == k,
               errors::InvalidArgument("op `%s` %s: expected %d values %s for %d-D X, received "
                                       "%zu",
                                       op, from, k, AxisList("out_", g.rank), g.rank,
                                       size.size()));
    for (int i = 0; i < k; ++i) out[first + i] = size[i];
    origin = from;
  };
  if (ctx.HasInput("SizeTensor")) {
    std::string list_origin;
    take(ReadIntList(ctx, "", "SizeTensor", "", &list_origin), "input `SizeTensor`");
  } else {
    scales = ResolveScales(ctx, v2, k);
    if (!scales.empty()) {
      for (int a = first; a < 3; ++a) {
        out[a] = static_cast<int64_t>(static_cast<float>(g.in[a]) * scales[a]);
      }
      origin = ctx.HasInput("Scale") ? "input `Scale`" : "attribute `scale`";
    }
    if (ctx.HasInput("OutSize")) {
      take(ReadIntValues(*ctx.Input("OutSize"), op, "OutSize"), "input `OutSize`");
    }
  }
  for (int a = first; a < 3; ++a) {
    if (out[a] > 0) continue;
    std::string got;
    for (int b = first; b < 3; ++b) got += (b > first ? ", " : "") + std::to_string(out[b]);
    throw errors::InvalidArgument(
        "op `%s` %s: expected an output size > 0 on every axis, received [%s] for X %s", op,
        origin, got, x.ToString());
  }
  // Ratios in float, with PaddlePaddle's expressions, so that the sampled pixels are the same.
  for (int a = first; a < 3; ++a) {
    g.out[a] = out[a];
    const float scale = scales.empty() ? -1.f : scales[a];
    const int64_t in = g.in[a], o = g.out[a];
    if (o <= 1) {
      g.ratio[a] = 0.f;
    } else if (g.align_corners) {
      g.ratio[a] = static_cast<float>(in - 1) / static_cast<float>(o - 1);
    } else if (v2 && scale > 0) {
      g.ratio[a] = static_cast<float>(1. / scale);
    } else {
      g.ratio[a] = static_cast<float>(in) / static_cast<float>(o);
    }
  }
  return g;
}

std::vector<AxisTaps> AxisTapsOf(const InterpGeometry& g, int axis) {
  if (axis < 3 - g.spatial()) return std::vector<AxisTaps>(1);
  const bool align_flag = g.align_mode == 0 && !g.align_corners;
  std::vector<AxisTaps> taps(static_cast<size_t>(g.out[axis]));
  for (int64_t o = 0; o < g.out[axis]; ++o) {
    taps[o] = g.nearest ? NearestTap(g.in[axis], g.ratio[axis], g.align_corners, o)
              : g.cubic ? CubicTap(g.in[axis], g.ratio[axis], g.align_corners, o)
                        : LinearTap(g.in[axis], g.ratio[axis], align_flag, o);
  }
  return taps;
}

std::vector<int64_t> ReaderRanges(const std::vector<AxisTaps>& taps, int64_t in) {
  std::vector<int64_t> ranges(static_cast<size_t>(2 * in), 0);
  for (int64_t o = 0; o < static_cast<int64_t>(taps.size()); ++o) {
    for (int t = 0; t < taps[o].count; ++t) {
      const int64_t i = taps[o].index[t];
      if (ranges[2 * i] == ranges[2 * i + 1]) ranges[2 * i] = o;  // The first reader.
      ranges[2 * i + 1] = o + 1;
    }
  }
  return ranges;
}

}  // namespace interp

namespace {

// Build-time shape: known only when the attributes give the size.
void InterpInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const std::string& op = ctx->OpType();
  const DDim x = ctx->GetInputDim("X");
  CheckRankAndMethod(op, x, ctx->Attr<std::string>("interp_method"));
  if (ctx->IsRuntime()) return;  // The kernel resolves the size from the tensors.
  InterpGeometry g;
  ReadImageDims(x, ChannelLast(ctx->Attr<std::string>("data_layout")), &g);
  const int k = g.spatial(), first = 3 - k;
  std::vector<float> scales(3, -1.f);
  bool scaled = false;
  if (!ctx->HasInput("SizeTensor") && !ctx->HasInput("Scale") && !ctx->HasInput("OutSize")) {
    if (IsV2(op)) {
      const auto& s = ctx->Attr<std::vector<float>>("scale");
      if (!s.empty()) {
        scales = ScalesPerAxis(op, "attribute `scale`", std::vector<double>(s.begin(), s.end()), k);
        scaled = true;
      }
    } else if (ctx->Attr<float>("scale") > 0) {
      scales = ScalesPerAxis(op, "attribute `scale`", {ctx->Attr<float>("scale")}, k);
      scaled = true;
    }
    for (int a = first; a < 3; ++a) {
      if (scaled) {
        g.out[a] = g.in[a] < 0 || scales[a] <= 0
                       ? -1
                       : static_cast<int64_t>(static_cast<float>(g.in[a]) * scales[a]);
      } else {
        g.out[a] = AttrSize(ctx->Attrs(), a);
      }
    }
  } else {
    for (int a = first; a < 3; ++a) g.out[a] = -1;
  }
  ctx->SetOutputDim("Out", g.OutDims());
}

// Calls fn(src_offset, dst_offset, weight) for every (output pixel, input pixel) pair of the
// resize, per image and channel. The weight of a pair is the product of its axes' weights,
// depth first (1 for the axes the image does not have).
template <typename Fn>
void ForEachSample(const InterpGeometry& g, Fn&& fn) {
  const std::vector<AxisTaps> taps[3] = {AxisTapsOf(g, 0), AxisTapsOf(g, 1), AxisTapsOf(g, 2)};
  const int64_t in_pixels = g.InPixels(), out_pixels = g.OutPixels();
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t ch = 0; ch < g.c; ++ch)
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oy = 0; oy < g.out[1]; ++oy)
          for (int64_t ox = 0; ox < g.out[2]; ++ox) {
            const int64_t dst = g.Offset(b, ch, (od * g.out[1] + oy) * g.out[2] + ox, out_pixels);
            const AxisTaps &td = taps[0][od], &ty = taps[1][oy], &tx = taps[2][ox];
            for (int i = 0; i < td.count; ++i)
              for (int j = 0; j < ty.count; ++j)
                for (int k = 0; k < tx.count; ++k) {
                  const int64_t p = (td.index[i] * g.in[1] + ty.index[j]) * g.in[2] + tx.index[k];
                  const float w = td.weight[i] * ty.weight[j] * tx.weight[k];
                  fn(g.Offset(b, ch, p, in_pixels), dst, w);
                }
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
    if (g.SameSize()) {
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
    if (g.SameSize()) {
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
  RegisterInterp<LinearInterpMaker<true>>("linear_interp_v2");
  RegisterInterp<BilinearInterpMaker<true>>("bilinear_interp_v2");
  RegisterInterp<TrilinearInterpMaker<true>>("trilinear_interp_v2");
  RegisterInterp<BicubicInterpMaker<true>>("bicubic_interp_v2");
  RegisterInterp<NearestInterpMaker<false>>("nearest_interp");
  RegisterInterp<LinearInterpMaker<false>>("linear_interp");
  RegisterInterp<BilinearInterpMaker<false>>("bilinear_interp");
  RegisterInterp<TrilinearInterpMaker<false>>("trilinear_interp");
  RegisterInterp<BicubicInterpMaker<false>>("bicubic_interp");
}

}  // namespace operators
}  // namespace paddle_like
