// nll_loss: the negative log likelihood of log-probabilities X [N, C] (or [N, C, H, W]) at
// integer labels, with optional class weights, an ignored label and none / mean / sum
// reduction; and its fused backward.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "nll_loss";

class NllLossOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, C] or [N, C, H, W]: log-probabilities.");
    AddInput("Label", "int64 [N] or [N, H, W]: classes in [0, C), or ignore_index.");
    AddInput("Weight", "[C]: the weight of each class (1 when absent).").AsDispensable();
    AddOutput("Out", "reduction none: Label's shape; mean or sum: 0-D.");
    AddOutput("Total_weight",
              "0-D: the summed weights of the labels not ignored (0 with "
              "reduction none).");
    AddAttr<int64_t>("ignore_index", "A label whose positions count for nothing.").SetDefault(-100);
    AddAttr<std::string>("reduction", "none, mean or sum.")
        .SetDefault("mean")
        .InEnum({"none", "mean", "sum"});
    AddComment(R"DOC(
Negative log likelihood: at each position i with label c_i != ignore_index,

$$l_i = -w_{c_i} X[i, c_i], \qquad Total\_weight = \sum_i w_{c_i}$$

(0 and no weight where c_i = ignore_index); Out is l (none), $$\sum_i l_i$$ (sum) or
$$\sum_i l_i / Total\_weight$$ (mean). Example: X = log [[0.5, 0.5], [0.1, 0.9]], labels
[0, 1], mean -> -(log 0.5 + log 0.9) / 2.

Gradient, by the fused op nll_loss_grad: $$dX[i, c_i] = -w_{c_i} \, dOut_i$$ (dOut / Total_weight
for mean), 0 elsewhere.
)DOC");
  }
};

class NllLossOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

// X as [N, C, inner] and the shape of one loss per position.
struct NllShape {
  int64_t n = 0, classes = 0, inner = 1;
  DDim positions;
};

NllShape ShapeOf(const std::string& op, const DDim& x, const DDim& label) {
  PL_ENFORCE(x.size() == 2 || x.size() == 4,
             errors::InvalidArgument("op `%s` input `X`: expected [N, C] or [N, C, H, W], "
                                     "received %s",
                                     op, x.ToString()));
  NllShape s;
  s.n = x[0];
  s.classes = x[1];
  s.positions = x.size() == 2 ? DDim{x[0]} : DDim{x[0], x[2], x[3]};
  if (x.size() == 4) s.inner = x[2] < 0 || x[3] < 0 ? -1 : x[2] * x[3];
  bool ok = label.size() == s.positions.size();
  for (int i = 0; ok && i < label.size(); ++i) {
    ok = label[i] < 0 || s.positions[i] < 0 || label[i] == s.positions[i];
  }
  PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `Label`: expected shape %s, received %s",
                                         op, s.positions.ToString(), label.ToString()));
  return s;
}

void NllLossInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Label");
  ctx->RequireOutput("Out");
  const NllShape s = ShapeOf(ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Label"));
  ctx->SetOutputDim("Out", ctx->Attr<std::string>("reduction") == "none" ? s.positions : DDim());
  if (ctx->HasOutput("Total_weight")) ctx->SetOutputDim("Total_weight", DDim());
}

