// fused_softmax_mask and fused_softmax_mask_upper_triangle: the masked softmax of attention
// scores [batch, heads, query, key] (paddle.incubate.softmax_mask_fuse and
// softmax_mask_fuse_upper_triangle), with gradients built from differentiable ops.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/softmax.h"
#include "operators/op_family.h"
#include "operators/softmax/softmax_op.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kMaskOp[] = "fused_softmax_mask";
constexpr char kCausalOp[] = "fused_softmax_mask_upper_triangle";

class FusedSoftmaxMaskOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Attention scores [batch, heads, query, key].");
    AddInput("Mask", "Added to every head's scores: [batch, 1, query, key].");
    AddOutput("Out", "Softmax over the key dim, X's shape.");
    AddComment(R"DOC(
Masked softmax of attention scores X [b, h, s, t] with Mask [b, 1, s, t] (0 where a key is
seen, a large negative value where it is not), over the last dim:
$$Out_{b,h,i,j} = \frac{e^{X_{b,h,i,j} + M_{b,i,j}}}{\sum_k e^{X_{b,h,i,k} + M_{b,i,k}}}$$

Gradient (differentiable ops, as softmax's): dX = Out (dOut - sum_k dOut Out) and
dMask = the sum of dX over the heads.
)DOC");
  }
};

class FusedSoftmaxMaskUpperTriangleOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Attention scores [batch, heads, query, key], query = key.");
    AddOutput("Out", "Causal softmax over the key dim, X's shape.");
    AddComment(R"DOC(
Causal softmax of attention scores X [b, h, s, s]: query i sees keys j <= i only (the upper
triangle is masked out),
$$Out_{b,h,i,j} = \frac{e^{X_{b,h,i,j}}}{\sum_{k \le i} e^{X_{b,h,i,k}}} \text{ for } j \le i, \qquad Out_{b,h,i,j} = 0 \text{ for } j > i.$$

Gradient (differentiable ops, as softmax's): dX = Out (dOut - sum_k dOut Out), which is 0
on the masked entries.
)DOC");
  }
};

void CheckScores(const std::string& op, const DDim& x) {
  PL_ENFORCE(x.size() == 4,
             errors::InvalidArgument("op `%s` input `X`: expected rank 4 [batch, heads, query, "
                                     "key], received %s",
                                     op, x.ToString()));
}

void FusedSoftmaxMaskInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Mask");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const DDim mask = ctx->GetInputDim("Mask");
  CheckScores(ctx->OpType(), x);
  const auto same = [](int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; };
  PL_ENFORCE(mask.size() == 4 && same(mask[1], 1) && same(mask[0], x[0]) && same(mask[2], x[2]) &&
                 same(mask[3], x[3]),
             errors::InvalidArgument("op `%s` input `Mask`: expected [%lld, 1, %lld, %lld] "
                                     "(X's dims with one head), received %s",
                                     ctx->OpType(), static_cast<long long>(x[0]),
                                     static_cast<long long>(x[2]), static_cast<long long>(x[3]),
                                     mask.ToString()));
  ctx->SetOutputDim("Out", x);
}

void FusedSoftmaxMaskUpperTriangleInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckScores(ctx->OpType(), x);
  PL_ENFORCE(x[2] < 0 || x[3] < 0 || x[2] == x[3],
             errors::InvalidArgument("op `%s` input `X`: expected as many queries as keys (the "
                                     "last two dims equal), received %s",
                                     ctx->OpType(), x.ToString()));
  ctx->SetOutputDim("Out", x);
}

