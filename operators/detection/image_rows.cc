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

void CheckRoiInputs(const std::string& op, const DDim& x, const DDim& rois) {
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected [N, C, H, W], "
                                                    "received shape %s",
                                                    op, x.ToString()));
  PL_ENFORCE(rois.size() == 2 && (rois[1] == 4 || rois[1] < 0),
             errors::InvalidArgument("op `%s` input `ROIs`: expected [R, 4], received shape %s", op,
                                     rois.ToString()));
}

std::vector<int64_t> RoiImages(const ExecutionContext& ctx, int64_t images) {
  const DenseTensor* rois = ctx.Input("ROIs");
  const int64_t total = rois->dims()[0];
  std::vector<int64_t> starts;
  if (!ctx.HasInput("RoisNum") && rois->lod().empty() && images == 1) {
    starts = {0, total};  // One image: every ROI is its own.
  } else {
    starts = ImageRowStarts(ctx, "ROIs", "RoisNum", total, "pooling ROIs");
  }
  PL_ENFORCE(
      static_cast<int64_t>(starts.size()) - 1 == images,
      errors::InvalidArgument("op `%s`: the ROIs are given for %zu images, X holds %lld",
                              ctx.Type(), starts.size() - 1, static_cast<long long>(images)));
  std::vector<int64_t> image(static_cast<size_t>(total));
  for (int64_t b = 0; b < images; ++b) {
    for (int64_t r = starts[b]; r < starts[b + 1]; ++r) image[r] = b;
  }
  return image;
}

}  // namespace operators
}  // namespace paddle_like
