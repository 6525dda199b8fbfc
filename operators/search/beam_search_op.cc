// beam_search and beam_search_decode: the beam search of sequence-to-sequence programs (one
// step inside a while loop, then the backtrace of the steps kept in tensor arrays), with
// PaddlePaddle's two-level LoD conventions: level 0 groups the prefixes (rows) of each source
// sentence, level 1 the candidates each prefix selected.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DenseTensorArray;
using framework::LoD;

constexpr char kSearchOp[] = "beam_search";
constexpr char kDecodeOp[] = "beam_search_decode";

// `lod` with every level's offsets turned into row offsets (PaddlePaddle's ToAbsOffset).
LoD AbsoluteOffsets(LoD lod) {
  for (int level = static_cast<int>(lod.size()) - 2; level >= 0; --level) {
    for (size_t& o : lod[level]) o = lod[level + 1][o];
  }
  return lod;
}

// ---- beam_search ----

class BeamSearchOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("pre_ids", "int64 [rows, 1]: the id each prefix (row) ended with at the last step.");
    AddInput("pre_scores", "[rows, 1]: the accumulated score of each prefix.");
    AddInput("ids",
             "int64 [rows, K]: the candidate ids of each prefix (top-K of the step); absent, "
             "candidate k has id k.")
        .AsDispensable();
    AddInput("scores",
             "[rows, K]: the candidates' scores, with the LoD of the step (level `level` groups "
             "the rows by source sentence).");
    AddOutput("selected_ids", "int64 [N, 1]: the ids kept, with a two-level LoD.");
    AddOutput("selected_scores", "[N, 1]: their accumulated scores, with selected_ids' LoD.");
    AddOutput("parent_idx", "int32 [N]: the row (prefix) each kept id extends.").AsDispensable();
    AddAttr<int>("level", "The LoD level of `scores` that groups rows by source sentence.")
        .SetDefault(0);
    AddAttr<int>("beam_size", "How many candidates each source sentence keeps (> 0).");
    AddAttr<int>("end_id", "The id that ends a sentence.");
    AddAttr<bool>("is_accumulated",
                  "`scores` already hold accumulated scores; else they are probabilities and "
                  "the accumulated score is pre_score + log(score).")
        .SetDefault(true);
    AddComment(R"DOC(
Beam search operator: one step of beam search.

For each source sentence $s$ (rows $r$ of `scores` in its range at LoD level `level`), the
candidates are $(r, ids[r][k], a_{r,k})$ with

$$a_{r,k} = \begin{cases} scores[r][k] & is\_accumulated \\ pre\_scores[r] + \log scores[r][k] & \text{otherwise} \end{cases}$$

except that a finished prefix ($pre\_ids[r] = end\_id$) has the single candidate
$(r, end\_id, pre\_scores[r])$. The beam_size candidates of highest score are kept. Candidates
are taken row by row, in order within a row, into a beam ranked by score, then row (the
higher first), ties in both in the order taken; a candidate tying with the last kept one
takes its place, as in PaddlePaddle. When every kept candidate of a source is an
end_id that extends a finished prefix, the source is done and keeps none. Kept candidates are
written grouped by row, in descending score within a source: level 0 of the output LoD is the
row offsets of the sources, level 1 the range of kept candidates of each row, and parent_idx
the row of each.
)DOC");
  }
};

class BeamSearchOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "scores");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void BeamSearchInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"pre_ids", "pre_scores", "scores"}) ctx->RequireInput(slot);
  ctx->RequireOutput("selected_ids");
  ctx->RequireOutput("selected_scores");
  PL_ENFORCE(ctx->Attr<int>("beam_size") > 0,
             errors::InvalidArgument("op `%s` attribute `beam_size`: expected > 0, received %d",
                                     kSearchOp, ctx->Attr<int>("beam_size")));
  PL_ENFORCE(ctx->Attr<int>("level") >= 0,
             errors::InvalidArgument("op `%s` attribute `level`: expected >= 0, received %d",
                                     kSearchOp, ctx->Attr<int>("level")));
  if (ctx->IsRuntime()) return;  // The kernel sizes the outputs from what it keeps.
  ctx->SetOutputDim("selected_ids", DDim({-1, 1}));
  ctx->SetOutputDim("selected_scores", DDim({-1, 1}));
  if (ctx->HasOutput("parent_idx")) ctx->SetOutputDim("parent_idx", DDim({-1}));
}

void BeamSearchInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("selected_ids", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("selected_ids", DataType::INT64);
  ctx->SetOutputKind("selected_scores", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("selected_scores", ctx->GetInputDataType("scores"));
  if (ctx->HasOutput("parent_idx")) {
    ctx->SetOutputKind("parent_idx", framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType("parent_idx", DataType::INT32);
  }
}

template <typename T>
struct Candidate {
  int64_t row = 0;
  int64_t id = 0;
  T score = 0;
  // Lower score, then lower row: the order PaddlePaddle ranks candidates by.
  bool operator<(const Candidate& o) const {
    return score < o.score || (score == o.score && row < o.row);
  }
};

// Inserts `c` into `beam` (descending, at most `size` entries) after its equals.
template <typename T>
void InsertIntoBeam(std::vector<Candidate<T>>* beam, const Candidate<T>& c, size_t size) {
  if (beam->size() == size) {
    if (c < beam->back()) return;
    beam->pop_back();
  }
  auto pos = std::upper_bound(beam->begin(), beam->end(), c,
                              [](const Candidate<T>& a, const Candidate<T>& b) { return b < a; });
  beam->insert(pos, c);
}

// Requires input `slot` to be a dtype-`dtype` tensor of `rows` elements.
void CheckPerRow(const ExecutionContext& ctx, const char* slot, DataType dtype, int64_t rows) {
  const DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(t->dtype() == dtype && t->numel() == rows,
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected %s with one "
                                     "element per row of `scores` (%lld), received %s of shape %s",
                                     kSearchOp, slot, ctx.InputName(slot),
                                     platform::DataTypeName(dtype), static_cast<long long>(rows),
                                     platform::DataTypeName(t->dtype()), t->dims().ToString()));
}

template <typename T>
struct BeamSearchKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* scores = ctx.Input("scores");
    const int level = ctx.Attr<int>("level");
    const auto beam_size = static_cast<size_t>(ctx.Attr<int>("beam_size"));
    const int64_t end_id = ctx.Attr<int>("end_id");
    const bool accumulated = ctx.Attr<bool>("is_accumulated");
    PL_ENFORCE(scores->dims().size() >= 1,
               errors::InvalidArgument("op `%s` input `scores`: expected rank >= 1, received a "
                                       "0-D tensor",
                                       kSearchOp));
    const int64_t rows = scores->dims()[0];
    const std::string problem = framework::LoDProblem(scores->lod(), rows);
    PL_ENFORCE(problem.empty() && level < static_cast<int>(scores->lod().size()),
               errors::InvalidArgument(
                   "op `%s` input `scores` (variable `%s`): expected a LoD "
                   "with more than `level` (%d) levels describing its %lld "
                   "rows, received %s%s%s",
                   kSearchOp, ctx.InputName("scores"), level, static_cast<long long>(rows),
                   framework::LoDToString(scores->lod()), problem.empty() ? "" : ": ", problem));
    CheckPerRow(ctx, "pre_ids", DataType::INT64, rows);
    CheckPerRow(ctx, "pre_scores", platform::ToDataType<T>(), rows);
    const int64_t width = rows == 0 ? 0 : scores->numel() / rows;
    const int64_t* ids = nullptr;
    if (ctx.HasInput("ids")) {
      const DenseTensor* t = ctx.Input("ids");
      PL_ENFORCE(t->dtype() == DataType::INT64 && t->dims() == scores->dims(),
                 errors::InvalidArgument("op `%s` input `ids` (variable `%s`): expected int64 of "
                                         "`scores`' shape %s, received %s of shape %s",
                                         kSearchOp, ctx.InputName("ids"), scores->dims().ToString(),
                                         platform::DataTypeName(t->dtype()), t->dims().ToString()));
      ids = t->data<int64_t>();
    }
    const int64_t* pre_ids = ctx.Input("pre_ids")->data<int64_t>();
    const T* pre_scores = ctx.Input("pre_scores")->data<T>();
    const T* score = scores->data<T>();

    const LoD abs = AbsoluteOffsets(scores->lod());
    const std::vector<size_t>& sources = abs[static_cast<size_t>(level)];
    // The candidates each row keeps, in descending score within its source.
    std::vector<std::vector<Candidate<T>>> kept(static_cast<size_t>(rows));
    for (size_t s = 0; s + 1 < sources.size(); ++s) {
      std::vector<Candidate<T>> beam;
      for (size_t r = sources[s]; r < sources[s + 1]; ++r) {
        if (pre_ids[r] == end_id) {
          InsertIntoBeam(&beam, {static_cast<int64_t>(r), end_id, pre_scores[r]}, beam_size);
          continue;
        }
        for (int64_t k = 0; k < width; ++k) {
          const int64_t i = static_cast<int64_t>(r) * width + k;
          const T a = accumulated ? score[i] : static_cast<T>(pre_scores[r] + std::log(score[i]));
          InsertIntoBeam(&beam, {static_cast<int64_t>(r), ids ? ids[i] : k, a}, beam_size);
        }
      }
      // A source whose every kept candidate is end_id after a finished prefix is done.
      bool done = true;
      for (const Candidate<T>& c : beam) done &= c.id == end_id && pre_ids[c.row] == end_id;
      if (done) continue;
      for (const Candidate<T>& c : beam) kept[static_cast<size_t>(c.row)].push_back(c);
    }

    size_t n = 0;
    for (const auto& k : kept) n += k.size();
    DenseTensor* out_ids = ctx.Output("selected_ids");
    DenseTensor* out_scores = ctx.Output("selected_scores");
    DenseTensor* parent = ctx.Output("parent_idx");
    const auto count = static_cast<int64_t>(n);
    int64_t* oid = out_ids->Resize(DDim({count, 1})).mutable_data<int64_t>(ctx.GetPlace());
    T* oscore = out_scores->Resize(DDim({count, 1})).mutable_data<T>(ctx.GetPlace());
    int32_t* opar =
        parent ? parent->Resize(DDim({count})).mutable_data<int32_t>(ctx.GetPlace()) : nullptr;
    std::vector<size_t> per_row = {0};
    size_t j = 0;
    for (size_t r = 0; r < kept.size(); ++r) {
      for (const Candidate<T>& c : kept[r]) {
        oid[j] = c.id;
        oscore[j] = c.score;
        if (opar) opar[j] = static_cast<int32_t>(r);
        ++j;
      }
      per_row.push_back(j);
    }
    const LoD lod = {sources, per_row};
    out_ids->set_lod(lod);
    out_scores->set_lod(lod);
  }
};

