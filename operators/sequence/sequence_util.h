// Helpers shared by the sequence ops (LoD tensors): checked access to the sequence offsets
// and the width of one row.
#pragma once

#include <cmath>
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

// One sequence's pooled row `out` [w] for pooltype SUM, AVERAGE or SQRT: the sum of the
// `len` rows [w] starting at `first`, divided by len (AVERAGE) or sqrt(len) (SQRT). The caller
// handles an empty sequence (len 0).
template <typename T>
void SumPoolRows(const std::string& pooltype, const T* first, int64_t len, int64_t w, T* out) {
  for (int64_t k = 0; k < w; ++k) out[k] = T(0);
  for (int64_t r = 0; r < len; ++r) {
    for (int64_t k = 0; k < w; ++k) out[k] += first[r * w + k];
  }
  if (pooltype != "SUM") {
    const T div = pooltype == "AVERAGE" ? static_cast<T>(len) : std::sqrt(static_cast<T>(len));
    for (int64_t k = 0; k < w; ++k) out[k] /= div;
  }
}

}  // namespace operators
}  // namespace paddle_like
