// sequence_pad (a LoD tensor to a padded batch and its lengths) and sequence_unpad (back),
// each with a fused backward that is the other's move of the rows.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

class SequencePadOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "LoD tensor [T, ...] (rank >= 2, one LoD level): the sequences' steps.");
    AddInput("PadValue",
             "X's type: one value ([1] or []) or one step ([...], X's dims after "
             "the first).");
    AddOutput("Out", "[N, padded_length, ...]: sequence i in row i, padded after its end.");
    AddOutput("Length", "int64 [N]: each sequence's length.");
    AddAttr<int>("padded_length", "Steps per row; -1: the longest sequence's length.")
        .SetDefault(-1);
    AddComment(R"DOC(
Sequence padding: with sequence i made of the rows s_i .. s_{i+1} - 1 of X (its LoD) and
L_i = s_{i+1} - s_i,
$$Out[i, t] = \begin{cases} X[s_i + t] & t < L_i \\ PadValue & \text{otherwise} \end{cases},
\qquad Length_i = L_i$$
padded_length must be at least max L_i. Example: X = [[1], [2], [3]], LoD [[0, 2, 3]],
PadValue 0 -> Out = [[[1], [2]], [[3], [0]]], Length = [2, 1].

Gradient, by the fused op sequence_pad_grad: dX[s_i + t] = dOut[i, t] for t < L_i.
)DOC");
  }
};

class SequenceUnpadOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, L, ...]: a padded batch (rank >= 2).");
    AddInput("Length", "int32/int64 [N]: the steps of each row to keep, each in [0, L].");
    AddOutput("Out",
              "[sum(Length), ...] ([sum(Length), 1] for a rank-2 X), with the LoD of "
              "the lengths.");
    AddComment(R"DOC(
Sequence unpadding: the first Length_i steps of each row, one after the other,
$$Out[s_i + t] = X[i, t], \quad 0 \le t < Length_i, \quad s_i = \sum_{j<i} Length_j$$
with LoD [[s_0, ..., s_N]]. Example: X = [[1, 2], [3, 0]], Length = [2, 1] ->
Out = [[1], [2], [3]], LoD [[0, 2, 3]].

Gradient, by the fused op sequence_unpad_grad: dX[i, t] = dOut[s_i + t] for t < Length_i,
0 for the padding.
)DOC");
  }
};

class SequencePadOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

std::vector<int64_t> StepDims(const DDim& x) {
  const std::vector<int64_t> d = x.ToVector();
  return std::vector<int64_t>(d.begin() + 1, d.end());
}

void SequencePadInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("PadValue");
  ctx->RequireOutput("Out");
  ctx->RequireOutput("Length");
  const DDim x = ctx->GetInputDim("X");
  CheckMinRank(ctx->OpType(), "X", x, 2);
  if (ctx->IsRuntime()) return;  // The sequences' count and lengths come from the LoD.
  const int padded = ctx->Attr<int>("padded_length");
  std::vector<int64_t> out = {-1, padded < 0 ? -1 : padded};
  for (int64_t d : StepDims(x)) out.push_back(d);
  ctx->SetOutputDim("Out", DDim(out));
  ctx->SetOutputDim("Length", DDim{-1});
}

void SequencePadInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  ctx->SetOutputDataType("Length", DataType::INT64);
}

// The padded length: the attribute, checked against the longest sequence, or that length.
int64_t PaddedLength(const ExecutionContext& ctx, const std::vector<size_t>& lod) {
  int64_t longest = 0;
  for (size_t i = 0; i + 1 < lod.size(); ++i) {
    longest = std::max(longest, static_cast<int64_t>(lod[i + 1] - lod[i]));
  }
  const int padded = ctx.Attr<int>("padded_length");
  if (padded < 0) return longest;
  PL_ENFORCE(padded >= longest,
             errors::InvalidArgument("op `%s` attribute `padded_length`: %d is shorter than the "
                                     "longest sequence of X (%lld steps)",
                                     ctx.Type(), padded, static_cast<long long>(longest)));
  return padded;
}

