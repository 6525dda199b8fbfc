// grid_sampler: samples X [N, C, H, W] at the normalized points of Grid [N, Ho, Wo, 2]
// (x, y in [-1, 1]), or a volume X [N, C, D, H, W] at Grid [N, Do, Ho, Wo, 3] (x, y, z),
// (bi/tri)linear or nearest, with zeros, border or reflection padding, as
// PaddlePaddle's grid_sampler (paddle.nn.functional.grid_sample); with its fused gradient op,
// which writes the gradients of X and of Grid.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "grid_sampler";

class GridSamplerOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Images [N, C, H, W] or volumes [N, C, D, H, W].");
    AddInput("Grid",
             "Sampling points [N, Ho, Wo, 2]: (x, y) normalized to [-1, 1]; for "
             "volumes [N, Do, Ho, Wo, 3]: (x, y, z).");
    AddOutput("Output", "Samples [N, C, Ho, Wo] or [N, C, Do, Ho, Wo].");
    AddAttr<std::string>("mode", "bilinear (trilinear for volumes) or nearest.")
        .SetDefault("bilinear")
        .InEnum({"bilinear", "nearest"});
    AddAttr<std::string>("padding_mode", "Points outside the image: zeros, border or reflection.")
        .SetDefault("zeros")
        .InEnum({"zeros", "border", "reflection"});
    AddAttr<bool>("align_corners",
                  "-1 and 1 are the centres of the corner pixels (else their "
                  "outer edges).")
        .SetDefault(true);
    AddComment(R"DOC(
Grid sampler. A grid point (x, y) maps to pixel coordinates, along an axis of size s:

$$i = \frac{(x + 1)(s - 1)}{2} \ \text{(align\_corners)}, \qquad
  i = \frac{(x + 1) s - 1}{2} \ \text{(otherwise)}$$

border clamps i to [0, s - 1]; reflection mirrors it at 0 and s - 1 (align_corners) or at
-0.5 and s - 0.5, then clamps; zeros leaves it. bilinear:
$$Output = \sum_{corners (p, q)} X[q, p] \, (1 - |i_x - p|)(1 - |i_y - q|)$$
over the four pixels around (i_x, i_y), where a pixel outside the image reads 0; nearest reads
the pixel at (round(i_x), round(i_y)) (halves away from zero), 0 outside. Example: X of 2x2 and
the grid point (0, 0) with align_corners gives the mean of the four pixels. For volumes the
grid point (x, y, z) maps to (i_x, i_y, i_z) along W, H and D, and the linear sample sums the
eight voxels around it with weights (1 - |i_x - p|)(1 - |i_y - q|)(1 - |i_z - r|).

Gradient (fused op): X@GRAD gathers Output@GRAD with the same weights; Grid@GRAD is the
derivative of the bilinear weights (0 for nearest) times that of the coordinate mapping (the
clamp passes 0 outside, the reflection flips the sign).
)DOC");
  }
};

class GridSamplerOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

// The number of spatial axes (2 or 3), after checking that X and Grid agree.
int CheckShapes(const std::string& op, const DDim& x, const DDim& grid) {
  PL_ENFORCE(x.size() == 4 || x.size() == 5,
             errors::InvalidArgument("op `%s` input `X`: expected [N, C, H, W] or [N, C, D, H, W], "
                                     "received shape %s",
                                     op, x.ToString()));
  const int axes = x.size() - 2;
  PL_ENFORCE(grid.size() == x.size() && (grid[axes + 1] == axes || grid[axes + 1] < 0),
             errors::InvalidArgument("op `%s` input `Grid`: expected %s for X of shape %s, "
                                     "received shape %s",
                                     op, axes == 2 ? "[N, Ho, Wo, 2]" : "[N, Do, Ho, Wo, 3]",
                                     x.ToString(), grid.ToString()));
  PL_ENFORCE(x[0] < 0 || grid[0] < 0 || x[0] == grid[0],
             errors::InvalidArgument("op `%s`: X has %s images but Grid %s (X %s, Grid %s)", op,
                                     std::to_string(x[0]), std::to_string(grid[0]), x.ToString(),
                                     grid.ToString()));
  return axes;
}

