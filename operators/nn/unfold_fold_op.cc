// unfold (im2col: the sliding blocks of an NCHW batch as columns) and fold (col2im: the
// columns summed back into images). Each is the other's adjoint, so each one's gradient is the
// other op and gradients of any order follow.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/attribute.h"
#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/im2col.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kWindowDoc[] = R"DOC(
The window: `kernel_sizes` [kh, kw], `strides` [sh, sw], `dilations` [dh, dw] (all
positive) and `paddings` [top, left, bottom, right] (non-negative), so that
$$L = \left(\left\lfloor \frac{H + top + bottom - (dh (kh - 1) + 1)}{sh} \right\rfloor + 1\right)
\left(\left\lfloor \frac{W + left + right - (dw (kw - 1) + 1)}{sw} \right\rfloor + 1\right)$$
block positions, each column of a block read in (channel, kernel row, kernel column) order.
)DOC";

class WindowOpMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddWindowAttrs() {
    AddAttr<std::vector<int>>("kernel_sizes", "[kh, kw], positive.");
    AddAttr<std::vector<int>>("strides", "[sh, sw], positive.").SetDefault({1, 1});
    AddAttr<std::vector<int>>("paddings", "[top, left, bottom, right], non-negative.")
        .SetDefault({0, 0, 0, 0});
    AddAttr<std::vector<int>>("dilations", "[dh, dw], positive.").SetDefault({1, 1});
  }
};

class UnfoldOpMaker : public WindowOpMaker {
 public:
  void Make() override {
    AddInput("X", "[N, C, H, W].");
    AddOutput("Y", "[N, C * kh * kw, L]: one column per block position.");
    AddWindowAttrs();
    AddComment(std::string(R"DOC(
Unfold (im2col): every sliding block of X as a column,
$$Y[n, (c, i, j), (y, x)] = X[n, c, y \cdot sh - top + i \cdot dh, x \cdot sw - left + j \cdot dw]$$
(0 where that falls in the padding).
)DOC") + kWindowDoc +
               R"DOC(
Example: X [1, 1, 3, 3] holding 0..8, kernel [2, 2] -> Y [1, 4, 4], its first column
[0, 1, 3, 4].

Gradient: dX = fold(dY) with the same window and X's [H, W].
)DOC");
  }
};

class FoldOpMaker : public WindowOpMaker {
 public:
  void Make() override {
    AddInput("X", "[N, C * kh * kw, L]: one column per block position.");
    AddOutput("Y", "[N, C, H, W].");
    AddAttr<std::vector<int>>("output_sizes", "[H, W] of Y.");
    AddWindowAttrs();
    AddComment(std::string(R"DOC(
Fold (col2im), the adjoint of unfold: each column is added back where its block sits,
$$Y[n, c, h, w] = \sum_{(i, j, y, x) \to (h, w)} X[n, (c, i, j), (y, x)]$$
(entries that fall in the padding are dropped).
)DOC") + kWindowDoc +
               R"DOC(
X's L must equal the number of block positions of [H, W].

Gradient: dX = unfold(dY) with the same window.
)DOC");
  }
};

class WindowOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// The checked window for images of [h, w] (unknown dims: -1 in out_h / out_w).
math::Conv2dWindow WindowOf(const std::string& op, const framework::AttributeMap& attrs, int64_t h,
                            int64_t w) {
  const auto get = [&](const char* name) { return std::get<std::vector<int>>(attrs.at(name)); };
  const std::vector<int> k = get("kernel_sizes"), s = get("strides"), p = get("paddings"),
                         d = get("dilations");
  const auto check = [&](const char* name, const std::vector<int>& v, size_t size, int lowest) {
    bool ok = v.size() == size;
    for (int x : v) ok = ok && x >= lowest;
    PL_ENFORCE(ok, errors::InvalidArgument("op `%s` attribute `%s`: expected %zu values of at "
                                           "least %d, received %s",
                                           op, name, size, lowest, framework::AttrToString(v)));
  };
  check("kernel_sizes", k, 2, 1);
  check("strides", s, 2, 1);
  check("paddings", p, 4, 0);
  check("dilations", d, 2, 1);
  math::Conv2dWindow win;
  win.kernel_h = k[0];
  win.kernel_w = k[1];
  win.stride_h = s[0];
  win.stride_w = s[1];
  win.pad_top = p[0];
  win.pad_left = p[1];
  win.dilation_h = d[0];
  win.dilation_w = d[1];
  const auto out_size = [](int64_t size, int64_t before, int64_t after, int64_t kernel,
                           int64_t dilation, int64_t stride) -> int64_t {
    if (size < 0) return -1;
    return (size + before + after - (dilation * (kernel - 1) + 1)) / stride + 1;
  };
  win.out_h = out_size(h, p[0], p[2], k[0], d[0], s[0]);
  win.out_w = out_size(w, p[1], p[3], k[1], d[1], s[1]);
  PL_ENFORCE((h < 0 || win.out_h > 0) && (w < 0 || win.out_w > 0),
             errors::InvalidArgument("op `%s`: images of [%lld, %lld] with paddings %s hold no "
                                     "block of kernel %s and dilations %s (block positions "
                                     "%lld x %lld)",
                                     op, static_cast<long long>(h), static_cast<long long>(w),
                                     framework::AttrToString(p), framework::AttrToString(k),
                                     framework::AttrToString(d), static_cast<long long>(win.out_h),
                                     static_cast<long long>(win.out_w)));
  return win;
}

DDim UnfoldOutDims(const std::string& op, const framework::AttributeMap& attrs, const DDim& x) {
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected [N, C, H, W], "
                                                    "received %s",
                                                    op, x.ToString()));
  const math::Conv2dWindow win = WindowOf(op, attrs, x[2], x[3]);
  const int64_t rows = x[1] < 0 ? -1 : x[1] * win.kernel_h * win.kernel_w;
  const int64_t cols = win.out_h < 0 || win.out_w < 0 ? -1 : win.out_h * win.out_w;
  return DDim{x[0], rows, cols};
}

DDim FoldOutDims(const std::string& op, const framework::AttributeMap& attrs, const DDim& x) {
  PL_ENFORCE(x.size() == 3, errors::InvalidArgument("op `%s` input `X`: expected [N, C * kh * kw, "
                                                    "L], received %s",
                                                    op, x.ToString()));
  const std::vector<int> size = std::get<std::vector<int>>(attrs.at("output_sizes"));
  PL_ENFORCE(size.size() == 2 && size[0] > 0 && size[1] > 0,
             errors::InvalidArgument("op `%s` attribute `output_sizes`: expected [H, W], both "
                                     "positive, received %s",
                                     op, framework::AttrToString(size)));
  const math::Conv2dWindow win = WindowOf(op, attrs, size[0], size[1]);
  const int64_t taps = win.kernel_h * win.kernel_w;
  PL_ENFORCE(x[1] < 0 || x[1] % taps == 0,
             errors::InvalidArgument("op `%s` input `X`: dim 1 must be a multiple of kh * kw = "
                                     "%lld, received shape %s",
                                     op, static_cast<long long>(taps), x.ToString()));
  PL_ENFORCE(x[2] < 0 || x[2] == win.out_h * win.out_w,
             errors::InvalidArgument(
                 "op `%s` input `X`: dim 2 must be the %lld x %lld = %lld "
                 "block positions of [%d, %d], received shape %s",
                 op, static_cast<long long>(win.out_h), static_cast<long long>(win.out_w),
                 static_cast<long long>(win.out_h * win.out_w), size[0], size[1], x.ToString()));
  return DDim{x[0], x[1] < 0 ? -1 : x[1] / taps, size[0], size[1]};
}

