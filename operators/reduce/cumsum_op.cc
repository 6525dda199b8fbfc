// cumsum: running sums along one axis (or over the flattened tensor), optionally exclusive
// and from the end. Its gradient is a cumsum of the output gradient in the other direction.
#include "operators/reduce/cumsum_op.h"

#include <complex>
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/indexing/index_util.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

CumsumPlan PlanCumsum(const ExecutionContext& ctx) {
  const DenseTensor* x = ctx.Input("X");
  const bool flatten = ctx.Attr<bool>("flatten");
  const DDim dims = flatten || x->dims().size() == 0 ? DDim({x->numel()}) : x->dims();
  const int axis =
      flatten || x->dims().size() == 0
          ? 0
          : NormalizeAxis(ctx.Type(), "attribute `axis`", ctx.Attr<int>("axis"), dims.size());
  CumsumPlan p;
  p.split = SplitAtAxis(dims, axis);
  p.out_dims = flatten ? dims : x->dims();
  p.out_lod = flatten ? framework::LoD{} : x->lod();
  p.exclusive = ctx.Attr<bool>("exclusive");
  p.reverse = ctx.Attr<bool>("reverse");
  return p;
}

namespace {

constexpr char kOp[] = "cumsum";

class CumsumOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor.");
    AddOutput("Out", "X's shape (1-D [numel] when flatten), X's dtype.");
    AddAttr<int>("axis", "The dim summed along (negative counts from the end).").SetDefault(-1);
    AddAttr<bool>("flatten", "Sum over X flattened to 1-D (axis ignored).").SetDefault(false);
    AddAttr<bool>("exclusive", "Leave the current element out of its sum.").SetDefault(false);
    AddAttr<bool>("reverse", "Sum from the last element towards the first.").SetDefault(false);
    AddComment(R"DOC(
Cumsum operator, along `axis` (index k along it, n its size):

$$Out_k = \sum_{j \le k} X_j \;(\text{exclusive: } j < k), \qquad
\text{reverse: } Out_k = \sum_{j \ge k} X_j \;(\text{exclusive: } j > k)$$

Example: X [1, 2, 3] -> [1, 3, 6]; exclusive -> [0, 1, 3]; reverse -> [6, 5, 3].

Gradient, a cumsum itself (so it can be differentiated again):
$$dX = \mathrm{cumsum}(dOut, axis, exclusive, \lnot reverse)$$
)DOC");
  }
};

class CumsumOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void CumsumInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  if (ctx->Attr<bool>("flatten")) {
    ctx->SetOutputDim("Out", DDim({x.numel()}));
    return;
  }
  if (x.size() > 0) NormalizeAxis(ctx->OpType(), "attribute `axis`", ctx->Attr<int>("axis"), x.size());
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct CumsumKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const CumsumPlan p = PlanCumsum(ctx);
    const AxisSplit& s = p.split;
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    DenseTensor fresh(p.out_dims, x->dtype());
    fresh.set_lod(p.out_lod);
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        CumsumLine(in, out, o * s.axis * s.inner + i, s.axis, s.inner, p.exclusive, p.reverse);
      }
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

void CumsumGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  PL_ENFORCE(!g->Attr<bool>("flatten"),
             errors::Unimplemented("op `cumsum` attribute `flatten`: the gradient of a "
                                   "flattened cumsum is not available; reshape X to 1-D first"));
  g->AddOp(kOp, {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"axis", g->Attr<int>("axis")},
            {"flatten", false},
            {"exclusive", g->Attr<bool>("exclusive")},
            {"reverse", !g->Attr<bool>("reverse")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterCumsumOp) {
  framework::RegisterOp<CumsumOp, CumsumOpMaker>(kOp)
      .InferShape(CumsumInferShape)
      .GradOpMaker(CumsumGradMaker)
      .Checkpoint("cumsum with flatten",
                  framework::OpVersionDesc().NewAttr(
                      "flatten", "sum over X flattened to 1-D", false));
  RegisterPlainCpuNumericKernels<CumsumKernel>(kOp);
  // Complex running sums (spectral models); the gradient, a cumsum, needs no conjugate.
  RegisterPlainCpuKernels<CumsumKernel, std::complex<float>, std::complex<double>>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
