// lrn: local response normalisation across channels (AlexNet-era models), and lrn_grad.
// Sums of squares run in double over each window.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "lrn";
constexpr char kGradOp[] = "lrn_grad";

class LrnAttrsMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddAttrs() {
    AddAttr<int>("n", "Channels in each window (odd, > 0).").SetDefault(5).GreaterThan(0);
    AddAttr<float>("k", "The bias k.").SetDefault(2.0f);
    AddAttr<float>("alpha", "The scale alpha (not divided by n).").SetDefault(0.0001f);
    AddAttr<float>("beta", "The exponent beta.").SetDefault(0.75f);
    AddAttr<std::string>("data_format", "NCHW (or AnyLayout) or NHWC.").SetDefault("AnyLayout");
  }
};

class LrnOpMaker : public LrnAttrsMaker {
 public:
  void Make() override {
    AddInput("X", "[N, C, H, W] (NCHW) or [N, H, W, C] (NHWC).");
    AddOutput("Out", "X normalised, X's shape.");
    AddOutput("MidOut", "The denominators' base k + alpha * (window sum of X^2), X's shape.")
        .AsIntermediate();
    AddAttrs();
    AddComment(R"DOC(
Local response normalisation operator, across channels: with the window of n (odd) channels
centred on c, W(c) = [c - (n - 1) / 2, c + (n - 1) / 2] clipped to [0, C),

$$MidOut_c = k + \alpha \sum_{c' \in W(c)} X_{c'}^2, \quad Out_c = X_c \, MidOut_c^{-\beta}$$

Gradient (op `lrn_grad`):
$$dX_c = dOut_c \, MidOut_c^{-\beta} - 2 \alpha \beta X_c \sum_{c' : c \in W(c')}
\frac{dOut_{c'} \, Out_{c'}}{MidOut_{c'}}$$
)DOC");
  }
};

class LrnGradOpMaker : public LrnAttrsMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Out", "The forward op's Out.");
    AddInput("MidOut", "The forward op's MidOut.");
    AddInput("Out@GRAD", "Gradient of Out.");
    AddOutput("X@GRAD", "Gradient of X.");
    AddAttrs();
    AddComment(R"DOC(
Gradient of `lrn`: $$dX_c = dOut_c \, MidOut_c^{-\beta} - 2 \alpha \beta X_c
\sum_{c' : c \in W(c')} \frac{dOut_{c'} \, Out_{c'}}{MidOut_{c'}}$$
)DOC");
  }
};

class LrnOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

// X as [outer, C, inner] (NCHW: inner = H W; NHWC: outer = N H W, inner = 1).
struct ChannelView {
  int64_t outer, c, inner;
};

template <typename Context>
ChannelView ViewOf(const std::string& op, const DDim& x, const Context& ctx) {
  const std::string layout = ctx.template Attr<std::string>("data_format");
  PL_ENFORCE(layout == "NCHW" || layout == "AnyLayout" || layout == "NHWC",
             errors::InvalidArgument("op `%s` attribute `data_format`: expected NCHW, NHWC or "
                                     "AnyLayout, received %s",
                                     op, layout));
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected rank 4, "
                                                    "received %s",
                                                    op, x.ToString()));
  const int n = ctx.template Attr<int>("n");
  PL_ENFORCE(n > 0 && n % 2 == 1,
             errors::InvalidArgument("op `%s` attribute `n`: expected an odd value > 0 (the "
                                     "window centred on each channel), received %d",
                                     op, n));
  if (layout == "NHWC") return {x[0] * x[1] * x[2], x[3], 1};
  return {x[0], x[1], x[2] * x[3]};
}

void LrnInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  ViewOf(ctx->OpType(), x, *ctx);
  ctx->SetOutputDim("Out", x);
  if (ctx->HasOutput("MidOut")) ctx->SetOutputDim("MidOut", x);
}