template <typename T>
struct SequencePadKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* pad = ctx.Input("PadValue");
    CheckMinRank(ctx.Type(), "X", x->dims(), 2);
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, 1);
    const int64_t n = static_cast<int64_t>(lod.size()) - 1;
    const int64_t width = RowWidth(x->dims());
    const std::vector<int64_t> step = StepDims(x->dims());
    PL_ENFORCE(pad->numel() == 1 || pad->dims() == DDim(step),
               errors::InvalidArgument("op `%s` input `PadValue`: expected one value or a step "
                                       "of shape %s, received %s",
                                       ctx.Type(), DDim(step).ToString(), pad->dims().ToString()));
    const int64_t padded = PaddedLength(ctx, lod);
    std::vector<int64_t> out_dims = {n, padded};
    out_dims.insert(out_dims.end(), step.begin(), step.end());
    CheckShapeValues(ctx.Type(), "output `Out`", out_dims, false);
    DenseTensor out(DDim(out_dims), x->dtype());
    DenseTensor length(DDim{n}, DataType::INT64);
    T* o = out.mutable_data<T>(ctx.GetPlace());
    int64_t* len = length.mutable_data<int64_t>(ctx.GetPlace());
    const T* in = x->data<T>();
    const T* p = pad->data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t l = static_cast<int64_t>(lod[i + 1] - lod[i]);
      len[i] = l;
      T* row = o + i * padded * width;
      if (l > 0) std::memcpy(row, in + lod[i] * width, sizeof(T) * l * width);
      for (int64_t t = l; t < padded; ++t) {
        for (int64_t k = 0; k < width; ++k) row[t * width + k] = p[pad->numel() == 1 ? 0 : k];
      }
    }
    *ctx.Output("Out") = std::move(out);
    *ctx.Output("Length") = std::move(length);
  }
};

void SequencePadGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "X@GRAD");
}

template <typename T>
struct SequencePadGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, 1);
    const int64_t n = static_cast<int64_t>(lod.size()) - 1;
    const int64_t width = RowWidth(x->dims());
    const int64_t padded = dout->dims().size() >= 2 ? dout->dims()[1] : -1;
    std::vector<int64_t> want = {n, padded};
    for (int64_t d : StepDims(x->dims())) want.push_back(d);
    PL_ENFORCE(dout->dims() == DDim(want) && padded >= PaddedLength(ctx, lod),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape [%lld, L >= the "
                                       "longest sequence, ...] for X %s, received %s",
                                       ctx.Type(), static_cast<long long>(n), x->dims().ToString(),
                                       dout->dims().ToString()));
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    const T* d = dout->data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t l = static_cast<int64_t>(lod[i + 1] - lod[i]);
      if (l > 0) std::memcpy(g + lod[i] * width, d + i * padded * width, sizeof(T) * l * width);
    }
    dx.set_lod(x->lod());
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// ---- sequence_unpad ----

// The lengths, each checked to lie in [0, steps].
std::vector<int64_t> UnpadLengths(const ExecutionContext& ctx, const DDim& x) {
  const DenseTensor* length = ctx.Input("Length");
  const std::vector<int64_t> len = ReadIntValues(*length, ctx.Type(), "Length");
  PL_ENFORCE(
      length->dims().size() <= 1 && static_cast<int64_t>(len.size()) == x[0],
      errors::InvalidArgument("op `%s` input `Length`: expected %lld values (X's rows), "
                              "received shape %s",
                              ctx.Type(), static_cast<long long>(x[0]), length->dims().ToString()));
  for (size_t i = 0; i < len.size(); ++i) {
    PL_ENFORCE(len[i] >= 0 && len[i] <= x[1],
               errors::InvalidArgument("op `%s` input `Length`: value %lld of row %zu is outside "
                                       "[0, %lld] (X's steps)",
                                       ctx.Type(), static_cast<long long>(len[i]), i,
                                       static_cast<long long>(x[1])));
  }
  return len;
}

