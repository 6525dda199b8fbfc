// label_smooth: one-hot labels mixed with a prior distribution (uniform unless PriorDist is
// given). Its gradient is a scale of dOut, so every order is differentiable.
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "label_smooth";

class LabelSmoothOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Labels (one-hot or soft), [..., K] with K classes in the last dim.");
    AddInput("PriorDist", "Optional prior over the K classes, [1, K] or [K].").AsDispensable();
    AddOutput("Out", "The smoothed labels, X's shape.");
    AddAttr<float>("epsilon", "Weight of the prior, in [0, 1].")
        .SetDefault(0.0f)
        .InRange(0.0f, 1.0f);
    AddComment(R"DOC(
Label smoothing operator, over the last dim of K classes:

$$Out = (1 - \epsilon) X + \epsilon \, P, \quad P = PriorDist \text{ when given, else } \frac{1}{K}$$

Gradient, written with the op scale: $$dX = (1 - \epsilon) \, dOut$$
)DOC");
  }
};

class LabelSmoothOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void CheckPrior(const std::string& op, const DDim& x, const DDim& prior) {
  const int64_t k = x.size() > 0 ? x[x.size() - 1] : 1;
  PL_ENFORCE(prior.numel() < 0 || k < 0 || (prior.numel() == k && prior[prior.size() - 1] == k),
             errors::InvalidArgument("op `%s` input `PriorDist`: expected %s values (the classes "
                                     "in the last dim of input `X` %s), received %s",
                                     op, std::to_string(k), x.ToString(), prior.ToString()));
}

void LabelSmoothInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  if (ctx->HasInput("PriorDist")) CheckPrior(ctx->OpType(), x, ctx->GetInputDim("PriorDist"));
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct LabelSmoothKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* prior = ctx.Input("PriorDist");
    const DDim dims = x->dims();
    const int64_t k = dims.size() > 0 ? dims[dims.size() - 1] : 1;
    if (prior != nullptr) CheckPrior(kOp, dims, prior->dims());
    const double eps = ctx.Attr<float>("epsilon");
    DenseTensor out(dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    const T* p = prior != nullptr ? prior->data<T>() : nullptr;
    for (int64_t e = 0; e < dims.numel(); ++e) {
      const double mix =
          p != nullptr ? static_cast<double>(p[e % k]) : 1.0 / static_cast<double>(k);
      o[e] = static_cast<T>((1 - eps) * static_cast<double>(in[e]) + eps * mix);
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

void LabelSmoothGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(
      "scale", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
      {{"scale", 1.0f - g->Attr<float>("epsilon")}, {"bias", 0.0f}, {"bias_after_scale", true}});
}

}  // namespace

PL_REGISTER_OPS(RegisterLabelSmoothOp) {
  framework::RegisterOp<LabelSmoothOp, LabelSmoothOpMaker>(kOp)
      .InferShape(LabelSmoothInferShape)
      .GradOpMaker(LabelSmoothGradMaker);
  RegisterPlainCpuFloatKernels<LabelSmoothKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
