// Detection ops: closed-form cases worked by hand (one prior cell, density priors, a
// three-box NMS, one YOLO cell), the box coder's decode inverting its encode (up to
// PaddlePaddle's half-pixel shift), and error messages. PaddlePaddle's own outputs on many
// attribute combinations and on BlazeFace / PP-YOLO are checked by the fixture test.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "framework/data_transform.h"
#include "operators/detection/bbox_util.h"
#include "operators/op_family.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class DetectionOps : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(DetectionOps, PriorBoxOfOneCellByHand) {
  // Image 100x200 (h x w), one 1x1 cell: steps 200 and 100, centre (100, 50).
  const auto r = RunOp("prior_box",
                       {{"Input", {MakeTensor<double>({1, 1, 1, 1}, {0})}},
                        {"Image", {MakeTensor<double>({1, 1, 100, 200}, std::vector<double>(20000))}}},
                       {{"Boxes", 1}, {"Variances", 1}},
                       {{"min_sizes", std::vector<float>{20}},
                        {"max_sizes", std::vector<float>{80}},
                        {"aspect_ratios", std::vector<float>{4}}});
  const double s = std::sqrt(20.0 * 80.0) / 2;  // 20.
  // Ratios 1 and 4: half sizes (10, 10) and (20, 5); then the sqrt(min*max) square.
  const std::vector<double> want = {90 / 200.0, 40 / 100.0, 110 / 200.0, 60 / 100.0,
                                    80 / 200.0, 45 / 100.0, 120 / 200.0, 55 / 100.0,
                                    (100 - s) / 200, (50 - s) / 100, (100 + s) / 200,
                                    (50 + s) / 100};
  EXPECT_EQ(r.outputs.at("Boxes")[0].dims(), DDim({1, 1, 3, 4}));
  ExpectNear(ToDoubles(r.outputs.at("Boxes")[0]), want, 1e-12, 1e-12, "prior_box");
  ExpectNear(ToDoubles(r.outputs.at("Variances")[0]),
             {0.1, 0.1, 0.2, 0.2, 0.1, 0.1, 0.2, 0.2, 0.1, 0.1, 0.2, 0.2}, 1e-7, 0, "variances");
}

// Image 64x64, one cell: steps 64, centre (32, 32). Size 32 with density 2 puts a 2x2 grid
// of centres 32 apart at 16 and 48; size 16 with density 1 one centre at 32. Ratio 4 gives
// boxes twice as wide and half as high; coordinates outside the image are bounded to [0, 1].
TEST_F(DetectionOps, DensityPriorBoxOfOneCellByHand) {
  const auto run = [](bool flatten) {
    return RunOp("density_prior_box",
                 {{"Input", {MakeTensor<double>({1, 1, 1, 1}, {0})}},
                  {"Image", {MakeTensor<double>({1, 1, 64, 64}, std::vector<double>(64 * 64))}}},
                 {{"Boxes", 1}, {"Variances", 1}},
                 {{"fixed_sizes", std::vector<float>{32, 16}},
                  {"fixed_ratios", std::vector<float>{1, 4}},
                  {"densities", std::vector<int>{2, 1}},
                  {"variances", std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f}},
                  {"flatten_to_2d", flatten}});
  };
  const std::vector<double> want = {
      // size 32, ratio 1: 32x32 boxes around (16, 16), (48, 16), (16, 48), (48, 48).
      0, 0, .5, .5, .5, 0, 1, .5, 0, .5, .5, 1, .5, .5, 1, 1,
      // size 32, ratio 4: 64x16 boxes around the same centres.
      0, .125, .75, .375, .25, .125, 1, .375, 0, .625, .75, .875, .25, .625, 1, .875,
      // size 16, density 1: around (32, 32), 16x16 then 32x8.
      24 / 64., 24 / 64., 40 / 64., 40 / 64., 16 / 64., 28 / 64., 48 / 64., 36 / 64.};
  const auto r = run(false);
  EXPECT_EQ(r.outputs.at("Boxes")[0].dims(), DDim({1, 1, 10, 4}));
  ExpectNear(ToDoubles(r.outputs.at("Boxes")[0]), want, 1e-12, 1e-12, "density_prior_box");
  std::vector<double> vars;
  for (int i = 0; i < 10; ++i) vars.insert(vars.end(), {0.1, 0.2, 0.3, 0.4});
  ExpectNear(ToDoubles(r.outputs.at("Variances")[0]), vars, 1e-7, 0, "variances");
  const auto flat = run(true);
  EXPECT_EQ(flat.outputs.at("Boxes")[0].dims(), DDim({10, 4}));
  EXPECT_EQ(flat.outputs.at("Variances")[0].dims(), DDim({10, 4}));
  ExpectNear(ToDoubles(flat.outputs.at("Boxes")[0]), want, 1e-12, 1e-12, "flattened");
}

