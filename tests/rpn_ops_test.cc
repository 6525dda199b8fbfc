// The region-proposal ops of two-stage detectors: anchor_generator against its closed form,
// generate_proposals_v2 on hand-worked images (decoding, clipping, the size filter, NMS,
// top-k, an image left empty, both pixel conventions), distribute_fpn_proposals on ROIs of
// known sizes (levels, LoD, restore index), collect_fpn_proposals (top-k by score, grouped by
// image); the errors. PaddlePaddle's own outputs are checked by the fixtures.
#include <cmath>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class RpnOps : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(RpnOps, AnchorGeneratorMatchesItsClosedForm) {
  const std::vector<float> sizes = {32, 64}, ratios = {0.5f, 2.0f};
  const double sw = 16, sh = 8, offset = 0.5;
  const auto r = RunOp("anchor_generator",
                       {{"Input", {MakeTensor<float>({1, 1, 2, 3}, RandomValues(6, 0, 1))}}},
                       {{"Anchors", 1}, {"Variances", 1}},
                       {{"anchor_sizes", sizes},
                        {"aspect_ratios", ratios},
                        {"stride", std::vector<float>{16, 8}},
                        {"offset", 0.5f},
                        {"variances", std::vector<float>{1, 2, 3, 4}}});
  std::vector<double> want, want_var;
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) {
      const double cx = x * sw + offset * (sw - 1), cy = y * sh + offset * (sh - 1);
      for (double ratio : ratios) {
        for (double size : sizes) {
          const double bw = std::round(std::sqrt(sw * sh / ratio)), bh = std::round(bw * ratio);
          const double w = size / sw * bw, h = size / sh * bh;
          for (double v :
               {cx - (w - 1) / 2, cy - (h - 1) / 2, cx + (w - 1) / 2, cy + (h - 1) / 2}) {
            want.push_back(v);
          }
          for (double v : {1, 2, 3, 4}) want_var.push_back(v);
        }
      }
    }
  }
  EXPECT_EQ(r.outputs.at("Anchors")[0].dims(), DDim({2, 3, 4, 4}));
  ExpectNear(ToDoubles(r.outputs.at("Anchors")[0]), want, 1e-6, 1e-5, "Anchors");
  EXPECT_EQ(ToDoubles(r.outputs.at("Variances")[0]), want_var);
  // The example of the op's doc: stride 16, offset 0.5, size 64, ratio 1.
  const auto one =
      RunOp("anchor_generator", {{"Input", {MakeTensor<float>({1, 1, 1, 1}, {0})}}},
            {{"Anchors", 1}, {"Variances", 1}},
            {{"anchor_sizes", std::vector<float>{64}}, {"aspect_ratios", std::vector<float>{1}}});
  EXPECT_EQ(ToDoubles(one.outputs.at("Anchors")[0]), (std::vector<double>{-24, -24, 39, 39}));
}

struct ProposalRun {
  std::vector<double> rois, probs, num;
  framework::LoD lod;
};

// One feature row of W cells with one anchor each: Scores [1, 1, 1, W], deltas [1, 4, 1, W].
ProposalRun Propose(const std::vector<double>& scores, const std::vector<double>& deltas,
                    const std::vector<double>& anchors, const std::vector<double>& im,
                    AttributeMap attrs) {
  const auto w = static_cast<int64_t>(scores.size());
  const auto r =
      RunOp("generate_proposals_v2",
            {{"Scores", {MakeTensor<double>({1, 1, 1, w}, scores)}},
             {"BboxDeltas", {MakeTensor<double>({1, 4, 1, w}, deltas)}},
             {"ImShape", {MakeTensor<double>({1, 2}, im)}},
             {"Anchors", {MakeTensor<double>({1, w, 1, 4}, anchors)}},
             {"Variances", {MakeTensor<double>({1, w, 1, 4}, std::vector<double>(4 * w, 1))}}},
            {{"RpnRois", 1}, {"RpnRoiProbs", 1}, {"RpnRoisNum", 1}}, attrs);
  return {ToDoubles(r.outputs.at("RpnRois")[0]), ToDoubles(r.outputs.at("RpnRoiProbs")[0]),
          ToDoubles(r.outputs.at("RpnRoisNum")[0]), r.outputs.at("RpnRois")[0].lod()};
}

