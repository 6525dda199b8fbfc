// edit_distance: the Levenshtein distance between hypothesis and reference id sequences
// (LoD tensors, or padded batches with lengths), optionally over the reference's length.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "edit_distance";

class EditDistanceOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Hyps",
             "int32 or int64 hypothesis ids: a LoD tensor [total, 1] with one sequence per "
             "pair, or with HypsLength a padded batch [N, max length].");
    AddInput("Refs", "The reference ids, laid out as Hyps.");
    AddInput("HypsLength", "int64 [N] or [N, 1]: the ids of each row of a padded Hyps.")
        .AsDispensable();
    AddInput("RefsLength", "int64 [N] or [N, 1]: the ids of each row of a padded Refs.")
        .AsDispensable();
    AddOutput("SequenceNum", "int64 [1]: N, the pairs compared.");
    AddOutput("Out", "float32 [N, 1]: the distance of each pair.");
    AddAttr<bool>("normalized",
                  "Divide each distance by its reference's length (references must not be "
                  "empty then).")
        .SetDefault(false);
    AddComment(R"DOC(
Levenshtein distance of each pair (h, r): the fewest insertions, deletions and
substitutions turning h into r, by the recurrence
$$D_{i,j} = \min(D_{i-1,j} + 1,\ D_{i,j-1} + 1,\ D_{i-1,j-1} + [h_i \ne r_j]),\quad D_{i,0} = i,\ D_{0,j} = j$$
Out = D_{|h|,|r|}, divided by |r| when normalized. Example: h = [1, 2, 3], r = [1, 3] -> 1
(0.5 normalized).
)DOC");
  }
};

class EditDistanceOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // The inputs are ids: Out is float32 whatever their type, as in PaddlePaddle.
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return DataType::FLOAT32;
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void EditDistanceInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Hyps", "Refs"}) ctx->RequireInput(slot);
  for (const char* slot : {"SequenceNum", "Out"}) ctx->RequireOutput(slot);
  const bool padded = PaddedWithLengths(kOp, "HypsLength", ctx->HasInput("HypsLength"),
                                        "RefsLength", ctx->HasInput("RefsLength"));
  const DDim hyps = ctx->GetInputDim("Hyps"), refs = ctx->GetInputDim("Refs");
  for (const auto& [slot, d] : {std::pair<const char*, DDim>{"Hyps", hyps}, {"Refs", refs}}) {
    PL_ENFORCE(d.size() == 2, errors::InvalidArgument(
                                  "op `%s` input `%s`: expected rank 2 (%s), received %s", kOp,
                                  slot, padded ? "[N, max length]" : "[total, 1]", d.ToString()));
  }
  if (padded && hyps[0] >= 0 && refs[0] >= 0) {
    PL_ENFORCE(hyps[0] == refs[0],
               errors::InvalidArgument("op `%s` input `Refs`: expected %lld rows (Hyps' rows), "
                                       "received %s",
                                       kOp, static_cast<long long>(hyps[0]), refs.ToString()));
  }
  if (ctx->IsRuntime()) return;  // The kernel reads the pairs from the LoD or lengths.
  ctx->SetOutputDim("SequenceNum", DDim{1});
  ctx->SetOutputDim("Out", DDim{padded ? hyps[0] : -1, 1});
}