// Steps 50 / 3 and 15 average to 15 (rounded down), and density 2 shifts by 7 (integer
// division): the centres of cell (1, 2) are 15 / 2 - 7 / 2 = 4 left and up of
// ((2 + .5) 50 / 3, (1 + .5) 15), then 7 apart.
TEST_F(DetectionOps, DensityPriorBoxRoundsTheStepsAsPaddlePaddleDoes) {
  const auto r = RunOp("density_prior_box",
                       {{"Input", {MakeTensor<double>({1, 1, 2, 3}, std::vector<double>(6))}},
                        {"Image", {MakeTensor<double>({1, 1, 30, 50}, std::vector<double>(1500))}}},
                       {{"Boxes", 1}, {"Variances", 1}},
                       {{"fixed_sizes", std::vector<float>{4}},
                        {"fixed_ratios", std::vector<float>{1}},
                        {"densities", std::vector<int>{2}},
                        {"variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f}}});
  const DenseTensor& boxes = r.outputs.at("Boxes")[0];
  ASSERT_EQ(boxes.dims(), DDim({2, 3, 4, 4}));
  const std::vector<double> all = ToDoubles(boxes);
  const double cx = 2.5 * 50 / 3 - 4, cy = 1.5 * 15 - 4;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const double x = cx + 7 * j, y = cy + 7 * i;
      const std::vector<double> want = {(x - 2) / 50, (y - 2) / 30, (x + 2) / 50, (y + 2) / 30};
      const size_t at = ((1 * 3 + 2) * 4 + (i * 2 + j)) * 4;
      ExpectNear(std::vector<double>(all.begin() + at, all.begin() + at + 4), want, 1e-12, 1e-12,
                 "cell (1, 2)");
    }
  }
}

// Input and Image are read only for their shapes (no-need-buffer), so an Image of another
// dtype is not cast, as on a GPU neither input is moved to the device.
TEST_F(DetectionOps, PriorBoxOpsTransformNoInput) {
  for (const std::string type : {"prior_box", "density_prior_box"}) {
    const AttributeMap attrs =
        type == "prior_box"
            ? AttributeMap{{"min_sizes", std::vector<float>{8}}}
            : AttributeMap{{"fixed_sizes", std::vector<float>{8}},
                           {"fixed_ratios", std::vector<float>{1}},
                           {"densities", std::vector<int>{1}},
                           {"variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f}}};
    const int64_t before = framework::DataTransformCount();
    const auto r = RunOp(type,
                         {{"Input", {MakeTensor<double>({1, 1, 2, 2}, std::vector<double>(4))}},
                          {"Image", {MakeTensor<float>({1, 1, 16, 16}, std::vector<double>(256))}}},
                         {{"Boxes", 1}, {"Variances", 1}}, attrs);
    EXPECT_EQ(framework::DataTransformCount() - before, 0) << type;
    EXPECT_EQ(r.outputs.at("Boxes")[0].dtype(), DataType::FLOAT64) << type;
  }
}

TEST_F(DetectionOps, BoxCoderDecodeInvertsEncodeUpToThePixelConvention) {
  const DenseTensor prior = MakeTensor<double>({2, 4}, {0, 0, 10, 20, 5, 5, 8, 9});
  const DenseTensor target = MakeTensor<double>({3, 4}, {1, 2, 6, 9, 0, 0, 3, 3, 2, 4, 12, 7});
  for (bool normalized : {true, false}) {
    const AttributeMap enc = {{"code_type", std::string("encode_center_size")},
                              {"box_normalized", normalized},
                              {"variance", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f}}};
    AttributeMap dec = enc;
    dec["code_type"] = std::string("decode_center_size");
    const DenseTensor code =
        RunOp("box_coder", {{"PriorBox", {prior}}, {"TargetBox", {target}}}, {{"OutputBox", 1}},
              enc)
            .outputs.at("OutputBox")[0];
    ASSERT_EQ(code.dims(), DDim({3, 2, 4}));
    const DenseTensor back =
        RunOp("box_coder", {{"PriorBox", {prior}}, {"TargetBox", {code}}}, {{"OutputBox", 1}},
              dec)
            .outputs.at("OutputBox")[0];
    // In pixels PaddlePaddle encodes the centre as (x_min + x_max) / 2 but the width with
    // +1, so decoding gives every coordinate back shifted by -0.5.
    const double shift = normalized ? 0.0 : -0.5;
    std::vector<double> want;
    const std::vector<double> t = ToDoubles(target);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j)
        for (int c = 0; c < 4; ++c) want.push_back(t[4 * i + c] + shift);
    ExpectNear(ToDoubles(back), want, 1e-12, 1e-12, normalized ? "normalized" : "pixels");
  }
}

TEST_F(DetectionOps, NmsKeepsTheBestOfOverlappingBoxesByHand) {
  // One image, two classes (0 = background), three boxes: box 1 lies inside box 0 with IoU
  // 81 / 100 > 0.5 and scores lower, so it is suppressed; box 2 stands apart.
  const DenseTensor boxes =
      MakeTensor<float>({1, 3, 4}, {0, 0, 10, 10, 1, 1, 10, 10, 20, 20, 30, 30});
  const DenseTensor scores = MakeTensor<float>({1, 2, 3}, {0.9, 0.9, 0.9, 0.8, 0.7, 0.6});
  const auto r = RunOp("multiclass_nms3", {{"BBoxes", {boxes}}, {"Scores", {scores}}},
                       {{"Out", 1}, {"Index", 1}, {"NmsRoisNum", 1}},
                       {{"score_threshold", 0.5f}, {"nms_top_k", -1}, {"keep_top_k", -1},
                        {"nms_threshold", 0.5f}, {"background_label", 0}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]),
             {1, 0.8, 0, 0, 10, 10, 1, 0.6, 20, 20, 30, 30}, 1e-6, 0, "Out");
  ExpectNear(ToDoubles(r.outputs.at("Index")[0]), {0, 2}, 0, 0, "Index");
  ExpectNear(ToDoubles(r.outputs.at("NmsRoisNum")[0]), {2}, 0, 0, "NmsRoisNum");
}

