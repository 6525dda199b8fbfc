// im2sequence: every kernel-sized patch of each image as one row of a sequence, the image's
// patches in row-major order (the CNN-to-RNN step of fluid's OCR models); and its fused
// backward.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "im2sequence";

class Im2SequenceOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Images [N, C, H, W].");
    AddInput("Y",
             "X's type, [N, 2]: each image's real [height, width] before a network that "
             "divided it by out_stride; read when N > 1.")
        .AsDispensable();
    AddOutput("Out", "[patches, C kh kw] with one LoD sequence per image.");
    AddAttr<std::vector<int>>("kernels", "Patch [kh, kw].");
    AddAttr<std::vector<int>>("strides", "[sh, sw].").SetDefault({1, 1});
    AddAttr<std::vector<int>>("paddings", "[up, left, down, right].").SetDefault({0, 0, 0, 0});
    AddAttr<std::vector<int>>("out_stride",
                              "With Y: each real size is divided by this "
                              "(rounding up) before the patches are counted.")
        .SetDefault({1, 1});
    AddComment(R"DOC(
Image to sequence. With o_h = (H + up + down - kh) / sh + 1 patches down and o_w likewise
across, row (i o_w + j) of image n's sequence holds the patch at (i sh - up, j sw - left):
$$Out[(i o_w + j), (c k_h + a) k_w + b] = X[n, c, i s_h - up + a, j s_w - left + b]$$
(0 outside the image). With Y and N > 1, image n has the o_h x o_w patches of its real
size ceil(Y[n] / out_stride), taken from the top-left of X's image. Example: X = [[[[1, 2],
[3, 4]]]], kernels [1, 2] -> Out = [[1, 2], [3, 4]], LoD [[0, 2]].

Gradient, by the fused op im2sequence_grad (without Y): each patch entry of dOut is added to
the pixel it came from.
)DOC");
  }
};

class Im2SequenceOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

struct PatchGeometry {
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, up = 0, left = 0, down = 0, right = 0;
  int64_t PatchesDown(int64_t h) const {
    return std::max<int64_t>((h + up + down - kh) / sh + 1, 0);
  }
  int64_t PatchesAcross(int64_t w) const {
    return std::max<int64_t>((w + left + right - kw) / sw + 1, 0);
  }
};

PatchGeometry ResolvePatches(const std::string& op, const framework::AttributeMap& attrs,
                             const DDim& x) {
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected rank 4 [N, C, H, "
                                                    "W], received %s",
                                                    op, x.ToString()));
  auto ints = [&](const char* name) { return std::get<std::vector<int>>(attrs.at(name)); };
  const std::vector<int> k = ints("kernels"), s = ints("strides"), p = ints("paddings");
  PL_ENFORCE(k.size() == 2 && k[0] > 0 && k[1] > 0,
             errors::InvalidArgument("op `%s` attribute `kernels`: expected 2 values > 0, "
                                     "received %s",
                                     op, ListToString(k)));
  PL_ENFORCE(s.size() == 2 && s[0] > 0 && s[1] > 0,
             errors::InvalidArgument("op `%s` attribute `strides`: expected 2 values > 0, "
                                     "received %s",
                                     op, ListToString(s)));
  PL_ENFORCE(p.size() == 4 && *std::min_element(p.begin(), p.end()) >= 0,
             errors::InvalidArgument("op `%s` attribute `paddings`: expected 4 values >= 0 [up, "
                                     "left, down, right], received %s",
                                     op, ListToString(p)));
  PatchGeometry g{k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3]};
  const bool fits =
      x[2] < 0 || x[3] < 0 || (x[2] + g.up + g.down >= g.kh && x[3] + g.left + g.right >= g.kw);
  PL_ENFORCE(fits, errors::InvalidArgument("op `%s` attribute `kernels`: %s is larger than X's "
                                           "padded image (X %s, paddings %s)",
                                           op, ListToString(k), x.ToString(), ListToString(p)));
  return g;
}

void Im2SequenceInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const PatchGeometry g = ResolvePatches(ctx->OpType(), ctx->Attrs(), x);
  if (ctx->IsRuntime()) return;  // With Y the patch count depends on its values.
  const int64_t width = x[1] < 0 ? -1 : x[1] * g.kh * g.kw;
  int64_t rows = -1;
  if (!ctx->HasInput("Y") && x[0] >= 0 && x[2] >= 0 && x[3] >= 0) {
    rows = x[0] * g.PatchesDown(x[2]) * g.PatchesAcross(x[3]);
  }
  ctx->SetOutputDim("Out", DDim{rows, width});
}

// Writes the patches (oh x ow of them, from the top-left) of one [C, H, W] image to `out`.
template <typename T>
void Patches(const PatchGeometry& g, const T* img, int64_t c, int64_t h, int64_t w, int64_t oh,
             int64_t ow, T* out) {
  const int64_t width = c * g.kh * g.kw;
  for (int64_t i = 0; i < oh; ++i) {
    for (int64_t j = 0; j < ow; ++j) {
      T* row = out + (i * ow + j) * width;
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t a = 0; a < g.kh; ++a) {
          const int64_t y = i * g.sh - g.up + a;
          for (int64_t b = 0; b < g.kw; ++b) {
            const int64_t x = j * g.sw - g.left + b;
            const bool inside = y >= 0 && y < h && x >= 0 && x < w;
            row[(ch * g.kh + a) * g.kw + b] = inside ? img[(ch * h + y) * w + x] : T(0);
          }
        }
      }
    }
  }
}