// One side of the pairs: each row's ids.
std::vector<std::vector<int64_t>> ReadSequences(const ExecutionContext& ctx, const char* slot,
                                                const char* length_slot, bool padded) {
  const DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(t->dims().size() == 2,
             errors::InvalidArgument("op `%s` input `%s`: expected rank 2, received %s", kOp, slot,
                                     t->dims().ToString()));
  const std::vector<int64_t> ids = ReadIntValues(*t, kOp, slot);
  std::vector<std::vector<int64_t>> rows;
  if (padded) {
    const int64_t n = t->dims()[0], width = t->dims()[1];
    const std::vector<int64_t> lengths = ReadIntValues(*ctx.Input(length_slot), kOp, length_slot);
    PL_ENFORCE(
        static_cast<int64_t>(lengths.size()) == n,
        errors::InvalidArgument("op `%s` input `%s`: expected %lld values (%s' rows), "
                                "received %zu",
                                kOp, length_slot, static_cast<long long>(n), slot, lengths.size()));
    for (int64_t r = 0; r < n; ++r) {
      PL_ENFORCE(
          lengths[r] >= 0 && lengths[r] <= width,
          errors::InvalidArgument("op `%s` input `%s`: value %lld of row %lld is outside "
                                  "[0, %lld] (%s' columns)",
                                  kOp, length_slot, static_cast<long long>(lengths[r]),
                                  static_cast<long long>(r), static_cast<long long>(width), slot));
      rows.emplace_back(ids.begin() + r * width, ids.begin() + r * width + lengths[r]);
    }
    return rows;
  }
  PL_ENFORCE(t->numel() == t->dims()[0],
             errors::InvalidArgument("op `%s` input `%s`: expected [total, 1] with LoD (or "
                                     "lengths for a padded batch), received %s",
                                     kOp, slot, t->dims().ToString()));
  const std::vector<size_t>& lod = SequenceOffsets(kOp, slot, *t, 1);
  for (size_t r = 0; r + 1 < lod.size(); ++r) {
    rows.emplace_back(ids.begin() + lod[r], ids.begin() + lod[r + 1]);
  }
  return rows;
}

int64_t Levenshtein(const std::vector<int64_t>& h, const std::vector<int64_t>& r) {
  // One row of D at a time.
  std::vector<int64_t> prev(r.size() + 1), cur(r.size() + 1);
  for (size_t j = 0; j <= r.size(); ++j) prev[j] = static_cast<int64_t>(j);
  for (size_t i = 1; i <= h.size(); ++i) {
    cur[0] = static_cast<int64_t>(i);
    for (size_t j = 1; j <= r.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (h[i - 1] != r[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[r.size()];
}

template <typename T>
struct EditDistanceKernel {
  static void Compute(const ExecutionContext& ctx) {
    const bool padded = PaddedWithLengths(kOp, "HypsLength", ctx.HasInput("HypsLength"),
                                          "RefsLength", ctx.HasInput("RefsLength"));
    const auto hyps = ReadSequences(ctx, "Hyps", "HypsLength", padded);
    const auto refs = ReadSequences(ctx, "Refs", "RefsLength", padded);
    PL_ENFORCE(hyps.size() == refs.size(),
               errors::InvalidArgument("op `%s` input `Refs`: expected %zu sequences (as Hyps), "
                                       "received %zu",
                                       kOp, hyps.size(), refs.size()));
    const bool normalized = ctx.Attr<bool>("normalized");
    const int64_t n = static_cast<int64_t>(hyps.size());
    DenseTensor out(DDim{n, 1}, platform::ToDataType<T>());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < n; ++i) {
      const T d = static_cast<T>(Levenshtein(hyps[i], refs[i]));
      if (normalized) {
        PL_ENFORCE(!refs[i].empty(),
                   errors::InvalidArgument("op `%s` input `Refs`: reference %lld is empty, which "
                                           "attribute `normalized` cannot divide by",
                                           kOp, static_cast<long long>(i)));
      }
      o[i] = normalized ? d / static_cast<T>(refs[i].size()) : d;
    }
    DenseTensor count(DDim{1}, DataType::INT64);
    *count.mutable_data<int64_t>(ctx.GetPlace()) = n;
    *ctx.Output("Out") = std::move(out);
    *ctx.Output("SequenceNum") = std::move(count);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterEditDistanceOp) {
  framework::RegisterOp<EditDistanceOp, EditDistanceOpMaker>(kOp)
      .InferShape(EditDistanceInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        ctx->SetOutputDataType("Out", DataType::FLOAT32);
        ctx->SetOutputDataType("SequenceNum", DataType::INT64);
      });
  RegisterPlainCpuFloatKernels<EditDistanceKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