// GreedyNms tests kept boxes a block at a time without branches; a plain loop that stops at
// the first suppressing box, over JaccardOverlap, must keep the same boxes: many boxes (more
// than one block kept), both pixel conventions, eta < 1, a negative threshold (where boxes
// that do not meet suppress too), and boxes of no area whose IoU is 0 / 0 (NaN), which
// suppresses in PaddlePaddle's multiclass NMS (`keep = IoU <= threshold`) and not in its `nms`
// op (`suppress = IoU > threshold`).
TEST_F(DetectionOps, GreedyNmsMatchesOnePairAtATime) {
  const int64_t n = 400;
  std::vector<double> raw = RandomValues(n * 4, 0, 100, 21);
  std::vector<float> boxes(n * 4);
  for (int64_t i = 0; i < n; ++i) {
    const double x = raw[i * 4], y = raw[i * 4 + 1];
    // Every seventh box a vertical segment on one of a few lines: such boxes meet with no area.
    const bool line = i % 7 == 0;
    const double w = line ? 0 : raw[i * 4 + 2] / 5, h = raw[i * 4 + 3] / 5;
    boxes[i * 4] = static_cast<float>(line ? 10 * (i % 3) : x);
    boxes[i * 4 + 1] = static_cast<float>(y);
    boxes[i * 4 + 2] = static_cast<float>(line ? 10 * (i % 3) : x + w);
    boxes[i * 4 + 3] = static_cast<float>(y + h);
  }
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = (i * 37) % n;
  auto box_of = [&](int64_t i) { return boxes.data() + i * 4; };
  std::vector<int64_t> kept_when_nan_suppresses;
  for (bool normalized : {false, true}) {
    for (const auto& [threshold, eta] : std::vector<std::pair<float, float>>{
             {0.3f, 1.0f}, {0.7f, 1.0f}, {0.9f, 0.9f}, {0.0f, 1.0f}, {-0.1f, 1.0f}}) {
      for (const auto nan : {operators::NanIoU::kSuppresses, operators::NanIoU::kKeeps}) {
        std::vector<int64_t> want;
        float t = threshold;
        int nan_pairs = 0;
        for (int64_t cand : order) {
          bool keep = true;
          for (int64_t k : want) {
            const float iou = operators::JaccardOverlap(box_of(cand), box_of(k), normalized);
            nan_pairs += std::isnan(iou);
            if (nan == operators::NanIoU::kSuppresses ? !(iou <= t) : iou > t) {
              keep = false;
              break;
            }
          }
          if (!keep) continue;
          want.push_back(cand);
          if (eta < 1 && t > 0.5f) t *= eta;
        }
        EXPECT_EQ(operators::GreedyNms(order, box_of, threshold, eta, normalized, nan), want)
            << "threshold " << threshold << " eta " << eta << (normalized ? " normalized" : "")
            << (nan == operators::NanIoU::kSuppresses ? " NaN suppresses" : " NaN keeps");
        if (normalized && threshold == 0.3f) {
          EXPECT_GT(nan_pairs, 0);  // The case is exercised, and the two rules keep other boxes.
          if (nan == operators::NanIoU::kSuppresses) {
            kept_when_nan_suppresses = want;
          } else {
            EXPECT_NE(want, kept_when_nan_suppresses);
          }
        }
        if (threshold == 0.7f && !normalized) {
          EXPECT_GT(want.size(), 64u);  // Several blocks.
        }
      }
    }
  }
}

