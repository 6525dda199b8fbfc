// pool2d: max or average pooling over 2-D windows (fixed, global or adaptive); fused
// backward op pool2d_grad, and fused_relu_pool2d_grad (relu_grad after pool2d_grad, which
// fuse_pool_relu_grad_pass makes).
//
// Plain CPU kernels work on one [H, W] plane at a time, the planes split over the threads;
// NHWC tensors are copied to NCHW and back.
#include <algorithm>
#include <limits>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "framework/grad_op_maker.h"
#include "framework/passes/fuse_relu_grad_pass.h"
#include "operators/common.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/nn/pool_planes.h"
#include "operators/nn/pool_window_attrs.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

using platform::CPUDeviceContext;

class Pool2dAttrMaker : public PoolWindowAttrMaker {
 protected:
  void AddPoolAttrs() {
    AddAttr<std::string>("pooling_type", "max or avg (required).").InEnum({"max", "avg"});
    AddWindowAttrs();
    AddAttr<bool>("exclusive",
                  "avg: divide by the number of non-padding elements of the window "
                  "(true) or by kh * kw (false).")
        .SetDefault(true);
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
  }
};

class Pool2dOpMaker : public Pool2dAttrMaker {
 public:
  void Make() override {
    AddInput("X", "Images [N, C, H, W] (NHWC: [N, H, W, C]).");
    AddOutput("Out", "Pooled images [N, C, H_out, W_out] (NHWC: [N, H_out, W_out, C]).");
    AddPoolAttrs();
    AddComment(R"DOC(
2-D pooling, as in PaddlePaddle's pool2d. Each output pixel reduces one window of its
input plane; the window of output row y spans rows [y s_h - p_top, y s_h - p_top + kh)
clipped to the image (likewise for columns):
$$Out[n, c, y, x] = \max_{(h, w) \in W(y, x)} X[n, c, h, w] \quad \text{(max)}$$
$$Out[n, c, y, x] = \frac{1}{|W|} \sum_{(h, w) \in W(y, x)} X[n, c, h, w] \quad \text{(avg)}$$
where |W| is the number of window elements inside the image (exclusive = true, and always
for adaptive pooling), else (exclusive = false) the window's extent clipped to the image plus
its leading padding, counted from its unclipped start, as PaddlePaddle divides:
$$|W| = (\min(y s_h - p_{top} + kh, H + p_{top}) - (y s_h - p_{top})) \cdot (\dots)_w$$
(kh kw except where ceil_mode or a larger trailing padding let a window reach past that).
$$H_{out} = \lfloor (H - kh + p_{top} + p_{bottom} + e) / s_h \rfloor + 1,
  \quad e = s_h - 1 \text{ with ceil\_mode, else } 0$$
global_pooling pools whole planes (H_out = W_out = 1). adaptive: H_out, W_out = ksize and
window i covers [floor(i H / H_out), ceil((i + 1) H / H_out)). Paddings and
padding_algorithm follow conv2d. A window lying wholly in the padding gives 0.
Example: X [1, 1, 4, 4] = 0..15, max, ksize [2, 2], strides [2, 2] gives [[5, 7], [13, 15]].

Gradient, by the fused op pool2d_grad: max routes dOut to the first (row-major) element of
the window equal to Out; avg spreads dOut / |W| over the window.
)DOC");
  }
};

class Pool2dGradOpMaker : public Pool2dAttrMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Out", "The forward op's Out.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.");
    AddPoolAttrs();
    AddComment(R"DOC(
Gradient of pool2d (fused kernel, not differentiable again). With the windows W(y, x) of
pool2d:
$$dX[n, c, h, w] = \sum_{(y, x): (h, w) = \mathrm{first}\{q \in W(y, x): X[q] = Out[y, x]\}}
  dOut[n, c, y, x] \quad \text{(max)}$$
$$dX[n, c, h, w] = \sum_{(y, x): (h, w) \in W(y, x)} \frac{dOut[n, c, y, x]}{|W(y, x)|}
  \quad \text{(avg)}$$
Each plane is accumulated in a fixed order, so results are reproducible.
)DOC");
  }
};

