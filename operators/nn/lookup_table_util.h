// What the lookup_table(_v2) kernels and their grad kernels share (lookup_table_op.cc on the
// CPU, lookup_table_op.cu on a GPU): the checks of W, padding_idx and Ids, and Out's dims.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "operators/common.h"

namespace paddle_like {
namespace operators {
namespace lookup_table {

// InvalidArgumentError naming `op` unless W is 2-D.
void CheckTable(const std::string& op, const DDim& w);

// The row padding_idx names (negative values count from V), or -1 for none; V < 0 (unknown)
// skips the checks.
int64_t PaddingRow(const std::string& op, int64_t padding_idx, int64_t v);

// Ids (int64 or int32, copied to the host when they live on a device) as int64, each checked
// against [0, V): InvalidArgumentError naming the id and its element otherwise.
std::vector<int64_t> ReadIds(const std::string& op, const DenseTensor& ids, int64_t v);

// Ids.dims + [D] (version 2), or Ids.dims with its last dim, 1, replaced by D (version 1);
// InvalidArgumentError naming `op` when Ids does not fit.
DDim OutDims(const std::string& op, const DDim& ids, int64_t d);

// One lookup, resolved on the host from W's dims, Ids and the attributes.
struct Lookup {
  int64_t v = 0, d = 0;      // W's rows and columns.
  int64_t pad = -1;          // The padding row, or -1.
  std::vector<int64_t> ids;  // Checked, in Ids' order.
  DDim out_dims;             // Out's, and Out@GRAD's for a grad op.
};

// Resolves the forward op or the grad op of ctx; for a grad op, also checks Out@GRAD's dims.
Lookup ResolveLookup(const ExecutionContext& ctx);

}  // namespace lookup_table
}  // namespace operators
}  // namespace paddle_like