TEST_F(DetectionOps, YoloBoxOfOneCellByHand) {
  // One anchor (8, 16), one class, a 1x1 grid with downsample 32, image 64x128 (h x w):
  // all logits 0 -> sigma = 0.5, box centre (0.5 * 128, 0.5 * 64), size (8 * 128 / 32,
  // 16 * 64 / 32) = (32, 32), confidence 0.5, score 0.25.
  const auto r = RunOp("yolo_box",
                       {{"X", {MakeTensor<double>({1, 6, 1, 1}, std::vector<double>(6, 0.0))}},
                        {"ImgSize", {MakeTensor<int32_t>({1, 2}, {64, 128})}}},
                       {{"Boxes", 1}, {"Scores", 1}},
                       {{"anchors", std::vector<int>{8, 16}}, {"class_num", 1},
                        {"downsample_ratio", 32}, {"conf_thresh", 0.1f}});
  ExpectNear(ToDoubles(r.outputs.at("Boxes")[0]), {48, 16, 80, 48}, 1e-12, 1e-12, "Boxes");
  ExpectNear(ToDoubles(r.outputs.at("Scores")[0]), {0.25}, 1e-12, 0, "Scores");
}

TEST_F(DetectionOps, RetinanetDetectionOutputByHand) {
  // Two levels, one image (height 40, width 30, scale 2: clipped to 20 x 15), two classes.
  // Level 0: anchor [0, 0, 9, 9] (w = h = 10, centre 5): zero deltas give [0, 0, 9, 9] / 2;
  // anchor [1, 1, 10, 10] with dx = 0.1, dw = ln 2 gives centre 7, width 20: [-3, 1, 16, 10]
  // / 2 = [-1.5, 0.5, 8, 5], x clipped to [0, 14]. Level 1 (the last: threshold 0): anchor
  // [20, 20, 29, 29], zero deltas -> [10, 10, 14.5, 14.5], x clipped to 14 (y limit 19).
  const double ln2 = std::log(2.0);
  const DenseTensor d0 = MakeTensor<double>({1, 2, 4}, {0, 0, 0, 0, 0.1, 0, ln2, 0});
  const DenseTensor s0 = MakeTensor<double>({1, 2, 2}, {0.9, 0.2, 0.8, 0.05});
  const DenseTensor a0 = MakeTensor<double>({2, 4}, {0, 0, 9, 9, 1, 1, 10, 10});
  const DenseTensor d1 = MakeTensor<double>({1, 1, 4}, {0, 0, 0, 0});
  const DenseTensor s1 = MakeTensor<double>({1, 1, 2}, {0.1, 0.15});
  const DenseTensor a1 = MakeTensor<double>({1, 4}, {20, 20, 29, 29});
  const DenseTensor info = MakeTensor<double>({1, 3}, {40, 30, 2});
  auto run = [&](float nms_threshold, int keep_top_k) {
    const auto r = RunOp(
        "retinanet_detection_output",
        {{"BBoxes", {d0, d1}}, {"Scores", {s0, s1}}, {"Anchors", {a0, a1}}, {"ImInfo", {info}}},
        {{"Out", 1}},
        {{"score_threshold", 0.3f},
         {"nms_top_k", 10},
         {"nms_threshold", nms_threshold},
         {"nms_eta", 1.0f},
         {"keep_top_k", keep_top_k}});
    return r.outputs.at("Out")[0];
  };
  // Class 0 (label 1): boxes [0, 0, 4.5, 4.5] (0.9) and [0, 0.5, 8, 5] (0.8) overlap with
  // IoU (5.5 * 5) / (5.5 * 5.5 + 9 * 5.5 - 5.5 * 5) = 27.5 / 52.25 = 0.526;
  // level 1 gives [10, 10, 14, 14.5] for both classes (0.1 and 0.15). 0.2 and 0.05 of
  // level 0 are below the threshold.
  const std::vector<double> a = {1, 0.9, 0, 0, 4.5, 4.5};
  const std::vector<double> b = {1, 0.8, 0, 0.5, 8, 5};
  const std::vector<double> c2 = {2, 0.15, 10, 10, 14, 14.5};
  const std::vector<double> c1 = {1, 0.1, 10, 10, 14, 14.5};
  auto rows = [](std::initializer_list<std::vector<double>> rs) {
    std::vector<double> all;
    for (const auto& r : rs) all.insert(all.end(), r.begin(), r.end());
    return all;
  };
  DenseTensor out = run(0.7f, 10);  // nothing suppressed
  ExpectNear(ToDoubles(out), rows({a, b, c2, c1}), 1e-12, 1e-12, "threshold 0.7");
  EXPECT_EQ(out.lod(), (framework::LoD{{0, 4}}));
  out = run(0.5f, 10);  // b suppressed by a
  ExpectNear(ToDoubles(out), rows({a, c2, c1}), 1e-12, 1e-12, "threshold 0.5");
  out = run(0.5f, 2);
  ExpectNear(ToDoubles(out), rows({a, c2}), 1e-12, 1e-12, "keep_top_k 2");
  EXPECT_EQ(out.dims(), DDim({2, 6}));
}