TEST_F(RpnOps, GenerateProposalsDecodesClipsFiltersAndSuppresses) {
  // Anchors 0 and 1 overlap (IoU 0.81 with +1 pixel sizes), 2 is apart, 3 is 1 pixel wide.
  const std::vector<double> anchors = {0, 0, 9, 9, 1, 1, 9, 9, 20, 20, 29, 29, 40, 40, 40, 49};
  const std::vector<double> scores = {0.8, 0.9, 0.7, 0.95};
  std::vector<double> deltas(16, 0.0);  // Planar: dx of the 4 cells, then dy, dw, dh.
  AttributeMap attrs = {
      {"pre_nms_topN", 10}, {"post_nms_topN", 10}, {"nms_thresh", 0.7f}, {"min_size", 2.0f}};
  ProposalRun p = Propose(scores, deltas, anchors, {100, 100}, attrs);
  // Anchor 3 is below min_size; 1 beats 0 by score and suppresses it; then 2.
  EXPECT_EQ(p.rois, (std::vector<double>{1, 1, 9, 9, 20, 20, 29, 29}));
  EXPECT_EQ(p.probs, (std::vector<double>{0.9, 0.7}));
  EXPECT_EQ(p.num, (std::vector<double>{2}));
  EXPECT_EQ(p.lod, (framework::LoD{{0, 2}}));

  // Decoding: anchor 2 (10x10 pixels, centre 25) moved by dx = 0.5, scaled by e^dw, e^dh.
  deltas[2] = 0.5;
  deltas[10] = std::log(2.0);
  deltas[14] = std::log(0.5);
  p = Propose(scores, deltas, anchors, {100, 100}, attrs);
  ASSERT_EQ(p.num, (std::vector<double>{2}));
  ExpectNear({p.rois.begin() + 4, p.rois.end()}, {30 - 10, 25 - 2.5, 30 + 10 - 1, 25 + 2.5 - 1},
             1e-9, 1e-9, "decoded box");

  // Clipping to a 30x30 image: anchor 2 moved to centre 30.5 spans [25.5, 34.5], clipped to
  // x <= 29 (4.5 pixels wide, centre 27.75 inside the image).
  deltas.assign(16, 0.0);
  deltas[2] = 0.55;
  p = Propose(scores, deltas, anchors, {30, 30}, attrs);
  ExpectNear(p.rois, {1, 1, 9, 9, 25.5, 20, 29, 29}, 1e-9, 1e-9, "clipped");
  // Moved further (centre 35), it is clipped to 1 pixel and dropped by min_size 2.
  deltas[2] = 1.0;
  p = Propose(scores, deltas, anchors, {30, 30}, attrs);
  EXPECT_EQ(p.rois, (std::vector<double>{1, 1, 9, 9}));

  // post_nms_topN keeps the best; nms_thresh 0 skips NMS (boxes in score order).
  attrs["post_nms_topN"] = 1;
  p = Propose(scores, std::vector<double>(16, 0), anchors, {100, 100}, attrs);
  EXPECT_EQ(p.rois, (std::vector<double>{1, 1, 9, 9}));
  attrs["post_nms_topN"] = 10;
  attrs["nms_thresh"] = 0.0f;
  p = Propose(scores, std::vector<double>(16, 0), anchors, {100, 100}, attrs);
  EXPECT_EQ(p.probs, (std::vector<double>{0.9, 0.8, 0.7}));

  // Nothing left after the filter: one zero box with score 0.
  attrs["min_size"] = 50.0f;
  p = Propose(scores, std::vector<double>(16, 0), anchors, {100, 100}, attrs);
  EXPECT_EQ(p.rois, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(p.probs, (std::vector<double>{0}));
  EXPECT_EQ(p.num, (std::vector<double>{1}));

  // Without pixel_offset, sizes are x2 - x1: anchor 3 (width 0) is dropped by min_size 1 and
  // anchors 0 and 1 overlap by 64 / 81 = 0.79.
  attrs = {{"nms_thresh", 0.75f}, {"min_size", 1.0f}, {"pixel_offset", false}};
  p = Propose(scores, std::vector<double>(16, 0), anchors, {100, 100}, attrs);
  EXPECT_EQ(p.probs, (std::vector<double>{0.9, 0.7}));
  attrs["nms_thresh"] = 0.8f;
  p = Propose(scores, std::vector<double>(16, 0), anchors, {100, 100}, attrs);
  EXPECT_EQ(p.probs, (std::vector<double>{0.9, 0.8, 0.7}));
}

TEST_F(RpnOps, GenerateProposalsShapeErrors) {
  const auto run = [](const DDim& deltas) {
    RunOp("generate_proposals_v2",
          {{"Scores", {MakeTensor<float>({1, 2, 2, 2}, RandomValues(8, 0, 1))}},
           {"BboxDeltas", {MakeTensor<float>(deltas, RandomValues(deltas.numel(), 0, 1))}},
           {"ImShape", {MakeTensor<float>({1, 2}, {10, 10})}},
           {"Anchors", {MakeTensor<float>({2, 2, 2, 4}, RandomValues(32, 0, 1))}},
           {"Variances", {MakeTensor<float>({2, 2, 2, 4}, RandomValues(32, 0, 1))}}},
          {{"RpnRois", 1}, {"RpnRoiProbs", 1}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 4, 2, 2});
      },
      {"op `generate_proposals_v2` input `BboxDeltas`", "[1, 8, 2, 2]", "[1, 4, 2, 2]"});
}

