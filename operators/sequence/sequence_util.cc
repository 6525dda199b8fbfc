#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

void CheckOptionalLoD(const std::string& op, const std::string& slot, const DenseTensor& t,
                      size_t max_levels) {
  const framework::LoD& lod = t.lod();
  if (lod.empty()) return;
  PL_ENFORCE(lod.size() <= max_levels,
             errors::InvalidArgument("op `%s` input `%s`: expected a LoD of at most %zu "
                                     "level(s), received %zu levels %s",
                                     op, slot, max_levels, lod.size(),
                                     framework::LoDToString(lod)));
  PL_ENFORCE(t.dims().size() >= 1,
             errors::InvalidArgument("op `%s` input `%s`: expected a tensor of rank >= 1 with "
                                     "its LoD, received shape %s",
                                     op, slot, t.dims().ToString()));
  const std::string problem = framework::LoDProblem(lod, t.dims()[0]);
  PL_ENFORCE(problem.empty(),
             errors::InvalidArgument("op `%s` input `%s`: LoD %s does not fit shape %s: %s", op,
                                     slot, framework::LoDToString(lod), t.dims().ToString(),
                                     problem));
}

const std::vector<size_t>& SequenceOffsets(const std::string& op, const std::string& slot,
                                           const DenseTensor& t, size_t max_levels) {
  PL_ENFORCE(!t.lod().empty(),
             errors::InvalidArgument("op `%s` input `%s`: expected a LoD tensor (sequence "
                                     "offsets), received a tensor of shape %s without LoD",
                                     op, slot, t.dims().ToString()));
  CheckOptionalLoD(op, slot, t, max_levels);
  return t.lod().back();
}

int64_t RowWidth(const DDim& dims) {
  int64_t w = 1;
  for (int i = 1; i < dims.size(); ++i) w *= dims[i];
  return w;
}

void CheckMinRank(const std::string& op, const std::string& slot, const DDim& dims, int min_rank) {
  PL_ENFORCE(dims.size() >= min_rank,
             errors::InvalidArgument("op `%s` input `%s`: expected rank >= %d, received shape %s",
                                     op, slot, min_rank, dims.ToString()));
}

bool PaddedWithLengths(const std::string& op, const char* a, bool has_a, const char* b,
                       bool has_b) {
  PL_ENFORCE(has_a == has_b,
             errors::InvalidArgument("op `%s` input `%s`: %s and %s come together (padded "
                                     "batches) or not at all (LoD tensors); received only %s",
                                     op, has_a ? b : a, a, b, has_a ? a : b));
  return has_a;
}

}  // namespace operators
}  // namespace paddle_like
