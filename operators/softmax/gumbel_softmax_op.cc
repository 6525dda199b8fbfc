// gumbel_softmax: a softmax of X plus Gumbel noise, sharpened by a temperature, optionally
// made one-hot (paddle.nn.functional.gumbel_softmax), with its fused gradient.
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/random/random_transforms.h"
#include "operators/softmax/softmax_op.h"
#include "platform/random.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "gumbel_softmax";

class GumbelSoftmaxOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Unnormalised log-probabilities.");
    AddOutput("Out", "X's shape: the sample along `axis`.");
    AddAttr<float>("temperature", "tau > 0: small values approach one-hot samples.")
        .SetDefault(1.0f);
    AddAttr<bool>("hard", "Return the one-hot vector of the sample's largest entry.")
        .SetDefault(false);
    AddAttr<int>("axis", "The dim of the categories (negative counts from the end).")
        .SetDefault(-1);
    AddComment(R"DOC(
GumbelSoftmax operator. Along `axis`, with g_i = -log(-log u_i), u_i ~ U(0, 1) drawn from
std::mt19937_64 in element order (FLAGS_random_seed reproduces it):

$$Out_i = \frac{\exp((X_i + g_i) / \tau)}{\sum_j \exp((X_j + g_j) / \tau)}$$

computed in double around the maximum. With `hard`, Out is the one-hot vector of the largest
entry (the first of equal ones). The largest entry is category i with probability
softmax(X)_i whatever tau is.

Gradient (fused gumbel_softmax_grad), from Out:
$$dX_i = \frac{Out_i \, (dOut_i - \sum_j Out_j \, dOut_j)}{\tau}$$
the exact derivative of the soft sample for its noise. PaddlePaddle's kernel leaves out the
1 / tau factor. A hard sample gives zero, as in PaddlePaddle (the one-hot Out does not carry the
soft sample a straight-through estimate would need).
)DOC");
  }
};

class GumbelSoftmaxOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

double Temperature(const ExecutionContext& ctx) {
  const double tau = ctx.Attr<float>("temperature");
  PL_ENFORCE(tau > 0 && std::isfinite(tau),
             errors::InvalidArgument("op `%s` attribute `temperature`: expected a finite value "
                                     "> 0, received %g",
                                     kOp, tau));
  return tau;
}

template <typename T>
struct GumbelSoftmaxKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const double tau = Temperature(ctx);
    const bool hard = ctx.Attr<bool>("hard");
    const SoftmaxDims d = GetSoftmaxDims(kOp, x->dims(), ctx.Attr<int>("axis"));
    const T* xd = x->data<T>();
    // The noisy logits (X + g) / tau in element order, then one softmax per line.
    std::vector<double> z(static_cast<size_t>(x->numel()));
    RandomSource source(platform::ResolveSeed(0));
    for (int64_t i = 0; i < x->numel(); ++i) {
      const double u = 1.0 - source.Uniform();  // (0, 1]
      const double g = u >= 1.0 ? -std::log(-std::log1p(-0x1.0p-53)) : -std::log(-std::log(u));
      z[i] = (static_cast<double>(xd[i]) + g) / tau;
    }
    DenseTensor out(x->dims(), x->dtype());
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t a = 0; a < d.outer; ++a) {
      for (int64_t b = 0; b < d.inner; ++b) {
        const auto at = [&](int64_t k) { return (a * d.n + k) * d.inner + b; };
        int64_t best = 0;
        for (int64_t k = 1; k < d.n; ++k) {
          if (z[at(k)] > z[at(best)]) best = k;
        }
        double sum = 0;
        for (int64_t k = 0; k < d.n; ++k) sum += std::exp(z[at(k)] - z[at(best)]);
        for (int64_t k = 0; k < d.n; ++k) {
          o[at(k)] = hard ? static_cast<T>(k == best)
                          : static_cast<T>(std::exp(z[at(k)] - z[at(best)]) / sum);
        }
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct GumbelSoftmaxGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", out->dims());
    const double tau = Temperature(ctx);
    const SoftmaxDims d = GetSoftmaxDims(kOp, out->dims(), ctx.Attr<int>("axis"));
    const T* y = out->data<T>();
    const T* dy = dout->data<T>();
    DenseTensor dx(out->dims(), out->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    for (int64_t a = 0; a < d.outer; ++a) {
      for (int64_t b = 0; b < d.inner; ++b) {
        const auto at = [&](int64_t k) { return (a * d.n + k) * d.inner + b; };
        double dot = 0;
        for (int64_t k = 0; k < d.n; ++k) {
          dot += static_cast<double>(y[at(k)]) * static_cast<double>(dy[at(k)]);
        }
        for (int64_t k = 0; k < d.n; ++k) {
          g[at(k)] = static_cast<T>(static_cast<double>(y[at(k)]) *
                                    (static_cast<double>(dy[at(k)]) - dot) / tau);
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterGumbelSoftmaxOp) {
  const framework::FusedGradDecl grad{
      {"Out"}, {"Out"}, {"X"}, R"DOC($$dX_i = Out_i (dOut_i - \sum_j Out_j dOut_j) / \tau$$)DOC"};
  framework::RegisterOp<GumbelSoftmaxOp, GumbelSoftmaxOpMaker>(kOp)
      .InferShape(SameShapeInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<GumbelSoftmaxKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(SoftmaxGradInferShape);
  RegisterPlainCpuFloatKernels<GumbelSoftmaxGradKernel>("gumbel_softmax_grad");
}

}  // namespace operators
}  // namespace paddle_like