template <bool kUnfold>
void WindowInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Y");
  const DDim x = ctx->GetInputDim("X");
  ctx->SetOutputDim("Y", kUnfold ? UnfoldOutDims(ctx->OpType(), ctx->Attrs(), x)
                                 : FoldOutDims(ctx->OpType(), ctx->Attrs(), x));
}

template <bool kUnfold>
struct WindowKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      const framework::AttributeMap& attrs = ctx.op().Attrs();
      const DDim y_dims = kUnfold ? UnfoldOutDims(ctx.Type(), attrs, x->dims())
                                  : FoldOutDims(ctx.Type(), attrs, x->dims());
      // The image side: X for unfold, Y for fold.
      const DDim im = kUnfold ? x->dims() : y_dims;
      const math::Conv2dWindow win = WindowOf(ctx.Type(), attrs, im[2], im[3]);
      DenseTensor y(y_dims, x->dtype());
      T* out = y.mutable_data<T>(ctx.GetPlace());
      const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
      const int64_t image = im[1] * im[2] * im[3];
      const int64_t columns = im[1] * win.kernel_h * win.kernel_w * win.out_h * win.out_w;
      if (!kUnfold && y.numel() > 0) std::fill(out, out + y.numel(), T(0));
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          im[0], 1, [&](int64_t begin, int64_t end) {
            for (int64_t n = begin; n < end; ++n) {
              if (kUnfold) {
                math::Im2Col(in + n * image, im[1], im[2], im[3], win, out + n * columns);
              } else {
                math::Col2Im(in + n * columns, im[1], im[2], im[3], win, out + n * image);
              }
            }
          });
      *ctx.Output("Y") = std::move(y);
    }
  };
};

framework::AttributeMap WindowAttrs(const framework::GradOpBuilder& g) {
  framework::AttributeMap attrs;
  for (const char* name : {"kernel_sizes", "strides", "paddings", "dilations"}) {
    attrs[name] = g.Attr<std::vector<int>>(name);
  }
  return attrs;
}

// dX = fold(dY) with X's [H, W], which must be known when the program is built.
void UnfoldGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const framework::VarDesc* x = framework::FindForwardVar(*g, g->Input("X")[0]);
  const std::vector<int64_t> shape = x == nullptr ? std::vector<int64_t>{} : x->GetShape();
  PL_ENFORCE(shape.size() == 4 && shape[2] > 0 && shape[3] > 0,
             errors::PreconditionNotMet("op `unfold` gradient: input `X` variable `%s` needs a "
                                        "declared [N, C, H, W] with known H and W (fold's "
                                        "output_sizes), found %s",
                                        g->Input("X")[0], DDim(shape).ToString()));
  framework::AttributeMap attrs = WindowAttrs(*g);
  attrs["output_sizes"] = std::vector<int>{static_cast<int>(shape[2]), static_cast<int>(shape[3])};
  g->AddOp("fold", {{"X", g->OutputGrad("Y")}}, {{"Y", g->InputGrad("X")}}, attrs);
}

// dX = unfold(dY).
void FoldGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("unfold", {{"X", g->OutputGrad("Y")}}, {{"Y", g->InputGrad("X")}}, WindowAttrs(*g));
}

}  // namespace

PL_REGISTER_OPS(RegisterUnfoldFoldOps) {
  framework::RegisterOp<WindowOp, UnfoldOpMaker>("unfold")
      .InferShape(WindowInferShape<true>)
      .GradOpMaker(UnfoldGradMaker);
  RegisterPlainCpuFloatKernels<WindowKernel<true>::Kernel>("unfold");
  framework::RegisterOp<WindowOp, FoldOpMaker>("fold")
      .InferShape(WindowInferShape<false>)
      .GradOpMaker(FoldGradMaker);
  RegisterPlainCpuFloatKernels<WindowKernel<false>::Kernel>("fold");
}

}  // namespace operators
}  // namespace paddle_like
