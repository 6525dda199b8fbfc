// Which rows of a detection tensor belong to which image: PaddlePaddle's detection ops take
// the rows of all images stacked ([M_total, ...]) with the per-image counts in an int tensor
// (RoisNum and the like) or in the rows' LoD.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

// Start of each image's rows among the `total` rows of input `rows_slot`, plus `total` at the
// end: from the counts in input `counts_slot` (int32 or int64 [N]) when given, else from the
// last LoD level of `rows_slot`. InvalidArgumentError naming the op and slot for a negative
// count, counts that do not add up to `total`, or neither source (`form` says what needs
// them, "the [M_total, C, 4] form").
std::vector<int64_t> ImageRowStarts(const ExecutionContext& ctx, const std::string& rows_slot,
                                    const std::string& counts_slot, int64_t total,
                                    const std::string& form);

// X [N, C, H, W] and ROIs [R, 4] of the ROI pooling ops; InvalidArgumentError naming `op`.
void CheckRoiInputs(const std::string& op, const DDim& x, const DDim& rois);

// The image of each ROI of input `ROIs` ([R, 4]) among the `images` of X, from input
// RoisNum or the ROIs' LoD (with one image and neither, every ROI is its own).
// InvalidArgumentError naming the op when the ROIs are given for another number of images.
std::vector<int64_t> RoiImages(const ExecutionContext& ctx, int64_t images);

}  // namespace operators
}  // namespace paddle_like
