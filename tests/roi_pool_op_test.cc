// roi_pool against a max over the bins written out here (PaddlePaddle's rounding of the ROI
// corners and bin edges), ROIs of two images by RoisNum and by LoD, a ROI partly outside the
// map and one whose bins are empty; Argmax; gradients by finite differences; errors.
// psroi_pool likewise against averages over its bins written out here, each read from its own
// channel.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "roi_pool";
constexpr int64_t kC = 2, kH = 6, kW = 7;

struct Pooled {
  std::vector<double> out, argmax;
};

Pooled NaivePool(const std::vector<double>& x, const std::vector<double>& rois,
                 const std::vector<int64_t>& image, int ph, int pw, float scale) {
  Pooled p;
  for (size_t r = 0; r < image.size(); ++r) {
    const auto sw = static_cast<int64_t>(std::round(static_cast<float>(rois[r * 4]) * scale));
    const auto sh = static_cast<int64_t>(std::round(static_cast<float>(rois[r * 4 + 1]) * scale));
    const auto ew = static_cast<int64_t>(std::round(static_cast<float>(rois[r * 4 + 2]) * scale));
    const auto eh = static_cast<int64_t>(std::round(static_cast<float>(rois[r * 4 + 3]) * scale));
    const float bh = static_cast<float>(std::max<int64_t>(eh - sh + 1, 1)) / static_cast<float>(ph);
    const float bw = static_cast<float>(std::max<int64_t>(ew - sw + 1, 1)) / static_cast<float>(pw);
    for (int64_t c = 0; c < kC; ++c) {
      for (int i = 0; i < ph; ++i) {
        for (int j = 0; j < pw; ++j) {
          const int64_t h0 =
              std::clamp<int64_t>(static_cast<int64_t>(std::floor(i * bh)) + sh, 0, kH);
          const int64_t h1 =
              std::clamp<int64_t>(static_cast<int64_t>(std::ceil((i + 1) * bh)) + sh, 0, kH);
          const int64_t w0 =
              std::clamp<int64_t>(static_cast<int64_t>(std::floor(j * bw)) + sw, 0, kW);
          const int64_t w1 =
              std::clamp<int64_t>(static_cast<int64_t>(std::ceil((j + 1) * bw)) + sw, 0, kW);
          double best = -std::numeric_limits<double>::infinity();
          double where = -1;
          for (int64_t y = h0; y < h1; ++y) {
            for (int64_t xx = w0; xx < w1; ++xx) {
              const double v = x[((image[r] * kC + c) * kH + y) * kW + xx];
              if (v > best) {
                best = v;
                where = static_cast<double>(y * kW + xx);
              }
            }
          }
          p.out.push_back(where < 0 ? 0.0 : best);
          p.argmax.push_back(where);
        }
      }
    }
  }
  return p;
}

const std::vector<double> kRois = {0, 0, 6, 5, 2.4, 1.6, 11.2, 9.8, -4, -3, 3, 2, 13, 11, 20, 18};
const std::vector<int64_t> kImage = {0, 0, 1, 1};

TEST(RoiPoolOp, MaxOfEachBin) {
  operators::RegisterAllOps();
  const std::vector<double> x = RandomValues(2 * kC * kH * kW, -1, 1, 3);
  for (bool by_lod : {false, true}) {
    SCOPED_TRACE(by_lod ? "LoD" : "RoisNum");
    DenseTensor rois = MakeTensor<float>({4, 4}, kRois);
    SlotTensors in = {{"X", {MakeTensor<float>({2, kC, kH, kW}, x)}}};
    if (by_lod) {
      rois.set_lod({{0, 2, 4}});
    } else {
      in["RoisNum"] = {MakeTensor<int32_t>({2}, {2, 2})};
    }
    in["ROIs"] = {rois};
    const auto r = RunOp(kOp, in, {{"Out", 1}, {"Argmax", 1}},
                         {{"pooled_height", 2}, {"pooled_width", 3}, {"spatial_scale", 0.5f}});
    const Pooled want =
        NaivePool(ToDoubles(MakeTensor<float>({168}, x)), kRois, kImage, 2, 3, 0.5f);
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({4, kC, 2, 3}));
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want.out);
    EXPECT_EQ(ToDoubles(r.outputs.at("Argmax")[0]), want.argmax);
  }
}

TEST(RoiPoolOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = kOp;
  // Distinct values, so that each maximum stays put under the finite differences' steps.
  std::vector<double> x(2 * kC * kH * kW);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(1.7 * static_cast<double>(i)) * 3;
  check.inputs = {{"X", {MakeTensor<double>({2, kC, kH, kW}, x)}},
                  {"ROIs", {MakeTensor<double>({4, 4}, kRois)}},
                  {"RoisNum", {MakeTensor<int32_t>({2}, {2, 2})}}};
  check.outputs = {{"Out", 1}, {"Argmax", 1}};
  check.loss_outputs = {"Out"};
  check.wrt = {"X"};
  check.attrs = {{"pooled_height", 2}, {"pooled_width", 2}, {"spatial_scale", 0.5f}};
  CheckGradients(check);
}