TEST_F(DetectionOps, PolygonBoxTransformAddsThePixelGrid) {
  std::vector<double> in = RandomValues(2 * 4 * 2 * 3, -5, 5, 9), want;
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 4; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 3; ++w)
          want.push_back((c % 2 == 0 ? 4 * w : 4 * h) - in[((n * 4 + c) * 2 + h) * 3 + w]);
  const auto r = RunOp("polygon_box_transform", {{"Input", {MakeTensor<float>({2, 4, 2, 3}, in)}}},
                       {{"Output", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Output")[0]), want, 1e-6, 1e-6, "Output");
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("polygon_box_transform", {{"Input", {MakeTensor<float>({1, 3, 1, 1}, {0, 0, 0})}}},
              {{"Output", 1}});
      },
      {"op `polygon_box_transform` input `Input`", "even", "[1, 3, 1, 1]"});
}

TEST_F(DetectionOps, BadInputsNameWhatIsWrong) {
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("yolo_box",
              {{"X", {MakeTensor<double>({1, 7, 1, 1}, std::vector<double>(7, 0.0))}},
               {"ImgSize", {MakeTensor<int32_t>({1, 2}, {64, 64})}}},
              {{"Boxes", 1}, {"Scores", 1}},
              {{"anchors", std::vector<int>{8, 16}}, {"class_num", 1}});
      },
      {"op `yolo_box` input `X`", "expected 6 channels", "[1, 7, 1, 1]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("multiclass_nms3",
              {{"BBoxes", {MakeTensor<float>({1, 2, 4}, std::vector<double>(8, 0.0))}},
               {"Scores", {MakeTensor<float>({1, 2, 3}, std::vector<double>(6, 0.0))}}},
              {{"Out", 1}, {"Index", 1}},
              {{"score_threshold", 0.5f}, {"nms_top_k", -1}, {"keep_top_k", -1}});
      },
      {"op `multiclass_nms3` inputs `BBoxes` [1, 2, 4] and `Scores` [1, 2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("prior_box",
              {{"Input", {MakeTensor<double>({1, 1, 1, 1}, {0})}},
               {"Image", {MakeTensor<double>({1, 1, 2, 2}, {0, 0, 0, 0})}}},
              {{"Boxes", 1}, {"Variances", 1}},
              {{"min_sizes", std::vector<float>{20}}, {"max_sizes", std::vector<float>{10}}});
      },
      {"op `prior_box` attribute `max_sizes`", "(10) > its min size (20)"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("density_prior_box",
              {{"Input", {MakeTensor<double>({1, 1, 1, 1}, {0})}},
               {"Image", {MakeTensor<double>({1, 1, 2, 2}, {0, 0, 0, 0})}}},
              {{"Boxes", 1}, {"Variances", 1}},
              {{"fixed_sizes", std::vector<float>{4, 8}},
               {"fixed_ratios", std::vector<float>{1}},
               {"densities", std::vector<int>{1}},
               {"variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f}}});
      },
      {"op `density_prior_box` attribute `densities`", "one per fixed size (2), received 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("box_coder",
              {{"PriorBox", {MakeTensor<double>({2, 4}, std::vector<double>(8, 1.0))}},
               {"TargetBox", {MakeTensor<double>({3, 4, 4}, std::vector<double>(48, 0.0))}}},
              {{"OutputBox", 1}}, {{"code_type", std::string("decode_center_size")}});
      },
      {"op `box_coder` input `TargetBox`", "expected dim 1 to equal the 2 priors"});
}

