// sequence_slice: a window of every sequence of a LoD tensor (its own offset and length), and
// its fused backward.
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_slice";

class SequenceSliceOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "LoD tensor [T, ...] of N sequences (one level).");
    AddInput("Offset", "int32/int64 [N, 1] (or [N]): where each window starts in its sequence.");
    AddInput("Length", "int32/int64 [N, 1] (or [N]): each window's rows.");
    AddOutput("Out", "The windows, one sequence each: [sum(Length), ...].");
    AddComment(R"DOC(
Sequence slice: with s_i the offsets of X's LoD,
$$Out_i = X[s_i + Offset_i : s_i + Offset_i + Length_i]$$
each window lying inside its sequence. Example: X = [[1], [2], [3], [4], [5]], LoD
[[0, 3, 5]], Offset [[1], [0]], Length [[2], [1]] -> Out = [[2], [3], [4]], LoD [[0, 2, 3]].

Gradient, by the fused op sequence_slice_grad: dX is dOut at the windows and 0 elsewhere.
)DOC");
  }
};

class SequenceSliceOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void SequenceSliceInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Offset", "Length"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckMinRank(ctx->OpType(), "X", x, 1);
  if (ctx->IsRuntime()) return;  // The rows come from Length's values.
  std::vector<int64_t> out = x.ToVector();
  out[0] = -1;
  ctx->SetOutputDim("Out", DDim(out));
}

// The first row in X of each window and the windows' LoD, checked against X's sequences.
struct Windows {
  std::vector<int64_t> first;
  std::vector<size_t> offsets;
};

Windows ResolveWindows(const ExecutionContext& ctx, const DenseTensor& x) {
  const std::vector<size_t>& lod = SequenceOffsets(kOp, "X", x, 1);
  const size_t n = lod.size() - 1;
  const std::vector<int64_t> offset = ReadIntValues(*ctx.Input("Offset"), kOp, "Offset");
  const std::vector<int64_t> length = ReadIntValues(*ctx.Input("Length"), kOp, "Length");
  PL_ENFORCE(offset.size() == n && length.size() == n,
             errors::InvalidArgument("op `%s` inputs `Offset` and `Length`: expected %zu values "
                                     "each (X's sequences), received %zu and %zu",
                                     kOp, n, offset.size(), length.size()));
  Windows w;
  w.offsets.push_back(0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t len = static_cast<int64_t>(lod[i + 1] - lod[i]);
    PL_ENFORCE(offset[i] >= 0 && length[i] >= 0 && offset[i] <= len && length[i] <= len - offset[i],
               errors::InvalidArgument(
                   "op `%s` inputs `Offset` and `Length`: window [%lld, %lld + "
                   "%lld) of sequence %zu is outside its %lld rows",
                   kOp, static_cast<long long>(offset[i]), static_cast<long long>(offset[i]),
                   static_cast<long long>(length[i]), i, static_cast<long long>(len)));
    w.first.push_back(static_cast<int64_t>(lod[i]) + offset[i]);
    w.offsets.push_back(w.offsets.back() + static_cast<size_t>(length[i]));
  }
  return w;
}

template <typename T>
struct SequenceSliceKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const Windows w = ResolveWindows(ctx, *x);
    const int64_t width = RowWidth(x->dims());
    std::vector<int64_t> dims = x->dims().ToVector();
    dims[0] = static_cast<int64_t>(w.offsets.back());
    DenseTensor out(DDim(dims), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (size_t i = 0; i < w.first.size(); ++i) {
      const size_t rows = w.offsets[i + 1] - w.offsets[i];
      if (rows > 0)
        std::memcpy(o + w.offsets[i] * width, in + w.first[i] * width, sizeof(T) * rows * width);
    }
    out.set_lod({w.offsets});
    *ctx.Output("Out") = std::move(out);
  }
};

void SequenceSliceGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "X@GRAD");
}

template <typename T>
struct SequenceSliceGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const Windows w = ResolveWindows(ctx, *x);
    std::vector<int64_t> want = x->dims().ToVector();
    want[0] = static_cast<int64_t>(w.offsets.back());
    PL_ENFORCE(dout->dims() == DDim(want),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), DDim(want).ToString(), dout->dims().ToString()));
    const int64_t width = RowWidth(x->dims());
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(g, 0, sizeof(T) * dx.numel());
    const T* d = dout->data<T>();
    for (size_t i = 0; i < w.first.size(); ++i) {
      const size_t rows = w.offsets[i + 1] - w.offsets[i];
      if (rows > 0)
        std::memcpy(g + w.first[i] * width, d + w.offsets[i] * width, sizeof(T) * rows * width);
    }
    dx.set_lod(x->lod());
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequenceSliceOp) {
  const framework::FusedGradDecl grad{
      {"X", "Offset", "Length"},
      {"Out"},
      {"X"},
      R"DOC($$dX[s_i + Offset_i + t] = dOut_i[t], \quad t < Length_i; \text{ else } 0$$)DOC"};
  framework::RegisterOp<SequenceSliceOp, SequenceSliceOpMaker>(kOp)
      .InferShape(SequenceSliceInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<SequenceSliceKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(SequenceSliceGradInferShape);
  RegisterPlainCpuFloatKernels<SequenceSliceGradKernel>("sequence_slice_grad");
}

}  // namespace operators
}  // namespace paddle_like
