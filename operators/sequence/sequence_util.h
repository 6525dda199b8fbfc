// Helpers shared by the sequence ops (LoD tensors): checked access to the sequence offsets
// and the width of one row.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

// Checks that input `slot` of op `op` carries a LoD of 1 to `max_levels` levels that
// describes its rows (framework::LoDProblem), and returns its last level, the row offsets of
// the sequences. InvalidArgumentError naming the op and slot otherwise.
const std::vector<size_t>& SequenceOffsets(const std::string& op, const std::string& slot,
                                           const DenseTensor& t, size_t max_levels);

// Checks a LoD that may be absent (empty); otherwise as SequenceOffsets.
void CheckOptionalLoD(const std::string& op, const std::string& slot, const DenseTensor& t,
                      size_t max_levels);

// A copy of `from`'s elements (as many as `like` has) with `like`'s dims and LoD: the
// gradient of ops that only relabel their input (lod_reset, sequence_reshape).
template <typename T>
DenseTensor ElementsAs(const DenseTensor& from, const DenseTensor& like,
                       const platform::Place& place) {
  DenseTensor out(like.dims(), from.dtype());
  T* o = out.mutable_data<T>(place);
  if (out.numel() > 0) std::memcpy(o, from.data<T>(), sizeof(T) * out.numel());
  out.set_lod(like.lod());
  return out;
}

// Whether an op's sequences come as padded batches with lengths (length slots `a` and `b`
// both given) or as LoD tensors (neither). InvalidArgumentError naming `op` and the missing
// slot when only one is given.
bool PaddedWithLengths(const std::string& op, const char* a, bool has_a, const char* b, bool has_b);

// Elements per row: the product of dims[1:] (1 for a rank-1 tensor).
int64_t RowWidth(const DDim& dims);

// Requires rank >= `min_rank` of input `slot` (dims known or not).
void CheckMinRank(const std::string& op, const std::string& slot, const DDim& dims, int min_rank);

}  // namespace operators
}  // namespace paddle_like