// fn(position, flat index of X at (position, label), weight) for every position not ignored.
template <typename T, typename Fn>
void ForEachLabel(const ExecutionContext& ctx, const NllShape& s, Fn&& fn) {
  const DenseTensor* label_t = ctx.Input("Label");
  PL_ENFORCE(label_t->dtype() == DataType::INT64,
             errors::InvalidArgument("op `%s` input `Label`: expected int64, received %s",
                                     ctx.Type(), DataTypeName(label_t->dtype())));
  const DenseTensor* weight_t = ctx.Input("Weight");
  PL_ENFORCE(
      weight_t == nullptr || weight_t->dims() == DDim{s.classes},
      errors::InvalidArgument("op `%s` input `Weight`: expected [%lld], received %s", ctx.Type(),
                              static_cast<long long>(s.classes), weight_t->dims().ToString()));
  const int64_t ignore = ctx.Attr<int64_t>("ignore_index");
  const int64_t* labels = label_t->numel() > 0 ? label_t->data<int64_t>() : nullptr;
  const T* w = weight_t != nullptr && weight_t->numel() > 0 ? weight_t->data<T>() : nullptr;
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t k = 0; k < s.inner; ++k) {
      const int64_t pos = n * s.inner + k, c = labels[pos];
      if (c == ignore) continue;
      PL_ENFORCE(c >= 0 && c < s.classes,
                 errors::InvalidArgument("op `%s` input `Label`: expected classes in [0, %lld) or "
                                         "ignore_index %lld, received %lld at position %lld",
                                         ctx.Type(), static_cast<long long>(s.classes),
                                         static_cast<long long>(ignore), static_cast<long long>(c),
                                         static_cast<long long>(pos)));
      fn(pos, (n * s.classes + c) * s.inner + k, w == nullptr ? T(1) : w[c]);
    }
  }
}

template <typename T>
struct NllLossKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const NllShape s = ShapeOf(ctx.Type(), x->dims(), ctx.Input("Label")->dims());
    const std::string& reduction = ctx.Attr<std::string>("reduction");
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    std::vector<T> losses(static_cast<size_t>(s.n * s.inner), T(0));
    T total = T(0);
    ForEachLabel<T>(ctx, s, [&](int64_t pos, int64_t at, T w) {
      losses[pos] = -w * in[at];
      total += w;
    });
    DenseTensor out(reduction == "none" ? s.positions : DDim(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (reduction == "none") {
      std::copy(losses.begin(), losses.end(), o);
    } else {
      T sum = T(0);
      for (T l : losses) sum += l;
      o[0] = reduction == "sum" ? sum : sum / total;
    }
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* tw = ctx.Output("Total_weight")) {
      DenseTensor t(DDim(), x->dtype());
      // PaddlePaddle leaves it 0 without a reduction.
      *t.mutable_data<T>(ctx.GetPlace()) = reduction == "none" ? T(0) : total;
      *tw = std::move(t);
    }
  }
};

// X@GRAD has X's dims (Out@GRAD has the loss's).
void NllLossGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct NllLossGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const NllShape s = ShapeOf(ctx.Type(), x->dims(), ctx.Input("Label")->dims());
    const std::string& reduction = ctx.Attr<std::string>("reduction");
    const DDim want = reduction == "none" ? s.positions : DDim();
    PL_ENFORCE(dout->numel() == want.numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    DenseTensor dx(x->dims(), x->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(d, d + dx.numel(), T(0));
    const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
    T total = T(0);
    if (reduction == "mean") ForEachLabel<T>(ctx, s, [&](int64_t, int64_t, T w) { total += w; });
    ForEachLabel<T>(ctx, s, [&](int64_t pos, int64_t at, T w) {
      if (reduction == "none") {
        d[at] = -w * g[pos];
      } else {
        d[at] = reduction == "sum" ? -w * g[0] : -w * g[0] / total;
      }
    });
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterNllLossOp) {
  const framework::FusedGradDecl grad{
      {"X", "Label", "Weight"},
      {"Out"},
      {"X"},
      R"DOC($$dX[i, c_i] = -w_{c_i} \, dOut_i$$ (over Total_weight for mean), 0 elsewhere)DOC"};
  framework::RegisterOp<NllLossOp, NllLossOpMaker>(kOp)
      .InferShape(NllLossInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
        ctx->SetOutputDataType("Total_weight", ctx->GetInputDataType("X"));
      })
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<NllLossKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(NllLossGradInferShape);
  RegisterPlainCpuFloatKernels<NllLossGradKernel>("nll_loss_grad");
}

}  // namespace operators
}  // namespace paddle_like