class FusedReluPool2dGradOpMaker : public Pool2dAttrMaker {
 public:
  void Make() override {
    AddInput("X", "pool2d's X, the Out of a relu.");
    AddInput("Out", "pool2d's Out.");
    AddInput("Out@GRAD", "Gradient of pool2d's Out.");
    AddOutput("X@GRAD", "Gradient of the relu's X, with X's shape.");
    AddOutput("ChannelSum",
              "X@GRAD summed over all dims but the channel dim ([C]): the gradient of a "
              "per-channel bias added before the relu.")
        .AsDispensable();
    AddPoolAttrs();
    AddComment(R"DOC(
relu_grad after pool2d_grad as one op, for a pool2d whose input X is the Out of a relu:
$$dReluX = \mathrm{pool2d\_grad}(X, Out, dOut) \cdot \mathbb{1}[X > 0]$$
bit for bit what the two ops give, and optionally
$$ChannelSum_c = \sum_{n, h, w} dReluX_{n, c, h, w}$$
(accumulated in double), the reduce_as of a bias gradient after it. fuse_pool_relu_grad_pass
makes it for execution; it is not differentiable again and never saved in a program.
)DOC");
  }
};

class Pool2dOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void Pool2dInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const Pool2dGeometry g = ResolvePool2d(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attrs());
  ctx->SetOutputDim("Out", g.OutputDims());
}

void Pool2dGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim x = ctx->GetInputDim("X");
  const Pool2dGeometry g = ResolvePool2d(ctx->OpType(), x, ctx->Attrs());
  const DDim expected = g.OutputDims();
  for (const char* slot : {"Out", "Out@GRAD"}) {
    const DDim d = ctx->GetInputDim(slot);
    bool ok = d.size() == expected.size();
    for (int i = 0; ok && i < d.size(); ++i) {
      ok = d[i] < 0 || expected[i] < 0 || d[i] == expected[i];
    }
    PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `%s`: expected shape %s, received %s",
                                           ctx->OpType(), slot, expected.ToString(),
                                           d.ToString()));
  }
  ctx->SetOutputDim("X@GRAD", x);
  if (ctx->HasOutput("ChannelSum")) {
    ctx->SetOutputDim("ChannelSum", DDim({g.channels}));
    ctx->SetOutputDataType("ChannelSum", ctx->GetInputDataType("X"));
  }
}

// The divisor of output (oy, ox)'s avg window, whose extent clipped to the image is rows x
// cols.
int64_t AvgCount(const Pool2dGeometry& g, int64_t oy, int64_t ox, int64_t rows, int64_t cols) {
  return (g.exclusive || g.adaptive) ? rows * cols : g.AvgExtent(true, oy) * g.AvgExtent(false, ox);
}

// Pool2dGeometry::IsDisjointMax2x2: each element of dx is written once, without a zero fill
// first and a search loop per window. LeNet's two poolings, pool2d with pool2d_grad, one
// thread: BM_MaxPool2dWithGrad in tests/benchmarks/conv_benchmark.cc.
template <typename T>
void MaxPool2x2Plane(const Pool2dGeometry& g, const T* x, T* y) {
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    const T* x0 = x + 2 * oy * g.in_w;
    const T* x1 = x0 + g.in_w;
    T* row = y + oy * g.out_w;
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      row[ox] = std::max(std::max(x0[2 * ox], x0[2 * ox + 1]),
                         std::max(x1[2 * ox], x1[2 * ox + 1]));
    }
  }
}

