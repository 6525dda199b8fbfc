// temporal_shift against the formula written here (frames read at t - 1, t + 1 or t by
// channel band, zeros past the clip's ends), NCHW and NHWC, several ratios, float and
// double; gradients by finite differences; typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "temporal_shift";

// x as [N T, C, H W] (NCHW) or [N T, H W, C] (NHWC).
std::vector<double> NaiveShift(const std::vector<double>& x, int64_t clips, int64_t frames,
                               int64_t c, int64_t pixels, double ratio, bool nhwc) {
  const auto c1 = static_cast<int64_t>(static_cast<float>(c) * static_cast<float>(ratio));
  const auto c2 = static_cast<int64_t>(static_cast<float>(c) * 2 * static_cast<float>(ratio));
  auto at = [&](int64_t frame, int64_t ch, int64_t p) {
    return nhwc ? (frame * pixels + p) * c + ch : (frame * c + ch) * pixels + p;
  };
  std::vector<double> out(x.size());
  for (int64_t n = 0; n < clips; ++n) {
    for (int64_t t = 0; t < frames; ++t) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const int64_t src = ch < c1 ? t - 1 : (ch < c2 ? t + 1 : t);
        for (int64_t p = 0; p < pixels; ++p) {
          out[at(n * frames + t, ch, p)] =
              src < 0 || src >= frames ? 0.0 : x[at(n * frames + src, ch, p)];
        }
      }
    }
  }
  return out;
}

TEST(TemporalShiftOp, MatchesTheFormula) {
  operators::RegisterAllOps();
  const int64_t clips = 2, frames = 3, c = 8, h = 2, w = 3;
  const std::vector<double> x = RandomValues(clips * frames * c * h * w, -1, 1, 3);
  for (bool nhwc : {false, true}) {
    for (float ratio : {0.25f, 0.125f, 0.5f, 0.2f, 0.0f}) {
      SCOPED_TRACE(std::string(nhwc ? "NHWC" : "NCHW") + " ratio " + std::to_string(ratio));
      const DDim dims = nhwc ? DDim{clips * frames, h, w, c} : DDim{clips * frames, c, h, w};
      const AttributeMap attrs = {{"seg_num", static_cast<int>(frames)},
                                  {"shift_ratio", ratio},
                                  {"data_format", std::string(nhwc ? "NHWC" : "NCHW")}};
      const std::vector<double> want = NaiveShift(x, clips, frames, c, h * w, ratio, nhwc);
      const auto d = RunOp(kOp, {{"X", {MakeTensor<double>(dims, x)}}}, {{"Out", 1}}, attrs);
      EXPECT_EQ(d.outputs.at("Out")[0].dims(), dims);
      ExpectNear(ToDoubles(d.outputs.at("Out")[0]), want, 0, 0, "double");
      const auto f = RunOp(kOp, {{"X", {MakeTensor<float>(dims, x)}}}, {{"Out", 1}}, attrs);
      ExpectNear(ToDoubles(f.outputs.at("Out")[0]),
                 ToDoubles(MakeTensor<float>(DDim{static_cast<int64_t>(want.size())}, want)), 0,
                 0, "float");
    }
  }
}

TEST(TemporalShiftOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const char* format : {"NCHW", "NHWC"}) {
    SCOPED_TRACE(format);
    GradCheck check;
    check.op_type = kOp;
    check.inputs = {{"X", {MakeTensor<double>({6, 4, 2, 2}, RandomValues(96, -1, 1, 5))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"seg_num", 3}, {"shift_ratio", 0.25f}, {"data_format", std::string(format)}};
    CheckGradients(check);
  }
}

TEST(TemporalShiftOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({5, 4, 2, 2}, RandomValues(80, -1, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp(kOp, {{"X", {x}}}, {{"Out", 1}}, {{"seg_num", 2}}); },
      {"op `temporal_shift` input `X`", "multiple of seg_num 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp(kOp, {{"X", {x}}}, {{"Out", 1}}, {{"seg_num", 5}, {"shift_ratio", 0.7f}}); },
      {"op `temporal_shift` attribute `shift_ratio`", "0.7"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp(kOp, {{"X", {MakeTensor<float>({5, 4}, RandomValues(20, -1, 1))}}}, {{"Out", 1}},
              {{"seg_num", 5}});
      },
      {"op `temporal_shift` input `X`", "rank 4"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
