// chunk_eval: precision, recall and F1 of the chunks (named-entity spans) that tagged
// sequences hold, against the labels' chunks, as PaddlePaddle's sequence-labeling models
// evaluate them (LoD tensors, or padded batches with SeqLength).
#include <set>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "chunk_eval";

class ChunkEvalOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Inference",
             "int64 predicted tags: [total, 1] with a level-1 LoD, or [N, max length] (or "
             "[N, max length, 1]) with SeqLength.");
    AddInput("Label", "int64 true tags, laid out as Inference.");
    AddInput("SeqLength", "int64 [N] or [N, 1]: the length of each row of a padded batch.")
        .AsDispensable();
    AddOutput("Precision", "float32 [1]: correct / inferred chunks (0 when none inferred).");
    AddOutput("Recall", "float32 [1]: correct / labeled chunks (0 when none labeled).");
    AddOutput("F1-Score", "float32 [1]: 2 P R / (P + R) (0 when nothing is correct).");
    AddOutput("NumInferChunks", "int64 [1].");
    AddOutput("NumLabelChunks", "int64 [1].");
    AddOutput("NumCorrectChunks", "int64 [1]: inferred chunks equal to a labeled one.");
    AddAttr<int>("num_chunk_types", "The chunk types (entity kinds) C.").GreaterThan(0);
    AddAttr<std::string>("chunk_scheme", "IOB, IOE, IOBES or plain.")
        .SetDefault("IOB")
        .InEnum({"IOB", "IOE", "IOBES", "plain"});
    AddAttr<std::vector<int>>("excluded_chunk_types", "Chunk types left out of every count.")
        .SetDefault(std::vector<int>{});
    AddComment(R"DOC(
Chunk evaluation. A tag t encodes chunk type t / K and position t mod K, with K tag kinds per
scheme (IOB: B I; IOE: I E; IOBES: B I E S; plain: one), and t = C K the outside tag O. A
chunk is a maximal span of one type as the scheme delimits it; an inferred chunk is correct
when a labeled chunk has its begin, end and type.
$$P = \frac{correct}{inferred}, \quad R = \frac{correct}{labeled}, \quad
F_1 = \frac{2 P R}{P + R}$$
Example (IOB, C = 2, O = 4): labels [0 1 4 2 3 3] hold chunks (0-1, type 0) and (3-5, type 1).
)DOC");
  }
};

class ChunkEvalOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return DataType::FLOAT32;
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void ChunkEvalInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Inference");
  ctx->RequireInput("Label");
  const DDim inference = ctx->GetInputDim("Inference"), label = ctx->GetInputDim("Label");
  bool same = inference.size() == label.size();
  for (int i = 0; same && i < inference.size(); ++i) {
    same = inference[i] == label[i] || inference[i] < 0 || label[i] < 0;
  }
  PL_ENFORCE(same, errors::InvalidArgument("op `%s` input `Label`: expected Inference's shape %s, "
                                           "received %s",
                                           kOp, inference.ToString(), label.ToString()));
  for (const char* slot : {"Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks",
                           "NumCorrectChunks"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDim(slot, DDim{1});
  }
}

void ChunkEvalInferVarType(framework::VarTypeInferenceContext* ctx) {
  for (const char* slot : {"Precision", "Recall", "F1-Score"}) {
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, DataType::FLOAT32);
  }
  for (const char* slot : {"NumInferChunks", "NumLabelChunks", "NumCorrectChunks"}) {
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, DataType::INT64);
  }
}

// The scheme's tag positions (-1: the scheme has none).
struct Scheme {
  int kinds, begin, inside, end, single;
};

Scheme SchemeOf(const std::string& name) {
  if (name == "IOB") return {2, 0, 1, -1, -1};
  if (name == "IOE") return {2, -1, 0, 1, -1};
  if (name == "IOBES") return {4, 0, 1, 2, 3};
  return {1, -1, -1, -1, -1};  // plain
}

struct Chunk {
  int64_t begin, end, type;
  bool operator==(const Chunk& o) const {
    return begin == o.begin && end == o.end && type == o.type;
  }
};