// Two boxes of class 1 with IoU 1/3: the second's score decays by (1 - 1/3) / (1 - 0)
// (linear) or exp((0 - 1/9) * sigma) (gaussian); class 0 is the background.
TEST_F(DetectionOps, MatrixNmsDecaysScoresByHand) {
  const DenseTensor boxes = MakeTensor<float>(DDim{1, 2, 4}, {0, 0, 2, 2, 1, 0, 3, 2});
  const DenseTensor scores = MakeTensor<float>(DDim{1, 2, 2}, {0.95, 0.9, 0.9, 0.8});
  for (bool gaussian : {false, true}) {
    for (float post : {0.0f, 0.6f}) {
      SCOPED_TRACE(std::string(gaussian ? "gaussian" : "linear") + " post " + std::to_string(post));
      auto r = RunOp("matrix_nms", {{"BBoxes", {boxes}}, {"Scores", {scores}}},
                     {{"Out", 1}, {"Index", 1}, {"RoisNum", 1}},
                     {{"score_threshold", 0.1f}, {"post_threshold", post}, {"nms_top_k", -1},
                      {"keep_top_k", -1}, {"use_gaussian", gaussian}, {"gaussian_sigma", 2.0f}});
      const double decayed = gaussian ? 0.8 * std::exp(-2.0 / 9) : 0.8 * 2.0 / 3;
      std::vector<double> want = {1, 0.9, 0, 0, 2, 2};
      std::vector<double> want_index = {0};
      if (decayed > post) {
        want.insert(want.end(), {1, decayed, 1, 0, 3, 2});
        want_index.push_back(1);
      }
      ExpectNear(ToDoubles(r.outputs["Out"][0]), want, 1e-6, 1e-6, "Out");
      EXPECT_EQ(ToDoubles(r.outputs["Index"][0]), want_index);
      EXPECT_EQ(ToDoubles(r.outputs["RoisNum"][0]),
                std::vector<double>{static_cast<double>(want_index.size())});
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("matrix_nms", {{"BBoxes", {boxes}}, {"Scores", {MakeTensor<float>(DDim{1, 2, 3}, std::vector<double>(6, 0.5))}}},
              {{"Out", 1}, {"Index", 1}},
              {{"score_threshold", 0.1f}, {"nms_top_k", -1}, {"keep_top_k", -1}});
      },
      {"matrix_nms", "BBoxes", "[1, 2, 4]", "[1, 2, 3]"});
}

