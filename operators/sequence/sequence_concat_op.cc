// sequence_concat: joins the i-th sequences of several LoD tensors into the i-th sequence of
// the output, and sequence_concat_grad, its fused backward (which splits the gradient back).
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/concat_split_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_concat";
constexpr char kGradOp[] = "sequence_concat_grad";

class SequenceConcatOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Two or more LoD tensors (1-level LoD) of one dtype, with the same number "
                  "of sequences and the same number of elements per row.")
        .AsDuplicable();
    AddOutput("Out", "For each sequence index, the inputs' sequences one after the other; "
                     "shape X[0]'s with dim 0 the total rows; LoD the sums of the inputs'.");
    AddComment(R"DOC(
Sequence concat: with x^k the LoD offsets of input k, sequence i of Out is sequence i of
X_0, then sequence i of X_1, and so on:
$$Out[o_i : o_{i+1}] = [X_0[x^0_i : x^0_{i+1}];\ X_1[x^1_i : x^1_{i+1}];\ \ldots], \quad
o_i = \textstyle\sum_k x^k_i$$
Example: X_0 = [[1], [2], [3]], LoD [[0, 1, 3]]; X_1 = [[4], [5]], LoD [[0, 1, 2]] ->
Out = [[1], [4], [2], [3], [5]], LoD [[0, 2, 5]].

Gradient, by the fused op sequence_concat_grad: each input takes its rows of dOut back.
)DOC");
  }
};

class SequenceConcatGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's inputs (only their dims and LoDs are read).")
        .AsDuplicable()
        .AsNoNeedBuffer();
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradients of the inputs, one per X, with X's shape and LoD.")
        .AsDuplicable();
    AddComment(R"DOC(
Gradient of sequence_concat: the rows of dOut go back to the inputs they came from,
$$dX_k[x^k_i : x^k_{i+1}] = dOut[o_i + \textstyle\sum_{j<k} (x^j_{i+1} - x^j_i) : \ldots]$$
)DOC");
  }
};

class SequenceConcatOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

// Checks the inputs' count, ranks and row widths; returns the output dims (dim 0 -1 when any
// input's is unknown).
DDim ConcatDims(const std::string& op, const std::vector<DDim>& xs) {
  PL_ENFORCE(xs.size() >= 2,
             errors::InvalidArgument("op `%s` input `X`: expected at least 2 tensors, received "
                                     "%zu",
                                     op, xs.size()));
  std::vector<int64_t> out = xs[0].ToVector();
  PL_ENFORCE(!out.empty(), errors::InvalidArgument("op `%s` input `X`: expected rank >= 1, "
                                                   "received a scalar",
                                                   op));
  out[0] = 0;
  auto width_known = [](const DDim& d) {
    for (int i = 1; i < d.size(); ++i) {
      if (d[i] < 0) return false;
    }
    return true;
  };
  for (size_t k = 0; k < xs.size(); ++k) {
    CheckMinRank(op, "X", xs[k], 1);
    const bool same = !width_known(xs[k]) || !width_known(xs[0]) ||
                      RowWidth(xs[k]) == RowWidth(xs[0]);
    PL_ENFORCE(same, errors::InvalidArgument("op `%s` input `X`: tensor %zu has %lld elements "
                                             "per row (shape %s), tensor 0 has %lld (shape %s)",
                                             op, k, static_cast<long long>(RowWidth(xs[k])),
                                             xs[k].ToString(),
                                             static_cast<long long>(RowWidth(xs[0])),
                                             xs[0].ToString()));
    if (out[0] >= 0) out[0] = xs[k][0] < 0 ? -1 : out[0] + xs[k][0];
  }
  return DDim(out);
}

void SequenceConcatInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", ConcatDims(ctx->OpType(), ctx->GetInputsDim("X")));
  if (!ctx->IsRuntime()) ctx->ShareLoD("X", "Out");
}

