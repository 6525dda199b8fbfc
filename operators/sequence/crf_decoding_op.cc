// crf_decoding: Viterbi decoding of a linear-chain CRF (the weights linear_chain_crf learns),
// for LoD sequences or padded batches with lengths. An inference op: it has no gradient.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "crf_decoding";

class CrfDecodingOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Emission", "float32/float64 emission scores: [N, D] with a 1-level LoD, or "
                         "[B, T, D] padded when Length is given (D tags).");
    AddInput("Transition", "[D + 2, D], Emission's dtype: row 0 the start scores, row 1 the end "
                           "scores, rows 2.. the tag-to-tag scores w[2 + from, to].");
    AddInput("Label", "Optional int64 reference tags: [N, 1] or [N] with a 1-level LoD, or "
                      "[B, T] / [B, T, 1] with Length.")
        .AsDispensable();
    AddInput("Length", "Optional int64 [B]: the length of each padded sequence, in [0, T].")
        .AsDispensable();
    AddOutput("ViterbiPath", "int64 [N, 1] with Emission's LoD, or [B, T] (0 beyond each length): "
                             "the best tags, or with Label 1 where they equal it and 0 elsewhere.");
    AddComment(R"DOC(
CRF decoding (Viterbi). For one sequence x of length L with D tags and w = Transition, the
decoded path is
$$y^* = \arg\max_y \Big( w_{0, y_0} + \sum_{k=0}^{L-1} x_{k, y_k}
  + \sum_{k=1}^{L-1} w_{2 + y_{k-1}, y_k} + w_{1, y_{L-1}} \Big)$$
found by dynamic programming; ties go to the lowest tag. Sequences are the LoD's (empty ones
give nothing) or, with Length, the first Length[b] steps of batch row b (the remaining steps
give 0). With Label, each decoded step becomes 1 if it equals the label and 0 otherwise
(padding steps stay 0). Example: D = 2, x = [[1, 0], [0, 1]], all w zero -> path [0, 1].
)DOC");
  }
};

class CrfDecodingOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Emission");
  }
};

void CrfDecodingInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Emission");
  ctx->RequireInput("Transition");
  ctx->RequireOutput("ViterbiPath");
  const std::string& op = ctx->OpType();
  const DDim e = ctx->GetInputDim("Emission");
  const bool padded = ctx->HasInput("Length");
  PL_ENFORCE(e.size() == (padded ? 3 : 2),
             errors::InvalidArgument("op `%s` input `Emission`: expected %s, received shape %s",
                                     op, padded ? "[B, T, D] (Length is given)" : "[N, D]",
                                     e.ToString()));
  const DDim w = ctx->GetInputDim("Transition");
  PL_ENFORCE(w.size() == 2 && (w[0] < 0 || w[1] < 0 || w[0] == w[1] + 2),
             errors::InvalidArgument("op `%s` input `Transition`: expected [D + 2, D], received "
                                     "shape %s",
                                     op, w.ToString()));
  const int64_t d = e[e.size() - 1];
  PL_ENFORCE(d < 0 || w[1] < 0 || d == w[1],
             errors::InvalidArgument("op `%s` input `Transition`: expected [%lld, %lld] for %lld "
                                     "tags (Emission %s), received shape %s",
                                     op, static_cast<long long>(d + 2), static_cast<long long>(d),
                                     static_cast<long long>(d), e.ToString(), w.ToString()));
  if (ctx->HasInput("Label")) {
    const DDim l = ctx->GetInputDim("Label");
    const bool ok = padded ? (l.size() == 2 || (l.size() == 3 && (l[2] == 1 || l[2] < 0)))
                           : (l.size() == 1 || (l.size() == 2 && (l[1] == 1 || l[1] < 0)));
    bool same = true;
    for (int i = 0; ok && i < (padded ? 2 : 1); ++i) {
      same = same && (e[i] < 0 || l[i] < 0 || e[i] == l[i]);
    }
    PL_ENFORCE(ok && same,
               errors::InvalidArgument("op `%s` input `Label`: expected %s for Emission %s, "
                                       "received shape %s",
                                       op, padded ? "[B, T] or [B, T, 1]" : "[N, 1] or [N]",
                                       e.ToString(), l.ToString()));
  }
  if (padded) {
    const DDim len = ctx->GetInputDim("Length");
    PL_ENFORCE(len.size() >= 1 && (len.numel() < 0 || e[0] < 0 || len.numel() == e[0]),
               errors::InvalidArgument("op `%s` input `Length`: expected %lld lengths (one per "
                                       "batch row of Emission %s), received shape %s",
                                       op, static_cast<long long>(e[0]), e.ToString(),
                                       len.ToString()));
    ctx->SetOutputDim("ViterbiPath", DDim{e[0], e[1]});
  } else {
    ctx->SetOutputDim("ViterbiPath", DDim{e[0], 1});
  }
  ctx->ShareLoD("Emission", "ViterbiPath");
}

void CrfDecodingInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("ViterbiPath", DataType::INT64);
}

// An int64 (or int32) tensor's values.
std::vector<int64_t> ReadInts(const std::string& op, const std::string& slot,
                              const DenseTensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == DataType::INT64) {
    if (!v.empty()) std::memcpy(v.data(), t.data<int64_t>(), sizeof(int64_t) * v.size());
    return v;
  }
  PL_ENFORCE(t.dtype() == DataType::INT32,
             errors::InvalidArgument("op `%s` input `%s`: expected int64, received %s", op, slot,
                                     platform::DataTypeName(t.dtype())));
  const int32_t* p = t.data<int32_t>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  return v;
}

