// viterbi_decode: the best tag path of a linear-chain CRF for each sequence of a padded batch
// (paddle.text.viterbi_decode, the decoder of PaddleNLP's lexical analysis and NER models).
// crf_decoding is the LoD form of the same search.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "viterbi_decode";

class ViterbiDecodeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Emission scores (potentials) [B, L, N] over N tags.");
    AddInput("Transition", "[N, N]: Transition[i, j] scores tag i followed by tag j.");
    AddInput("Length", "int32 or int64 [B]: each sequence's length, in [0, L].");
    AddOutput("Scores", "[B]: the score of each best path, in Input's type.");
    AddOutput("Path", "int64 [B, max(Length)]: the best tags, 0 past a sequence's end.");
    AddAttr<bool>("include_bos_eos_tag",
                  "Whether tag N-1 is the start tag and N-2 the stop tag: row N-1 of Transition "
                  "scores the first tag, row N-2 is added after the last.")
        .SetDefault(true);
    AddComment(R"DOC(
Viterbi decoding. For sequence b of length n, with emissions x_t and the recursion
$$\alpha_0 = x_0 + s, \qquad \alpha_t(j) = \max_i \left(\alpha_{t-1}(i) + Transition_{ij}\right)
+ x_t(j), \quad 0 < t < n,$$
where s = Transition[N-1, :] with include_bos_eos_tag and 0 without, and e = Transition[N-2, :]
(or 0) is added to alpha_{n-1}: Scores_b = max_j alpha_{n-1}(j), Path_b[n-1] its argmax and
Path_b[t] the i that gave alpha_{t+1}(Path_b[t+1]). Ties go to the lowest tag. Path_b[t] = 0
for t >= n; a sequence of length 0 scores max_j (x_0(j) + s(j)) and has an all-zero path.
Example without start and stop tags: x = [[1, 0], [0, 2]], Transition = [[0, 0], [0, 0]],
n = 2 -> Scores 3, Path [0, 1].
)DOC");
  }
};

class ViterbiDecodeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
};

void ViterbiDecodeInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Input", "Transition", "Length"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Scores");
  ctx->RequireOutput("Path");
  const DDim x = ctx->GetInputDim("Input");
  const DDim trans = ctx->GetInputDim("Transition");
  const DDim len = ctx->GetInputDim("Length");
  PL_ENFORCE(x.size() == 3, errors::InvalidArgument("op `%s` input `Input`: expected rank 3 [B, "
                                                    "L, N], received %s",
                                                    kOp, x.ToString()));
  const int64_t n = x[2];
  const bool trans_ok = trans.size() == 2 && (n < 0 || trans[0] < 0 || trans[0] == n) &&
                        (n < 0 || trans[1] < 0 || trans[1] == n);
  PL_ENFORCE(trans_ok,
             errors::InvalidArgument("op `%s` input `Transition`: expected [%lld, "
                                     "%lld] for Input %s, received %s",
                                     kOp, static_cast<long long>(n), static_cast<long long>(n),
                                     x.ToString(), trans.ToString()));
  PL_ENFORCE(len.size() == 1 && (x[0] < 0 || len[0] < 0 || len[0] == x[0]),
             errors::InvalidArgument("op `%s` input `Length`: expected shape [%lld] (Input's "
                                     "batch), received %s",
                                     kOp, static_cast<long long>(x[0]), len.ToString()));
  ctx->SetOutputDim("Scores", DDim{x[0]});
  if (!ctx->IsRuntime()) ctx->SetOutputDim("Path", DDim{x[0], -1});  // The kernel sizes Path.
}

void ViterbiDecodeInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Scores", ctx->GetInputDataType("Input"));
  ctx->SetOutputDataType("Path", DataType::INT64);
}

