// The detection ops on the GPU against their CPU kernels on the same inputs, float and double:
// prior_box and density_prior_box (the CPU kernels run on every device, so their outputs are
// the same bits) over their attribute combinations; yolo_box with clip_bbox on and off,
// scale_x_y, iou_aware, thresholds that drop boxes and int32 / int64 ImgSize; box_coder's
// encode and decode in normalized and pixel coordinates, with no variance, the `variance`
// attribute and the PriorBoxVar input, and decode along axis 0 and 1. Skips when the build has
// no CUDA or the machine no device.
#include <string>
#include <vector>

#include "tests/cuda_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::DDim;

class CudaDetectionTest : public CudaTest {};

// A tensor of `dims` holding `values` as `dtype` (float32 or float64).
DenseTensor Of(DataType dtype, const DDim& dims, const std::vector<double>& values) {
  return dtype == DataType::FLOAT32 ? MakeTensor<float>(dims, values)
                                    : MakeTensor<double>(dims, values);
}

// `count` boxes [x_min, y_min, x_max, y_max] within [0, scale] with sides of at least
// scale / 20, reproducible by seed.
std::vector<double> RandomBoxes(int64_t count, double scale, unsigned seed) {
  const std::vector<double> corner = RandomValues(2 * count, 0, 0.6 * scale, seed);
  const std::vector<double> side = RandomValues(2 * count, 0.05 * scale, 0.4 * scale, seed + 1);
  std::vector<double> boxes;
  for (int64_t i = 0; i < count; ++i) {
    boxes.push_back(corner[2 * i]);
    boxes.push_back(corner[2 * i + 1]);
    boxes.push_back(corner[2 * i] + side[2 * i]);
    boxes.push_back(corner[2 * i + 1] + side[2 * i + 1]);
  }
  return boxes;
}

// Same computation on both devices: the same bits.
GpuTolerance Exact() {
  GpuTolerance tol;
  tol.float_rtol = tol.float_atol = tol.double_rtol = tol.double_atol = 0;
  return tol;
}

// A feature map of H x W cells on an image of img_h x img_w (the inputs' values are not read).
InputMaker PriorInputs(int64_t h, int64_t w, int64_t img_h, int64_t img_w) {
  return [=](DataType t) {
    SlotTensors in;
    in["Input"] = {RandomOf(t, DDim{2, 3, h, w}, -1, 1, 1)};
    in["Image"] = {RandomOf(t, DDim{2, 3, img_h, img_w}, 0, 1, 2)};
    return in;
  };
}