// Viterbi path of one sequence x [len, d] (len >= 1) under w [d + 2, d], written to path.
template <typename T>
void Decode(const T* x, int64_t len, int64_t d, const T* w, int64_t* path) {
  std::vector<T> alpha(static_cast<size_t>(len * d));
  std::vector<int64_t> track(static_cast<size_t>(len * d), 0);
  for (int64_t i = 0; i < d; ++i) alpha[i] = w[i] + x[i];
  for (int64_t k = 1; k < len; ++k) {
    for (int64_t i = 0; i < d; ++i) {
      T best = -std::numeric_limits<T>::max();
      int64_t best_j = 0;
      for (int64_t j = 0; j < d; ++j) {
        const T s = alpha[(k - 1) * d + j] + w[(j + 2) * d + i];
        if (s > best) {
          best = s;
          best_j = j;
        }
      }
      alpha[k * d + i] = best + x[k * d + i];
      track[k * d + i] = best_j;
    }
  }
  T best = -std::numeric_limits<T>::max();
  int64_t tag = 0;
  for (int64_t i = 0; i < d; ++i) {
    const T s = alpha[(len - 1) * d + i] + w[d + i];
    if (s > best) {
      best = s;
      tag = i;
    }
  }
  path[len - 1] = tag;
  for (int64_t k = len - 1; k >= 1; --k) path[k - 1] = tag = track[k * d + tag];
}

template <typename T>
struct CrfDecodingKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* e = ctx.Input("Emission");
    const DenseTensor* w = ctx.Input("Transition");
    const DenseTensor* label = ctx.Input("Label");
    const DenseTensor* length = ctx.Input("Length");
    const DDim ed = e->dims();
    const bool padded = length != nullptr;
    PL_ENFORCE(ed.size() == (padded ? 3 : 2),
               errors::InvalidArgument("op `%s` input `Emission`: expected %s, received shape %s",
                                       op, padded ? "[B, T, D] (Length is given)" : "[N, D]",
                                       ed.ToString()));
    const int64_t d = ed[ed.size() - 1];
    PL_ENFORCE(w->dims() == DDim({d + 2, d}),
               errors::InvalidArgument("op `%s` input `Transition`: expected [%lld, %lld] for "
                                       "%lld tags, received shape %s",
                                       op, static_cast<long long>(d + 2), static_cast<long long>(d),
                                       static_cast<long long>(d), w->dims().ToString()));
    PL_ENFORCE(w->dtype() == e->dtype(),
               errors::InvalidArgument("op `%s` input `Transition`: expected Emission's dtype %s, "
                                       "received %s",
                                       op, platform::DataTypeName(e->dtype()),
                                       platform::DataTypeName(w->dtype())));
    const T* x = e->data<T>();
    const T* wt = w->data<T>();
    // (start row, length) of each sequence.
    std::vector<std::pair<int64_t, int64_t>> seqs;
    std::vector<int64_t> lens;
    DDim out_dims;
    if (padded) {
      const int64_t b = ed[0], t = ed[1];
      lens = ReadInts(op, "Length", *length);
      PL_ENFORCE(static_cast<int64_t>(lens.size()) == b,
                 errors::InvalidArgument("op `%s` input `Length`: expected %lld lengths (one per "
                                         "batch row of Emission %s), received shape %s",
                                         op, static_cast<long long>(b), ed.ToString(),
                                         length->dims().ToString()));
      for (int64_t i = 0; i < b; ++i) {
        PL_ENFORCE(lens[i] >= 0 && lens[i] <= t,
                   errors::InvalidArgument("op `%s` input `Length`: length %lld of row %lld is "
                                           "outside [0, %lld] (T of Emission %s)",
                                           op, static_cast<long long>(lens[i]),
                                           static_cast<long long>(i), static_cast<long long>(t),
                                           ed.ToString()));
        seqs.emplace_back(i * t, lens[i]);
      }
      out_dims = DDim{b, t};
    } else {
      const std::vector<size_t>& lod = SequenceOffsets(op, "Emission", *e, 1);
      for (size_t i = 0; i + 1 < lod.size(); ++i) {
        seqs.emplace_back(static_cast<int64_t>(lod[i]), static_cast<int64_t>(lod[i + 1] - lod[i]));
      }
      out_dims = DDim{ed[0], 1};
    }
    DenseTensor out(out_dims, DataType::INT64);
    int64_t* path = out.mutable_data<int64_t>(ctx.GetPlace());
    if (out.numel() > 0) std::memset(path, 0, sizeof(int64_t) * out.numel());
    for (const auto& s : seqs) {
      if (s.second > 0) Decode(x + s.first * d, s.second, d, wt, path + s.first);
    }
    if (label != nullptr) {
      const int64_t want = out.numel();
      PL_ENFORCE(label->numel() == want && label->dims().size() >= 1 &&
                     label->dims()[0] == out_dims[0],
                 errors::InvalidArgument("op `%s` input `Label`: expected %s, received shape %s",
                                         op, padded ? "[B, T] or [B, T, 1]" : "[N, 1] or [N]",
                                         label->dims().ToString()));
      if (!padded) SequenceOffsets(op, "Label", *label, 1);
      const std::vector<int64_t> l = ReadInts(op, "Label", *label);
      for (const auto& s : seqs) {
        for (int64_t k = s.first; k < s.first + s.second; ++k) path[k] = l[k] == path[k] ? 1 : 0;
      }
    }
    out.set_lod(e->lod());
    *ctx.Output("ViterbiPath") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterCrfDecodingOp) {
  framework::RegisterOp<CrfDecodingOp, CrfDecodingOpMaker>(kOp)
      .InferShape(CrfDecodingInferShape)
      .InferVarType(CrfDecodingInferVarType);
  RegisterPlainCpuFloatKernels<CrfDecodingKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
