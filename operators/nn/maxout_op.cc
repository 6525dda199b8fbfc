// maxout: the largest of each group of `groups` consecutive channels (Goodfellow et al.),
// NCHW or NHWC, and maxout_grad, its fused backward.
#include <cstring>
#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "maxout";

class MaxoutOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, C, H, W] (axis 1) or [N, H, W, C] (axis 3 or -1).");
    AddOutput("Out", "X's shape with C / groups channels.");
    AddAttr<int>("groups", "Channels per group; a divisor of C.").GreaterThan(0);
    AddAttr<int>("axis", "The channel axis: 1 (NCHW), 3 or -1 (NHWC).")
        .SetDefault(1)
        .InEnum({1, 3, -1});
    AddComment(R"DOC(
Maxout over groups of consecutive channels:
$$Out[n, c, h, w] = \max_{0 \le g < groups} X[n, c \cdot groups + g, h, w]$$
(channels on the last axis for NHWC). Example: X = [1, 5, 3, 2] as [1, 4, 1, 1], groups 2
-> Out = [5, 3].

Gradient, by the fused op maxout_grad: dOut goes to the first channel of each group that
holds the maximum, 0 to the others.
)DOC");
  }
};

class MaxoutOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

// X seen as [outer, C / groups, groups, inner]: outer = N (NCHW) or N H W (NHWC).
struct MaxoutView {
  int64_t outer = 0, out_c = 0, groups = 0, inner = 0;
};

MaxoutView ViewOf(const std::string& op, const DDim& x, int groups, int axis) {
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected rank 4, "
                                                    "received %s",
                                                    op, x.ToString()));
  const int c_axis = axis == 1 ? 1 : 3;
  const int64_t c = x[c_axis];
  PL_ENFORCE(c < 0 || c % groups == 0,
             errors::InvalidArgument("op `%s` attribute `groups`: expected a divisor of X's %lld "
                                     "channels, received %d",
                                     op, static_cast<long long>(c), groups));
  MaxoutView v;
  v.groups = groups;
  v.out_c = c < 0 ? -1 : c / groups;
  v.outer = c_axis == 1 ? x[0] : x[0] * x[1] * x[2];
  v.inner = c_axis == 1 ? x[2] * x[3] : 1;
  return v;
}

DDim OutDims(const DDim& x, int groups, int axis) {
  std::vector<int64_t> d = x.ToVector();
  int64_t& c = d[axis == 1 ? 1 : 3];
  if (c >= 0) c /= groups;
  return DDim(d);
}

void MaxoutInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const int groups = ctx->Attr<int>("groups"), axis = ctx->Attr<int>("axis");
  const DDim x = ctx->GetInputDim("X");
  ViewOf(ctx->OpType(), x, groups, axis);
  ctx->SetOutputDim("Out", OutDims(x, groups, axis));
}

template <typename T>
struct MaxoutKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const int groups = ctx.Attr<int>("groups"), axis = ctx.Attr<int>("axis");
    const MaxoutView v = ViewOf(ctx.Type(), x->dims(), groups, axis);
    DenseTensor out(OutDims(x->dims(), groups, axis), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (int64_t a = 0; a < v.outer; ++a) {
      for (int64_t c = 0; c < v.out_c; ++c) {
        const T* src = in + (a * v.out_c + c) * v.groups * v.inner;
        T* dst = o + (a * v.out_c + c) * v.inner;
        for (int64_t i = 0; i < v.inner; ++i) {
          T best = src[i];
          for (int64_t g = 1; g < v.groups; ++g) best = std::max(best, src[g * v.inner + i]);
          dst[i] = best;
        }
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void MaxoutGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct MaxoutGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const int groups = ctx.Attr<int>("groups"), axis = ctx.Attr<int>("axis");
    const MaxoutView v = ViewOf(ctx.Type(), x->dims(), groups, axis);
    const DDim want = OutDims(x->dims(), groups, axis);
    for (const auto& [slot, t] : {std::pair<const char*, const DenseTensor*>{"Out", out},
                                  std::pair<const char*, const DenseTensor*>{"Out@GRAD", dout}}) {
      PL_ENFORCE(t->dims() == want,
                 errors::InvalidArgument("op `%s` input `%s`: expected shape %s for X %s, "
                                         "received %s",
                                         ctx.Type(), slot, want.ToString(), x->dims().ToString(),
                                         t->dims().ToString()));
    }
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(g, 0, sizeof(T) * dx.numel());
    const T* in = x->data<T>();
    const T* o = out->data<T>();
    const T* d = dout->data<T>();
    for (int64_t a = 0; a < v.outer; ++a) {
      for (int64_t c = 0; c < v.out_c; ++c) {
        const int64_t base = (a * v.out_c + c) * v.groups * v.inner;
        const int64_t at = (a * v.out_c + c) * v.inner;
        for (int64_t i = 0; i < v.inner; ++i) {
          for (int64_t gi = 0; gi < v.groups; ++gi) {
            if (in[base + gi * v.inner + i] == o[at + i]) {
              g[base + gi * v.inner + i] = d[at + i];
              break;
            }
          }
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMaxoutOp) {
  const framework::FusedGradDecl grad{
      {"X", "Out"},
      {"Out"},
      {"X"},
      R"DOC($$dX[n, c \cdot groups + g, h, w] = dOut[n, c, h, w] \, [g = g^*]$$
with g* the first channel of the group equal to Out.)DOC"};
  framework::RegisterOp<MaxoutOp, MaxoutOpMaker>(kOp)
      .InferShape(MaxoutInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<MaxoutKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(MaxoutGradInferShape);
  RegisterPlainCpuFloatKernels<MaxoutGradKernel>("maxout_grad");
}

}  // namespace operators
}  // namespace paddle_like
