// affine_grid: the sampling grid of an affine transform (paddle.nn.functional.affine_grid),
// the input grid_sampler takes in a spatial transformer: 2-D (Theta [N, 2, 3]) or 3-D
// (Theta [N, 3, 4]), with its fused gradient.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "affine_grid";

class AffineGridOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Theta", "[N, 2, 3] (2-D) or [N, 3, 4] (3-D): one affine matrix per image.");
    AddInput("OutputShape",
             "int32 [4] or [5]: the output shape at run time, N C H W or "
             "N C D H W.")
        .AsDispensable();
    AddOutput("Output", "[N, H, W, 2] or [N, D, H, W, 3]: normalised (x, y[, z]) per point.");
    AddAttr<std::vector<int>>("output_shape", "N C H W or N C D H W, when OutputShape is absent.")
        .SetDefault({});
    AddAttr<bool>("align_corners",
                  "-1 and 1 are the centres of the corner pixels (else their outer edges).")
        .SetDefault(true);
    AddComment(R"DOC(
Affine grid. Along an axis of size s the base coordinates are
$$b_i = -1 + \frac{2 i}{s - 1} \ \text{(align\_corners)}, \qquad
b_i = \frac{2 i + 1}{s} - 1 \ \text{(otherwise)}$$
(b_0 = -1, or 0, when s = 1), and each output point is the matrix applied to its base:
$$Output[n, h, w] = \Theta_n \, (b_w, b_h, 1)^T$$
(3-D: (b_w, b_h, b_d, 1)). Gradient (fused op):
$$d\Theta_n = \sum_{points} dOutput[n, point] \, (base)^T$$
)DOC");
  }
};

class AffineGridOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Theta");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "OutputShape" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

// The spatial sizes (W, H[, D], fastest first) from an N C [D] H W shape, checked against
// Theta.
std::vector<int64_t> CheckGrid(const std::string& op, const DDim& theta,
                               const std::vector<int64_t>& shape) {
  PL_ENFORCE(shape.size() == 4 || shape.size() == 5,
             errors::InvalidArgument("op `%s` output shape: expected N C H W or N C D H W, "
                                     "received %s",
                                     op, ListToString(shape)));
  const int64_t axes = static_cast<int64_t>(shape.size()) - 2;
  PL_ENFORCE(
      theta.size() == 3 && (theta[1] < 0 || theta[1] == axes) &&
          (theta[2] < 0 || theta[2] == axes + 1),
      errors::InvalidArgument("op `%s` input `Theta`: expected [N, %lld, %lld] for output "
                              "shape %s, received %s",
                              op, static_cast<long long>(axes), static_cast<long long>(axes + 1),
                              ListToString(shape), theta.ToString()));
  PL_ENFORCE(theta[0] < 0 || shape[0] < 0 || theta[0] == shape[0],
             errors::InvalidArgument("op `%s`: Theta holds %lld matrices, the output shape %s "
                                     "asks for %lld",
                                     op, static_cast<long long>(theta[0]), ListToString(shape),
                                     static_cast<long long>(shape[0])));
  std::vector<int64_t> sizes;
  for (size_t d = shape.size(); d-- > 2;) {
    PL_ENFORCE(shape[d] > 0 || shape[d] == -1,
               errors::InvalidArgument("op `%s` output shape %s: expected spatial sizes > 0", op,
                                       ListToString(shape)));
    sizes.push_back(shape[d]);
  }
  return sizes;
}

DDim GridDims(int64_t n, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> dims = {n};
  for (size_t d = sizes.size(); d-- > 0;) dims.push_back(sizes[d]);
  dims.push_back(static_cast<int64_t>(sizes.size()));
  return DDim(dims);
}

std::vector<int64_t> AttrShape(const std::vector<int>& attr) {
  return std::vector<int64_t>(attr.begin(), attr.end());
}

void AffineGridInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Theta");
  ctx->RequireOutput("Output");
  const DDim theta = ctx->GetInputDim("Theta");
  if (ctx->HasInput("OutputShape")) {
    if (ctx->IsRuntime()) return;  // The kernel reads the shape.
    const int64_t axes = theta.size() == 3 && theta[1] > 0 ? theta[1] : 2;
    ctx->SetOutputDim("Output", GridDims(theta[0], std::vector<int64_t>(axes, -1)));
    return;
  }
  const std::vector<int64_t> shape = AttrShape(ctx->Attr<std::vector<int>>("output_shape"));
  ctx->SetOutputDim("Output", GridDims(theta[0], CheckGrid(ctx->OpType(), theta, shape)));
}