// [N, C, grid's spatial dims].
DDim OutputDims(const DDim& x, const DDim& grid) {
  std::vector<int64_t> out = {x[0], x[1]};
  for (int a = 1; a + 1 < grid.size(); ++a) out.push_back(grid[a]);
  return DDim(out);
}

void GridSamplerInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Grid");
  ctx->RequireOutput("Output");
  const DDim x = ctx->GetInputDim("X"), grid = ctx->GetInputDim("Grid");
  CheckShapes(ctx->OpType(), x, grid);
  ctx->SetOutputDim("Output", OutputDims(x, grid));
}

// One axis's mapping from a normalized coordinate to a pixel coordinate, with its derivative.
struct AxisMap {
  int64_t size;
  bool align_corners;
  std::string padding;

  // Returns the pixel coordinate of normalized `c`; *slope is d(result)/dc.
  double operator()(double c, double* slope) const {
    const double s = static_cast<double>(size);
    double i = align_corners ? (c + 1) / 2 * (s - 1) : ((c + 1) * s - 1) / 2;
    *slope = align_corners ? (s - 1) / 2 : s / 2;
    if (padding == "border") {
      i = Clamp(i, slope);
    } else if (padding == "reflection") {
      i = align_corners ? Reflect(i, 0, 2 * (s - 1), slope) : Reflect(i, -1, 2 * s - 1, slope);
      i = Clamp(i, slope);
    }
    return i;
  }

 private:
  double Clamp(double i, double* slope) const {
    const double hi = static_cast<double>(size - 1);
    if (i <= 0 || i >= hi) {
      *slope = 0;
      return std::min(std::max(i, 0.0), hi);
    }
    return i;
  }
  // Mirrors i into [twice_low / 2, twice_high / 2].
  static double Reflect(double i, double twice_low, double twice_high, double* slope) {
    if (twice_low == twice_high) {
      *slope = 0;
      return 0;
    }
    const double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
    double d = i - lo;
    if (d < 0) {
      d = -d;
      *slope = -*slope;
    }
    const double extra = std::fmod(d, span);
    const auto flips = static_cast<int64_t>(std::floor(d / span));
    if (flips % 2 == 0) return extra + lo;
    *slope = -*slope;
    return span - extra + lo;
  }
};

constexpr int kMaxAxes = 3;

// The image's spatial axes, fastest first: axis 0 is W (the grid's x), 1 is H (y), 2 is D (z).
struct Volume {
  int axes = 0;
  int64_t size[kMaxAxes] = {1, 1, 1};
  int64_t stride[kMaxAxes] = {0, 0, 0};  // Elements between neighbours along each axis.
  int64_t numel = 1;                     // Elements of one channel.

  explicit Volume(const DDim& x) : axes(x.size() - 2) {
    for (int a = 0; a < axes; ++a) {
      size[a] = x[x.size() - 1 - a];
      stride[a] = numel;
      numel *= size[a];
    }
  }
};

// A grid point mapped to pixel coordinates along each axis, with the slopes of the mapping.
struct GridPoint {
  double at[kMaxAxes], slope[kMaxAxes];
};