TEST_F(CudaDetectionTest, PriorBoxMatchesCpuForEveryAttributeCombination) {
  struct Case {
    std::string name;
    AttributeMap attrs;
  };
  const std::vector<Case> cases = {
      {"one min size", {{"min_sizes", std::vector<float>{16}}}},
      {"min and max sizes, ratios, flip",
       {{"min_sizes", std::vector<float>{16, 32}},
        {"max_sizes", std::vector<float>{32, 60}},
        {"aspect_ratios", std::vector<float>{2, 3}},
        {"flip", true}}},
      {"clip, steps, offset, variances",
       {{"min_sizes", std::vector<float>{24}},
        {"max_sizes", std::vector<float>{48}},
        {"aspect_ratios", std::vector<float>{1, 2}},
        {"clip", true},
        {"step_w", 10.f},
        {"step_h", 12.f},
        {"offset", 0.25f},
        {"variances", std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f}}}},
      {"min_max_aspect_ratios_order",
       {{"min_sizes", std::vector<float>{16, 40}},
        {"max_sizes", std::vector<float>{30, 70}},
        {"aspect_ratios", std::vector<float>{2, 0.5f}},
        {"flip", true},
        {"clip", true},
        {"min_max_aspect_ratios_order", true}}},
      {"order without max sizes",
       {{"min_sizes", std::vector<float>{20}},
        {"aspect_ratios", std::vector<float>{3}},
        {"min_max_aspect_ratios_order", true},
        {"step_w", 8.f},
        {"step_h", 0.f}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ExpectGpuMatchesCpu("prior_box", PriorInputs(5, 7, 60, 90), {{"Boxes", 1}, {"Variances", 1}},
                        c.attrs, Exact());
  }
}

TEST_F(CudaDetectionTest, DensityPriorBoxMatchesCpu) {
  for (const bool flatten : {false, true}) {
    for (const bool clip : {false, true}) {
      SCOPED_TRACE(std::string(flatten ? "flatten_to_2d" : "4-D") + (clip ? " clip" : ""));
      AttributeMap attrs = {{"fixed_sizes", std::vector<float>{32, 16, 8}},
                            {"fixed_ratios", std::vector<float>{1, 2, 0.5f}},
                            {"densities", std::vector<int>{1, 2, 4}},
                            {"variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f}},
                            {"flatten_to_2d", flatten},
                            {"clip", clip}};
      ExpectGpuMatchesCpu("density_prior_box", PriorInputs(4, 6, 64, 96),
                          {{"Boxes", 1}, {"Variances", 1}}, attrs, Exact());
      attrs["step_w"] = 20.f;
      attrs["step_h"] = 14.f;
      attrs["offset"] = 0.3f;
      ExpectGpuMatchesCpu("density_prior_box", PriorInputs(4, 6, 64, 96),
                          {{"Boxes", 1}, {"Variances", 1}}, attrs, Exact());
    }
  }
}

// Boxes are in pixels (widths up to about 3000 with logits of 3) and x_min = c_x - w / 2 may
// cancel to near 0, so the float comparison allows a few ulps of the widths: exp, sigmoid and
// pow may differ by a few ulps between the devices, and nvcc fuses multiply-adds.
GpuTolerance YoloTolerance() {
  GpuTolerance tol;
  tol.float_rtol = 2e-5;
  tol.float_atol = 2e-3;
  tol.double_rtol = 1e-10;
  tol.double_atol = 1e-9;
  return tol;
}

// Two images of a 5 x 6 grid with 3 anchors and 4 classes; logits in [-3, 3].
InputMaker YoloInputs(bool iou_aware, DataType img_size_dtype) {
  return [=](DataType t) {
    const int64_t channels = 3 * ((iou_aware ? 6 : 5) + 4);
    SlotTensors in;
    in["X"] = {RandomOf(t, DDim{2, channels, 5, 6}, -3, 3, 11)};
    const std::vector<double> sizes = {320, 416, 250, 190};
    in["ImgSize"] = {img_size_dtype == DataType::INT32 ? MakeTensor<int32_t>({2, 2}, sizes)
                                                       : MakeTensor<int64_t>({2, 2}, sizes)};
    return in;
  };
}

TEST_F(CudaDetectionTest, YoloBoxMatchesCpuForEveryAttribute) {
  for (const bool iou_aware : {false, true}) {
    for (const bool clip : {true, false}) {
      for (const float scale : {1.f, 1.05f}) {
        // 0.005 keeps about every box; 0.5 drops about half (their boxes and scores stay 0).
        for (const float thresh : {0.005f, 0.5f}) {
          SCOPED_TRACE(std::string("iou_aware ") + (iou_aware ? "on" : "off") + ", clip_bbox " +
                       (clip ? "on" : "off") + ", scale_x_y " + std::to_string(scale) +
                       ", conf_thresh " + std::to_string(thresh));
          const AttributeMap attrs = {{"anchors", std::vector<int>{10, 13, 16, 30, 33, 23}},
                                      {"class_num", 4},
                                      {"conf_thresh", thresh},
                                      {"downsample_ratio", 32},
                                      {"clip_bbox", clip},
                                      {"scale_x_y", scale},
                                      {"iou_aware", iou_aware},
                                      {"iou_aware_factor", 0.4f}};
          ExpectGpuMatchesCpu("yolo_box", YoloInputs(iou_aware, DataType::INT32),
                              {{"Boxes", 1}, {"Scores", 1}}, attrs, YoloTolerance());
        }
      }
    }
  }
}

TEST_F(CudaDetectionTest, YoloBoxReadsAnInt64ImageSize) {
  const AttributeMap attrs = {{"anchors", std::vector<int>{10, 13, 16, 30, 33, 23}},
                              {"class_num", 4},
                              {"conf_thresh", 0.3f},
                              {"downsample_ratio", 16}};
  ExpectGpuMatchesCpu("yolo_box", YoloInputs(false, DataType::INT64), {{"Boxes", 1}, {"Scores", 1}},
                      attrs, YoloTolerance());
}

// Coordinates up to 100 (pixels) and differences of nearby centres: a few ulps of the
// coordinates, divided by small sides and variances, in float.
GpuTolerance BoxCoderTolerance() {
  GpuTolerance tol;
  tol.float_rtol = 2e-5;
  tol.float_atol = 1e-4;
  tol.double_rtol = 1e-10;
  tol.double_atol = 1e-10;
  return tol;
}

enum class VarianceFrom { kNone, kAttribute, kInput };

std::string Name(VarianceFrom v) {
  switch (v) {
    case VarianceFrom::kNone:
      return "no variance";
    case VarianceFrom::kAttribute:
      return "attribute variance";
    case VarianceFrom::kInput:
      return "PriorBoxVar";
  }
  return "";
}

TEST_F(CudaDetectionTest, BoxCoderMatchesCpuForEveryCodeVarianceAndAxis) {
  constexpr int64_t kPriors = 7, kTargets = 5;
  for (const bool normalized : {true, false}) {
    const double scale = normalized ? 1.0 : 100.0;
    for (const VarianceFrom from :
         {VarianceFrom::kNone, VarianceFrom::kAttribute, VarianceFrom::kInput}) {
      AttributeMap base = {{"box_normalized", normalized}};
      if (from == VarianceFrom::kAttribute) {
        base["variance"] = std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f};
      }
      // Variances in PriorBoxVar differ per prior.
      auto with_var = [=](DataType t, SlotTensors in) {
        in["PriorBox"] = {Of(t, DDim{kPriors, 4}, RandomBoxes(kPriors, scale, 21))};
        if (from == VarianceFrom::kInput) {
          in["PriorBoxVar"] = {RandomOf(t, DDim{kPriors, 4}, 0.1, 0.5, 23)};
        }
        return in;
      };
      {
        SCOPED_TRACE(std::string("encode, ") + (normalized ? "normalized, " : "pixels, ") +
                     Name(from));
        AttributeMap attrs = base;
        attrs["code_type"] = std::string("encode_center_size");
        ExpectGpuMatchesCpu(
            "box_coder",
            [&](DataType t) {
              SlotTensors in;
              in["TargetBox"] = {Of(t, DDim{kTargets, 4}, RandomBoxes(kTargets, scale, 25))};
              return with_var(t, in);
            },
            {{"OutputBox", 1}}, attrs, BoxCoderTolerance());
      }
      for (const int axis : {0, 1}) {
        SCOPED_TRACE(std::string("decode, axis ") + std::to_string(axis) +
                     (normalized ? ", normalized, " : ", pixels, ") + Name(from));
        AttributeMap attrs = base;
        attrs["code_type"] = std::string("decode_center_size");
        attrs["axis"] = axis;
        // axis 0: [N, M, 4], the priors along dim 1; axis 1: [M, N, 4].
        const DDim target = axis == 0 ? DDim{kTargets, kPriors, 4} : DDim{kPriors, kTargets, 4};
        ExpectGpuMatchesCpu(
            "box_coder",
            [&](DataType t) {
              SlotTensors in;
              in["TargetBox"] = {RandomOf(t, target, -1, 1, 27)};
              return with_var(t, in);
            },
            {{"OutputBox", 1}}, attrs, BoxCoderTolerance());
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