template <typename T>
struct FusedSoftmaxMaskKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* mask = ctx.Input("Mask");
    const DDim& d = x->dims();
    CheckScores(ctx.Type(), d);
    PL_ENFORCE(mask->dims() == DDim({d[0], 1, d[2], d[3]}),
               errors::InvalidArgument("op `%s` input `Mask`: expected [%lld, 1, %lld, %lld] (X's "
                                       "dims with one head), received %s",
                                       ctx.Type(), static_cast<long long>(d[0]),
                                       static_cast<long long>(d[2]), static_cast<long long>(d[3]),
                                       mask->dims().ToString()));
    const int64_t heads = d[1], plane = d[2] * d[3];
    std::vector<T> masked(static_cast<size_t>(x->numel()));
    const T* xp = x->data<T>();
    const T* mp = mask->data<T>();
    for (int64_t b = 0; b < d[0]; ++b) {
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t base = (b * heads + h) * plane;
        for (int64_t k = 0; k < plane; ++k) masked[base + k] = xp[base + k] + mp[b * plane + k];
      }
    }
    DenseTensor* out = ctx.Output("Out");
    out->Resize(d);
    math::SoftmaxForward(ctx.device_context<platform::CPUDeviceContext>(), masked.data(),
                         out->mutable_data<T>(ctx.GetPlace()), x->numel() / d[3], d[3], 1);
  }
};

template <typename T>
struct FusedSoftmaxMaskUpperTriangleKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DDim& d = x->dims();
    CheckScores(ctx.Type(), d);
    PL_ENFORCE(d[2] == d[3], errors::InvalidArgument("op `%s` input `X`: expected as many queries "
                                                     "as keys (the last two dims equal), "
                                                     "received %s",
                                                     ctx.Type(), d.ToString()));
    const int64_t s = d[3];
    const T* xp = x->data<T>();
    DenseTensor* out = ctx.Output("Out");
    out->Resize(d);
    T* op = out->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x->numel() / s, 64, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t seen = r % s + 1;  // Query i sees keys 0..i.
            const T* row = xp + r * s;
            T* o = op + r * s;
            double m = -std::numeric_limits<double>::infinity();
            for (int64_t j = 0; j < seen; ++j) m = std::max<double>(m, row[j]);
            double sum = 0;
            for (int64_t j = 0; j < seen; ++j) sum += std::exp(static_cast<double>(row[j]) - m);
            for (int64_t j = 0; j < s; ++j) {
              o[j] =
                  j < seen ? static_cast<T>(std::exp(static_cast<double>(row[j]) - m) / sum) : T(0);
            }
          }
        });
  }
};

void FusedSoftmaxMaskGradMaker(framework::GradOpBuilder* g) {
  const bool want_x = g->WantsInputGrad("X");
  const bool want_mask = g->HasInput("Mask") && g->WantsInputGrad("Mask");
  if (!want_x && !want_mask) return;
  const std::vector<std::string> dx =
      want_x ? g->InputGrad("X") : std::vector<std::string>{g->NewTemp("masked_scores_grad")};
  AppendSoftmaxGradOps(g, g->Output("Out"), g->OutputGrad("Out"), -1, dx);
  if (want_mask) {
    g->AddOp("reduce_sum", {{"X", dx}}, {{"Out", g->InputGrad("Mask")}},
             {{"dim", std::vector<int>{1}}, {"keep_dim", true}, {"reduce_all", false}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterFusedSoftmaxMaskOps) {
  framework::RegisterOp<OperatorWithKernel, FusedSoftmaxMaskOpMaker>(kMaskOp)
      .InferShape(FusedSoftmaxMaskInferShape)
      .GradOpMaker(FusedSoftmaxMaskGradMaker);
  RegisterPlainCpuFloatKernels<FusedSoftmaxMaskKernel>(kMaskOp);
  framework::RegisterOp<OperatorWithKernel, FusedSoftmaxMaskUpperTriangleOpMaker>(kCausalOp)
      .InferShape(FusedSoftmaxMaskUpperTriangleInferShape)
      .GradOpMaker(FusedSoftmaxMaskGradMaker);
  RegisterPlainCpuFloatKernels<FusedSoftmaxMaskUpperTriangleKernel>(kCausalOp);
}

}  // namespace operators
}  // namespace paddle_like