void LrnInferVarType(framework::VarTypeInferenceContext* ctx) {
  for (const char* slot : {"Out", "MidOut"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDataType(slot, ctx->GetInputDataType("X"));
  }
}

template <typename T>
struct LrnKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const ChannelView v = ViewOf(kOp, x->dims(), ctx);
    const int n = ctx.Attr<int>("n");
    const double k = ctx.Attr<float>("k"), alpha = ctx.Attr<float>("alpha"),
                 beta = ctx.Attr<float>("beta");
    DenseTensor out(x->dims(), x->dtype()), mid(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    T* m = mid.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    const int64_t pre = (n - 1) / 2;
    for (int64_t p = 0; p < v.outer; ++p) {
      for (int64_t q = 0; q < v.inner; ++q) {
        const auto at = [&](int64_t c) { return (p * v.c + c) * v.inner + q; };
        for (int64_t c = 0; c < v.c; ++c) {
          double sum = 0;
          for (int64_t w = std::max<int64_t>(c - pre, 0); w < std::min(c - pre + n, v.c); ++w) {
            const double xv = static_cast<double>(in[at(w)]);
            sum += xv * xv;
          }
          const double mv = k + alpha * sum;
          m[at(c)] = static_cast<T>(mv);
          o[at(c)] = static_cast<T>(static_cast<double>(in[at(c)]) * std::pow(mv, -beta));
        }
      }
    }
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* mid_out = ctx.Output("MidOut")) *mid_out = std::move(mid);
  }
};

void LrnGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Out", "MidOut", "Out@GRAD"}) ctx->RequireInput(slot);
  ctx->RequireOutput("X@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct LrnGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DDim dims = x->dims();
    for (const char* slot : {"Out", "MidOut", "Out@GRAD"}) {
      PL_ENFORCE(
          ctx.Input(slot)->dims() == dims,
          errors::InvalidArgument("op `%s` input `%s`: expected X's shape %s, received %s", kGradOp,
                                  slot, dims.ToString(), ctx.Input(slot)->dims().ToString()));
    }
    const ChannelView v = ViewOf(kGradOp, dims, ctx);
    const int n = ctx.Attr<int>("n");
    const double alpha = ctx.Attr<float>("alpha"), beta = ctx.Attr<float>("beta");
    const T* xd = x->data<T>();
    const T* od = ctx.Input("Out")->data<T>();
    const T* md = ctx.Input("MidOut")->data<T>();
    const T* gd = ctx.Input("Out@GRAD")->data<T>();
    DenseTensor dx(dims, x->dtype());
    T* o = dx.mutable_data<T>(ctx.GetPlace());
    const int64_t pre = (n - 1) / 2;
    for (int64_t p = 0; p < v.outer; ++p) {
      for (int64_t q = 0; q < v.inner; ++q) {
        const auto at = [&](int64_t c) { return (p * v.c + c) * v.inner + q; };
        for (int64_t c = 0; c < v.c; ++c) {
          // Channels c' whose window holds c: c' - pre <= c < c' - pre + n.
          double sum = 0;
          for (int64_t w = std::max<int64_t>(c + pre - n + 1, 0); w <= std::min(c + pre, v.c - 1);
               ++w) {
            sum += static_cast<double>(gd[at(w)]) * static_cast<double>(od[at(w)]) /
                   static_cast<double>(md[at(w)]);
          }
          const double mv = static_cast<double>(md[at(c)]);
          o[at(c)] = static_cast<T>(static_cast<double>(gd[at(c)]) * std::pow(mv, -beta) -
                                    2 * alpha * beta * static_cast<double>(xd[at(c)]) * sum);
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

void LrnGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  framework::AttributeMap attrs;
  for (const char* name : {"n", "k", "alpha", "beta", "data_format"}) {
    if (g->Forward().HasAttr(name)) attrs[name] = g->Forward().GetAttr(name);
  }
  g->AddOp(kGradOp,
           {{"X", g->Input("X")},
            {"Out", g->Output("Out")},
            {"MidOut", g->Output("MidOut")},
            {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}}, attrs);
}

}  // namespace

PL_REGISTER_OPS(RegisterLrnOp) {
  framework::RegisterOp<LrnOp, LrnOpMaker>(kOp)
      .InferShape(LrnInferShape)
      .InferVarType(LrnInferVarType)
      .GradOpMaker(LrnGradMaker);
  RegisterPlainCpuFloatKernels<LrnKernel>(kOp);
  framework::RegisterOp<LrnOp, LrnGradOpMaker>(kGradOp)
      .InferShape(LrnGradInferShape)
      .InferVarType(OutputDataTypeOf("X", "X@GRAD"));
  RegisterPlainCpuFloatKernels<LrnGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
