// grid_sampler: samples X [N, C, H, W] at the normalized points of Grid [N, Ho, Wo, 2]
// (x, y in [-1, 1]), bilinear or nearest, with zeros, border or reflection padding, as
// PaddlePaddle's grid_sampler (paddle.nn.functional.grid_sample); with its fused gradient op,
// which writes the gradients of X and of Grid.
#include <algorithm>
#include <cmath>
#include <string>

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
    AddInput("X", "Images [N, C, H, W].");
    AddInput("Grid", "Sampling points [N, Ho, Wo, 2]: (x, y) normalized to [-1, 1].");
    AddOutput("Output", "Samples [N, C, Ho, Wo].");
    AddAttr<std::string>("mode", "bilinear or nearest.")
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
the grid point (0, 0) with align_corners gives the mean of the four pixels.

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

void CheckShapes(const std::string& op, const DDim& x, const DDim& grid) {
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected [N, C, H, W], "
                                                    "received shape %s",
                                                    op, x.ToString()));
  PL_ENFORCE(grid.size() == 4 && (grid[3] == 2 || grid[3] < 0),
             errors::InvalidArgument("op `%s` input `Grid`: expected [N, Ho, Wo, 2], received "
                                     "shape %s",
                                     op, grid.ToString()));
  PL_ENFORCE(x[0] < 0 || grid[0] < 0 || x[0] == grid[0],
             errors::InvalidArgument("op `%s`: X has %s images but Grid %s (X %s, Grid %s)", op,
                                     std::to_string(x[0]), std::to_string(grid[0]), x.ToString(),
                                     grid.ToString()));
}

void GridSamplerInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Grid");
  ctx->RequireOutput("Output");
  const DDim x = ctx->GetInputDim("X"), grid = ctx->GetInputDim("Grid");
  CheckShapes(ctx->OpType(), x, grid);
  ctx->SetOutputDim("Output", DDim{x[0], x[1], grid[1], grid[2]});
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

// Calls fn(batch, output pixel, grid offset, ix, iy, slope_x, slope_y) per output pixel.
template <typename T, typename Fn>
void ForEachGridPoint(const ExecutionContext& ctx, const DDim& x, const DenseTensor& grid,
                      Fn&& fn) {
  const bool align = ctx.Attr<bool>("align_corners");
  const std::string padding = ctx.Attr<std::string>("padding_mode");
  const AxisMap mx{x[3], align, padding}, my{x[2], align, padding};
  const int64_t n = grid.dims()[0], pixels = grid.dims()[1] * grid.dims()[2];
  const T* g = grid.data<T>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t p = 0; p < pixels; ++p) {
      const int64_t off = (b * pixels + p) * 2;
      double sx = 0, sy = 0;
      const double ix = mx(static_cast<double>(g[off]), &sx);
      const double iy = my(static_cast<double>(g[off + 1]), &sy);
      fn(b, p, off, ix, iy, sx, sy);
    }
  }
}

// The (up to) four pixels a bilinear sample reads, with weights and the weights' derivatives
// along x and y; pixels outside the image are left out.
struct Corners {
  int count = 0;
  int64_t y[4], x[4];
  double w[4], dwx[4], dwy[4];
};

Corners BilinearCorners(double ix, double iy, int64_t h, int64_t w) {
  Corners c;
  const double x0 = std::floor(ix), y0 = std::floor(iy);
  const double fx = ix - x0, fy = iy - y0;
  for (int k = 0; k < 4; ++k) {
    const int dx = k & 1, dy = k >> 1;
    const auto px = static_cast<int64_t>(x0) + dx, py = static_cast<int64_t>(y0) + dy;
    if (px < 0 || px >= w || py < 0 || py >= h) continue;
    const double wx = dx ? fx : 1 - fx, wy = dy ? fy : 1 - fy;
    c.x[c.count] = px;
    c.y[c.count] = py;
    c.w[c.count] = wx * wy;
    c.dwx[c.count] = (dx ? 1 : -1) * wy;
    c.dwy[c.count] = (dy ? 1 : -1) * wx;
    ++c.count;
  }
  return c;
}