DDim UnpadDims(const DDim& x, int64_t rows) {
  std::vector<int64_t> d = {rows};
  if (x.size() == 2) d.push_back(1);
  for (int i = 2; i < x.size(); ++i) d.push_back(x[i]);
  return DDim(d);
}

void SequenceUnpadInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Length");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckMinRank(ctx->OpType(), "X", x, 2);
  if (!ctx->IsRuntime()) ctx->SetOutputDim("Out", UnpadDims(x, -1));
}

template <typename T>
struct SequenceUnpadKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckMinRank(ctx.Type(), "X", x->dims(), 2);
    const std::vector<int64_t> len = UnpadLengths(ctx, x->dims());
    std::vector<size_t> offsets(1, 0);
    for (int64_t l : len) offsets.push_back(offsets.back() + static_cast<size_t>(l));
    const int64_t steps = x->dims()[1];
    const int64_t width = x->dims()[0] * steps == 0 ? 0 : x->numel() / (x->dims()[0] * steps);
    DenseTensor out(UnpadDims(x->dims(), static_cast<int64_t>(offsets.back())), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (size_t i = 0; i < len.size(); ++i) {
      if (len[i] > 0) {
        std::memcpy(o + offsets[i] * width, in + i * steps * width, sizeof(T) * len[i] * width);
      }
    }
    out.set_lod({offsets});
    *ctx.Output("Out") = std::move(out);
  }
};

void SequenceUnpadGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct SequenceUnpadGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const std::vector<int64_t> len = UnpadLengths(ctx, x->dims());
    int64_t total = 0;
    for (int64_t l : len) total += l;
    PL_ENFORCE(dout->dims() == UnpadDims(x->dims(), total),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), UnpadDims(x->dims(), total).ToString(),
                                       dout->dims().ToString()));
    const int64_t steps = x->dims()[1];
    const int64_t width = x->dims()[0] * steps == 0 ? 0 : x->numel() / (x->dims()[0] * steps);
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(g, 0, sizeof(T) * dx.numel());
    const T* d = dout->data<T>();
    int64_t at = 0;
    for (size_t i = 0; i < len.size(); ++i) {
      if (len[i] > 0)
        std::memcpy(g + i * steps * width, d + at * width, sizeof(T) * len[i] * width);
      at += len[i];
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequencePadOps) {
  const framework::FusedGradDecl pad_grad{
      {"X"}, {"Out"}, {"X"}, R"DOC($$dX[s_i + t] = dOut[i, t], \quad t < L_i$$)DOC"};
  framework::RegisterOp<SequencePadOp, SequencePadOpMaker>("sequence_pad")
      .InferShape(SequencePadInferShape)
      .InferVarType(SequencePadInferVarType)
      .GradOpMaker(framework::FusedGradMaker(pad_grad));
  RegisterPlainCpuNumericKernels<SequencePadKernel>("sequence_pad");
  framework::RegisterFusedGradOp("sequence_pad", pad_grad).InferShape(SequencePadGradInferShape);
  RegisterPlainCpuFloatKernels<SequencePadGradKernel>("sequence_pad_grad");

  const framework::FusedGradDecl unpad_grad{
      {"X", "Length"},
      {"Out"},
      {"X"},
      R"DOC($$dX[i, t] = dOut[s_i + t] \text{ for } t < Length_i, \text{ else } 0$$)DOC"};
  framework::RegisterOp<SequencePadOp, SequenceUnpadOpMaker>("sequence_unpad")
      .InferShape(SequenceUnpadInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(unpad_grad));
  RegisterPlainCpuNumericKernels<SequenceUnpadKernel>("sequence_unpad");
  framework::RegisterFusedGradOp("sequence_unpad", unpad_grad)
      .InferShape(SequenceUnpadGradInferShape);
  RegisterPlainCpuFloatKernels<SequenceUnpadGradKernel>("sequence_unpad_grad");
}

}  // namespace operators
}  // namespace paddle_like
