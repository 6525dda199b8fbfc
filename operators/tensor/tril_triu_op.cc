// tril_triu: the lower (lower = true) or upper triangle of the matrices in the last two dims
// of X, the rest 0 (paddle.tril, paddle.triu). Its gradient is the same triangle of dOut, so
// every order is differentiable.
#include <complex>
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "tril_triu";

class TrilTriuOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input of rank >= 2: matrices in its last two dims.");
    AddOutput("Out", "The kept triangle of X, with X's shape and dtype.");
    AddAttr<int>("diagonal",
                 "The boundary diagonal: 0 the main one, k > 0 the k-th above it, k < 0 below.")
        .SetDefault(0);
    AddAttr<bool>("lower", "Keep the lower triangle (tril); false keeps the upper one (triu).")
        .SetDefault(true);
    AddComment(R"DOC(
Tril/triu operator. For each matrix of the last two dims, with row i and column j:

$$Out_{ij} = \begin{cases} X_{ij} & lower \text{ and } j - i \le diagonal, \text{ or }
\lnot lower \text{ and } j - i \ge diagonal \\ 0 & \text{otherwise} \end{cases}$$

Gradient, written with the op itself: $$dX = \mathrm{tril\_triu}(dOut)$$
)DOC");
  }
};

class TrilTriuOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void CheckRank(const std::string& op, const DDim& x) {
  PL_ENFORCE(x.size() >= 2,
             errors::InvalidArgument("op `%s` input `X`: expected rank >= 2 (matrices in the "
                                     "last two dims), received %s",
                                     op, x.ToString()));
}

void TrilTriuInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckRank(ctx->OpType(), x);
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct TrilTriuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DDim dims = x->dims();
    CheckRank(kOp, dims);
    const int64_t diagonal = ctx.Attr<int>("diagonal");
    const bool lower = ctx.Attr<bool>("lower");
    const int64_t rows = dims[dims.size() - 2], cols = dims[dims.size() - 1];
    DenseTensor out(dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (int64_t e = 0; e < dims.numel(); ++e) {
      const int64_t j = e % cols, i = (e / cols) % rows;
      const bool keep = lower ? j - i <= diagonal : j - i >= diagonal;
      o[e] = keep ? in[e] : T(0);
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

void TrilTriuGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(kOp, {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"diagonal", g->Attr<int>("diagonal")}, {"lower", g->Attr<bool>("lower")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterTrilTriuOp) {
  framework::RegisterOp<TrilTriuOp, TrilTriuOpMaker>(kOp)
      .InferShape(TrilTriuInferShape)
      .GradOpMaker(TrilTriuGradMaker);
  RegisterPlainCpuKernels<TrilTriuKernel, float, double, int32_t, int64_t, bool,
                          std::complex<float>, std::complex<double>>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