// box_clip: two images of different sizes and scales, boxes reaching past every side; the
// LoD says which boxes are whose; one image needs no LoD; a LoD for another count is refused.
TEST_F(DetectionOps, BoxClipKeepsEachBoxInsideItsImage) {
  DenseTensor boxes =
      MakeTensor<float>(DDim{3, 4}, {-5, 3, 120, 40, 10, -2, 30, 90, -1, -1, 300, 300});
  boxes.set_lod({{0, 2, 3}});
  // Image 0: 60 x 100 at scale 1; image 1: 100 x 50 at scale 0.4 (250 x 125 after rounding).
  const DenseTensor info = MakeTensor<float>(DDim{2, 3}, {60, 100, 1, 100, 50, 0.4});
  auto r = RunOp("box_clip", {{"Input", {boxes}}, {"ImInfo", {info}}}, {{"Output", 1}});
  EXPECT_EQ(ToDoubles(r.outputs["Output"][0]),
            (std::vector<double>{0, 3, 99, 40, 10, 0, 30, 59, 0, 0, 124, 249}));
  EXPECT_EQ(r.outputs["Output"][0].lod(), boxes.lod());
  r = RunOp("box_clip",
            {{"Input", {MakeTensor<double>(DDim{1, 2, 4}, {-3, 5, 70, 70, 1, 1, 2, 2})}},
             {"ImInfo", {MakeTensor<double>(DDim{1, 3}, {50, 60, 1})}}},
            {{"Output", 1}});
  EXPECT_EQ(ToDoubles(r.outputs["Output"][0]), (std::vector<double>{0, 5, 59, 49, 1, 1, 2, 2}));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("box_clip",
              {{"Input", {boxes}},
               {"ImInfo", {MakeTensor<float>(DDim{3, 3}, std::vector<double>(9, 1))}}},
              {{"Output", 1}});
      },
      {"op `box_clip`", "2 images", "ImInfo 3"});
}

