// yolov3_loss (operators/detection/yolov3_loss_op.cc): a closed form at X = 0 (every sigmoid
// cross-entropy log 2, predicted boxes the anchors themselves), the masks (positive cells,
// ignored predictions, unmatched and padding boxes), gradients against finite differences,
// and bad inputs. PaddlePaddle's outputs: fixtures yolov3_loss_*.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "operators/registry.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr int kClasses = 3, kH = 4, kDownsample = 8;  // Input size 32.
const std::vector<int> kAnchors = {4, 6, 10, 8, 20, 24};
const std::vector<int> kMask = {1, 2};

AttributeMap Attrs(float ignore, bool smooth) {
  return {{"anchors", kAnchors},
          {"anchor_mask", kMask},
          {"class_num", kClasses},
          {"ignore_thresh", ignore},
          {"downsample_ratio", kDownsample},
          {"use_label_smooth", smooth}};
}

TEST(Yolov3LossOp, ClosedFormAtZeroLogits) {
  operators::RegisterAllOps();
  // One image, boxes: (0.4, 0.6, 0.3, 0.25) fits anchor 1 (10 x 8 of 32: 0.31 x 0.25) -> mask
  // 0, cell (2, 1); (0.8, 0.1, 0.12, 0.2) fits anchor 0 (not in the mask): unmatched;
  // a padding box (width 0).
  const std::vector<double> boxes = {0.4, 0.6, 0.3, 0.25, 0.8, 0.1, 0.12, 0.2, 0.5, 0.5, 0, 0.3};
  const std::vector<double> scores = {0.7, 1.0, 1.0};
  const int64_t m = static_cast<int64_t>(kMask.size());
  for (bool smooth : {false, true}) {
    SCOPED_TRACE(smooth ? "label smoothing" : "hard labels");
    const OpRunResult r =
        RunOp("yolov3_loss",
              {{"X",
                {MakeTensor<double>({1, m * (5 + kClasses), kH, kH},
                                    std::vector<double>(m * (5 + kClasses) * kH * kH, 0))}},
               {"GTBox", {MakeTensor<double>({1, 3, 4}, boxes)}},
               {"GTLabel", {MakeTensor<int32_t>({1, 3}, {2, 0, 1})}},
               {"GTScore", {MakeTensor<double>({1, 3}, scores)}}},
              {{"Loss", 1}, {"ObjectnessMask", 1}, {"GTMatchMask", 1}}, Attrs(1.0f, smooth));
    EXPECT_EQ(ToDoubles(r.outputs.at("GTMatchMask")[0]), std::vector<double>({0, -1, -1}));
    const std::vector<double> obj = ToDoubles(r.outputs.at("ObjectnessMask")[0]);
    for (size_t i = 0; i < obj.size(); ++i) {
      EXPECT_NEAR(obj[i], i == static_cast<size_t>(2 * kH + 1) ? 0.7 : 0.0, 1e-15) << i;
    }
    // At X = 0 every sigmoid cross-entropy is log 2 whatever its target.
    const double ln2 = std::log(2.0), s = 0.7, w = 0.3, h = 0.25;
    const double tw = std::log(w * 32 / 10), th = std::log(h * 32 / 8);
    const double location = (2 * ln2 + std::abs(tw) + std::abs(th)) * (2 - w * h) * s;
    const double classes = kClasses * ln2 * s;
    const double objectness = s * ln2 + (m * kH * kH - 1) * ln2;
    ExpectNear(ToDoubles(r.outputs.at("Loss")[0]), {location + classes + objectness}, 1e-12, 0,
               "Loss");
  }
}