class ChunkFinder {
 public:
  ChunkFinder(const Scheme& s, int64_t types) : s_(s), other_(types) {}

  // The chunks of one sequence of tags, each tag checked to lie in [0, types * kinds].
  std::vector<Chunk> Find(const int64_t* tags, int64_t length, const char* slot) const {
    std::vector<Chunk> chunks;
    bool in_chunk = false;
    int64_t start = 0, tag = -1, type = other_;
    for (int64_t i = 0; i < length; ++i) {
      PL_ENFORCE(tags[i] >= 0 && tags[i] <= other_ * s_.kinds,
                 errors::InvalidArgument("op `%s` input `%s`: expected tags in [0, %lld] "
                                         "(num_chunk_types * tag kinds), received %lld",
                                         kOp, slot, static_cast<long long>(other_ * s_.kinds),
                                         static_cast<long long>(tags[i])));
      const int64_t prev_tag = tag, prev_type = type;
      tag = tags[i] % s_.kinds;
      type = tags[i] / s_.kinds;
      if (in_chunk && Ends(prev_tag, prev_type, tag, type)) {
        chunks.push_back({start, i - 1, prev_type});
        in_chunk = false;
      }
      if (Begins(prev_tag, prev_type, tag, type)) {
        start = i;
        in_chunk = true;
      }
    }
    if (in_chunk) chunks.push_back({start, length - 1, type});
    return chunks;
  }

 private:
  // Whether the chunk holding the previous tag ends before this tag.
  bool Ends(int64_t prev_tag, int64_t prev_type, int64_t tag, int64_t type) const {
    if (prev_type == other_) return false;
    if (type == other_ || type != prev_type) return true;
    if (prev_tag == s_.begin || prev_tag == s_.inside) {
      return tag == s_.begin || tag == s_.single;
    }
    return prev_tag == s_.end || prev_tag == s_.single;
  }
  // Whether a chunk begins at this tag.
  bool Begins(int64_t prev_tag, int64_t prev_type, int64_t tag, int64_t type) const {
    if (prev_type == other_) return type != other_;
    if (type == other_) return false;
    if (type != prev_type) return true;
    if (tag == s_.begin || tag == s_.single) return true;
    if (tag == s_.inside || tag == s_.end) return prev_tag == s_.end || prev_tag == s_.single;
    return false;
  }

  Scheme s_;
  int64_t other_;
};

// The sequences of input `slot`: (offset into its values, length) each.
std::vector<std::pair<int64_t, int64_t>> Sequences(const ExecutionContext& ctx, const char* slot,
                                                   const std::vector<int64_t>* lengths) {
  const DenseTensor* t = ctx.Input(slot);
  std::vector<std::pair<int64_t, int64_t>> seqs;
  if (lengths != nullptr) {
    const DDim d = t->dims();
    PL_ENFORCE(d.size() == 2 || (d.size() == 3 && d[2] == 1),
               errors::InvalidArgument("op `%s` input `%s`: expected [N, max length] or [N, max "
                                       "length, 1] with SeqLength, received %s",
                                       kOp, slot, d.ToString()));
    PL_ENFORCE(static_cast<int64_t>(lengths->size()) == d[0],
               errors::InvalidArgument("op `%s` input `SeqLength`: expected %lld lengths (%s' "
                                       "rows), received %zu",
                                       kOp, static_cast<long long>(d[0]), slot, lengths->size()));
    for (int64_t r = 0; r < d[0]; ++r) {
      const int64_t len = (*lengths)[r];
      PL_ENFORCE(len >= 0 && len <= d[1],
                 errors::InvalidArgument("op `%s` input `SeqLength`: length %lld of row %lld is "
                                         "outside [0, %lld]",
                                         kOp, static_cast<long long>(len),
                                         static_cast<long long>(r), static_cast<long long>(d[1])));
      seqs.emplace_back(r * d[1], len);
    }
    return seqs;
  }
  PL_ENFORCE(t->numel() == (t->dims().size() > 0 ? t->dims()[0] : 1),
             errors::InvalidArgument("op `%s` input `%s`: expected [total, 1] with a LoD (or "
                                     "SeqLength for a padded batch), received %s",
                                     kOp, slot, t->dims().ToString()));
  const std::vector<size_t>& lod = SequenceOffsets(kOp, slot, *t, 1);
  for (size_t r = 0; r + 1 < lod.size(); ++r) {
    seqs.emplace_back(static_cast<int64_t>(lod[r]), static_cast<int64_t>(lod[r + 1] - lod[r]));
  }
  return seqs;
}

