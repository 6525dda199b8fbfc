// row_conv: the lookahead (row) convolution of DeepSpeech2. Each time step mixes itself with the
// next k - 1 steps of its own sequence, one weight per step and feature; sequences come from
// X's LoD ([T, D]) or are the rows of a padded batch ([B, T, D]). Its fused backward gives the
// gradients of X and Filter.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "row_conv";

class RowConvOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[T, D] with a level-1 LoD (the sequences), or a padded batch [B, T, D].");
    AddInput("Filter", "[k, D]: the weight of each of the k steps (this one and k - 1 ahead).");
    AddOutput("Out", "X's shape and LoD.");
    AddComment(R"DOC(
Row (lookahead) convolution, within each sequence s of length n:

$$Out[t, d] = \sum_{i = 0}^{\min(k, n - t) - 1} X[t + i, d] \, Filter[i, d]$$

Example: one sequence X = [[1], [2], [3]], Filter = [[1], [10]] -> [[21], [32], [3]].

Gradient, by the fused op row_conv_grad:
$$dX[t, d] = \sum_{i} dOut[t - i, d] \, Filter[i, d], \quad
dFilter[i, d] = \sum_{t} dOut[t, d] \, X[t + i, d]$$
(both within each sequence).
)DOC");
  }
};

class RowConvOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void CheckFilter(const std::string& op, const DDim& x, const DDim& filter) {
  PL_ENFORCE(x.size() == 2 || x.size() == 3,
             errors::InvalidArgument("op `%s` input `X`: expected [T, D] with a LoD or [B, T, D], "
                                     "received %s",
                                     op, x.ToString()));
  const int64_t d = x[x.size() - 1];
  PL_ENFORCE(filter.size() == 2 && (d < 0 || filter[1] < 0 || filter[1] == d),
             errors::InvalidArgument("op `%s` input `Filter`: expected [k, %lld] (X's last dim), "
                                     "received %s",
                                     op, static_cast<long long>(d), filter.ToString()));
}

void RowConvInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Filter");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckFilter(ctx->OpType(), x, ctx->GetInputDim("Filter"));
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

// The sequences as row offsets: X's LoD for [T, D], the B rows of T steps for [B, T, D].
std::vector<size_t> Sequences(const std::string& op, const DenseTensor& x) {
  if (x.dims().size() == 3) {
    std::vector<size_t> offsets;
    for (int64_t b = 0; b <= x.dims()[0]; ++b)
      offsets.push_back(static_cast<size_t>(b * x.dims()[1]));
    return offsets;
  }
  return SequenceOffsets(op, "X", x, 1);
}

template <typename T>
struct RowConvKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* filter = ctx.Input("Filter");
    CheckFilter(ctx.Type(), x->dims(), filter->dims());
    const std::vector<size_t> seq = Sequences(ctx.Type(), *x);
    const int64_t d = x->dims()[x->dims().size() - 1], k = filter->dims()[0];
    DenseTensor out(x->dims(), x->dtype());
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out.numel(), T(0));
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* w = filter->numel() > 0 ? filter->data<T>() : nullptr;
    for (size_t s = 0; s + 1 < seq.size(); ++s) {
      const int64_t begin = static_cast<int64_t>(seq[s]), end = static_cast<int64_t>(seq[s + 1]);
      for (int64_t t = begin; t < end; ++t) {
        for (int64_t i = 0; i < k && t + i < end; ++i) {
          for (int64_t j = 0; j < d; ++j) o[t * d + j] += in[(t + i) * d + j] * w[i * d + j];
        }
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void RowConvGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Filter", "Out@GRAD"}) ctx->RequireInput(slot);
  if (ctx->HasOutput("X@GRAD")) {
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
    ctx->ShareLoD("X", "X@GRAD");
  }
  if (ctx->HasOutput("Filter@GRAD")) ctx->SetOutputDim("Filter@GRAD", ctx->GetInputDim("Filter"));
}

template <typename T>
struct RowConvGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckFilter(ctx.Type(), x->dims(), filter->dims());
    PL_ENFORCE(dout->dims() == x->dims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected X's shape %s, "
                                       "received %s",
                                       ctx.Type(), x->dims().ToString(), dout->dims().ToString()));
    const std::vector<size_t> seq = Sequences(ctx.Type(), *x);
    const int64_t d = x->dims()[x->dims().size() - 1], k = filter->dims()[0];
    DenseTensor dx(x->dims(), x->dtype()), dw(filter->dims(), filter->dtype());
    dx.set_lod(x->lod());
    T* gx = dx.mutable_data<T>(ctx.GetPlace());
    T* gw = dw.mutable_data<T>(ctx.GetPlace());
    std::fill(gx, gx + dx.numel(), T(0));
    std::fill(gw, gw + dw.numel(), T(0));
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* w = filter->numel() > 0 ? filter->data<T>() : nullptr;
    const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
    for (size_t s = 0; s + 1 < seq.size(); ++s) {
      const int64_t begin = static_cast<int64_t>(seq[s]), end = static_cast<int64_t>(seq[s + 1]);
      for (int64_t t = begin; t < end; ++t) {
        for (int64_t i = 0; i < k && t + i < end; ++i) {
          for (int64_t j = 0; j < d; ++j) {
            gx[(t + i) * d + j] += g[t * d + j] * w[i * d + j];
            gw[i * d + j] += g[t * d + j] * in[(t + i) * d + j];
          }
        }
      }
    }
    if (DenseTensor* o = ctx.Output("X@GRAD")) *o = std::move(dx);
    if (DenseTensor* o = ctx.Output("Filter@GRAD")) *o = std::move(dw);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRowConvOp) {
  const framework::FusedGradDecl grad{
      {"X", "Filter"},
      {"Out"},
      {"X", "Filter"},
      R"DOC($$dX[t] = \sum_i dOut[t - i] Filter[i], \quad dFilter[i] = \sum_t dOut[t] X[t + i]$$)DOC"};
  framework::RegisterOp<RowConvOp, RowConvOpMaker>(kOp)
      .InferShape(RowConvInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<RowConvKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(RowConvGradInferShape);
  RegisterPlainCpuFloatKernels<RowConvGradKernel>("row_conv_grad");
}

}  // namespace operators
}  // namespace paddle_like
