// roi_align against a reference written here (bin averages of bilinear samples, the bilinear
// value as a sum of tent functions over every pixel after PaddlePaddle's clamping), with ROIs
// per image from RoisNum and from a LoD, aligned and not, fixed and adaptive sampling; the
// gradient against finite differences; the errors.
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "roi_align";

double Bilinear(const std::vector<double>& map, int64_t h, int64_t w, double y, double x) {
  if (y < -1 || y > h || x < -1 || x > w) return 0;
  y = std::min(std::max(y, 0.0), static_cast<double>(h - 1));
  x = std::min(std::max(x, 0.0), static_cast<double>(w - 1));
  double v = 0;
  for (int64_t q = 0; q < h; ++q) {
    for (int64_t p = 0; p < w; ++p) {
      v += std::max(0.0, 1 - std::abs(y - q)) * std::max(0.0, 1 - std::abs(x - p)) * map[q * w + p];
    }
  }
  return v;
}

struct Attrs {
  float scale;
  int ph, pw, ratio;
  bool aligned;
};

std::vector<double> Reference(const std::vector<double>& x, int64_t c, int64_t h, int64_t w,
                              const std::vector<double>& rois, const std::vector<int>& image_of,
                              const Attrs& a) {
  std::vector<double> out;
  for (size_t r = 0; r < image_of.size(); ++r) {
    const double off = a.aligned ? 0.5 : 0;
    const double x1 = rois[r * 4] * a.scale - off, y1 = rois[r * 4 + 1] * a.scale - off;
    double rw = rois[r * 4 + 2] * a.scale - off - x1, rh = rois[r * 4 + 3] * a.scale - off - y1;
    if (!a.aligned) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const int gh = a.ratio > 0 ? a.ratio : static_cast<int>(std::ceil(rh / a.ph));
    const int gw = a.ratio > 0 ? a.ratio : static_cast<int>(std::ceil(rw / a.pw));
    for (int64_t ch = 0; ch < c; ++ch) {
      const std::vector<double> map(x.begin() + (image_of[r] * c + ch) * h * w,
                                    x.begin() + (image_of[r] * c + ch + 1) * h * w);
      for (int i = 0; i < a.ph; ++i) {
        for (int j = 0; j < a.pw; ++j) {
          double sum = 0;
          for (int u = 0; u < gh; ++u) {
            for (int v = 0; v < gw; ++v) {
              sum += Bilinear(map, h, w, y1 + (i + (u + 0.5) / gh) * rh / a.ph,
                              x1 + (j + (v + 0.5) / gw) * rw / a.pw);
            }
          }
          out.push_back(sum / std::max(gh * gw, 1));
        }
      }
    }
  }
  return out;
}

TEST(RoiAlignOp, MatchesTheReference) {
  operators::RegisterAllOps();
  const int64_t n = 2, c = 3, h = 6, w = 7;
  const auto x = RandomValues(n * c * h * w, -1, 1, 41);
  // Image coordinates (spatial_scale 0.5 maps them onto the 6x7 map); some reach past it.
  const std::vector<double> rois = {0, 0, 8, 6, 2.5, 3,   13.5, 11, -3, -2,
                                    4, 5, 6, 1, 7,   1.5, 1,    1,  15, 14};
  const std::vector<int> image_of = {0, 0, 1, 1, 1};
  for (const Attrs& a : {Attrs{0.5f, 2, 3, 2, false}, Attrs{0.5f, 3, 2, -1, false},
                         Attrs{0.5f, 2, 2, 0, true}, Attrs{0.25f, 1, 4, 3, true}}) {
    SCOPED_TRACE(std::to_string(a.ph) + "x" + std::to_string(a.pw) + " ratio " +
                 std::to_string(a.ratio) + (a.aligned ? " aligned" : ""));
    const auto want = Reference(x, c, h, w, rois, image_of, a);
    for (bool lod : {false, true}) {
      DenseTensor r = MakeTensor<double>({5, 4}, rois);
      SlotTensors in = {{"X", {MakeTensor<double>({n, c, h, w}, x)}}};
      if (lod) {
        r.set_lod({{0, 2, 5}});
      } else {
        in["RoisNum"] = {MakeTensor<int32_t>({2}, {2, 3})};
      }
      in["ROIs"] = {r};
      const OpRunResult out = RunOp(kOp, in, {{"Out", 1}},
                                    {{"spatial_scale", a.scale},
                                     {"pooled_height", a.ph},
                                     {"pooled_width", a.pw},
                                     {"sampling_ratio", a.ratio},
                                     {"aligned", a.aligned}});
      EXPECT_EQ(out.outputs.at("Out")[0].dims(), DDim({5, c, a.ph, a.pw}));
      ExpectNear(ToDoubles(out.outputs.at("Out")[0]), want, 1e-12, 1e-12, kOp);
    }
  }
}

TEST(RoiAlignOp, GradientMatchesFiniteDifferences) {
  operators::RegisterAllOps();
  for (bool aligned : {false, true}) {
    GradCheck check;
    check.op_type = kOp;
    check.inputs = {{"X", {MakeTensor<double>({2, 2, 5, 5}, RandomValues(100, -1, 1, 42))}},
                    {"ROIs",
                     {MakeTensor<double>(
                         {3, 4}, {0.3, 0.6, 3.1, 4.2, 1.2, 0.4, 4.4, 2.9, -0.7, 1.1, 2.2, 5.6})}},
                    {"RoisNum", {MakeTensor<int32_t>({2}, {1, 2})}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {
        {"pooled_height", 2}, {"pooled_width", 3}, {"sampling_ratio", 2}, {"aligned", aligned}};
    check.wrt = {"X"};
    CheckGradients(check);
  }
}

TEST(RoiAlignOp, BadInputsAreErrors) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2, 1, 4, 4}, RandomValues(32, -1, 1));
  const DenseTensor rois = MakeTensor<float>({3, 4}, RandomValues(12, 0, 3));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp(kOp, {{"X", {x}}, {"ROIs", {rois}}}, {{"Out", 1}});
      },
      {"op `roi_align` input `ROIs`", "needs the image row counts", "RoisNum"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp(kOp, {{"X", {x}}, {"ROIs", {rois}}, {"RoisNum", {MakeTensor<int32_t>({2}, {1, 1})}}},
              {{"Out", 1}});
      },
      {"op `roi_align`", "add up to 2", "3 rows of `ROIs`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp(kOp,
              {{"X", {x}}, {"ROIs", {rois}}, {"RoisNum", {MakeTensor<int32_t>({3}, {1, 1, 1})}}},
              {{"Out", 1}});
      },
      {"op `roi_align`", "3 images", "X holds 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp(kOp, {{"X", {x}}, {"ROIs", {MakeTensor<float>({3, 5}, RandomValues(15, 0, 3))}}},
              {{"Out", 1}});
      },
      {"op `roi_align` input `ROIs`", "[R, 4]", "[3, 5]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