template <typename T>
struct ChunkEvalKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<int64_t> inference = ReadIntValues(*ctx.Input("Inference"), kOp, "Inference");
    const std::vector<int64_t> label = ReadIntValues(*ctx.Input("Label"), kOp, "Label");
    CheckSameShape(kOp, "Label", ctx.Input("Label")->dims(), "Inference",
                   ctx.Input("Inference")->dims());
    std::vector<int64_t> lengths;
    const bool padded = ctx.HasInput("SeqLength");
    if (padded) lengths = ReadIntValues(*ctx.Input("SeqLength"), kOp, "SeqLength");
    const auto seqs = Sequences(ctx, "Inference", padded ? &lengths : nullptr);
    const auto label_seqs = Sequences(ctx, "Label", padded ? &lengths : nullptr);
    PL_ENFORCE(seqs == label_seqs,
               errors::InvalidArgument("op `%s` input `Label`: expected Inference's sequences "
                                       "(its LoD), received others",
                                       kOp));
    const ChunkFinder finder(SchemeOf(ctx.Attr<std::string>("chunk_scheme")),
                             ctx.Attr<int>("num_chunk_types"));
    const std::vector<int>& excluded_list = ctx.Attr<std::vector<int>>("excluded_chunk_types");
    const std::set<int64_t> excluded(excluded_list.begin(), excluded_list.end());
    int64_t inferred = 0, labeled = 0, correct = 0;
    for (const auto& [offset, length] : seqs) {
      const std::vector<Chunk> out = finder.Find(inference.data() + offset, length, "Inference");
      const std::vector<Chunk> ref = finder.Find(label.data() + offset, length, "Label");
      for (const Chunk& c : out) inferred += excluded.count(c.type) == 0;
      for (const Chunk& c : ref) labeled += excluded.count(c.type) == 0;
      // Both lists run left to right: walk them together by end position.
      for (size_t i = 0, j = 0; i < out.size() && j < ref.size();) {
        if (out[i] == ref[j] && excluded.count(out[i].type) == 0) ++correct;
        if (out[i].end < ref[j].end) {
          ++i;
        } else if (out[i].end > ref[j].end) {
          ++j;
        } else {
          ++i;
          ++j;
        }
      }
    }
    const float precision = inferred ? static_cast<float>(correct) / inferred : 0.0f;
    const float recall = labeled ? static_cast<float>(correct) / labeled : 0.0f;
    const float f1 = correct ? 2 * precision * recall / (precision + recall) : 0.0f;
    const auto emit_float = [&](const char* slot, float v) {
      if (DenseTensor* o = ctx.Output(slot)) {
        DenseTensor t(DDim{1}, DataType::FLOAT32);
        t.mutable_data<float>(ctx.GetPlace())[0] = v;
        *o = std::move(t);
      }
    };
    const auto emit_count = [&](const char* slot, int64_t v) {
      if (DenseTensor* o = ctx.Output(slot)) {
        DenseTensor t(DDim{1}, DataType::INT64);
        t.mutable_data<int64_t>(ctx.GetPlace())[0] = v;
        *o = std::move(t);
      }
    };
    emit_float("Precision", precision);
    emit_float("Recall", recall);
    emit_float("F1-Score", f1);
    emit_count("NumInferChunks", inferred);
    emit_count("NumLabelChunks", labeled);
    emit_count("NumCorrectChunks", correct);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterChunkEvalOp) {
  framework::RegisterOp<ChunkEvalOp, ChunkEvalOpMaker>(kOp)
      .InferShape(ChunkEvalInferShape)
      .InferVarType(ChunkEvalInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<ChunkEvalKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
