// sequence_softmax: softmax over the rows of each sequence of a [N, 1] or [N] LoD tensor,
// and sequence_softmax_grad, its fused backward.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_softmax";
constexpr char kGradOp[] = "sequence_softmax_grad";

class SequenceSoftmaxOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "LoD tensor [N, 1] or [N]; its last LoD level splits it into sequences.");
    AddOutput("Out", "The per-sequence softmax, with X's shape and LoD.");
    AddAttr<bool>("use_cudnn", "Use cuDNN (accepted and ignored: plain kernel).")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Sequence softmax: for each sequence, rows s_i to s_{i+1} - 1 of the last LoD level,
$$Out_r = \frac{e^{X_r}}{\sum_{q=s_i}^{s_{i+1}-1} e^{X_q}}, \quad s_i \le r < s_{i+1}$$
Example: X = [1, 2, 3], LoD [[0, 1, 3]] -> Out = [1, 0.2689, 0.7311]. The maximum of each
sequence is subtracted before exponentiating (same result, no overflow).

Gradient, by the fused op sequence_softmax_grad:
dX_r = Out_r (dOut_r - sum_q dOut_q Out_q), the sum over r's sequence.
)DOC");
  }
};

class SequenceSoftmaxOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void CheckColumn(const std::string& op, const std::string& slot, const DDim& d) {
  const bool ok = d.size() == 1 || (d.size() == 2 && (d[1] == 1 || d[1] < 0));
  PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `%s`: expected shape [N, 1] or [N], "
                                         "received %s",
                                         op, slot, d.ToString()));
}

void SequenceSoftmaxInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckColumn(ctx->OpType(), "X", x);
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct SequenceSoftmaxKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckColumn(ctx.Type(), "X", x->dims());
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, x->lod().size() + 1);
    DenseTensor out(x->dims(), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (size_t i = 0; i + 1 < lod.size(); ++i) {
      if (lod[i] == lod[i + 1]) continue;
      const T m = *std::max_element(in + lod[i], in + lod[i + 1]);
      T sum = 0;
      for (size_t r = lod[i]; r < lod[i + 1]; ++r) sum += o[r] = std::exp(in[r] - m);
      for (size_t r = lod[i]; r < lod[i + 1]; ++r) o[r] /= sum;
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

// ---- sequence_softmax_grad ----

void SequenceSoftmaxGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Out");
  UnaryGradInferShape(ctx, "X");  // Out has X's shape.
}

template <typename T>
struct SequenceSoftmaxGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, x->lod().size() + 1);
    PL_ENFORCE(out->dims() == x->dims() && dout->dims() == x->dims(),
               errors::InvalidArgument("op `%s` inputs `Out` and `Out@GRAD`: expected X's shape "
                                       "%s, received %s and %s",
                                       ctx.Type(), x->dims().ToString(), out->dims().ToString(),
                                       dout->dims().ToString()));
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    const T* y = out->data<T>();
    const T* d = dout->data<T>();
    for (size_t i = 0; i + 1 < lod.size(); ++i) {
      T dot = 0;
      for (size_t r = lod[i]; r < lod[i + 1]; ++r) dot += d[r] * y[r];
      for (size_t r = lod[i]; r < lod[i + 1]; ++r) g[r] = (d[r] - dot) * y[r];
    }
    dx.set_lod(x->lod());
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequenceSoftmaxOp) {
  const framework::FusedGradDecl grad{
      {"X", "Out"},
      {"Out"},
      {"X"},
      R"DOC($$dX_r = Out_r \Big(dOut_r - \sum_{q=s_i}^{s_{i+1}-1} dOut_q\, Out_q\Big),
\quad s_i \le r < s_{i+1}$$
X@GRAD has X's shape and LoD.)DOC"};
  framework::RegisterOp<SequenceSoftmaxOp, SequenceSoftmaxOpMaker>(kOp)
      .InferShape(SequenceSoftmaxInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<SequenceSoftmaxKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad)
      .InferShape(SequenceSoftmaxGradInferShape)
      .InferVarType(OutputDataTypeOf("Out@GRAD", "X@GRAD"));
  RegisterPlainCpuFloatKernels<SequenceSoftmaxGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