TEST(Yolov3LossOp, PredictionsOverlappingABoxAreIgnored) {
  operators::RegisterAllOps();
  // At X = 0 the prediction of cell (k, l), mask anchor j, is centred at ((l + 0.5) / 4,
  // (k + 0.5) / 4) with the anchor's size: the box equal to mask anchor 0's prediction at
  // cell (1, 2) overlaps it fully; ignore_thresh 0.9 ignores that one (-1) and those
  // overlapping it more than 0.9 (none other).
  const int64_t m = 2;
  const std::vector<double> boxes = {2.5 / 4, 1.5 / 4, 10.0 / 32, 8.0 / 32};
  const OpRunResult r =
      RunOp("yolov3_loss",
            {{"X",
              {MakeTensor<double>({1, m * (5 + kClasses), kH, kH},
                                  std::vector<double>(m * (5 + kClasses) * kH * kH, 0))}},
             {"GTBox", {MakeTensor<double>({1, 1, 4}, boxes)}},
             {"GTLabel", {MakeTensor<int32_t>({1, 1}, {0})}}},
            {{"Loss", 1}, {"ObjectnessMask", 1}, {"GTMatchMask", 1}}, Attrs(0.9f, true));
  const std::vector<double> obj = ToDoubles(r.outputs.at("ObjectnessMask")[0]);
  // The box's own cell is its positive sample (score 1), which overrides the ignore.
  EXPECT_EQ(obj[1 * kH + 2], 1.0);
  int ignored = 0;
  for (double v : obj) ignored += v == -1;
  EXPECT_EQ(ignored, 0);
  // Without the positive (a box fitting anchor 0, outside the mask) the cell is ignored.
  const std::vector<double> small = {2.5 / 4, 1.5 / 4, 10.0 / 32, 8.0 / 32, 0.1, 0.1, 0.1, 0.15};
  const OpRunResult r2 =
      RunOp("yolov3_loss",
            {{"X",
              {MakeTensor<double>({1, m * (5 + kClasses), kH, kH},
                                  std::vector<double>(m * (5 + kClasses) * kH * kH, 0))}},
             {"GTBox", {MakeTensor<double>({1, 2, 4}, small)}},
             {"GTLabel", {MakeTensor<int32_t>({1, 2}, {0, 1})}}},
            {{"Loss", 1}, {"ObjectnessMask", 1}, {"GTMatchMask", 1}},
            {{"anchors", kAnchors},
             {"anchor_mask", std::vector<int>{0, 2}},
             {"class_num", kClasses},
             {"ignore_thresh", 0.25f},
             {"downsample_ratio", kDownsample}});
  EXPECT_EQ(ToDoubles(r2.outputs.at("GTMatchMask")[0]), std::vector<double>({-1, 0}));
  const std::vector<double> obj2 = ToDoubles(r2.outputs.at("ObjectnessMask")[0]);
  // Mask anchor 0 (anchor 0, 4 x 6) predicts at cell (1, 2) a box inside box 1 (IoU 24 / 80
  // = 0.3 > 0.25): ignored. Mask anchor 1 (anchor 2, 20 x 24) overlaps it by 80 / 480 at
  // most. Box 2 is the positive of mask anchor 0 at cell (0, 0).
  EXPECT_EQ(obj2[0 * kH * kH + 1 * kH + 2], -1.0);
  EXPECT_EQ(obj2[0 * kH * kH + 0 * kH + 0], 1.0);
  int ignored2 = 0;
  for (double v : obj2) ignored2 += v == -1;
  EXPECT_EQ(ignored2, 1);
}

TEST(Yolov3LossOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  const int64_t m = 2;
  // Two images; boxes on distinct cells; one padding box; scores (mixup).
  const std::vector<double> boxes = {0.4, 0.6, 0.3,  0.25, 0.1, 0.3, 0.6, 0.7, 0,   0,   0,   0,
                                     0.7, 0.2, 0.35, 0.3,  0.3, 0.8, 0.7, 0.6, 0.6, 0.6, 0.1, 0.1};
  for (bool smooth : {false, true}) {
    GradCheck check;
    check.op_type = "yolov3_loss";
    check.inputs = {
        {"X",
         {MakeTensor<double>({2, m * (5 + kClasses), kH, kH},
                             RandomValues(2 * m * (5 + kClasses) * kH * kH, -1.5, 1.5, 190))}},
        {"GTBox", {MakeTensor<double>({2, 3, 4}, boxes)}},
        {"GTLabel", {MakeTensor<int32_t>({2, 3}, {2, 0, 1, 1, 2, 0})}},
        {"GTScore", {MakeTensor<double>({2, 3}, {0.7, 1, 1, 0.9, 0.5, 1})}}};
    check.outputs = {{"Loss", 1}, {"ObjectnessMask", 1}, {"GTMatchMask", 1}};
    check.loss_outputs = {"Loss"};
    check.wrt = {"X"};
    check.attrs = Attrs(0.6f, smooth);
    check.attrs["scale_x_y"] = 1.1f;
    CheckGradients(check);
  }
}

TEST(Yolov3LossOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const auto run = [](const DDim& x, const std::vector<double>& box, const AttributeMap& attrs) {
    RunOp("yolov3_loss",
          {{"X", {MakeTensor<float>(x, std::vector<double>(x.numel(), 0))}},
           {"GTBox", {MakeTensor<float>({1, 1, 4}, box)}},
           {"GTLabel", {MakeTensor<int32_t>({1, 1}, {0})}}},
          {{"Loss", 1}, {"ObjectnessMask", 1}, {"GTMatchMask", 1}}, attrs);
  };
  const std::vector<double> box = {0.5, 0.5, 0.3, 0.3};
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 15, 4, 4}, box, Attrs(0.7f, true));
      },
      {"op `yolov3_loss` input `X`", "[N, 16", "[1, 15, 4, 4]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 16, 4, 5}, box, Attrs(0.7f, true));
      },
      {"op `yolov3_loss` input `X`", "H, H"});
  AttributeMap bad = Attrs(0.7f, true);
  bad["anchor_mask"] = std::vector<int>{1, 3};
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 16, 4, 4}, box, bad);
      },
      {"op `yolov3_loss` attribute `anchor_mask`", "[0, 3)", "3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 16, 4, 4}, {1.2, 0.5, 0.3, 0.25}, Attrs(0.7f, true));
      },
      {"op `yolov3_loss` input `GTBox`", "outside the image"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