template <typename T>
void PoolPlane(const Pool2dGeometry& g, const T* x, T* y) {
  if (g.IsDisjointMax2x2()) return MaxPool2x2Plane(g, x, y);
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    int64_t h0, h1;
    g.Window(true, oy, &h0, &h1);
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      int64_t w0, w1;
      g.Window(false, ox, &w0, &w1);
      T r;
      if (h0 == h1 || w0 == w1) {
        r = T(0);  // The window lies in the padding.
      } else if (g.is_max) {
        r = x[h0 * g.in_w + w0];
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w) r = std::max(r, x[h * g.in_w + w]);
        }
      } else {
        T sum = T(0);
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w) sum += x[h * g.in_w + w];
        }
        r = sum / static_cast<T>(AvgCount(g, oy, ox, h1 - h0, w1 - w0));
      }
      y[oy * g.out_w + ox] = r;
    }
  }
}

// Windows [0, n) of one row pair of MaxPool2x2PlaneGrad, vectorized where it can be; returns
// how many windows it did (the rest take the scalar loop).
template <typename T>
int64_t MaxPool2x2RowGradVector(const T*, const T*, const T*, const T*, T*, T*, int64_t) {
  return 0;
}

#if defined(__SSE2__)
// Four windows at a time: the even and odd columns of both rows are split apart, compared
// with the four maxima, and each window's gradient goes to the first equal element in
// row-major order, as in the scalar loop (NaN equals nothing in both). 2x2 max pooling's
// gradient on LeNet's first pooling (X [64, 20, 24, 24]) took 0.83 ms a step, several times
// its forward pass, in the scalar loop, whose stride-2 accesses the compiler leaves scalar.
template <>
int64_t MaxPool2x2RowGradVector<float>(const float* x0, const float* x1, const float* m,
                                       const float* d, float* d0, float* d1, int64_t n) {
  int64_t ox = 0;
  for (; ox + 4 <= n; ox += 4) {
    const __m128 a0 = _mm_loadu_ps(x0 + 2 * ox), a1 = _mm_loadu_ps(x0 + 2 * ox + 4);
    const __m128 b0 = _mm_loadu_ps(x1 + 2 * ox), b1 = _mm_loadu_ps(x1 + 2 * ox + 4);
    const __m128 top_left = _mm_shuffle_ps(a0, a1, _MM_SHUFFLE(2, 0, 2, 0));
    const __m128 top_right = _mm_shuffle_ps(a0, a1, _MM_SHUFFLE(3, 1, 3, 1));
    const __m128 bottom_left = _mm_shuffle_ps(b0, b1, _MM_SHUFFLE(2, 0, 2, 0));
    const __m128 bottom_right = _mm_shuffle_ps(b0, b1, _MM_SHUFFLE(3, 1, 3, 1));
    const __m128 max = _mm_loadu_ps(m + ox), grad = _mm_loadu_ps(d + ox);
    const __m128 q0 = _mm_cmpeq_ps(top_left, max);
    const __m128 q1 = _mm_andnot_ps(q0, _mm_cmpeq_ps(top_right, max));
    __m128 taken = _mm_or_ps(q0, q1);
    const __m128 q2 = _mm_andnot_ps(taken, _mm_cmpeq_ps(bottom_left, max));
    taken = _mm_or_ps(taken, q2);
    const __m128 q3 = _mm_andnot_ps(taken, _mm_cmpeq_ps(bottom_right, max));
    const __m128 g0 = _mm_and_ps(q0, grad), g1 = _mm_and_ps(q1, grad);
    const __m128 g2 = _mm_and_ps(q2, grad), g3 = _mm_and_ps(q3, grad);
    _mm_storeu_ps(d0 + 2 * ox, _mm_unpacklo_ps(g0, g1));
    _mm_storeu_ps(d0 + 2 * ox + 4, _mm_unpackhi_ps(g0, g1));
    _mm_storeu_ps(d1 + 2 * ox, _mm_unpacklo_ps(g2, g3));
    _mm_storeu_ps(d1 + 2 * ox + 4, _mm_unpackhi_ps(g2, g3));
  }
  return ox;
}
#endif

