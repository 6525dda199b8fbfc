// norm: L2 normalisation along one axis (PaddlePaddle 1.x's fluid.layers.l2_normalize, as
// face and retrieval models end with), with Norm kept for the fused gradient.
#include <cmath>
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "norm";

class NormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to normalise, of rank >= 1.");
    AddOutput("Out", "X divided by its norm along `axis`; X's shape.");
    AddOutput("Norm", "The norms: X's shape with dim `axis` of size 1 (deploy programs drop it).")
        .AsIntermediate()
        .AsDispensable();
    AddAttr<int>("axis", "The dim normalised; negative counts from the end.").SetDefault(1);
    AddAttr<float>("epsilon", "Added to the sum of squares before the square root.")
        .SetDefault(1e-10f);
    AddAttr<bool>("is_test", "Inference mode; no effect here.").SetDefault(false);
    AddComment(R"DOC(
L2 normalisation along dim a:
$$Norm = \sqrt{\sum_{i_a} X^2 + \epsilon}, \quad Out = \frac{X}{Norm}$$
Gradient (fused op): $$dX = \frac{dOut - Out \sum_{i_a} (dOut \, Out)}{Norm}$$
)DOC");
  }
};

class NormOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// X around the normalised axis; X must have rank >= 1.
LineView NormView(const std::string& op, const DDim& x, int axis) {
  PL_ENFORCE(x.size() >= 1, errors::InvalidArgument("op `%s` input `X`: expected rank >= 1, "
                                                    "received a 0-D tensor",
                                                    op));
  return ViewAround(op, x, axis);
}

void NormInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const LineView v = NormView(ctx->OpType(), x, ctx->Attr<int>("axis"));
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
  if (ctx->HasOutput("Norm")) {
    std::vector<int64_t> dims = x.ToVector();
    dims[v.axis] = 1;
    ctx->SetOutputDim("Norm", DDim(dims));
  }
}

template <typename T>
struct NormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const LineView v = NormView(kOp, x->dims(), ctx.Attr<int>("axis"));
    const double eps = ctx.Attr<float>("epsilon");
    DenseTensor out(x->dims(), x->dtype());
    std::vector<int64_t> norm_dims = x->dims().ToVector();
    norm_dims[v.axis] = 1;
    DenseTensor norm(DDim(norm_dims), x->dtype());
    const T* in = x->data<T>();
    T* o = out.mutable_data<T>(ctx.GetPlace());
    T* nrm = norm.mutable_data<T>(ctx.GetPlace());
    for (int64_t p = 0; p < v.outer; ++p) {
      for (int64_t q = 0; q < v.inner; ++q) {
        double sum = 0;
        for (int64_t i = 0; i < v.n; ++i) {
          const double e = static_cast<double>(in[(p * v.n + i) * v.inner + q]);
          sum += e * e;
        }
        const double n = std::sqrt(sum + eps);
        nrm[p * v.inner + q] = static_cast<T>(n);
        for (int64_t i = 0; i < v.n; ++i) {
          const int64_t at = (p * v.n + i) * v.inner + q;
          o[at] = static_cast<T>(static_cast<double>(in[at]) / n);
        }
      }
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
    if (ctx.HasOutput("Norm")) *ctx.Output("Norm") = std::move(norm);
  }
};

template <typename T>
struct NormGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* norm = ctx.Input("Norm");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const LineView v = NormView(ctx.Type(), x->dims(), ctx.Attr<int>("axis"));
    PL_ENFORCE(dout->dims() == x->dims() && norm->numel() == v.outer * v.inner,
               errors::InvalidArgument("op `%s`: expected Out@GRAD of X's shape %s and Norm of "
                                       "%lld elements, received %s and %s",
                                       ctx.Type(), x->dims().ToString(),
                                       static_cast<long long>(v.outer * v.inner),
                                       dout->dims().ToString(), norm->dims().ToString()));
    DenseTensor dx(x->dims(), x->dtype());
    const T* in = x->data<T>();
    const T* g = dout->data<T>();
    const T* nrm = norm->data<T>();
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    for (int64_t p = 0; p < v.outer; ++p) {
      for (int64_t q = 0; q < v.inner; ++q) {
        const double n = static_cast<double>(nrm[p * v.inner + q]);
        double dot = 0;  // sum(dOut * Out).
        for (int64_t i = 0; i < v.n; ++i) {
          const int64_t at = (p * v.n + i) * v.inner + q;
          dot += static_cast<double>(g[at]) * static_cast<double>(in[at]) / n;
        }
        for (int64_t i = 0; i < v.n; ++i) {
          const int64_t at = (p * v.n + i) * v.inner + q;
          const double y = static_cast<double>(in[at]) / n;
          d[at] = static_cast<T>((static_cast<double>(g[at]) - y * dot) / n);
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterNormOp) {
  const framework::FusedGradDecl grad{
      {"X", "Norm"},
      {"Out"},
      {"X"},
      R"DOC($$dX = \frac{dOut - Out \sum_{i_a} (dOut \, Out)}{Norm}, \quad Out = X / Norm$$)DOC"};
  framework::RegisterOp<NormOp, NormOpMaker>(kOp)
      .InferShape(NormInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<NormKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireInput("Norm");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuFloatKernels<NormGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
