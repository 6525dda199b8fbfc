// fusion_seqpool_concat: sequence_pool (SUM, AVERAGE or SQRT) of each input, concatenated
// along the columns; what PaddlePaddle's seqpool_concat_fuse_pass makes of several
// sequence_pool ops feeding one concat in recommendation models. Inference only: no gradient.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

class FusionSeqPoolConcatOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Inputs [T_i, W_i], each with a level-1 LoD of the same number of sequences.")
        .AsDuplicable();
    AddOutput("Out", "[N, sum of W_i]: row n is the pooled sequence n of every input.");
    AddAttr<std::string>("pooltype", "SUM, AVERAGE or SQRT.")
        .SetDefault("SUM")
        .InEnum({"SUM", "AVERAGE", "SQRT"});
    AddAttr<int>("axis", "The concatenation axis; only 1 (the columns).").SetDefault(1);
    AddComment(R"DOC(
With s_n the row offsets of sequence n of input i (its LoD) and L_n = s_{n+1} - s_n:
$$Out[n, :] = \left[ \frac{1}{c(L_n)} \sum_{r = s_n}^{s_{n+1} - 1} X_i[r, :] \right]_{i}$$
c(L) = 1 (SUM), L (AVERAGE) or sqrt(L) (SQRT); an empty sequence pools to zeros. Out's LoD
is [0, 1, ..., N].
)DOC");
  }
};

void FusionSeqPoolConcatInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  ctx->RequireOutput("Out");
  PL_ENFORCE(ctx->Attr<int>("axis") == 1,
             errors::InvalidArgument("op `%s` attribute `axis`: expected 1, received %d", op,
                                     ctx->Attr<int>("axis")));
  const std::vector<DDim> xs = ctx->GetInputsDim("X");
  PL_ENFORCE(!xs.empty(), errors::NotFound("op `%s` input `X`: expected at least one tensor", op));
  int64_t width = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    PL_ENFORCE(xs[i].size() == 2,
               errors::InvalidArgument("op `%s` input `X` #%zu: expected a [T, W] matrix, "
                                       "received shape %s",
                                       op, i, xs[i].ToString()));
    width = width < 0 || xs[i][1] < 0 ? -1 : width + xs[i][1];
  }
  if (ctx->IsRuntime()) return;  // The number of sequences comes from the LoD: the kernel.
  ctx->SetOutputDim("Out", DDim{-1, width});
}

class FusionSeqPoolConcatOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

template <typename T>
struct FusionSeqPoolConcatKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    const std::string pooltype = ctx.Attr<std::string>("pooltype");
    std::vector<const std::vector<size_t>*> offsets;
    int64_t width = 0;
    for (const DenseTensor* x : xs) {
      offsets.push_back(&SequenceOffsets(op, "X", *x, 1));
      width += x->dims()[1];
    }
    const size_t seqs = offsets[0]->size() - 1;
    for (size_t i = 1; i < xs.size(); ++i) {
      PL_ENFORCE(offsets[i]->size() - 1 == seqs,
                 errors::InvalidArgument("op `%s` input `X` #%zu: expected %zu sequences, as "
                                         "input #0 holds, received %zu",
                                         op, i, seqs, offsets[i]->size() - 1));
    }
    DenseTensor out(DDim{static_cast<int64_t>(seqs), width}, xs[0]->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::vector<T> pooled;
    int64_t column = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const int64_t w = xs[i]->dims()[1];
      pooled.assign(static_cast<size_t>(w), T(0));
      const T* in = xs[i]->data<T>();
      for (size_t n = 0; n < seqs; ++n) {
        const int64_t begin = static_cast<int64_t>((*offsets[i])[n]);
        const int64_t len = static_cast<int64_t>((*offsets[i])[n + 1]) - begin;
        if (len > 0) {
          SumPoolRows(pooltype, in + begin * w, len, w, pooled.data());
        } else {
          pooled.assign(static_cast<size_t>(w), T(0));
        }
        std::copy(pooled.begin(), pooled.end(), o + n * width + column);
      }
      column += w;
    }
    std::vector<size_t> rows(seqs + 1);
    for (size_t n = 0; n <= seqs; ++n) rows[n] = n;
    out.set_lod({rows});
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFusionSeqPoolConcatOp) {
  framework::RegisterOp<FusionSeqPoolConcatOp, FusionSeqPoolConcatOpMaker>("fusion_seqpool_concat")
      .InferShape(FusionSeqPoolConcatInferShape)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<FusionSeqPoolConcatKernel>("fusion_seqpool_concat");
}

}  // namespace operators
}  // namespace paddle_like