// The gradient goes to the first maximum of each window in row-major order, as in
// PoolPlaneGrad.
template <typename T>
void MaxPool2x2PlaneGrad(const Pool2dGeometry& g, const T* x, const T* y, const T* dy, T* dx) {
  const int64_t width = g.in_w;
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    const T* x0 = x + 2 * oy * width;
    const T* x1 = x0 + width;
    T* d0 = dx + 2 * oy * width;
    T* d1 = d0 + width;
    const T* m = y + oy * g.out_w;
    const T* d = dy + oy * g.out_w;
    for (int64_t ox = MaxPool2x2RowGradVector(x0, x1, m, d, d0, d1, g.out_w); ox < g.out_w; ++ox) {
      // Bitwise, not short-circuit, logic: no branch to mispredict on where the maximum is.
      const bool e0 = x0[2 * ox] == m[ox], e1 = x0[2 * ox + 1] == m[ox];
      const bool e2 = x1[2 * ox] == m[ox], e3 = x1[2 * ox + 1] == m[ox];
      d0[2 * ox] = e0 ? d[ox] : T(0);
      d0[2 * ox + 1] = (e1 & !e0) ? d[ox] : T(0);
      d1[2 * ox] = (e2 & !(e0 | e1)) ? d[ox] : T(0);
      d1[2 * ox + 1] = (e3 & !(e0 | e1 | e2)) ? d[ox] : T(0);
    }
    for (int64_t w = 2 * g.out_w; w < width; ++w) d0[w] = d1[w] = T(0);  // Past the last window.
  }
  std::fill(dx + 2 * g.out_h * width, dx + g.in_h * width, T(0));
}

template <typename T>
void PoolPlaneGrad(const Pool2dGeometry& g, const T* x, const T* y, const T* dy, T* dx) {
  if (g.IsDisjointMax2x2()) return MaxPool2x2PlaneGrad(g, x, y, dy, dx);
  std::fill(dx, dx + g.in_h * g.in_w, T(0));
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    int64_t h0, h1;
    g.Window(true, oy, &h0, &h1);
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      int64_t w0, w1;
      g.Window(false, ox, &w0, &w1);
      if (h0 == h1 || w0 == w1) continue;
      const T d = dy[oy * g.out_w + ox];
      if (g.is_max) {
        const T m = y[oy * g.out_w + ox];
        bool found = false;
        for (int64_t h = h0; h < h1 && !found; ++h) {
          for (int64_t w = w0; w < w1 && !found; ++w) {
            if (x[h * g.in_w + w] == m) {
              dx[h * g.in_w + w] += d;
              found = true;
            }
          }
        }
      } else {
        const T share = d / static_cast<T>(AvgCount(g, oy, ox, h1 - h0, w1 - w0));
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w) dx[h * g.in_w + w] += share;
        }
      }
    }
  }
}

template <typename T>
struct Pool2dKernel {
  static void Compute(const ExecutionContext& ctx) { Pool2dPlainCompute<T>(ctx); }
};

template <typename T>
struct Pool2dGradKernel {
  static void Compute(const ExecutionContext& ctx) { Pool2dGradPlainCompute<T>(ctx); }
};

// One fused grad op reading X, Out and dOut.
void Pool2dGradMaker(framework::GradOpBuilder* g) {
  g->AddOp("pool2d_grad",
           {{"X", g->Input("X")}, {"Out", g->Output("Out")}, {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}}, g->Attrs());
}

}  // namespace

template <typename T>
void Pool2dPlainCompute(const ExecutionContext& ctx) {
  const DenseTensor* x = ctx.Input("X");
  const Pool2dGeometry g = ResolvePool2d(ctx.Type(), x->dims(), ctx.op().Attrs());
  DenseTensor* out = ctx.Output("Out");
  DenseTensor fresh;
  DenseTensor* target = out == x ? &fresh : out;
  PoolPlanes<T>(
      ctx, g, *x, g.out_h * g.out_w * (g.kernel_h * g.kernel_w + 1),
      [&g](const T* xp, T* yp) { PoolPlane(g, xp, yp); }, target);
  if (target == &fresh) *out = std::move(fresh);
}

