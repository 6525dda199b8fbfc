// sequence_expand_as: row i of X repeated as many times as sequence i of Y has rows, taking
// Y's LoD (fluid's sequence_expand_as); and its fused backward.
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_expand_as";

class SequenceExpandAsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, ...] (rank >= 2): one row per sequence of Y.");
    AddInput("Y", "LoD tensor of N sequences (one level); only its LoD is read.").AsNoNeedBuffer();
    AddOutput("Out", "[T, ...] with Y's LoD, T the rows of Y's sequences together.");
    AddComment(R"DOC(
Sequence expand as: with y the offsets of Y's LoD,
$$Out[y_i + t] = X[i], \quad 0 \le t < y_{i+1} - y_i$$
and Out takes Y's LoD. Example: X = [[a], [b]], Y's LoD [[0, 3, 4]] ->
Out = [[a], [a], [a], [b]].

Gradient, by the fused op sequence_expand_as_grad: dX[i] is the sum of dOut over sequence i.
)DOC");
  }
};

class SequenceExpandAsOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void SequenceExpandAsInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckMinRank(ctx->OpType(), "X", x, 2);
  if (ctx->IsRuntime()) return;  // The rows come from Y's LoD.
  std::vector<int64_t> out = x.ToVector();
  out[0] = -1;
  ctx->SetOutputDim("Out", DDim(out));
}

// Y's offsets, checked to have one sequence per row of X.
const std::vector<size_t>& CheckedOffsets(const ExecutionContext& ctx, const DenseTensor& x) {
  const std::vector<size_t>& y = SequenceOffsets(kOp, "Y", *ctx.Input("Y"), 1);
  PL_ENFORCE(static_cast<int64_t>(y.size()) - 1 == x.dims()[0],
             errors::InvalidArgument("op `%s` input `Y`: expected %lld sequences (X's rows), "
                                     "received LoD %s",
                                     kOp, static_cast<long long>(x.dims()[0]),
                                     framework::LoDToString(ctx.Input("Y")->lod())));
  return y;
}

template <typename T>
struct SequenceExpandAsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckMinRank(kOp, "X", x->dims(), 2);
    const std::vector<size_t>& y = CheckedOffsets(ctx, *x);
    const int64_t width = RowWidth(x->dims());
    std::vector<int64_t> dims = x->dims().ToVector();
    dims[0] = static_cast<int64_t>(y.back());
    DenseTensor out(DDim(dims), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (size_t i = 0; i + 1 < y.size(); ++i) {
      for (size_t r = y[i]; r < y[i + 1]; ++r)
        std::memcpy(o + r * width, in + i * width, sizeof(T) * width);
    }
    out.set_lod(ctx.Input("Y")->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

void SequenceExpandAsGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct SequenceExpandAsGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const std::vector<size_t>& y = CheckedOffsets(ctx, *x);
    std::vector<int64_t> want = x->dims().ToVector();
    want[0] = static_cast<int64_t>(y.back());
    PL_ENFORCE(dout->dims() == DDim(want),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), DDim(want).ToString(), dout->dims().ToString()));
    const int64_t width = RowWidth(x->dims());
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(g, 0, sizeof(T) * dx.numel());
    const T* d = dout->data<T>();
    for (size_t i = 0; i + 1 < y.size(); ++i) {
      for (size_t r = y[i]; r < y[i + 1]; ++r) {
        for (int64_t k = 0; k < width; ++k) g[i * width + k] += d[r * width + k];
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequenceExpandAsOp) {
  const framework::FusedGradDecl grad{
      {"X", "Y"}, {"Out"}, {"X"}, R"DOC($$dX[i] = \sum_{t} dOut[y_i + t]$$)DOC"};
  framework::RegisterOp<SequenceExpandAsOp, SequenceExpandAsOpMaker>(kOp)
      .InferShape(SequenceExpandAsInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<SequenceExpandAsKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(SequenceExpandAsGradInferShape);
  RegisterPlainCpuFloatKernels<SequenceExpandAsGradKernel>("sequence_expand_as_grad");
}

}  // namespace operators
}  // namespace paddle_like
