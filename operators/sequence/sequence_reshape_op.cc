// sequence_reshape: a LoD tensor's rows re-cut to a new width, each sequence keeping its
// elements (its row count scaled), and its fused backward.
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_reshape";

class SequenceReshapeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "LoD tensor [T, D] (one level).");
    AddOutput("Out",
              "[T D / new_dim, new_dim], sequence i of L_i rows becoming L_i D / new_dim "
              "rows.");
    AddAttr<int>("new_dim", "The new row width (> 0); every sequence's L_i D must divide by it.")
        .GreaterThan(0);
    AddComment(R"DOC(
Sequence reshape: the same elements in the same order, rows of new_dim elements; the LoD
offsets become
$$s'_i = s_i \, D / new\_dim$$
Example: X = [[1, 2], [3, 4], [5, 6]], LoD [[0, 2, 3]], new_dim 4 is refused (sequence 1
has 2 elements); new_dim 1 gives Out = [[1], ..., [6]], LoD [[0, 4, 6]].

Gradient, by the fused op sequence_reshape_grad: dX is dOut read as [T, D].
)DOC");
  }
};

class SequenceReshapeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void SequenceReshapeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() == 2, errors::InvalidArgument("op `%s` input `X`: expected rank 2 [T, D], "
                                                    "received %s",
                                                    ctx->OpType(), x.ToString()));
  if (!ctx->IsRuntime()) ctx->SetOutputDim("Out", DDim{-1, ctx->Attr<int>("new_dim")});
}

// Out's LoD, each sequence checked to fill whole rows of the new width.
std::vector<size_t> NewOffsets(const DenseTensor& x, int64_t new_dim) {
  const std::vector<size_t>& lod = SequenceOffsets(kOp, "X", x, 1);
  const int64_t d = x.dims()[1];
  std::vector<size_t> out(1, 0);
  for (size_t i = 0; i + 1 < lod.size(); ++i) {
    const int64_t elements = static_cast<int64_t>(lod[i + 1] - lod[i]) * d;
    PL_ENFORCE(elements % new_dim == 0,
               errors::InvalidArgument("op `%s` attribute `new_dim`: %lld does not divide the %lld "
                                       "elements of sequence %zu (X %s, LoD %s)",
                                       kOp, static_cast<long long>(new_dim),
                                       static_cast<long long>(elements), i, x.dims().ToString(),
                                       framework::LoDToString(x.lod())));
    out.push_back(out.back() + static_cast<size_t>(elements / new_dim));
  }
  return out;
}

template <typename T>
struct SequenceReshapeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    PL_ENFORCE(x->dims().size() == 2,
               errors::InvalidArgument("op `%s` input `X`: expected rank 2 [T, D], received %s",
                                       kOp, x->dims().ToString()));
    const int64_t new_dim = ctx.Attr<int>("new_dim");
    const std::vector<size_t> offsets = NewOffsets(*x, new_dim);
    DenseTensor out(DDim{static_cast<int64_t>(offsets.back()), new_dim}, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (out.numel() > 0) std::memcpy(o, x->data<T>(), sizeof(T) * out.numel());
    out.set_lod({offsets});
    *ctx.Output("Out") = std::move(out);
  }
};

void SequenceReshapeGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "X@GRAD");
}

template <typename T>
struct SequenceReshapeGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    PL_ENFORCE(dout->numel() == x->numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld elements (X's), "
                                       "received shape %s",
                                       ctx.Type(), static_cast<long long>(x->numel()),
                                       dout->dims().ToString()));
    *ctx.Output("X@GRAD") = ElementsAs<T>(*dout, *x, ctx.GetPlace());
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequenceReshapeOp) {
  const framework::FusedGradDecl grad{
      {"X"}, {"Out"}, {"X"}, R"DOC($$dX = dOut$$ read as X's [T, D], with X's LoD.)DOC"};
  framework::RegisterOp<SequenceReshapeOp, SequenceReshapeOpMaker>(kOp)
      .InferShape(SequenceReshapeInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<SequenceReshapeKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(SequenceReshapeGradInferShape);
  RegisterPlainCpuFloatKernels<SequenceReshapeGradKernel>("sequence_reshape_grad");
}

}  // namespace operators
}  // namespace paddle_like