// The nearest pixel, or false outside the image.
bool NearestPixel(double ix, double iy, int64_t h, int64_t w, int64_t* px, int64_t* py) {
  *px = static_cast<int64_t>(std::round(ix));
  *py = static_cast<int64_t>(std::round(iy));
  return std::isfinite(ix) && std::isfinite(iy) && *px >= 0 && *px < w && *py >= 0 && *py < h;
}

template <typename T>
struct GridSamplerKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* grid = ctx.Input("Grid");
    CheckShapes(ctx.Type(), x->dims(), grid->dims());
    const DDim xd = x->dims();
    const int64_t c = xd[1], h = xd[2], w = xd[3];
    const int64_t pixels = grid->dims()[1] * grid->dims()[2];
    DenseTensor fresh(DDim{xd[0], c, grid->dims()[1], grid->dims()[2]}, x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    std::fill(out, out + fresh.numel(), T(0));
    const T* in = x->data<T>();
    const bool nearest = ctx.Attr<std::string>("mode") == "nearest";
    ForEachGridPoint<T>(
        ctx, xd, *grid, [&](int64_t b, int64_t p, int64_t, double ix, double iy, double, double) {
          const T* img = in + b * c * h * w;
          T* o = out + b * c * pixels + p;
          if (nearest) {
            int64_t px, py;
            if (!NearestPixel(ix, iy, h, w, &px, &py)) return;
            for (int64_t ch = 0; ch < c; ++ch) {
              o[ch * pixels] = img[(ch * h + py) * w + px];
            }
            return;
          }
          const Corners k = BilinearCorners(ix, iy, h, w);
          for (int64_t ch = 0; ch < c; ++ch) {
            double sum = 0;
            for (int i = 0; i < k.count; ++i) {
              sum += k.w[i] * static_cast<double>(img[(ch * h + k.y[i]) * w + k.x[i]]);
            }
            o[ch * pixels] = static_cast<T>(sum);
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
    const DDim xd = x->dims();
    const int64_t c = xd[1], h = xd[2], w = xd[3];
    const int64_t pixels = grid->dims()[1] * grid->dims()[2];
    const DDim want{xd[0], c, grid->dims()[1], grid->dims()[2]};
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Output@GRAD`: expected shape %s, received "
                                       "%s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    DenseTensor dx(xd, dout->dtype()), dgrid(grid->dims(), dout->dtype());
    T* dxp = dx.mutable_data<T>(ctx.GetPlace());
    T* dgp = dgrid.mutable_data<T>(ctx.GetPlace());
    std::fill(dxp, dxp + dx.numel(), T(0));
    std::fill(dgp, dgp + dgrid.numel(), T(0));
    const T* in = x->data<T>();
    const T* g = dout->data<T>();
    const bool nearest = ctx.Attr<std::string>("mode") == "nearest";
    ForEachGridPoint<T>(
        ctx, xd, *grid,
        [&](int64_t b, int64_t p, int64_t off, double ix, double iy, double sx, double sy) {
          const T* img = in + b * c * h * w;
          T* dimg = dxp + b * c * h * w;
          const T* go = g + b * c * pixels + p;
          if (nearest) {
            int64_t px, py;
            if (!NearestPixel(ix, iy, h, w, &px, &py)) return;
            for (int64_t ch = 0; ch < c; ++ch) dimg[(ch * h + py) * w + px] += go[ch * pixels];
            return;
          }
          const Corners k = BilinearCorners(ix, iy, h, w);
          double gx = 0, gy = 0;
          for (int64_t ch = 0; ch < c; ++ch) {
            const double gch = static_cast<double>(go[ch * pixels]);
            for (int i = 0; i < k.count; ++i) {
              const int64_t at = (ch * h + k.y[i]) * w + k.x[i];
              dimg[at] += static_cast<T>(k.w[i] * gch);
              gx += k.dwx[i] * gch * static_cast<double>(img[at]);
              gy += k.dwy[i] * gch * static_cast<double>(img[at]);
            }
          }
          dgp[off] = static_cast<T>(gx * sx);
          dgp[off + 1] = static_cast<T>(gy * sy);
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