// keep_top_k K keeps K rows of what keep_top_k -1 keeps, those of the K best scores (the op
// stops decaying a class once no candidate can enter the K best): many overlapping boxes, four
// classes, scores on a coarse grid so that they tie, both decay functions, with nms_top_k or
// not. Which of equal scores are kept and in what order is PaddlePaddle's (a partial sort;
// the fixtures matrix_nms_ties* hold its own outputs), so rows are compared as sets here.
TEST_F(DetectionOps, MatrixNmsKeepTopKKeepsTheBestRowsOfTheFullResult) {
  const int64_t boxes_n = 60, classes = 4;
  std::vector<double> corners = RandomValues(boxes_n * 4, 0, 50, 21);
  for (int64_t i = 0; i < boxes_n; ++i) {  // x0 < x1, y0 < y1.
    corners[i * 4 + 2] = corners[i * 4] + 5 + std::fmod(corners[i * 4 + 2], 20);
    corners[i * 4 + 3] = corners[i * 4 + 1] + 5 + std::fmod(corners[i * 4 + 3], 20);
  }
  std::vector<double> scores = RandomValues(2 * classes * boxes_n, 0, 1, 22);
  for (double& v : scores) v = std::round(v * 20) / 20;
  const DenseTensor boxes = MakeTensor<float>(DDim{2, boxes_n, 4},
                                              [&] {
                                                std::vector<double> two = corners;
                                                two.insert(two.end(), corners.rbegin(),
                                                           corners.rend());
                                                return two;
                                              }());
  const DenseTensor score_t = MakeTensor<float>(DDim{2, classes, boxes_n}, scores);
  for (bool gaussian : {false, true}) {
    for (int nms_top_k : {-1, 25}) {
      const auto run = [&](int keep_top_k) {
        return RunOp("matrix_nms", {{"BBoxes", {boxes}}, {"Scores", {score_t}}},
                     {{"Out", 1}, {"Index", 1}, {"RoisNum", 1}},
                     {{"score_threshold", 0.1f}, {"post_threshold", 0.05f},
                      {"nms_top_k", nms_top_k}, {"keep_top_k", keep_top_k},
                      {"use_gaussian", gaussian}, {"gaussian_sigma", 2.0f},
                      {"background_label", 0}, {"normalized", false}});
      };
      auto all = run(-1);
      const std::vector<double> rows = ToDoubles(all.outputs["Out"][0]);
      const std::vector<double> index = ToDoubles(all.outputs["Index"][0]);
      const std::vector<double> per_image = ToDoubles(all.outputs["RoisNum"][0]);
      ASSERT_GT(per_image[0], 30);
      for (int k : {0, 1, 7, 30, 1000}) {
        SCOPED_TRACE(std::string(gaussian ? "gaussian" : "linear") + " nms_top_k " +
                     std::to_string(nms_top_k) + " keep_top_k " + std::to_string(k));
        auto top = run(k);
        const std::vector<double> top_rows = ToDoubles(top.outputs["Out"][0]);
        const std::vector<double> top_index = ToDoubles(top.outputs["Index"][0]);
        std::vector<double> want_counts;
        size_t first = 0, top_first = 0;
        for (double count : per_image) {
          const size_t take = std::min(static_cast<size_t>(count), static_cast<size_t>(k));
          want_counts.push_back(static_cast<double>(take));
          // The image's full rows as (index, row) entries; each kept row must be one of them.
          std::multiset<std::vector<double>> full;
          std::vector<double> full_scores;
          for (size_t r = first; r < first + static_cast<size_t>(count); ++r) {
            std::vector<double> entry = {index[r]};
            entry.insert(entry.end(), rows.begin() + r * 6, rows.begin() + (r + 1) * 6);
            full.insert(entry);
            full_scores.push_back(rows[r * 6 + 1]);
          }
          std::vector<double> kept_scores;
          for (size_t r = top_first; r < top_first + take && r < top_index.size(); ++r) {
            std::vector<double> entry = {top_index[r]};
            entry.insert(entry.end(), top_rows.begin() + r * 6, top_rows.begin() + (r + 1) * 6);
            const auto it = full.find(entry);
            ASSERT_NE(it, full.end()) << "kept row " << r << " is not a row of the full result";
            full.erase(it);
            kept_scores.push_back(top_rows[r * 6 + 1]);
          }
          // Best first, and the K best scores of the full result.
          EXPECT_TRUE(std::is_sorted(kept_scores.rbegin(), kept_scores.rend()));
          std::sort(full_scores.rbegin(), full_scores.rend());
          full_scores.resize(take);
          EXPECT_EQ(kept_scores, full_scores);
          first += static_cast<size_t>(count);
          top_first += take;
        }
        EXPECT_EQ(ToDoubles(top.outputs["RoisNum"][0]), want_counts);
        EXPECT_EQ(top_index.size(), top_first);
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
