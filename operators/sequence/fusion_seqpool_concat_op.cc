// fusion_seqpool_concat: sequence_pool (SUM, AVERAGE or SQRT) of each input, concatenated
// along the columns; what PaddlePaddle's seqpool_concat_fuse_pass makes of several
// sequence_pool ops feeding one concat in recommendation models. fusion_seqpool_cvm_concat
// puts cvm between the pools and the concat (seqpool_cvm_concat_fuse_pass). Inference only:
// no gradient.
#include <cmath>
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

class FusionSeqPoolCvmConcatOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X",
             "Inputs [T_i, W_i], W_i >= 2 (show, click, features), each with a level-1 "
             "LoD of the same number of sequences.")
        .AsDuplicable();
    AddInput("CVM", "[N, 2]: the show and click values of cvm's backward (unused here).")
        .AsNoNeedBuffer();
    AddOutput("Out", "[N, sum of W_i] with use_cvm, else [N, sum of (W_i - 2)].");
    AddAttr<std::string>("pooltype", "SUM, AVERAGE or SQRT.")
        .SetDefault("SUM")
        .InEnum({"SUM", "AVERAGE", "SQRT"});
    AddAttr<bool>("use_cvm", "Keep the counts as log features; otherwise drop them.")
        .SetDefault(true);
    AddAttr<int>("axis", "The concatenation axis; only 1 (the columns).").SetDefault(1);
    AddComment(R"DOC(
fusion_seqpool_concat with cvm applied to each pooled row p before the concatenation: with
use_cvm
$$[\log(p_0 + 1), \; \log(p_1 + 1) - \log(p_0 + 1), \; p_2, \ldots]$$
and without it [p_2, ...]. Out's LoD is [0, 1, ..., N].
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
    const bool drop = ctx->Attrs().count("use_cvm") && !ctx->Attr<bool>("use_cvm");
    width = width < 0 || xs[i][1] < 0 ? -1 : width + xs[i][1] - (drop ? 2 : 0);
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

// With cvm: each pooled row's first two values (show and click counts) become
// log(show + 1) and log(click + 1) - log(show + 1) under use_cvm, or are dropped without it.
template <typename T, bool kCvm>
struct FusionSeqPoolConcatKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    const std::string pooltype = ctx.Attr<std::string>("pooltype");
    const bool drop = kCvm && !ctx.Attr<bool>("use_cvm");
    std::vector<const std::vector<size_t>*> offsets;
    int64_t width = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      offsets.push_back(&SequenceOffsets(op, "X", *xs[i], 1));
      PL_ENFORCE(!kCvm || xs[i]->dims()[1] >= 2,
                 errors::InvalidArgument("op `%s` input `X` #%zu: expected at least 2 columns "
                                         "(show, click), received shape %s",
                                         op, i, xs[i]->dims().ToString()));
      width += xs[i]->dims()[1] - (drop ? 2 : 0);
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
        if (kCvm && !drop) {
          const T show = std::log(pooled[0] + T(1));
          pooled[1] = std::log(pooled[1] + T(1)) - show;
          pooled[0] = show;
        }
        std::copy(pooled.begin() + (drop ? 2 : 0), pooled.end(), o + n * width + column);
      }
      column += w - (drop ? 2 : 0);
    }
    std::vector<size_t> rows(seqs + 1);
    for (size_t n = 0; n <= seqs; ++n) rows[n] = n;
    out.set_lod({rows});
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
using PoolConcat = FusionSeqPoolConcatKernel<T, false>;
template <typename T>
using PoolCvmConcat = FusionSeqPoolConcatKernel<T, true>;

}  // namespace

PL_REGISTER_OPS(RegisterFusionSeqPoolConcatOp) {
  framework::RegisterOp<FusionSeqPoolConcatOp, FusionSeqPoolConcatOpMaker>("fusion_seqpool_concat")
      .InferShape(FusionSeqPoolConcatInferShape)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<PoolConcat>("fusion_seqpool_concat");
  framework::RegisterOp<FusionSeqPoolConcatOp, FusionSeqPoolCvmConcatOpMaker>(
      "fusion_seqpool_cvm_concat")
      .InferShape(FusionSeqPoolConcatInferShape)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<PoolCvmConcat>("fusion_seqpool_cvm_concat");
}

}  // namespace operators
}  // namespace paddle_like
