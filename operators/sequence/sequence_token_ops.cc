// Token-id ops on LoD sequences: sequence_erase (drop given tokens) and sequence_enumerate
// (each position's window of following tokens, the n-grams of fluid's text models).
#include <algorithm>
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

class SequenceEraseOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Token ids [T, 1] (or [T]) with a LoD.");
    AddOutput("Out", "The tokens not in `tokens`, [T', 1], with X's LoD shrunk to match.");
    AddAttr<std::vector<int>>("tokens", "The token ids to erase.").SetDefault({});
    AddComment(R"DOC(
Sequence erase: every token of X that is in `tokens` is removed, each sequence keeping the
rest in order (the LoD's last level is recounted):
$$Out_i = [x \in X_i : x \notin tokens]$$
Example: X = [[2], [2], [6], [1], [3], [9], [6], [1]], LoD [[0, 3, 8]], tokens [2, 3, 5] ->
Out = [[6], [1], [9], [6], [1]], LoD [[0, 1, 5]].
)DOC");
  }
};

class SequenceEnumerateOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Token ids [T, 1] (or [T]) with a LoD of one level.");
    AddOutput("Out", "[T, win_size] with X's LoD: each position's window.");
    AddAttr<int>("win_size", "Tokens per window (> 0).").GreaterThan(0);
    AddAttr<int>("pad_value", "Fills a window past its sequence's end.").SetDefault(0);
    AddComment(R"DOC(
Sequence enumerate: for position t of a sequence x_0 .. x_{L-1},
$$Out[t, k] = \begin{cases} x_{t+k} & t + k < L \\ pad\_value & \text{otherwise} \end{cases},
\quad 0 \le k < win\_size$$
Example: X = [[1], [2], [3]], one sequence, win_size 2, pad_value 0 ->
Out = [[1, 2], [2, 3], [3, 0]].
)DOC");
  }
};

class TokenOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void CheckTokenColumn(const std::string& op, const DDim& x) {
  PL_ENFORCE(x.size() == 1 || (x.size() == 2 && (x[1] == 1 || x[1] < 0)),
             errors::InvalidArgument("op `%s` input `X`: expected token ids [T, 1] or [T], "
                                     "received %s",
                                     op, x.ToString()));
}

void SequenceEraseInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  CheckTokenColumn(ctx->OpType(), ctx->GetInputDim("X"));
  if (!ctx->IsRuntime()) ctx->SetOutputDim("Out", DDim{-1, 1});
}

template <typename T>
struct SequenceEraseKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckTokenColumn(ctx.Type(), x->dims());
    const std::vector<size_t>& last = SequenceOffsets(ctx.Type(), "X", *x, x->lod().size());
    const std::vector<int>& erase = ctx.Attr<std::vector<int>>("tokens");
    std::vector<T> tokens;
    for (int v : erase) tokens.push_back(static_cast<T>(v));
    const T* in = x->data<T>();
    std::vector<T> kept;
    std::vector<size_t> offsets(1, 0);
    for (size_t i = 0; i + 1 < last.size(); ++i) {
      for (size_t r = last[i]; r < last[i + 1]; ++r) {
        if (std::find(tokens.begin(), tokens.end(), in[r]) == tokens.end()) kept.push_back(in[r]);
      }
      offsets.push_back(kept.size());
    }
    DenseTensor out(DDim{static_cast<int64_t>(kept.size()), 1}, x->dtype());
    std::copy(kept.begin(), kept.end(), out.mutable_data<T>(ctx.GetPlace()));
    framework::LoD lod = x->lod();
    lod.back() = offsets;
    out.set_lod(lod);
    *ctx.Output("Out") = std::move(out);
  }
};

void SequenceEnumerateInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckTokenColumn(ctx->OpType(), x);
  ctx->SetOutputDim("Out", DDim{x[0], ctx->Attr<int>("win_size")});
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct SequenceEnumerateKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckTokenColumn(ctx.Type(), x->dims());
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, 1);
    const int64_t win = ctx.Attr<int>("win_size");
    const T pad = static_cast<T>(ctx.Attr<int>("pad_value"));
    CheckShapeValues(ctx.Type(), "output `Out`", {x->dims()[0], win}, false);
    DenseTensor out(DDim{x->dims()[0], win}, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (size_t i = 0; i + 1 < lod.size(); ++i) {
      for (size_t t = lod[i]; t < lod[i + 1]; ++t) {
        for (int64_t k = 0; k < win; ++k) {
          o[t * win + k] = t + k < lod[i + 1] ? in[t + k] : pad;
        }
      }
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequenceTokenOps) {
  framework::RegisterOp<TokenOp, SequenceEraseOpMaker>("sequence_erase")
      .InferShape(SequenceEraseInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"));
  RegisterPlainCpuNumericKernels<SequenceEraseKernel>("sequence_erase");
  framework::RegisterOp<TokenOp, SequenceEnumerateOpMaker>("sequence_enumerate")
      .InferShape(SequenceEnumerateInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"));
  RegisterPlainCpuNumericKernels<SequenceEnumerateKernel>("sequence_enumerate");
}

}  // namespace operators
}  // namespace paddle_like
