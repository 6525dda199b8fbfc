// fill_diagonal (X with its diagonal set to a value, as paddle.Tensor.fill_diagonal_) and
// fill_any (X's shape filled with a value, as paddle.Tensor.fill_). Their gradients zero what
// the value replaced.
#include <string>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class FillDiagonalOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "A matrix, or a tensor whose dims are all equal.");
    AddOutput("Out", "X with its diagonal set to `value`.");
    AddAttr<float>("value", "The value written on the diagonal.").SetDefault(0.0f);
    AddAttr<int>("offset", "Which diagonal of a matrix: > 0 above the main one, < 0 below.")
        .SetDefault(0);
    AddAttr<bool>("wrap", "For a tall matrix, start again below each square block.")
        .SetDefault(false);
    AddComment(R"DOC(
Fill diagonal: flat positions p = 0, s, 2s, ... of X with
$$s = \sum_{k} \prod_{j > k} d_j$$
(d = X's dims; for a matrix s = d_1 + 1) get `value` at p + offset when that stays in
the same row. Without wrap the positions stop after the first d_1 * d_1 elements.
Example: zeros [3, 3], value 5 -> [[5, 0, 0], [0, 5, 0], [0, 0, 5]]; offset 1 puts 5 at
[0, 1] and [1, 2].

Gradient, by the fused op fill_diagonal_grad: $$dX = dOut$$ with those positions set to 0.
)DOC");
  }
};

class FillAnyOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Gives the shape and dtype.");
    AddOutput("Out", "X's shape, every element `value`.");
    AddAttr<float>("value", "The value written.").SetDefault(0.0f);
    AddComment(R"DOC(
Fill: $$Out = value$$ everywhere, with X's shape and dtype (integers take the value
truncated). Gradient: $$dX = 0$$
)DOC");
  }
};

class FillOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

// The flat positions fill_diagonal writes, in order: fn(position).
template <typename Fn>
void ForEachDiagonalPosition(const std::string& op, const DDim& dims, int offset, bool wrap,
                             Fn&& fn) {
  PL_ENFORCE(dims.size() >= 2, errors::InvalidArgument("op `%s` input `X`: expected rank >= 2, "
                                                       "received %s",
                                                       op, dims.ToString()));
  if (dims.size() > 2) {
    for (int i = 1; i < dims.size(); ++i) {
      PL_ENFORCE(dims[i] == dims[0], errors::InvalidArgument("op `%s` input `X`: a tensor of "
                                                             "rank > 2 needs equal dims, "
                                                             "received %s",
                                                             op, dims.ToString()));
    }
  }
  int64_t step = 0, block = 1;
  for (int i = dims.size() - 1; i >= 0; --i) {
    step += block;
    block *= dims[i];
  }
  const int64_t cols = dims[1];
  int64_t size = dims.numel();
  // Without wrap the positions stop after d_1 * d_1 elements: a tall matrix's first square
  // block, a cube's first matrix (paddle.Tensor.fill_diagonal_ passes wrap for rank > 2).
  if (!wrap) size = std::min(size, cols * cols);
  for (int64_t p = 0; p < size; p += step) {
    const int64_t col = p % cols + offset;
    if (col >= 0 && col < cols) fn(p + offset);
  }
}

void SameShapeAsX(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct FillDiagonalKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor out;
    CopyTensor(*x, ctx.GetPlace(), &out);
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T value = static_cast<T>(ctx.Attr<float>("value"));
    ForEachDiagonalPosition(ctx.Type(), x->dims(), ctx.Attr<int>("offset"), ctx.Attr<bool>("wrap"),
                            [&](int64_t p) { o[p] = value; });
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct FillDiagonalGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    DenseTensor dx;
    CopyTensor(*dout, ctx.GetPlace(), &dx);
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    ForEachDiagonalPosition(ctx.Type(), dout->dims(), ctx.Attr<int>("offset"),
                            ctx.Attr<bool>("wrap"), [&](int64_t p) { d[p] = T(0); });
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

template <typename T>
struct FillAnyKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor out(x->dims(), x->dtype());
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out.numel(), static_cast<T>(ctx.Attr<float>("value")));
    *ctx.Output("Out") = std::move(out);
  }
};

// dX = 0, as a fill of dOut's shape (differentiable: its own gradient is 0 too).
void FillAnyGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("fill_any", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"value", 0.0f}});
}

}  // namespace

PL_REGISTER_OPS(RegisterFillDiagonalOps) {
  const framework::FusedGradDecl grad{
      {}, {"Out"}, {"X"}, R"DOC($$dX = dOut$$ with the filled positions set to 0)DOC"};
  framework::RegisterOp<FillOp, FillDiagonalOpMaker>("fill_diagonal")
      .InferShape(SameShapeAsX)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<FillDiagonalKernel>("fill_diagonal");
  framework::RegisterFusedGradOp("fill_diagonal", grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("Out@GRAD");
    if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("Out@GRAD"));
  });
  RegisterPlainCpuFloatKernels<FillDiagonalGradKernel>("fill_diagonal_grad");

  framework::RegisterOp<FillOp, FillAnyOpMaker>("fill_any")
      .InferShape(SameShapeAsX)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(FillAnyGradMaker);
  RegisterPlainCpuNumericKernels<FillAnyKernel>("fill_any");
}

}  // namespace operators
}  // namespace paddle_like
