// frame and overlap_add against loops over the definitions (written here), both time axes, a
// hop larger than the frame (gaps) and samples past the last frame; overlap_add(frame(x)) = x
// times each sample's frame count; gradients by finite differences; typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(FrameOp, FramesOfTheSignalOnEitherAxis) {
  operators::RegisterAllOps();
  // [2, 17] framed by 5 every 3 samples along the last axis: 5 frames, samples 15 and 16 left.
  const std::vector<double> x = RandomValues(34, -1, 1, 71);
  std::vector<double> want;
  for (int64_t o = 0; o < 2; ++o) {
    for (int64_t j = 0; j < 5; ++j) {
      for (int64_t i = 0; i < 5; ++i) want.push_back(x[o * 17 + i * 3 + j]);
    }
  }
  const AttributeMap attrs = {{"frame_length", 5}, {"hop_length", 3}, {"axis", -1}};
  for (const bool dbl : {false, true}) {
    const DenseTensor xt = dbl ? MakeTensor<double>({2, 17}, x) : MakeTensor<float>({2, 17}, x);
    const DenseTensor out = RunOp("frame", {{"X", {xt}}}, {{"Out", 1}}, attrs).outputs.at("Out")[0];
    ASSERT_EQ(out.dims(), DDim({2, 5, 5}));
    ExpectNear(ToDoubles(out), want, 1e-7, 1e-7, "frame axis -1");
  }
  // [11, 2] along axis 0 by 4 every 2: frames [4, 4, 2].
  const std::vector<double> y = RandomValues(22, -1, 1, 72);
  std::vector<double> want0;
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      for (int64_t r = 0; r < 2; ++r) want0.push_back(y[(i * 2 + j) * 2 + r]);
    }
  }
  const DenseTensor out0 = RunOp("frame", {{"X", {MakeTensor<double>({11, 2}, y)}}}, {{"Out", 1}},
                                 {{"frame_length", 4}, {"hop_length", 2}, {"axis", 0}})
                               .outputs.at("Out")[0];
  ASSERT_EQ(out0.dims(), DDim({4, 4, 2}));
  EXPECT_EQ(ToDoubles(out0), want0);
  for (const int axis : {-1, 0}) {
    GradCheck check;
    check.op_type = "frame";
    check.inputs = {{"X", {MakeTensor<double>(axis == -1 ? DDim{2, 17} : DDim{17, 2}, x)}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"frame_length", 5}, {"hop_length", 3}, {"axis", axis}};
    CheckGradients(check);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("frame", {{"X", {MakeTensor<double>({2, 17}, x)}}}, {{"Out", 1}},
              {{"frame_length", 18}, {"hop_length", 3}});
      },
      {"op `frame` attribute `frame_length`", "[1, 17]", "received 18"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("frame", {{"X", {MakeTensor<double>({2, 17}, x)}}}, {{"Out", 1}},
              {{"frame_length", 4}, {"hop_length", 3}, {"axis", 1}});
      },
      {"op `frame` attribute `axis`", "0 or -1", "received 1"});
}

TEST(OverlapAddOp, SumsTheFramesBack) {
  operators::RegisterAllOps();
  struct Case {
    int64_t frame, frames, hop;
  };
  // Overlapping frames, frames that just touch, and gaps between frames.
  for (const Case& c : {Case{5, 4, 3}, Case{3, 4, 3}, Case{2, 5, 4}}) {
    const int64_t seq = (c.frames - 1) * c.hop + c.frame;
    const std::vector<double> x = RandomValues(2 * c.frame * c.frames, -1, 1, 73);
    std::vector<double> want(static_cast<size_t>(2 * seq), 0.0);
    for (int64_t o = 0; o < 2; ++o) {
      for (int64_t j = 0; j < c.frame; ++j) {
        for (int64_t i = 0; i < c.frames; ++i) {
          want[o * seq + i * c.hop + j] += x[(o * c.frame + j) * c.frames + i];
        }
      }
    }
    const AttributeMap attrs = {{"hop_length", static_cast<int>(c.hop)}};
    const DenseTensor out =
        RunOp("overlap_add", {{"X", {MakeTensor<double>({2, c.frame, c.frames}, x)}}}, {{"Out", 1}},
              attrs)
            .outputs.at("Out")[0];
    ASSERT_EQ(out.dims(), DDim({2, seq}));
    ExpectNear(ToDoubles(out), want, 1e-12, 1e-12, "overlap_add");
    GradCheck check;
    check.op_type = "overlap_add";
    check.inputs = {{"X", {MakeTensor<double>({2, c.frame, c.frames}, x)}}};
    check.outputs = {{"Out", 1}};
    check.attrs = attrs;
    CheckGradients(check);
  }
  // axis 0 inverts frame's axis 0 up to each sample's frame count.
  const std::vector<double> y = RandomValues(24, -1, 1, 74);  // [12, 2]
  const AttributeMap frame0 = {{"frame_length", 4}, {"hop_length", 2}, {"axis", 0}};
  const DenseTensor frames =
      RunOp("frame", {{"X", {MakeTensor<double>({12, 2}, y)}}}, {{"Out", 1}}, frame0)
          .outputs.at("Out")[0];
  const DenseTensor back =
      RunOp("overlap_add", {{"X", {frames}}}, {{"Out", 1}}, {{"hop_length", 2}, {"axis", 0}})
          .outputs.at("Out")[0];
  ASSERT_EQ(back.dims(), DDim({12, 2}));
  const std::vector<double> got = ToDoubles(back);
  for (int64_t t = 0; t < 12; ++t) {
    const double count = t < 2 || t >= 10 ? 1 : 2;  // Frames start at 0, 2, 4, 6, 8.
    for (int64_t r = 0; r < 2; ++r) EXPECT_NEAR(got[t * 2 + r], count * y[t * 2 + r], 1e-12);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("overlap_add", {{"X", {MakeTensor<double>({24}, y)}}}, {{"Out", 1}},
              {{"hop_length", 2}});
      },
      {"op `overlap_add` input `X`", "rank >= 2", "[24]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