template void Pool2dPlainCompute<float>(const ExecutionContext& ctx);
template void Pool2dPlainCompute<double>(const ExecutionContext& ctx);

template <typename T>
void WriteChannelSums(const T* data, bool channel_last, int64_t batch, int64_t channels,
                      int64_t plane, DenseTensor* out) {
  out->Resize(DDim({channels}));
  T* sums = out->mutable_data<T>(platform::CPUPlace());
  for (int64_t c = 0; c < channels; ++c) {
    double total = 0.0;
    for (int64_t n = 0; n < batch; ++n) {
      if (channel_last) {
        const T* p = data + n * plane * channels + c;
        for (int64_t i = 0; i < plane; ++i) total += static_cast<double>(p[i * channels]);
      } else {
        const T* p = data + (n * channels + c) * plane;
        for (int64_t i = 0; i < plane; ++i) total += static_cast<double>(p[i]);
      }
    }
    sums[c] = static_cast<T>(total);
  }
}

template void WriteChannelSums<float>(const float*, bool, int64_t, int64_t, int64_t, DenseTensor*);
template void WriteChannelSums<double>(const double*, bool, int64_t, int64_t, int64_t,
                                       DenseTensor*);

template <typename T>
void Pool2dGradPlainCompute(const ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  const DenseTensor* x = ctx.Input("X");
  const DenseTensor* out = ctx.Input("Out");
  const DenseTensor* dout = ctx.Input("Out@GRAD");
  const Pool2dGeometry g = ResolvePool2d(op, x->dims(), ctx.op().Attrs());
  const DDim out_dims = g.OutputDims();
  CheckGradInputShape(op, "Out", out_dims, out->dims());
  CheckGradInputShape(op, "Out@GRAD", out_dims, dout->dims());
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  const bool relu = op == framework::kFusedReluPool2dGrad;
  DenseTensor fresh =
      PoolGradPlanes<T>(ctx, g, *x, *out, *dout, in_plane + out_plane * g.kernel_h * g.kernel_w,
                        [&](const T* xp, const T* yp, const T* dyp, T* dxp) {
                          PoolPlaneGrad(g, xp, yp, dyp, dxp);
                          if (relu) {  // relu_grad's product, in its order.
                            for (int64_t i = 0; i < in_plane; ++i)
                              dxp[i] = dxp[i] * (xp[i] > T(0) ? T(1) : T(0));
                          }
                        });
  const T* dx = fresh.mutable_data<T>(ctx.GetPlace());
  if (ctx.HasOutput("ChannelSum")) {
    WriteChannelSums(dx, g.channel_last, g.batch, g.channels, in_plane, ctx.Output("ChannelSum"));
  }
  *ctx.Output("X@GRAD") = std::move(fresh);
}

template void Pool2dGradPlainCompute<float>(const ExecutionContext& ctx);
template void Pool2dGradPlainCompute<double>(const ExecutionContext& ctx);

PL_REGISTER_OPS(RegisterPool2dOp) {
  framework::RegisterOp<Pool2dOp, Pool2dOpMaker>("pool2d")
      .InferShape(Pool2dInferShape)
      .GradOpMaker(Pool2dGradMaker);
  RegisterPlainCpuFloatKernels<Pool2dKernel>("pool2d");
  framework::RegisterOp<Pool2dOp, Pool2dGradOpMaker>("pool2d_grad")
      .InferShape(Pool2dGradInferShape);
  RegisterPlainCpuFloatKernels<Pool2dGradKernel>("pool2d_grad");
  framework::RegisterOp<Pool2dOp, FusedReluPool2dGradOpMaker>(framework::kFusedReluPool2dGrad)
      .InferShape(Pool2dGradInferShape);
  RegisterPlainCpuFloatKernels<Pool2dGradKernel>(framework::kFusedReluPool2dGrad);
}

}  // namespace operators
}  // namespace paddle_like
