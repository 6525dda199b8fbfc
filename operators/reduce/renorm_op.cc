// renorm: every slice along `axis` rescaled so that its p-norm is at most max_norm
// (paddle.renorm), with its fused gradient.
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "renorm";

class RenormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor (rank >= 1).");
    AddOutput("Out", "X's shape.");
    AddAttr<float>("p", "The norm's power (> 0).").SetDefault(2.0f);
    AddAttr<int>("axis", "The dim whose slices are rescaled (negative counts from the end).")
        .SetDefault(0);
    AddAttr<float>("max_norm", "The largest norm a slice keeps (>= 0).").SetDefault(1.0f);
    AddComment(R"DOC(
Renorm operator. For every index k along `axis`, with X_k the slice of X at k (all other dims),

$$N_k = \Big(\sum_{i \in X_k} |x_i|^p\Big)^{1/p}, \qquad
Out_k = \begin{cases} X_k \cdot \dfrac{max\_norm}{N_k} & N_k > max\_norm \\ X_k &
\text{otherwise} \end{cases}$$

Norms are summed in double. Example: X = [[3, 4], [0.3, 0.4]], p 2, axis 0, max_norm 1 ->
[[0.6, 0.8], [0.3, 0.4]].

Gradient (fused renorm_grad), with S_k = N_k^p, for slices with N_k > max_norm:

$$dX_i = \frac{max\_norm}{N_k} dOut_i - max\_norm \, S_k^{-1 - 1/p}
\Big(\sum_{j \in X_k} x_j \, dOut_j\Big) |x_i|^{p-1} \operatorname{sgn}(x_i)$$

and dX = dOut in the other slices.
)DOC");
  }
};

class RenormOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// X seen as [outer, slices, inner] around `axis`, with the attributes checked.
struct RenormView {
  int64_t outer = 1, slices = 1, inner = 1;
  double p = 2, max_norm = 1;
};

RenormView Resolve(const std::string& op, const DDim& x, const framework::AttributeMap& attrs) {
  const int rank = x.size();
  PL_ENFORCE(rank >= 1, errors::InvalidArgument("op `%s` input `X`: expected rank >= 1, received "
                                                "a 0-D tensor",
                                                op));
  int axis = std::get<int>(attrs.at("axis"));
  PL_ENFORCE(axis >= -rank && axis < rank,
             errors::InvalidArgument("op `%s` attribute `axis`: expected a dim in [%d, %d) of X's "
                                     "shape %s, received %d",
                                     op, -rank, rank, x.ToString(), axis));
  if (axis < 0) axis += rank;
  RenormView v;
  v.p = std::get<float>(attrs.at("p"));
  v.max_norm = std::get<float>(attrs.at("max_norm"));
  PL_ENFORCE(v.p > 0 && std::isfinite(v.p),
             errors::InvalidArgument("op `%s` attribute `p`: expected a finite power > 0, "
                                     "received %g",
                                     op, v.p));
  PL_ENFORCE(v.max_norm >= 0, errors::InvalidArgument("op `%s` attribute `max_norm`: expected a "
                                                      "value >= 0, received %g",
                                                      op, v.max_norm));
  for (int d = 0; d < axis; ++d) v.outer *= x[d];
  v.slices = x[axis];
  for (int d = axis + 1; d < rank; ++d) v.inner *= x[d];
  return v;
}

// f(slice k, flat index i) for every element, slice by slice.
template <typename F>
void ForEachElement(const RenormView& v, const F& f) {
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t k = 0; k < v.slices; ++k) {
      const int64_t base = (o * v.slices + k) * v.inner;
      for (int64_t j = 0; j < v.inner; ++j) f(k, base + j);
    }
  }
}

// S_k = sum |x|^p over each slice.
template <typename T>
std::vector<double> PowerSums(const RenormView& v, const T* x) {
  std::vector<double> sums(static_cast<size_t>(v.slices), 0.0);
  ForEachElement(v, [&](int64_t k, int64_t i) {
    sums[k] += std::pow(std::abs(static_cast<double>(x[i])), v.p);
  });
  return sums;
}

template <typename T>
struct RenormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const RenormView v = Resolve(kOp, x->dims(), ctx.op().Attrs());
    const T* xd = x->data<T>();
    const std::vector<double> sums = PowerSums(v, xd);
    std::vector<double> factor(sums.size(), 1.0);
    for (size_t k = 0; k < sums.size(); ++k) {
      const double norm = std::pow(sums[k], 1.0 / v.p);
      if (norm > v.max_norm) factor[k] = v.max_norm / norm;
    }
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    ForEachElement(v, [&](int64_t k, int64_t i) {
      o[i] = static_cast<T>(static_cast<double>(xd[i]) * factor[k]);
    });
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct RenormGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "X", x->dims());
    const RenormView v = Resolve(kOp, x->dims(), ctx.op().Attrs());
    const T* xd = x->data<T>();
    const T* dd = dout->data<T>();
    const std::vector<double> sums = PowerSums(v, xd);
    std::vector<double> x_dot_dout(sums.size(), 0.0);
    ForEachElement(v, [&](int64_t k, int64_t i) {
      x_dot_dout[k] += static_cast<double>(xd[i]) * static_cast<double>(dd[i]);
    });
    // Per slice: the factor on dOut and the coefficient of |x|^(p-1) sgn(x).
    std::vector<double> factor(sums.size(), 1.0), coeff(sums.size(), 0.0);
    for (size_t k = 0; k < sums.size(); ++k) {
      const double norm = std::pow(sums[k], 1.0 / v.p);
      if (norm > v.max_norm) {
        factor[k] = v.max_norm / norm;
        coeff[k] = -v.max_norm * std::pow(sums[k], -1.0 - 1.0 / v.p) * x_dot_dout[k];
      }
    }
    DenseTensor dx(x->dims(), x->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    ForEachElement(v, [&](int64_t k, int64_t i) {
      const double xi = static_cast<double>(xd[i]);
      const double slope =
          coeff[k] == 0.0 ? 0.0 : std::pow(std::abs(xi), v.p - 1.0) * (xi >= 0 ? 1.0 : -1.0);
      g[i] = static_cast<T>(factor[k] * static_cast<double>(dd[i]) + coeff[k] * slope);
    });
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

void RenormGradInferShape(InferShapeContext* ctx) {
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

}  // namespace

PL_REGISTER_OPS(RegisterRenormOp) {
  const framework::FusedGradDecl grad{
      {"X"},
      {"Out"},
      {"X"},
      R"DOC($$dX_i = \frac{max\_norm}{N_k} dOut_i - max\_norm \, S_k^{-1-1/p}
\Big(\sum_{j \in X_k} x_j dOut_j\Big) |x_i|^{p-1} \operatorname{sgn}(x_i)$$ in slices with
N_k > max_norm, dX = dOut elsewhere)DOC"};
  framework::RegisterOp<RenormOp, RenormOpMaker>(kOp)
      .InferShape(SameShapeInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<RenormKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(RenormGradInferShape);
  RegisterPlainCpuFloatKernels<RenormGradKernel>("renorm_grad");
}

}  // namespace operators
}  // namespace paddle_like
