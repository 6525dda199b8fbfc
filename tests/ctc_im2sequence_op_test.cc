// ctc_align (LoD and padded, merging or not, an all-empty result) against alignments written
// by hand, and im2sequence against patches cut by hand (paddings, strides, real sizes), with
// its gradient by finite differences; typed errors.
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LoD;

TEST(CtcAlignOp, MergesRepeatsAndDropsBlanks) {
  operators::RegisterAllOps();
  DenseTensor x = MakeTensor<int32_t>({8, 1}, {0, 1, 1, 0, 2, 2, 0, 1});
  x.set_lod({{0, 8}});
  auto r = RunOp("ctc_align", {{"Input", {x}}}, {{"Output", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Output")[0]), (std::vector<double>{1, 2, 1}));
  EXPECT_EQ(r.outputs.at("Output")[0].lod(), (LoD{{0, 3}}));
  r = RunOp("ctc_align", {{"Input", {x}}}, {{"Output", 1}},
            {{"merge_repeated", false}, {"blank", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Output")[0]), (std::vector<double>{0, 0, 2, 2, 0}));
  // Padded rows with lengths; what is past a row's length is ignored.
  const DenseTensor padded = MakeTensor<int64_t>({2, 5}, {2, 2, 0, 3, 3, 0, 0, 4, 4, 9});
  r = RunOp("ctc_align",
            {{"Input", {padded}}, {"InputLength", {MakeTensor<int64_t>({2, 1}, {5, 3})}}},
            {{"Output", 1}, {"OutputLength", 1}}, {{"padding_value", -1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Output")[0]),
            (std::vector<double>{2, 3, -1, -1, -1, 4, -1, -1, -1, -1}));
  EXPECT_EQ(ToDoubles(r.outputs.at("OutputLength")[0]), (std::vector<double>{2, 1}));
  // Every sequence empty: [[-1]], as PaddlePaddle gives.
  DenseTensor blanks = MakeTensor<int64_t>({3, 1}, {0, 0, 0});
  blanks.set_lod({{0, 1, 3}});
  r = RunOp("ctc_align", {{"Input", {blanks}}}, {{"Output", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Output")[0]), (std::vector<double>{-1}));
}

TEST(CtcAlignOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("ctc_align", {{"Input", {MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4})}}},
              {{"Output", 1}});
      },
      {"op `ctc_align` input `InputLength`", "required"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("ctc_align",
              {{"Input", {MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4})}},
               {"InputLength", {MakeTensor<int64_t>({2, 1}, {1, 3})}}},
              {{"Output", 1}, {"OutputLength", 1}});
      },
      {"op `ctc_align` input `InputLength`", "value 3", "[0, 2]"});
}

// Patches of a [c, h, w] image: rows (i, j), columns (ch, a, b), zeros outside.
std::vector<double> NaivePatches(const std::vector<double>& img, int c, int h, int w, int kh,
                                 int kw, int sh, int sw, int up, int left, int oh, int ow) {
  std::vector<double> out;
  for (int i = 0; i < oh; ++i) {
    for (int j = 0; j < ow; ++j) {
      for (int ch = 0; ch < c; ++ch) {
        for (int a = 0; a < kh; ++a) {
          for (int b = 0; b < kw; ++b) {
            const int y = i * sh - up + a, x = j * sw - left + b;
            out.push_back(y >= 0 && y < h && x >= 0 && x < w ? img[(ch * h + y) * w + x] : 0.0);
          }
        }
      }
    }
  }
  return out;
}

TEST(Im2SequenceOp, CutsPatchesByHand) {
  operators::RegisterAllOps();
  auto ex = RunOp("im2sequence", {{"X", {MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})}}},
                  {{"Out", 1}}, {{"kernels", std::vector<int>{1, 2}}});
  EXPECT_EQ(ToDoubles(ex.outputs.at("Out")[0]), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(ex.outputs.at("Out")[0].lod(), (LoD{{0, 2}}));
  const std::vector<double> x = RandomValues(2 * 2 * 5 * 6, -1, 1, 3);
  // kernels [2, 3], strides [2, 1], paddings [up 1, left 0, down 1, right 2]: 3 x 6 patches.
  const auto r = RunOp("im2sequence", {{"X", {MakeTensor<double>({2, 2, 5, 6}, x)}}}, {{"Out", 1}},
                       {{"kernels", std::vector<int>{2, 3}},
                        {"strides", std::vector<int>{2, 1}},
                        {"paddings", std::vector<int>{1, 0, 1, 2}}});
  std::vector<double> want;
  for (int n = 0; n < 2; ++n) {
    const std::vector<double> img(x.begin() + n * 60, x.begin() + (n + 1) * 60);
    const std::vector<double> p = NaivePatches(img, 2, 5, 6, 2, 3, 2, 1, 1, 0, 3, 6);
    want.insert(want.end(), p.begin(), p.end());
  }
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({36, 12}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 18, 36}}));
  // Real sizes [7, 9] and [4, 12] over out_stride [2, 2]: 4 x 5 and 2 x 6 patches of 1x1.
  const std::vector<double> y = RandomValues(2 * 6 * 8, -1, 1, 4);
  const auto s = RunOp(
      "im2sequence",
      {{"X", {MakeTensor<double>({2, 1, 6, 8}, y)}},
       {"Y", {MakeTensor<double>({2, 2}, {7, 9, 4, 12})}}},
      {{"Out", 1}}, {{"kernels", std::vector<int>{1, 1}}, {"out_stride", std::vector<int>{2, 2}}});
  EXPECT_EQ(s.outputs.at("Out")[0].lod(), (LoD{{0, 20, 32}}));
  std::vector<double> top_left =
      NaivePatches({y.begin(), y.begin() + 48}, 1, 6, 8, 1, 1, 1, 1, 0, 0, 4, 5);
  const std::vector<double> second =
      NaivePatches({y.begin() + 48, y.end()}, 1, 6, 8, 1, 1, 1, 1, 0, 0, 2, 6);
  top_left.insert(top_left.end(), second.begin(), second.end());
  EXPECT_EQ(ToDoubles(s.outputs.at("Out")[0]), top_left);
}

TEST(Im2SequenceOp, GradientMatchesFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "im2sequence";
  check.inputs = {{"X", {MakeTensor<double>({2, 2, 4, 3}, RandomValues(48, -1, 1, 5))}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"kernels", std::vector<int>{2, 2}},
                 {"strides", std::vector<int>{1, 2}},
                 {"paddings", std::vector<int>{1, 1, 0, 1}}};  // Overlapping patches.
  CheckGradients(check);
}

TEST(Im2SequenceOp, BadAttributesAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("im2sequence",
              {{"X", {MakeTensor<float>({2, 1, 2, 2}, RandomValues(8, 0, 1))}},
               {"Y", {MakeTensor<float>({2, 2}, {2, 2, std::nan(""), 1})}}},
              {{"Out", 1}}, {{"kernels", std::vector<int>{1, 1}}});
      },
      {"op `im2sequence` input `Y`", "image 1", "nan"});
  const DenseTensor x = MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("im2sequence", {{"X", {x}}}, {{"Out", 1}}, {{"kernels", std::vector<int>{3, 1}}});
      },
      {"op `im2sequence` attribute `kernels`", "larger than X's padded image"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("im2sequence", {{"X", {x}}}, {{"Out", 1}},
              {{"kernels", std::vector<int>{1, 1}}, {"paddings", std::vector<int>{0, 0}}});
      },
      {"op `im2sequence` attribute `paddings`", "4 values"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
