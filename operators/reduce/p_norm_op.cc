// p_norm: the p-norm of X along one axis or over all of it (paddle.linalg.norm,
// paddle.nn.functional.normalize), p any real or +-inf; and p_norm_grad, its gradient.
// Sums run in double in element order.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/reduce/p_norm_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "p_norm";
constexpr char kGradOp[] = "p_norm_grad";

class PNormAttrsMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddAttrs() {
    AddAttr<float>("porder", "p: any real, or +-inf (max / min of |X|); 0 counts non-zeros.")
        .SetDefault(2.0f);
    AddAttr<int>("axis", "The reduced dim (negative from the end); ignored with asvector.")
        .SetDefault(-1);
    AddAttr<float>("epsilon", "Floor of the norm in the gradient's denominator.")
        .SetDefault(1e-12f);
    AddAttr<bool>("keepdim", "Keep the reduced dim (as 1).").SetDefault(false);
    AddAttr<bool>("asvector", "Reduce over every element.").SetDefault(false);
  }
};

class PNormOpMaker : public PNormAttrsMaker {
 public:
  void Make() override {
    AddInput("X", "Input of any rank.");
    AddOutput("Out", "The norms: X's dims without `axis` (kept as 1 with keepdim).");
    AddAttrs();
    AddComment(R"DOC(
P-norm operator, along `axis` (over all of X with asvector):

$$Out = \left(\sum |X|^p\right)^{1/p}, \quad p = \infty: \max |X|, \quad p = -\infty: \min |X|,
\quad p = 0: \#\{X \ne 0\}$$

Gradient (op `p_norm_grad`): $$dX = dOut \cdot \frac{\mathrm{sign}(X) |X|^{p-1}}
{\max(Out^{p-1}, \epsilon)}$$; for p = +-inf, dOut sign(X) where |X| = Out, else 0; for
p = 0, 0.
)DOC");
  }
};

class PNormGradOpMaker : public PNormAttrsMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Out", "The forward op's Out.");
    AddInput("Out@GRAD", "Gradient of Out.");
    AddOutput("X@GRAD", "Gradient of X.");
    AddAttrs();
    AddComment(R"DOC(
Gradient of `p_norm`: $$dX = dOut \cdot \frac{\mathrm{sign}(X) |X|^{p-1}}{\max(Out^{p-1},
\epsilon)}$$; for p = +-inf, dOut sign(X) where |X| = Out, else 0; for p = 0, 0.
)DOC");
  }
};

class PNormOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

// X as [outer, n, inner] around the reduced axis.
struct NormLines {
  int64_t outer = 1, n = 1, inner = 1;
  DDim out;
};

template <typename Context>
NormLines LinesOf(const std::string& op, const DDim& x, const Context& ctx) {
  NormLines l;
  const bool keepdim = ctx.template Attr<bool>("keepdim");
  if (ctx.template Attr<bool>("asvector") || x.size() == 0) {
    l.n = x.numel();
    l.out = keepdim ? DDim(std::vector<int64_t>(static_cast<size_t>(x.size()), 1)) : DDim({});
    return l;
  }
  const int rank = x.size(), axis = ctx.template Attr<int>("axis");
  PL_ENFORCE(axis >= -rank && axis < rank,
             errors::InvalidArgument("op `%s` attribute `axis`: expected a value in [%d, %d) for "
                                     "input `X` of shape %s, received %d",
                                     op, -rank, rank, x.ToString(), axis));
  const int a = axis < 0 ? axis + rank : axis;
  l.outer = framework::Product(x, 0, a);
  l.n = x[a];
  l.inner = framework::Product(x, a + 1, rank);
  std::vector<int64_t> out;
  for (int d = 0; d < rank; ++d) {
    if (d != a) {
      out.push_back(x[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  l.out = DDim(out);
  return l;
}

void PNormInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", LinesOf(ctx->OpType(), ctx->GetInputDim("X"), *ctx).out);
}

template <typename T>
struct PNormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const NormLines l = LinesOf(kOp, x->dims(), ctx);
    const double p = ctx.Attr<float>("porder");
    DenseTensor out(l.out, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (int64_t q = 0; q < l.outer; ++q) {
      for (int64_t r = 0; r < l.inner; ++r) {
        PNormAccumulator norm(p);
        for (int64_t j = 0; j < l.n; ++j) {
          norm.Add(static_cast<double>(in[(q * l.n + j) * l.inner + r]));
        }
        o[q * l.inner + r] = static_cast<T>(norm.Norm());
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void PNormGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Out", "Out@GRAD"}) ctx->RequireInput(slot);
  ctx->RequireOutput("X@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct PNormGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* norm = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const NormLines l = LinesOf(kGradOp, x->dims(), ctx);
    PL_ENFORCE(norm->numel() == l.outer * l.inner && dout->numel() == l.outer * l.inner,
               errors::InvalidArgument("op `%s` inputs `Out` and `Out@GRAD`: expected shape %s, "
                                       "received %s and %s",
                                       kGradOp, l.out.ToString(), norm->dims().ToString(),
                                       dout->dims().ToString()));
    const double p = ctx.Attr<float>("porder");
    const double eps = ctx.Attr<float>("epsilon");
    DenseTensor dx(x->dims(), x->dtype());
    T* o = dx.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    const T* nv = norm->data<T>();
    const T* g = dout->data<T>();
    for (int64_t q = 0; q < l.outer; ++q) {
      for (int64_t r = 0; r < l.inner; ++r) {
        const double nr = static_cast<double>(nv[q * l.inner + r]);
        const double gr = static_cast<double>(g[q * l.inner + r]);
        const double denom = PNormGradDenominator(nr, p, eps);
        for (int64_t j = 0; j < l.n; ++j) {
          const int64_t e = (q * l.n + j) * l.inner + r;
          o[e] = static_cast<T>(PNormElementGrad(static_cast<double>(in[e]), nr, gr, p, denom));
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

void PNormGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  framework::AttributeMap attrs;
  for (const char* name : {"porder", "axis", "epsilon", "keepdim", "asvector"}) {
    if (g->Forward().HasAttr(name)) attrs[name] = g->Forward().GetAttr(name);
  }
  g->AddOp(kGradOp,
           {{"X", g->Input("X")}, {"Out", g->Output("Out")}, {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}}, attrs);
}

}  // namespace

PL_REGISTER_OPS(RegisterPNormOp) {
  framework::RegisterOp<PNormOp, PNormOpMaker>(kOp)
      .InferShape(PNormInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(PNormGradMaker)
      .Checkpoint("norm over every element",
                  framework::OpVersionDesc().NewAttr("asvector", "Reduce over every element.",
                                                     false));
  RegisterPlainCpuFloatKernels<PNormKernel>(kOp);
  framework::RegisterOp<PNormOp, PNormGradOpMaker>(kGradOp)
      .InferShape(PNormGradInferShape)
      .InferVarType(OutputDataTypeOf("X", "X@GRAD"));
  RegisterPlainCpuFloatKernels<PNormGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
