#include "operators/detection/image_rows.h"

#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

std::vector<int64_t> ImageRowStarts(const ExecutionContext& ctx, const std::string& rows_slot,
                                    const std::string& counts_slot, int64_t total,
                                    const std::string& form) {
  const std::string& op = ctx.Type();
  std::vector<int64_t> starts = {0};
  std::string origin;
  if (ctx.HasInput(counts_slot)) {
    origin = "input `" + counts_slot + "`";
    for (int64_t n : ReadIntValues(*ctx.Input(counts_slot), op, counts_slot)) {
      PL_ENFORCE(n >= 0, errors::InvalidArgument("op `%s` input `%s`: expected counts >= 0, "
                                                 "received %lld",
                                                 op, counts_slot, static_cast<long long>(n)));
      starts.push_back(starts.back() + n);
    }
  } else {
    origin = "the LoD of input `" + rows_slot + "`";
    const framework::LoD& lod = ctx.Input(rows_slot)->lod();
    PL_ENFORCE(!lod.empty(),
               errors::InvalidArgument("op `%s` input `%s`: %s needs the image row counts (%s "
                                       "or a LoD)",
                                       op, rows_slot, form, counts_slot));
    starts.assign(lod.back().begin(), lod.back().end());
  }
  PL_ENFORCE(starts.back() == total,
             errors::InvalidArgument("op `%s`: the image row counts of %s add up to %lld, "
                                     "expected the %lld rows of `%s`",
                                     op, origin, static_cast<long long>(starts.back()),
                                     static_cast<long long>(total), rows_slot));
  return starts;
}

}  // namespace operators
}  // namespace paddle_like