// Calls fn(batch, output point, grid offset, point) per output point.
template <typename T, typename Fn>
void ForEachGridPoint(const ExecutionContext& ctx, const Volume& v, const DenseTensor& grid,
                      Fn&& fn) {
  const bool align = ctx.Attr<bool>("align_corners");
  const std::string padding = ctx.Attr<std::string>("padding_mode");
  std::vector<AxisMap> maps;
  for (int a = 0; a < v.axes; ++a) maps.push_back(AxisMap{v.size[a], align, padding});
  const int64_t n = grid.dims()[0], points = grid.numel() / (std::max<int64_t>(n, 1) * v.axes);
  const T* g = grid.data<T>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t p = 0; p < points; ++p) {
      const int64_t off = (b * points + p) * v.axes;
      GridPoint q;
      for (int a = 0; a < v.axes; ++a)
        q.at[a] = maps[a](static_cast<double>(g[off + a]), &q.slope[a]);
      fn(b, p, off, q);
    }
  }
}

// The (up to) 2^axes pixels a linear sample reads, with their offsets in a channel, their
// weights and the weights' derivatives along each axis; pixels outside are left out.
struct Corners {
  int count = 0;
  int64_t offset[1 << kMaxAxes];
  double w[1 << kMaxAxes], dw[1 << kMaxAxes][kMaxAxes];
};

Corners LinearCorners(const GridPoint& q, const Volume& v) {
  Corners c;
  double base[kMaxAxes], frac[kMaxAxes];
  for (int a = 0; a < v.axes; ++a) {
    base[a] = std::floor(q.at[a]);
    frac[a] = q.at[a] - base[a];
  }
  for (int k = 0; k < (1 << v.axes); ++k) {
    int64_t offset = 0;
    bool inside = true;
    double wa[kMaxAxes];
    for (int a = 0; a < v.axes; ++a) {
      const int up = (k >> a) & 1;
      const auto px = static_cast<int64_t>(base[a]) + up;
      inside = inside && px >= 0 && px < v.size[a];
      offset += px * v.stride[a];
      wa[a] = up ? frac[a] : 1 - frac[a];
    }
    if (!inside) continue;
    c.offset[c.count] = offset;
    c.w[c.count] = 1;
    for (int a = 0; a < v.axes; ++a) {
      c.w[c.count] *= wa[a];
      double d = ((k >> a) & 1) ? 1 : -1;
      for (int o = 0; o < v.axes; ++o) {
        if (o != a) d *= wa[o];
      }
      c.dw[c.count][a] = d;
    }
    ++c.count;
  }
  return c;
}

// The offset in a channel of the nearest pixel, or -1 outside the image.
int64_t NearestPixel(const GridPoint& q, const Volume& v) {
  int64_t offset = 0;
  for (int a = 0; a < v.axes; ++a) {
    if (!std::isfinite(q.at[a])) return -1;
    const auto px = static_cast<int64_t>(std::round(q.at[a]));
    if (px < 0 || px >= v.size[a]) return -1;
    offset += px * v.stride[a];
  }
  return offset;
}

template <typename T>
struct GridSamplerKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* grid = ctx.Input("Grid");
    CheckShapes(ctx.Type(), x->dims(), grid->dims());
    const Volume v(x->dims());
    const int64_t c = x->dims()[1];
    DenseTensor fresh(OutputDims(x->dims(), grid->dims()), x->dtype());
    const int64_t points = fresh.numel() / std::max<int64_t>(x->dims()[0] * c, 1);
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    std::fill(out, out + fresh.numel(), T(0));
    const T* in = x->data<T>();
    const bool nearest = ctx.Attr<std::string>("mode") == "nearest";
    ForEachGridPoint<T>(ctx, v, *grid, [&](int64_t b, int64_t p, int64_t, const GridPoint& q) {
      const T* img = in + b * c * v.numel;
      T* o = out + b * c * points + p;
      if (nearest) {
        const int64_t at = NearestPixel(q, v);
        if (at < 0) return;
        for (int64_t ch = 0; ch < c; ++ch) o[ch * points] = img[ch * v.numel + at];
        return;
      }
      const Corners k = LinearCorners(q, v);
      for (int64_t ch = 0; ch < c; ++ch) {
        double sum = 0;
        for (int i = 0; i < k.count; ++i) {
          sum += k.w[i] * static_cast<double>(img[ch * v.numel + k.offset[i]]);
        }
        o[ch * points] = static_cast<T>(sum);
      }
    });
    *ctx.Output("Output") = std::move(fresh);
  }
};

