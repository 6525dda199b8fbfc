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

// What the ROI pooling ops (roi_align, roi_pool) declare alike: inputs X, ROIs and RoisNum,
// outputs Out, and attributes spatial_scale, pooled_height and pooled_width.
class RoiPoolingOpMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddRoiPoolingSlotsAndAttrs() {
    AddInput("X", "Feature maps [N, C, H, W].");
    AddInput("ROIs",
             "Regions [R, 4] as (x1, y1, x2, y2) in input image coordinates, the ROIs "
             "of all images stacked (LoD: ROIs per image, unless RoisNum is given).");
    AddInput("RoisNum", "int32 [N]: ROIs per image; replaces the ROIs' LoD.").AsDispensable();
    AddOutput("Out", "Pooled features [R, C, pooled_height, pooled_width].");
    AddAttr<float>("spatial_scale", "Scale from image to feature map coordinates.")
        .SetDefault(1.0f);
    AddAttr<int>("pooled_height", "Output height (> 0).").SetDefault(1).GreaterThan(0);
    AddAttr<int>("pooled_width", "Output width (> 0).").SetDefault(1).GreaterThan(0);
  }
};

// The kernel of a ROI pooling op follows X; its integer inputs (RoisNum, and roi_pool's
// Argmax in the gradient) are never cast.
class RoiPoolingOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "RoisNum" && slot != "Argmax" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

// X [N, C, H, W] and ROIs [R, 4] of the ROI pooling ops; InvalidArgumentError naming `op`.
void CheckRoiInputs(const std::string& op, const DDim& x, const DDim& rois);

// The image of each ROI of input `ROIs` ([R, 4]) among the `images` of X, from input
// RoisNum or the ROIs' LoD (with one image and neither, every ROI is its own).
// InvalidArgumentError naming the op when the ROIs are given for another number of images.
std::vector<int64_t> RoiImages(const ExecutionContext& ctx, int64_t images);

}  // namespace operators
}  // namespace paddle_like