template <typename T>
struct ViterbiDecodeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* transition = ctx.Input("Transition");
    const bool bos_eos = ctx.Attr<bool>("include_bos_eos_tag");
    const int64_t batch = input->dims()[0], steps = input->dims()[1], tags = input->dims()[2];
    PL_ENFORCE(
        transition->dims() == DDim({tags, tags}),
        errors::InvalidArgument("op `%s` input `Transition`: expected [%lld, %lld], "
                                "received %s",
                                kOp, static_cast<long long>(tags), static_cast<long long>(tags),
                                transition->dims().ToString()));
    PL_ENFORCE(!bos_eos || tags >= 2,
               errors::InvalidArgument("op `%s` attribute `include_bos_eos_tag`: needs at least "
                                       "2 tags (start and stop), Input has %lld",
                                       kOp, static_cast<long long>(tags)));
    const std::vector<int64_t> lengths = ReadIntValues(*ctx.Input("Length"), kOp, "Length");
    PL_ENFORCE(static_cast<int64_t>(lengths.size()) == batch,
               errors::InvalidArgument("op `%s` input `Length`: expected %lld values (Input's "
                                       "batch), received %zu",
                                       kOp, static_cast<long long>(batch), lengths.size()));
    int64_t max_len = 0;
    for (size_t b = 0; b < lengths.size(); ++b) {
      PL_ENFORCE(lengths[b] >= 0 && lengths[b] <= steps,
                 errors::InvalidArgument("op `%s` input `Length`: value %lld of sequence %zu is "
                                         "outside [0, %lld] (Input's steps)",
                                         kOp, static_cast<long long>(lengths[b]), b,
                                         static_cast<long long>(steps)));
      max_len = std::max(max_len, lengths[b]);
    }
    PL_ENFORCE(tags > 0 || batch == 0,
               errors::InvalidArgument("op `%s` input `Input`: expected at least one tag, "
                                       "received %s",
                                       kOp, input->dims().ToString()));
    PL_ENFORCE(steps > 0 || batch == 0,
               errors::InvalidArgument("op `%s` input `Input`: expected at least one step, "
                                       "received %s",
                                       kOp, input->dims().ToString()));
    DenseTensor scores(DDim{batch}, input->dtype());
    DenseTensor path(DDim{batch, max_len}, DataType::INT64);
    T* score = scores.mutable_data<T>(ctx.GetPlace());
    int64_t* best = path.mutable_data<int64_t>(ctx.GetPlace());
    const T* x = input->data<T>();
    const T* trans = transition->data<T>();
    const T* start = bos_eos ? trans + (tags - 1) * tags : nullptr;
    const T* stop = bos_eos ? trans + (tags - 2) * tags : nullptr;
    std::vector<T> alpha(tags), next(tags);
    // history[t - 1][j]: the tag before tag j at step t.
    std::vector<int64_t> history(static_cast<size_t>(std::max<int64_t>(max_len - 1, 0) * tags));
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t n = lengths[b];
      const T* xb = x + b * steps * tags;
      for (int64_t j = 0; j < tags; ++j) {
        alpha[j] = xb[j] + (start ? start[j] : T(0)) + (stop && n == 1 ? stop[j] : T(0));
      }
      for (int64_t t = 1; t < n; ++t) {
        for (int64_t j = 0; j < tags; ++j) {
          int64_t arg = 0;
          T top = alpha[0] + trans[j];
          for (int64_t i = 1; i < tags; ++i) {
            const T v = alpha[i] + trans[i * tags + j];
            if (v > top) {
              top = v;
              arg = i;
            }
          }
          next[j] = top + xb[t * tags + j] + (stop && t == n - 1 ? stop[j] : T(0));
          history[(t - 1) * tags + j] = arg;
        }
        alpha.swap(next);
      }
      const int64_t last = std::max_element(alpha.begin(), alpha.end()) - alpha.begin();
      score[b] = alpha[last];
      int64_t* row = best + b * max_len;
      std::fill(row, row + max_len, int64_t{0});
      if (n == 0) continue;
      row[n - 1] = last;
      for (int64_t t = n - 2; t >= 0; --t) row[t] = history[t * tags + row[t + 1]];
    }
    *ctx.Output("Scores") = std::move(scores);
    *ctx.Output("Path") = std::move(path);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterViterbiDecodeOp) {
  framework::RegisterOp<ViterbiDecodeOp, ViterbiDecodeOpMaker>(kOp)
      .InferShape(ViterbiDecodeInferShape)
      .InferVarType(ViterbiDecodeInferVarType);
  RegisterPlainCpuFloatKernels<ViterbiDecodeKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