// The inputs, checked: one dtype, LoDs of 1 level with the same number of sequences.
std::vector<const DenseTensor*> CheckedInputs(const ExecutionContext& ctx) {
  const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
  std::vector<DDim> dims;
  for (const DenseTensor* x : xs) dims.push_back(x->dims());
  ConcatDims(ctx.Type(), dims);
  for (size_t k = 0; k < xs.size(); ++k) {
    const std::string slot = "X[" + std::to_string(k) + "]";
    SequenceOffsets(ctx.Type(), slot, *xs[k], 1);
    PL_ENFORCE(xs[k]->lod()[0].size() == xs[0]->lod()[0].size(),
               errors::InvalidArgument("op `%s` input `%s`: expected %zu sequences (as X[0]), "
                                       "received %zu",
                                       ctx.Type(), slot, xs[0]->lod()[0].size() - 1,
                                       xs[k]->lod()[0].size() - 1));
    PL_ENFORCE(xs[k]->dtype() == xs[0]->dtype(),
               errors::InvalidArgument("op `%s` input `%s`: expected dtype %s (as X[0]), "
                                       "received %s",
                                       ctx.Type(), slot, platform::DataTypeName(xs[0]->dtype()),
                                       platform::DataTypeName(xs[k]->dtype())));
  }
  return xs;
}

template <typename T>
struct SequenceConcatKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = CheckedInputs(ctx);
    const int64_t w = RowWidth(xs[0]->dims());
    const size_t seqs = xs[0]->lod()[0].size() - 1;
    std::vector<size_t> lod(seqs + 1, 0);
    for (const DenseTensor* x : xs) {
      for (size_t i = 0; i <= seqs; ++i) lod[i] += x->lod()[0][i];
    }
    std::vector<int64_t> dims = xs[0]->dims().ToVector();
    dims[0] = static_cast<int64_t>(lod.back());
    DenseTensor out(DDim(dims), xs[0]->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (size_t i = 0; i < seqs; ++i) {
      for (const DenseTensor* x : xs) {
        const std::vector<size_t>& xl = x->lod()[0];
        const int64_t n = static_cast<int64_t>((xl[i + 1] - xl[i]) * w);
        if (n > 0) std::memcpy(o, x->data<T>() + xl[i] * w, sizeof(T) * n);
        o += n;
      }
    }
    out.set_lod({lod});
    *ctx.Output("Out") = std::move(out);
  }
};

// ---- sequence_concat_grad ----

template <typename T>
struct SequenceConcatGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = CheckedInputs(ctx);
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const int64_t w = RowWidth(xs[0]->dims());
    int64_t rows = 0;
    for (const DenseTensor* x : xs) rows += x->dims()[0];
    std::vector<int64_t> want = xs[0]->dims().ToVector();
    want[0] = rows;
    PL_ENFORCE(dout->dims().size() >= 1 && dout->dims()[0] == rows && RowWidth(dout->dims()) == w,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s (Out's), "
                                       "received %s",
                                       ctx.Type(), DDim(want).ToString(), dout->dims().ToString()));
    std::vector<DenseTensor> dxs;
    std::vector<T*> dst;
    for (const DenseTensor* x : xs) {
      dxs.emplace_back(x->dims(), dout->dtype());
      dst.push_back(dxs.back().mutable_data<T>(ctx.GetPlace()));
      dxs.back().set_lod(x->lod());
    }
    const T* d = dout->data<T>();
    const size_t seqs = xs[0]->lod()[0].size() - 1;
    for (size_t i = 0; i < seqs; ++i) {
      for (size_t k = 0; k < xs.size(); ++k) {
        const std::vector<size_t>& xl = xs[k]->lod()[0];
        const int64_t n = static_cast<int64_t>((xl[i + 1] - xl[i]) * w);
        if (n > 0) std::memcpy(dst[k] + xl[i] * w, d, sizeof(T) * n);
        d += n;
      }
    }
    for (size_t k = 0; k < xs.size(); ++k) {
      if (DenseTensor* dx = ctx.Output("X@GRAD", k)) *dx = std::move(dxs[k]);
    }
  }
};

void SequenceConcatGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(kGradOp, {{"X", g->Input("X")}, {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", InputGradsOrTemps(g, "X")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterSequenceConcatOp) {
  framework::RegisterOp<SequenceConcatOp, SequenceConcatOpMaker>(kOp)
      .InferShape(SequenceConcatInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(SequenceConcatGradMaker);
  RegisterPlainCpuNumericKernels<SequenceConcatKernel>(kOp);
  framework::RegisterOp<SequenceConcatOp, SequenceConcatGradOpMaker>(kGradOp)
      .InferShape(InputListGradInferShape)
      .InferVarType(OutputDataTypeOf("Out@GRAD", "X@GRAD"));
  RegisterPlainCpuNumericKernels<SequenceConcatGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like