// ---- beam_search_decode ----

class BeamSearchDecodeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Ids",
             "Tensor array of the selected_ids of every step (int64, two-level LoD as "
             "beam_search writes it).");
    AddInput("Scores", "Tensor array of the selected_scores of every step, with Ids' LoD.");
    AddOutput("SentenceIds",
              "int64 [total length]: the sentences, two-level LoD (sources, then sentences).");
    AddOutput("SentenceScores", "The score of each word of the sentences, SentenceIds' LoD.");
    AddAttr<int>("beam_size", "The beam size of the search (sentences kept per source).");
    AddAttr<int>("end_id", "The id that ends a sentence.");
    AddComment(R"DOC(
Beam search decode operator: backtraces the steps of a beam search into sentences.

Starting from the candidates of the last step at which each source still had any, each
sentence follows its candidate's prefix back one step at a time: a candidate at position $c$
of step $t$ extends the prefix $p$ (a row of step $t$) whose range in level 1 of step $t$'s
LoD holds $c$, and that prefix is candidate $p$ of step $t - 1$. Repeated end_id words after
the first are dropped. The sentences of each source are written first word first, ordered
by their last word's score (descending). Each source has beam_size sentences: those no
candidate reached are empty and come last.

$$SentenceIds = [w_{s,1,1}, \ldots], \quad LoD = [[\text{sentences per source}], [\text{words per sentence}]]$$
)DOC");
  }
};

// The array of input `slot`: non-empty, every step a tensor with a two-level LoD that
// describes its rows, on the host.
DenseTensorArray StepsIn(const framework::OperatorBase& op, const framework::Scope& scope,
                         const std::string& slot) {
  const framework::Variable* v = scope.FindVar(op.Input(slot));
  PL_ENFORCE(v != nullptr && v->IsType<DenseTensorArray>(),
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected a tensor "
                                     "array, found %s",
                                     op.Type(), slot, op.Input(slot),
                                     v ? framework::HeldTypeName(*v) : "no variable"));
  const DenseTensorArray& a = v->Get<DenseTensorArray>();
  PL_ENFORCE(!a.empty(), errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected "
                                                 "at least one step, the array is empty",
                                                 op.Type(), slot, op.Input(slot)));
  DenseTensorArray host(a.size());
  for (size_t t = 0; t < a.size(); ++t) {
    const DenseTensor& step = a[t];
    const std::string problem = step.initialized() && step.dims().size() >= 1
                                    ? framework::LoDProblem(step.lod(), step.dims()[0])
                                    : "no tensor";
    PL_ENFORCE(problem.empty() && step.lod().size() == 2,
               errors::InvalidArgument("op `%s` input `%s` (variable `%s`) step %zu: expected a "
                                       "tensor with a two-level LoD describing its rows, received "
                                       "LoD %s%s%s",
                                       op.Type(), slot, op.Input(slot), t,
                                       framework::LoDToString(step.lod()),
                                       problem.empty() ? "" : ": ", problem));
    framework::CopyTensor(step, platform::CPUPlace(), &host[t]);
  }
  return host;
}