template <typename T>
struct GridSamplerGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* grid = ctx.Input("Grid");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    CheckShapes(ctx.Type(), x->dims(), grid->dims());
    const Volume v(x->dims());
    const int64_t c = x->dims()[1];
    const DDim want = OutputDims(x->dims(), grid->dims());
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Output@GRAD`: expected shape %s, received "
                                       "%s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    const int64_t points = dout->numel() / std::max<int64_t>(x->dims()[0] * c, 1);
    DenseTensor dx(x->dims(), dout->dtype()), dgrid(grid->dims(), dout->dtype());
    T* dxp = dx.mutable_data<T>(ctx.GetPlace());
    T* dgp = dgrid.mutable_data<T>(ctx.GetPlace());
    std::fill(dxp, dxp + dx.numel(), T(0));
    std::fill(dgp, dgp + dgrid.numel(), T(0));
    const T* in = x->data<T>();
    const T* g = dout->data<T>();
    const bool nearest = ctx.Attr<std::string>("mode") == "nearest";
    ForEachGridPoint<T>(ctx, v, *grid, [&](int64_t b, int64_t p, int64_t off, const GridPoint& q) {
      const T* img = in + b * c * v.numel;
      T* dimg = dxp + b * c * v.numel;
      const T* go = g + b * c * points + p;
      if (nearest) {
        const int64_t at = NearestPixel(q, v);
        if (at < 0) return;
        for (int64_t ch = 0; ch < c; ++ch) dimg[ch * v.numel + at] += go[ch * points];
        return;
      }
      const Corners k = LinearCorners(q, v);
      double dcoord[kMaxAxes] = {0, 0, 0};
      for (int64_t ch = 0; ch < c; ++ch) {
        const double gch = static_cast<double>(go[ch * points]);
        for (int i = 0; i < k.count; ++i) {
          const int64_t at = ch * v.numel + k.offset[i];
          dimg[at] += static_cast<T>(k.w[i] * gch);
          for (int a = 0; a < v.axes; ++a) {
            dcoord[a] += k.dw[i][a] * gch * static_cast<double>(img[at]);
          }
        }
      }
      for (int a = 0; a < v.axes; ++a) dgp[off + a] = static_cast<T>(dcoord[a] * q.slope[a]);
    });
    if (DenseTensor* out = ctx.Output("X@GRAD")) *out = std::move(dx);
    if (DenseTensor* out = ctx.Output("Grid@GRAD")) *out = std::move(dgrid);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterGridSamplerOp) {
  const framework::FusedGradDecl grad{{"X", "Grid"},
                                      {"Output"},
                                      {"X", "Grid"},
                                      R"DOC($$dX[q, p] = \sum_{o} dOutput[o] \, w_{o}(p, q), \quad
dGrid[o] = \sum_{corners} dOutput[o] \, X[q, p] \, \frac{\partial w_o(p, q)}{\partial Grid[o]}$$)DOC"};
  framework::RegisterOp<GridSamplerOp, GridSamplerOpMaker>(kOp)
      .InferShape(GridSamplerInferShape)
      .InferVarType(OutputDataTypeOf("X", "Output"))
      .GradOpMaker(framework::FusedGradMaker(grad))
      .Checkpoint("attribute mode (bilinear or nearest)",
                  framework::OpVersionDesc().NewAttr("mode", "bilinear or nearest",
                                                     std::string("bilinear")));
  RegisterPlainCpuFloatKernels<GridSamplerKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireInput("Grid");
    if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
    if (ctx->HasOutput("Grid@GRAD")) ctx->SetOutputDim("Grid@GRAD", ctx->GetInputDim("Grid"));
  });
  RegisterPlainCpuFloatKernels<GridSamplerGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