template <typename T>
struct Im2SequenceKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const PatchGeometry g = ResolvePatches(ctx.Type(), ctx.op().Attrs(), x->dims());
    const int64_t n = x->dims()[0], c = x->dims()[1], h = x->dims()[2], w = x->dims()[3];
    std::vector<int64_t> oh(n, g.PatchesDown(h)), ow(n, g.PatchesAcross(w));
    if (ctx.HasInput("Y") && n > 1) {
      const DenseTensor* y = ctx.Input("Y");
      const std::vector<int> stride = ctx.Attr<std::vector<int>>("out_stride");
      PL_ENFORCE(stride.size() == 2 && stride[0] > 0 && stride[1] > 0,
                 errors::InvalidArgument("op `%s` attribute `out_stride`: expected 2 values > 0, "
                                         "received %s",
                                         ctx.Type(), ListToString(stride)));
      PL_ENFORCE(
          y->numel() == 2 * n,
          errors::InvalidArgument("op `%s` input `Y`: expected [%lld, 2] real sizes, "
                                  "received %s",
                                  ctx.Type(), static_cast<long long>(n), y->dims().ToString()));
      const T* sizes = y->data<T>();
      for (int64_t i = 0; i < n; ++i) {
        // Checked as T first: a NaN or huge size never reaches the conversion (sizes past
        // X's image take no more patches than X has).
        const T limit = static_cast<T>(std::max(h, w) * std::max(stride[0], stride[1]));
        const T sh = std::min(sizes[2 * i], limit), sw = std::min(sizes[2 * i + 1], limit);
        const bool valid = sh >= T(0) && sw >= T(0);  // False for NaN.
        const int64_t rh = valid ? static_cast<int64_t>(sh) : -1,
                      rw = valid ? static_cast<int64_t>(sw) : -1;
        PL_ENFORCE(valid,
                   errors::InvalidArgument("op `%s` input `Y`: image %lld has size [%g, %g], "
                                           "expected values >= 0",
                                           ctx.Type(), static_cast<long long>(i),
                                           static_cast<double>(sizes[2 * i]),
                                           static_cast<double>(sizes[2 * i + 1])));
        // Patches come from X's image: never more than X's own size allows.
        oh[i] = std::min(g.PatchesDown((rh + stride[0] - 1) / stride[0]), g.PatchesDown(h));
        ow[i] = std::min(g.PatchesAcross((rw + stride[1] - 1) / stride[1]), g.PatchesAcross(w));
      }
    }
    std::vector<size_t> offsets(1, 0);
    for (int64_t i = 0; i < n; ++i) offsets.push_back(offsets.back() + oh[i] * ow[i]);
    const int64_t width = c * g.kh * g.kw;
    DenseTensor out(DDim{static_cast<int64_t>(offsets.back()), width}, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (int64_t i = 0; i < n; ++i) {
      Patches(g, in + i * c * h * w, c, h, w, oh[i], ow[i], o + offsets[i] * width);
    }
    out.set_lod({offsets});
    *ctx.Output("Out") = std::move(out);
  }
};

void Im2SequenceGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct Im2SequenceGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const PatchGeometry g = ResolvePatches(ctx.Type(), ctx.op().Attrs(), x->dims());
    const int64_t n = x->dims()[0], c = x->dims()[1], h = x->dims()[2], w = x->dims()[3];
    const int64_t oh = g.PatchesDown(h), ow = g.PatchesAcross(w), width = c * g.kh * g.kw;
    PL_ENFORCE(dout->dims() == DDim({n * oh * ow, width}),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape [%lld, %lld] "
                                       "(the patches of every image), received %s",
                                       ctx.Type(), static_cast<long long>(n * oh * ow),
                                       static_cast<long long>(width), dout->dims().ToString()));
    DenseTensor dx(x->dims(), dout->dtype());
    T* gx = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(gx, 0, sizeof(T) * dx.numel());
    const T* d = dout->data<T>();
    for (int64_t im = 0; im < n; ++im) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          const T* row = d + ((im * oh + i) * ow + j) * width;
          for (int64_t ch = 0; ch < c; ++ch) {
            for (int64_t a = 0; a < g.kh; ++a) {
              const int64_t y = i * g.sh - g.up + a;
              for (int64_t b = 0; b < g.kw; ++b) {
                const int64_t xx = j * g.sw - g.left + b;
                if (y >= 0 && y < h && xx >= 0 && xx < w) {
                  gx[((im * c + ch) * h + y) * w + xx] += row[(ch * g.kh + a) * g.kw + b];
                }
              }
            }
          }
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterIm2SequenceOp) {
  const framework::FusedGradDecl grad{
      {"X"},
      {"Out"},
      {"X"},
      R"DOC($$dX[n, c, y, x] = \sum_{\text{patch entries from } (y, x)} dOut$$)DOC"};
  framework::RegisterOp<Im2SequenceOp, Im2SequenceOpMaker>(kOp)
      .InferShape(Im2SequenceInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<Im2SequenceKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(Im2SequenceGradInferShape);
  RegisterPlainCpuFloatKernels<Im2SequenceGradKernel>("im2sequence_grad");
}

}  // namespace operators
}  // namespace paddle_like