template <typename T>
struct Sentence {
  std::vector<int64_t> ids;  // Last word first.
  std::vector<T> scores;
};

template <typename T>
void Backtrace(const std::string& op, const DenseTensorArray& ids, const DenseTensorArray& scores,
               size_t beam_size, int64_t end_id, DenseTensor* out_ids, DenseTensor* out_scores) {
  const size_t sources = ids[0].lod()[0].size() - 1;
  std::vector<std::vector<Sentence<T>>> sentences(sources);
  // Per source: the candidate position each sentence continues from, in the step being read.
  std::vector<std::vector<size_t>> at(sources);
  for (size_t t = ids.size(); t-- > 0;) {
    const LoD& lod = ids[t].lod();
    PL_ENFORCE(lod[0].size() == sources + 1 && scores[t].lod() == lod &&
                   scores[t].numel() == ids[t].numel(),
               errors::InvalidArgument("op `%s` step %zu: expected Ids with %zu sources and "
                                       "Scores of the same LoD and size, received Ids LoD %s, "
                                       "Scores LoD %s (%lld against %lld elements)",
                                       op, t, sources, framework::LoDToString(lod),
                                       framework::LoDToString(scores[t].lod()),
                                       static_cast<long long>(scores[t].numel()),
                                       static_cast<long long>(ids[t].numel())));
    const int64_t* id = ids[t].data<int64_t>();
    const T* score = scores[t].data<T>();
    const std::vector<size_t>& candidates = lod[1];
    for (size_t s = 0; s < sources; ++s) {
      std::vector<Sentence<T>>& sent = sentences[s];
      std::vector<size_t>& pos = at[s];
      if (pos.empty()) {
        // The last step at which this source has candidates: each starts a sentence.
        for (size_t c = candidates[lod[0][s]]; c < candidates[lod[0][s + 1]]; ++c) {
          PL_ENFORCE(sent.size() < beam_size,
                     errors::InvalidArgument("op `%s` step %zu: source %zu has more than "
                                             "`beam_size` (%zu) candidates",
                                             op, t, s, beam_size));
          sent.push_back({{id[c]}, {score[c]}});
          pos.push_back(c);
        }
      } else {
        for (size_t k = 0; k < pos.size(); ++k) {
          const size_t c = pos[k];
          PL_ENFORCE(
              c < static_cast<size_t>(ids[t].numel()),
              errors::InvalidArgument("op `%s` step %zu: a prefix of step %zu points at "
                                      "candidate %zu, but the step has %lld",
                                      op, t, t + 1, c, static_cast<long long>(ids[t].numel())));
          // Repeated end tokens of a finished sentence are written once.
          if (id[c] != end_id || sent[k].ids.empty()) {
            sent[k].ids.push_back(id[c]);
            sent[k].scores.push_back(score[c]);
          }
        }
      }
      // Each position becomes the prefix (row of this step) it extends: the candidate of
      // the step before.
      for (size_t& c : pos) {
        const auto row = std::upper_bound(candidates.begin(), candidates.end(), c) - 1;
        c = static_cast<size_t>(row - candidates.begin());
      }
    }
  }
  std::vector<size_t> per_source = {0}, per_sentence = {0};
  std::vector<int64_t> all_ids;
  std::vector<T> all_scores;
  for (std::vector<Sentence<T>>& sent : sentences) {
    // Every source has beam_size sentences, as in PaddlePaddle: those no candidate reached
    // are empty, and come last.
    sent.resize(beam_size);
    std::stable_sort(sent.begin(), sent.end(), [](const Sentence<T>& a, const Sentence<T>& b) {
      if (a.scores.empty() || b.scores.empty()) return !a.scores.empty() && b.scores.empty();
      return a.scores.front() > b.scores.front();
    });
    for (const Sentence<T>& x : sent) {
      all_ids.insert(all_ids.end(), x.ids.rbegin(), x.ids.rend());
      all_scores.insert(all_scores.end(), x.scores.rbegin(), x.scores.rend());
      per_sentence.push_back(all_ids.size());
    }
    per_source.push_back(per_sentence.size() - 1);
  }
  const auto n = static_cast<int64_t>(all_ids.size());
  std::copy(all_ids.begin(), all_ids.end(),
            out_ids->Resize(DDim({n})).mutable_data<int64_t>(platform::CPUPlace()));
  std::copy(all_scores.begin(), all_scores.end(),
            out_scores->Resize(DDim({n})).mutable_data<T>(platform::CPUPlace()));
  out_ids->set_lod({per_source, per_sentence});
  out_scores->set_lod({per_source, per_sentence});
}

class BeamSearchDecodeOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place&) const override {
    const DenseTensorArray ids = StepsIn(*this, scope, "Ids");
    const DenseTensorArray scores = StepsIn(*this, scope, "Scores");
    PL_ENFORCE(ids.size() == scores.size(),
               errors::InvalidArgument("op `%s` inputs `Ids` and `Scores`: expected as many steps, "
                                       "received %zu and %zu",
                                       Type(), ids.size(), scores.size()));
    const int beam_size = Attr<int>("beam_size");
    PL_ENFORCE(beam_size > 0, errors::InvalidArgument("op `%s` attribute `beam_size`: expected "
                                                      "> 0, received %d",
                                                      Type(), beam_size));
    for (size_t t = 0; t < ids.size(); ++t) {
      PL_ENFORCE(ids[t].dtype() == DataType::INT64 && scores[t].dtype() == scores[0].dtype(),
                 errors::InvalidArgument("op `%s` step %zu: expected int64 Ids and Scores of one "
                                         "dtype, received %s and %s",
                                         Type(), t, platform::DataTypeName(ids[t].dtype()),
                                         platform::DataTypeName(scores[t].dtype())));
    }
    framework::Variable* out_ids = scope.FindVar(Output("SentenceIds"));
    framework::Variable* out_scores = scope.FindVar(Output("SentenceScores"));
    PL_ENFORCE(out_ids != nullptr && out_scores != nullptr,
               errors::NotFound("op `%s`: output variables `%s` and `%s` must exist", Type(),
                                Output("SentenceIds"), Output("SentenceScores")));
    DenseTensor sentence_ids, sentence_scores;
    const int64_t end_id = Attr<int>("end_id");
    const auto size = static_cast<size_t>(beam_size);
    switch (scores[0].dtype()) {
      case DataType::FLOAT32:
        Backtrace<float>(Type(), ids, scores, size, end_id, &sentence_ids, &sentence_scores);
        break;
      case DataType::FLOAT64:
        Backtrace<double>(Type(), ids, scores, size, end_id, &sentence_ids, &sentence_scores);
        break;
      default:
        throw errors::InvalidArgument(
            "op `%s` input `Scores`: expected float32 or float64, "
            "received %s",
            Type(), platform::DataTypeName(scores[0].dtype()));
    }
    *out_ids->GetMutable<DenseTensor>() = std::move(sentence_ids);
    *out_scores->GetMutable<DenseTensor>() = std::move(sentence_scores);
  }
};

void BeamSearchDecodeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Ids");
  ctx->RequireInput("Scores");
  ctx->RequireOutput("SentenceIds");
  ctx->RequireOutput("SentenceScores");
  if (ctx->IsRuntime()) return;
  ctx->SetOutputDim("SentenceIds", DDim({-1}));
  ctx->SetOutputDim("SentenceScores", DDim({-1}));
}

void BeamSearchDecodeInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("SentenceIds", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("SentenceIds", DataType::INT64);
  ctx->SetOutputKind("SentenceScores", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("SentenceScores", ctx->GetInputDataType("Scores"));
}

}  // namespace

PL_REGISTER_OPS(RegisterBeamSearchOps) {
  framework::RegisterOp<BeamSearchOp, BeamSearchOpMaker>(kSearchOp)
      .InferShape(BeamSearchInferShape)
      .InferVarType(BeamSearchInferVarType);
  RegisterPlainCpuKernels<BeamSearchKernel, float, double>(kSearchOp);
  framework::RegisterOp<BeamSearchDecodeOp, BeamSearchDecodeOpMaker>(kDecodeOp)
      .InferShape(BeamSearchDecodeInferShape)
      .InferVarType(BeamSearchDecodeInferVarType);
}

}  // namespace operators
}  // namespace paddle_like