TEST(RoiPoolOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2, kC, kH, kW}, RandomValues(2 * kC * kH * kW, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp(kOp,
              {{"X", {x}},
               {"ROIs", {MakeTensor<float>({4, 4}, kRois)}},
               {"RoisNum", {MakeTensor<int32_t>({3}, {2, 1, 1})}}},
              {{"Out", 1}}, {{"pooled_height", 2}, {"pooled_width", 2}});
      },
      {"op `roi_pool`", "3 images", "X holds 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp(kOp, {{"X", {x}}, {"ROIs", {MakeTensor<float>({2, 3}, RandomValues(6, 0, 1))}}},
              {{"Out", 1}}, {{"pooled_height", 2}, {"pooled_width", 2}});
      },
      {"op `roi_pool` input `ROIs`", "[R, 4]", "[2, 3]"});
}

// psroi_pool's averages, written out in double: ROI corners rounded, then scaled; bins of
// max(size, 0.1) / p cells from floor(i bin + start) to ceil((i + 1) bin + start), clipped.
std::vector<double> NaivePsPool(const std::vector<double>& x, int64_t channels,
                                const std::vector<double>& rois, const std::vector<int64_t>& image,
                                int64_t oc, int64_t ph, int64_t pw, double scale) {
  std::vector<double> out;
  for (size_t r = 0; r < image.size(); ++r) {
    const double x0 = std::round(rois[r * 4]) * scale, y0 = std::round(rois[r * 4 + 1]) * scale;
    const double x1 = (std::round(rois[r * 4 + 2]) + 1) * scale;
    const double y1 = (std::round(rois[r * 4 + 3]) + 1) * scale;
    const double bh = std::max(y1 - y0, 0.1) / ph, bw = std::max(x1 - x0, 0.1) / pw;
    for (int64_t c = 0; c < oc; ++c) {
      for (int64_t i = 0; i < ph; ++i) {
        for (int64_t j = 0; j < pw; ++j) {
          auto clip = [](double v, int64_t hi) {
            return std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(v), 0), hi);
          };
          const int64_t h0 = clip(std::floor(i * bh + y0), kH),
                        h1 = clip(std::ceil((i + 1) * bh + y0), kH);
          const int64_t w0 = clip(std::floor(j * bw + x0), kW),
                        w1 = clip(std::ceil((j + 1) * bw + x0), kW);
          const int64_t k = (c * ph + i) * pw + j;
          double sum = 0;
          for (int64_t y = h0; y < h1; ++y) {
            for (int64_t xx = w0; xx < w1; ++xx)
              sum += x[((image[r] * channels + k) * kH + y) * kW + xx];
          }
          out.push_back(h1 <= h0 || w1 <= w0 ? 0.0
                                             : sum / static_cast<double>((h1 - h0) * (w1 - w0)));
        }
      }
    }
  }
  return out;
}

TEST(PsroiPoolOp, AverageOfEachBinFromItsOwnChannel) {
  operators::RegisterAllOps();
  constexpr int64_t kOc = 2, kPh = 2, kPw = 3, kChannels = kOc * kPh * kPw;
  const std::vector<double> x = RandomValues(2 * kChannels * kH * kW, -1, 1, 9);
  const AttributeMap attrs = {
      {"pooled_height", 2}, {"pooled_width", 3}, {"output_channels", 2}, {"spatial_scale", 0.5f}};
  const std::vector<double> want = NaivePsPool(x, kChannels, kRois, kImage, kOc, kPh, kPw, 0.5);
  for (bool by_lod : {false, true}) {
    SCOPED_TRACE(by_lod ? "LoD" : "RoisNum");
    DenseTensor rois = MakeTensor<float>({4, 4}, kRois);
    SlotTensors in = {{"X", {MakeTensor<float>({2, kChannels, kH, kW}, x)}}};
    if (by_lod) {
      rois.set_lod({{0, 2, 4}});
    } else {
      in["RoisNum"] = {MakeTensor<int32_t>({2}, {2, 2})};
    }
    in["ROIs"] = {rois};
    const auto r = RunOp("psroi_pool", in, {{"Out", 1}}, attrs);
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({4, kOc, kPh, kPw}));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-5, 1e-6, "psroi_pool");
  }
  GradCheck check;
  check.op_type = "psroi_pool";
  check.inputs = {{"X", {MakeTensor<double>({2, kChannels, kH, kW}, x)}},
                  {"ROIs", {MakeTensor<double>({4, 4}, kRois)}},
                  {"RoisNum", {MakeTensor<int32_t>({2}, {2, 2})}}};
  check.outputs = {{"Out", 1}};
  check.wrt = {"X"};
  check.attrs = attrs;
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("psroi_pool",
              {{"X", {MakeTensor<float>({2, 5, kH, kW}, RandomValues(2 * 5 * kH * kW, 0, 1))}},
               {"ROIs", {MakeTensor<float>({4, 4}, kRois)}},
               {"RoisNum", {MakeTensor<int32_t>({2}, {2, 2})}}},
              {{"Out", 1}}, attrs);
      },
      {"op `psroi_pool` input `X`", "2 x 2 x 3 = 12", "received 5"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