TEST_F(RpnOps, DistributeFpnProposalsByRoiSize) {
  // Side lengths (with +1 pixel) 224, 112, 56, 448, 1000 and 2: levels 4, 3, 2, 5, 5 (clamped)
  // and 2 (clamped) for refer_level 4 at refer_scale 224.
  const std::vector<double> rois = {0, 0, 223, 223, 0, 0, 111, 111, 10, 10, 65, 65,
                                    0, 0, 447, 447, 0, 0, 999, 999, 5,  5,  6,  6};
  const auto r =
      RunOp("distribute_fpn_proposals",
            {{"FpnRois", {MakeTensor<float>({6, 4}, rois)}},
             {"RoisNum", {MakeTensor<int32_t>({2}, {2, 4})}}},
            {{"MultiFpnRois", 4}, {"RestoreIndex", 1}, {"MultiLevelRoIsNum", 4}},
            {{"min_level", 2}, {"max_level", 5}, {"refer_level", 4}, {"refer_scale", 224}});
  const auto& levels = r.outputs.at("MultiFpnRois");
  const auto row = [&](int i) {
    return std::vector<double>(rois.begin() + 4 * i, rois.begin() + 4 * i + 4);
  };
  const auto cat = [](std::vector<std::vector<double>> parts) {
    std::vector<double> out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  };
  EXPECT_EQ(ToDoubles(levels[0]), cat({row(2), row(5)}));  // Level 2: image 1's two.
  EXPECT_EQ(ToDoubles(levels[1]), cat({row(1)}));
  EXPECT_EQ(ToDoubles(levels[2]), cat({row(0)}));
  EXPECT_EQ(ToDoubles(levels[3]), cat({row(3), row(4)}));
  EXPECT_EQ(levels[0].lod(), (framework::LoD{{0, 0, 2}}));
  EXPECT_EQ(levels[2].lod(), (framework::LoD{{0, 1, 1}}));
  // The concatenation is rows 2, 5, 1, 0, 3, 4: RestoreIndex[i] is row i's place there.
  EXPECT_EQ(ToDoubles(r.outputs.at("RestoreIndex")[0]), (std::vector<double>{3, 2, 0, 4, 5, 1}));
  EXPECT_EQ(ToDoubles(r.outputs.at("MultiLevelRoIsNum")[0]), (std::vector<double>{0, 2}));
  EXPECT_EQ(ToDoubles(r.outputs.at("MultiLevelRoIsNum")[3]), (std::vector<double>{0, 2}));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("distribute_fpn_proposals", {{"FpnRois", {MakeTensor<float>({6, 4}, rois)}}},
              {{"MultiFpnRois", 4}, {"RestoreIndex", 1}},
              {{"min_level", 2}, {"max_level", 5}, {"refer_level", 4}, {"refer_scale", 224}});
      },
      {"op `distribute_fpn_proposals` input `FpnRois`", "RoisNum or a LoD"});
}

TEST_F(RpnOps, CollectFpnProposalsKeepsTheBestGroupedByImage) {
  // Level 0: image 0 has a, image 1 has b; level 1: image 0 has c, image 1 has d and e.
  const auto r = RunOp(
      "collect_fpn_proposals",
      {{"MultiLevelRois",
        {MakeTensor<float>({2, 4}, {0, 0, 1, 1, 1, 1, 2, 2}),
         MakeTensor<float>({3, 4}, {2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5})}},
       {"MultiLevelScores",
        {MakeTensor<float>({2, 1}, {0.5, 0.9}), MakeTensor<float>({3, 1}, {0.7, 0.1, 0.8})}},
       {"MultiLevelRoIsNum", {MakeTensor<int32_t>({2}, {1, 1}), MakeTensor<int32_t>({2}, {1, 2})}}},
      {{"FpnRois", 1}, {"RoisNum", 1}}, {{"post_nms_topN", 3}});
  // The best three are b (0.9), e (0.8), c (0.7); image 0 first: c, then b, e.
  EXPECT_EQ(ToDoubles(r.outputs.at("FpnRois")[0]),
            (std::vector<double>{2, 2, 3, 3, 1, 1, 2, 2, 4, 4, 5, 5}));
  EXPECT_EQ(ToDoubles(r.outputs.at("RoisNum")[0]), (std::vector<double>{1, 2}));
  EXPECT_EQ(r.outputs.at("FpnRois")[0].lod(), (framework::LoD{{0, 1, 3}}));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