// The base coordinates along an axis of `size` points.
std::vector<double> BaseCoordinates(int64_t size, bool align) {
  std::vector<double> b(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    if (size == 1) {
      b[i] = align ? -1.0 : 0.0;
    } else {
      b[i] = align ? -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(size - 1)
                   : (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(size) - 1.0;
    }
  }
  return b;
}

// The spatial sizes of the kernel's grid: OutputShape's values, else the attribute.
std::vector<int64_t> KernelSizes(const ExecutionContext& ctx, const DDim& theta) {
  const std::vector<int64_t> shape =
      ctx.HasInput("OutputShape")
          ? ReadIntValues(*ctx.Input("OutputShape"), ctx.Type(), "OutputShape")
          : AttrShape(ctx.Attr<std::vector<int>>("output_shape"));
  return CheckGrid(ctx.Type(), theta, shape);
}

// Calls fn(point, base) for every grid point in output order; base has axes + 1 values
// (x, y[, z], 1).
template <typename Fn>
void ForEachPoint(const std::vector<int64_t>& sizes, bool align, Fn&& fn) {
  const size_t axes = sizes.size();
  std::vector<std::vector<double>> b;
  for (int64_t s : sizes) b.push_back(BaseCoordinates(s, align));
  int64_t points = 1;
  for (int64_t s : sizes) points *= s;
  std::vector<double> base(axes + 1, 1.0);
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    for (size_t a = 0; a < axes; ++a) {  // x varies fastest.
      base[a] = b[a][rest % sizes[a]];
      rest /= sizes[a];
    }
    fn(p, base);
  }
}

template <typename T>
struct AffineGridKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* theta = ctx.Input("Theta");
    const std::vector<int64_t> sizes = KernelSizes(ctx, theta->dims());
    const int64_t n = theta->dims()[0], axes = static_cast<int64_t>(sizes.size());
    DenseTensor out(GridDims(n, sizes), theta->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* th = theta->data<T>();
    const int64_t points = out.numel() / std::max<int64_t>(n * axes, 1);
    for (int64_t b = 0; b < n; ++b) {
      const T* m = th + b * axes * (axes + 1);
      ForEachPoint(sizes, ctx.Attr<bool>("align_corners"),
                   [&](int64_t p, const std::vector<double>& base) {
                     for (int64_t r = 0; r < axes; ++r) {
                       double v = 0;
                       for (int64_t c = 0; c <= axes; ++c) {
                         v += static_cast<double>(m[r * (axes + 1) + c]) * base[c];
                       }
                       o[(b * points + p) * axes + r] = static_cast<T>(v);
                     }
                   });
    }
    *ctx.Output("Output") = std::move(out);
  }
};

template <typename T>
struct AffineGridGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* theta = ctx.Input("Theta");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    const std::vector<int64_t> sizes = KernelSizes(ctx, theta->dims());
    const int64_t n = theta->dims()[0], axes = static_cast<int64_t>(sizes.size());
    const DDim want = GridDims(n, sizes);
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Output@GRAD`: expected shape %s, "
                                       "received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    const int64_t points = want.numel() / std::max<int64_t>(n * axes, 1);
    std::vector<double> acc(static_cast<size_t>(theta->numel()), 0.0);
    const T* g = dout->data<T>();
    for (int64_t b = 0; b < n; ++b) {
      double* m = acc.data() + b * axes * (axes + 1);
      ForEachPoint(sizes, ctx.Attr<bool>("align_corners"),
                   [&](int64_t p, const std::vector<double>& base) {
                     for (int64_t r = 0; r < axes; ++r) {
                       const double gr = static_cast<double>(g[(b * points + p) * axes + r]);
                       for (int64_t c = 0; c <= axes; ++c) m[r * (axes + 1) + c] += gr * base[c];
                     }
                   });
    }
    DenseTensor dtheta(theta->dims(), theta->dtype());
    T* d = dtheta.mutable_data<T>(ctx.GetPlace());
    for (size_t i = 0; i < acc.size(); ++i) d[i] = static_cast<T>(acc[i]);
    *ctx.Output("Theta@GRAD") = std::move(dtheta);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterAffineGridOp) {
  const framework::FusedGradDecl grad{
      {"Theta", "OutputShape"},
      {"Output"},
      {"Theta"},
      R"DOC($$d\Theta_n = \sum_{points} dOutput[n, point] \, (base)^T$$)DOC"};
  framework::RegisterOp<AffineGridOp, AffineGridOpMaker>(kOp)
      .InferShape(AffineGridInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad))
      .Checkpoint("attribute align_corners",
                  framework::OpVersionDesc().NewAttr(
                      "align_corners", "-1 and 1 at the corner pixels' centres", true));
  RegisterPlainCpuFloatKernels<AffineGridKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("Theta");
    ctx->SetOutputDim("Theta@GRAD", ctx->GetInputDim("Theta"));
  });
  RegisterPlainCpuFloatKernels<AffineGridGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
