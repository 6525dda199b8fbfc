// nearest, linear, bilinear, bicubic and trilinear _interp(_v2) on 3-, 4- and 5-D images:
// closed-form results (pixel and voxel blocks; a linear ramp, which linear sampling reproduces
// exactly at the sampled coordinates), every way of giving the size, channels last, float and
// double, the 1.x ratio rule, gradients against finite differences, and error messages.
// PaddlePaddle's own outputs are checked by the fixture test (tests/fixtures/ops/*interp*).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class Interpolate : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

DenseTensor Out(const OpRunResult& r) { return r.outputs.at("Out")[0]; }

// X[n, c, y, x] = 1 + 10 c + 3 y + 0.5 x (NCHW) for the ramp tests.
double Ramp(int64_t c, double y, double x) { return 1 + 10 * c + 3 * y + 0.5 * x; }

DenseTensor RampTensor(int64_t n, int64_t c, int64_t h, int64_t w, bool nhwc) {
  std::vector<double> v;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < (nhwc ? h : c); ++i)
      for (int64_t j = 0; j < (nhwc ? w : h); ++j)
        for (int64_t k = 0; k < (nhwc ? c : w); ++k)
          v.push_back(nhwc ? Ramp(k, i, j) : Ramp(i, j, k));
  return MakeTensor<double>(nhwc ? DDim{n, h, w, c} : DDim{n, c, h, w}, v);
}

TEST_F(Interpolate, NearestRepeatsPixelsInBlocks) {
  const DenseTensor x = MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  const DenseTensor out = Out(RunOp("nearest_interp_v2", {{"X", {x}}}, {{"Out", 1}},
                                    {{"out_h", 4}, {"out_w", 4}, {"align_corners", false}}));
  ASSERT_EQ(out.dims(), DDim({1, 1, 4, 4}));
  ExpectNear(ToDoubles(out), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 0, 0, "nearest");
  // align_corners rounds: ratio (2 - 1) / (3 - 1) = 0.5, rows 0, 0.5, 1 -> 0, 1, 1.
  const DenseTensor aligned = Out(RunOp("nearest_interp_v2", {{"X", {x}}}, {{"Out", 1}},
                                        {{"out_h", 3}, {"out_w", 1}, {"align_corners", true}}));
  ExpectNear(ToDoubles(aligned), {1, 3, 3}, 0, 0, "nearest align_corners");
}

// Bilinear sampling of a linear ramp gives the ramp at the (clamped) source coordinate.
TEST_F(Interpolate, BilinearReproducesARampAtTheSampledCoordinates) {
  const int64_t n = 2, c = 2, h = 3, w = 5, oh = 7, ow = 4;
  for (bool nhwc : {false, true}) {
    for (int mode = 0; mode < 3; ++mode) {  // align_corners, align_mode 0, align_mode 1.
      const bool align_corners = mode == 0;
      SCOPED_TRACE(std::string(nhwc ? "NHWC" : "NCHW") + " mode " + std::to_string(mode));
      auto src = [&](int64_t o, int64_t in, int64_t out) {
        const double r = align_corners ? double(in - 1) / (out - 1) : double(in) / out;
        const double s = mode == 1 ? r * (o + 0.5) - 0.5 : r * o;
        return std::min(std::max(s, 0.0), double(in - 1));
      };
      std::vector<double> want;
      for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < (nhwc ? oh : c); ++i)
          for (int64_t j = 0; j < (nhwc ? ow : oh); ++j)
            for (int64_t k = 0; k < (nhwc ? c : ow); ++k)
              want.push_back(nhwc ? Ramp(k, src(i, h, oh), src(j, w, ow))
                                  : Ramp(i, src(j, h, oh), src(k, w, ow)));
      const AttributeMap attrs = {{"out_h", int(oh)},
                                  {"out_w", int(ow)},
                                  {"align_corners", align_corners},
                                  {"align_mode", mode == 1 ? 0 : 1},
                                  {"data_layout", std::string(nhwc ? "NHWC" : "NCHW")}};
      const DenseTensor x = RampTensor(n, c, h, w, nhwc);
      const DenseTensor got = Out(RunOp("bilinear_interp_v2", {{"X", {x}}}, {{"Out", 1}}, attrs));
      ASSERT_EQ(got.dims(), nhwc ? DDim({n, oh, ow, c}) : DDim({n, c, oh, ow}));
      ExpectNear(ToDoubles(got), want, 1e-6, 1e-6, "bilinear double");
      DenseTensor xf = MakeTensor<float>(x.dims(), ToDoubles(x));
      ExpectNear(ToDoubles(Out(RunOp("bilinear_interp_v2", {{"X", {xf}}}, {{"Out", 1}}, attrs))),
                 want, 1e-5, 1e-5, "bilinear float");
    }
  }
}

TEST_F(Interpolate, SizePrecedenceSizeTensorThenOutSizeThenScaleThenAttributes) {
  const DenseTensor x = RampTensor(1, 1, 4, 6, false);
  auto i32 = [](std::vector<double> v) {
    return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v);
  };
  auto dims = [&](const SlotTensors& extra, AttributeMap attrs) {
    SlotTensors in = extra;
    in["X"] = {x};
    attrs["out_h"] = 3;
    attrs["out_w"] = 5;
    return Out(RunOp("bilinear_interp_v2", in, {{"Out", 1}}, attrs)).dims();
  };
  EXPECT_EQ(dims({}, {}), DDim({1, 1, 3, 5}));
  EXPECT_EQ(dims({}, {{"scale", std::vector<float>{1.5f, 0.5f}}}), DDim({1, 1, 6, 3}));
  EXPECT_EQ(dims({{"Scale", {MakeTensor<float>({1}, {2})}}},
                 {{"scale", std::vector<float>{1.5f, 0.5f}}}),
            DDim({1, 1, 8, 12}));
  EXPECT_EQ(dims({{"OutSize", {i32({2, 9})}}, {"Scale", {MakeTensor<float>({1}, {2})}}}, {}),
            DDim({1, 1, 2, 9}));
  EXPECT_EQ(dims({{"SizeTensor", {i32({7}), MakeTensor<int64_t>({1}, {2})}},
                  {"OutSize", {i32({2, 9})}}},
                 {}),
            DDim({1, 1, 7, 2}));
}

// 1.x ops sample at in / out even when a scale gave the size; v2 ops at 1 / scale.
TEST_F(Interpolate, LegacyOpsUseTheSizeRatioAndV2OpsTheScale) {
  const DenseTensor x = RampTensor(1, 1, 5, 1, false);
  auto rows = [&](const std::string& op, const framework::Attribute& scale) {
    return ToDoubles(Out(RunOp(op, {{"X", {x}}}, {{"Out", 1}},
                               {{"scale", scale}, {"align_corners", false}, {"align_mode", 1}})));
  };
  const std::vector<double> v1 = rows("bilinear_interp", 1.5f);
  const std::vector<double> v2 = rows("bilinear_interp_v2", std::vector<float>{1.5f, 1.0f});
  ASSERT_EQ(v1.size(), 7u);  // int(5 * 1.5).
  ASSERT_EQ(v2.size(), 7u);
  std::vector<double> want1, want2;
  for (int o = 0; o < 7; ++o) {
    want1.push_back(Ramp(0, std::min(o * 5.0 / 7, 4.0), 0));
    want2.push_back(Ramp(0, std::min(o / 1.5, 4.0), 0));
  }
  ExpectNear(v1, want1, 1e-6, 1e-6, "bilinear_interp");
  ExpectNear(v2, want2, 1e-6, 1e-6, "bilinear_interp_v2");
}

TEST_F(Interpolate, GradientsMatchFiniteDifferences) {
  const DenseTensor x = MakeTensor<double>({1, 2, 3, 4}, RandomValues(24, -1, 1, 3));
  for (const char* op : {"nearest_interp_v2", "bilinear_interp_v2", "nearest_interp",
                         "bilinear_interp"}) {
    for (int mode = 0; mode < 3; ++mode) {
      SCOPED_TRACE(std::string(op) + " mode " + std::to_string(mode));
      GradCheck check;
      check.op_type = op;
      check.inputs = {{"X", {x}}};
      check.outputs = {{"Out", 1}};
      check.attrs = {{"out_h", 5}, {"out_w", 3}, {"align_corners", mode == 0},
                     {"align_mode", mode == 1 ? 0 : 1}};
      CheckGradients(check);
    }
  }
}

TEST_F(Interpolate, BadSizesAndInputsNameWhatIsWrong) {
  const DenseTensor x = MakeTensor<double>({1, 1, 2, 2}, {1, 2, 3, 4});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("nearest_interp_v2", {{"X", {x}}}, {{"Out", 1}}, {{"out_h", 0}, {"out_w", 3}}); },
      {"op `nearest_interp_v2` attributes [out_h, out_w]", "expected an output size > 0",
       "[0, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("bilinear_interp_v2", {{"X", {x}}, {"Scale", {MakeTensor<float>({1}, {-2})}}},
              {{"Out", 1}});
      },
      {"op `bilinear_interp_v2` input `Scale`", "expected scales > 0"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("bilinear_interp_v2", {{"X", {x}}, {"Scale", {MakeTensor<int32_t>({1}, {2})}}},
              {{"Out", 1}});
      },
      {"op `bilinear_interp_v2` input `Scale`", "expected float32 or float64"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("bilinear_interp_v2", {{"X", {x}}, {"OutSize", {MakeTensor<int32_t>({3}, {2, 2, 2})}}},
              {{"Out", 1}});
      },
      {"op `bilinear_interp_v2` input `OutSize`", "expected 2 values"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("bilinear_interp_v2", {{"X", {MakeTensor<double>({1, 1, 1, 2, 2}, {1, 2, 3, 4})}}},
              {{"Out", 1}}, {{"out_d", 2}, {"out_h", 2}, {"out_w", 2}});
      },
      {"op `bilinear_interp_v2` attribute `interp_method`", "`bilinear` does not apply to 5-D X",
       "nearest or trilinear for 5-D"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("nearest_interp_v2", {{"X", {MakeTensor<double>({2, 2}, {1, 2, 3, 4})}}},
              {{"Out", 1}}, {{"out_h", 2}, {"out_w", 2}});
      },
      {"op `nearest_interp_v2` input `X`", "expected a 3-D, 4-D or 5-D image", "received shape [2, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("trilinear_interp_v2", {{"X", {MakeTensor<double>({1, 1, 1, 2, 2}, {1, 2, 3, 4})}}},
              {{"Out", 1}}, {{"out_d", 2}, {"out_h", 2}, {"out_w", 2}, {"scale", std::vector<float>{2, 2}}});
      },
      {"op `trilinear_interp_v2` attribute `scale`", "expected 1 or 3 values, received 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("trilinear_interp_v2",
              {{"X", {MakeTensor<double>({1, 1, 1, 2, 2}, {1, 2, 3, 4})}},
               {"SizeTensor", {MakeTensor<int32_t>({1}, {2}), MakeTensor<int32_t>({1}, {2})}}},
              {{"Out", 1}});
      },
      {"op `trilinear_interp_v2` input `SizeTensor`", "expected 3 values [out_d, out_h, out_w]",
       "received 2"});
}

// X[n, c, z, y, x] = 1 + 10 c + 5 z + 3 y + 0.5 x over `spatial` axes (the last ones of
// z, y, x), channels first or last: a function linear sampling reproduces exactly.
double Ramp3(int64_t c, double z, double y, double x) { return 1 + 10 * c + 5 * z + 3 * y + 0.5 * x; }

struct Image {
  int64_t n, c;
  std::vector<int64_t> size;  // Spatial, 1 or 3 axes.
  bool last;                  // Channels last.
  DDim Dims() const {
    std::vector<int64_t> d = {n};
    if (!last) d.push_back(c);
    d.insert(d.end(), size.begin(), size.end());
    if (last) d.push_back(c);
    return DDim(d);
  }
  // Values f(b, ch, spatial index) in memory order.
  template <typename F>
  std::vector<double> Values(F f) const {
    std::vector<double> v;
    const int64_t k = static_cast<int64_t>(size.size());
    int64_t pixels = 1;
    for (int64_t s : size) pixels *= s;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t outer = 0; outer < (last ? pixels : c); ++outer)
        for (int64_t inner = 0; inner < (last ? c : pixels); ++inner) {
          const int64_t ch = last ? inner : outer, p = last ? outer : inner;
          std::vector<int64_t> idx(static_cast<size_t>(k));
          for (int64_t a = k - 1, rest = p; a >= 0; --a) {
            idx[a] = rest % size[a];
            rest /= size[a];
          }
          v.push_back(f(b, ch, idx));
        }
    return v;
  }
};

// Linear and trilinear sampling of a ramp give the ramp at the (clamped) source coordinates,
// in every alignment mode and layout.
TEST_F(Interpolate, LinearAndTrilinearReproduceARamp) {
  struct Case {
    std::string op;
    std::vector<int64_t> in, out;
  };
  const Case cases[] = {{"linear_interp_v2", {5}, {8}},
                        {"linear_interp", {6}, {4}},
                        {"trilinear_interp_v2", {3, 4, 5}, {5, 3, 7}},
                        {"trilinear_interp", {2, 3, 2}, {4, 5, 3}}};
  for (const Case& cs : cases) {
    for (bool last : {false, true}) {
      for (int mode = 0; mode < 3; ++mode) {  // align_corners, align_mode 0, align_mode 1.
        const bool align_corners = mode == 0;
        SCOPED_TRACE(cs.op + (last ? " channels last" : "") + " mode " + std::to_string(mode));
        const size_t k = cs.in.size();
        auto src = [&](int64_t o, int64_t in, int64_t out) {
          const double r = align_corners ? double(in - 1) / (out - 1) : double(in) / out;
          const double s = mode == 1 ? r * (o + 0.5) - 0.5 : r * o;
          return std::min(std::max(s, 0.0), double(in - 1));
        };
        auto ramp = [&](int64_t ch, const std::vector<double>& at) {
          return k == 1 ? Ramp3(ch, 0, 0, at[0]) : Ramp3(ch, at[0], at[1], at[2]);
        };
        const Image in{2, 2, cs.in, last}, out{2, 2, cs.out, last};
        const std::vector<double> x = in.Values([&](int64_t, int64_t ch, const std::vector<int64_t>& i) {
          return ramp(ch, std::vector<double>(i.begin(), i.end()));
        });
        const std::vector<double> want =
            out.Values([&](int64_t, int64_t ch, const std::vector<int64_t>& o) {
              std::vector<double> at;
              for (size_t a = 0; a < k; ++a) at.push_back(src(o[a], cs.in[a], cs.out[a]));
              return ramp(ch, at);
            });
        AttributeMap attrs = {{"align_corners", align_corners},
                              {"align_mode", mode == 1 ? 0 : 1},
                              {"data_layout", std::string(last ? "NHWC" : "NCHW")},
                              {"out_w", int(cs.out.back())}};
        if (k == 3) {
          attrs["out_d"] = int(cs.out[0]);
          attrs["out_h"] = int(cs.out[1]);
        }
        const DenseTensor got =
            Out(RunOp(cs.op, {{"X", {MakeTensor<double>(in.Dims(), x)}}}, {{"Out", 1}}, attrs));
        ASSERT_EQ(got.dims(), out.Dims());
        ExpectNear(ToDoubles(got), want, 1e-6, 1e-6, "double");
        const DenseTensor got_f =
            Out(RunOp(cs.op, {{"X", {MakeTensor<float>(in.Dims(), x)}}}, {{"Out", 1}}, attrs));
        ExpectNear(ToDoubles(got_f), want, 1e-5, 1e-5, "float");
      }
    }
  }
}

// Nearest on 5-D images: doubling every axis repeats each voxel in a 2x2x2 block; a scale
// tensor with one value scales all three axes.
TEST_F(Interpolate, NearestOnVolumesRepeatsVoxelsInBlocks) {
  for (bool last : {false, true}) {
    SCOPED_TRACE(last ? "NDHWC" : "NCDHW");
    const Image in{1, 2, {2, 3, 2}, last}, out{1, 2, {4, 6, 4}, last};
    auto voxel = [](int64_t, int64_t ch, const std::vector<int64_t>& i) {
      return 100.0 * ch + 9 * i[0] + 3 * i[1] + i[2];
    };
    const DenseTensor x = MakeTensor<float>(in.Dims(), in.Values(voxel));
    const std::vector<double> want =
        out.Values([&](int64_t b, int64_t ch, const std::vector<int64_t>& o) {
          return voxel(b, ch, {o[0] / 2, o[1] / 2, o[2] / 2});
        });
    const std::string layout = last ? "NDHWC" : "NCDHW";
    const DenseTensor by_size =
        Out(RunOp("nearest_interp_v2", {{"X", {x}}}, {{"Out", 1}},
                  {{"out_d", 4}, {"out_h", 6}, {"out_w", 4}, {"align_corners", false},
                   {"data_layout", layout}}));
    ASSERT_EQ(by_size.dims(), out.Dims());
    ExpectNear(ToDoubles(by_size), want, 0, 0, "out_d, out_h, out_w");
    const DenseTensor by_scale =
        Out(RunOp("nearest_interp_v2", {{"X", {x}}, {"Scale", {MakeTensor<float>({1}, {2})}}},
                  {{"Out", 1}}, {{"align_corners", false}, {"data_layout", layout}}));
    ExpectNear(ToDoubles(by_scale), want, 0, 0, "Scale");
  }
}

TEST_F(Interpolate, GradientsOfOneAndThreeDimensionalResizesMatchFiniteDifferences) {
  struct Case {
    const char* op;
    DDim x;
    AttributeMap size;
  };
  const Case cases[] = {
      {"linear_interp_v2", {1, 2, 4}, {{"out_w", 7}}},
      {"trilinear_interp_v2", {1, 2, 2, 3, 3}, {{"out_d", 3}, {"out_h", 2}, {"out_w", 5}}},
      {"nearest_interp_v2", {1, 1, 3, 2, 3}, {{"out_d", 5}, {"out_h", 3}, {"out_w", 2}}},
      {"trilinear_interp", {1, 1, 2, 2, 3}, {{"out_d", 3}, {"out_h", 3}, {"out_w", 2}}}};
  for (const Case& c : cases) {
    for (int mode = 0; mode < 3; ++mode) {
      SCOPED_TRACE(std::string(c.op) + " mode " + std::to_string(mode));
      GradCheck check;
      check.op_type = c.op;
      check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -1, 1, 11))}}};
      check.outputs = {{"Out", 1}};
      check.attrs = c.size;
      check.attrs["align_corners"] = mode == 0;
      check.attrs["align_mode"] = mode == 1 ? 0 : 1;
      CheckGradients(check);
    }
  }
}

// Keys' cubic convolution kernel (a = -0.75) at distance d.
double Keys(double d) {
  const double a = -0.75, x = std::abs(d);
  if (x <= 1) return (a + 2) * x * x * x - (a + 3) * x * x + 1;
  if (x < 2) return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
  return 0;
}

// bicubic written out in double: X [n, c, h, w] (NCHW) to [n, c, oh, ow].
std::vector<double> NaiveBicubic(const std::vector<double>& x, int64_t n, int64_t c, int64_t h,
                                 int64_t w, int64_t oh, int64_t ow, bool align_corners,
                                 double scale) {
  auto ratio = [&](int64_t in, int64_t out) {
    if (out <= 1) return 0.0;  // PaddlePaddle's rule for a single output pixel.
    if (align_corners) return double(in - 1) / (out - 1);
    return scale > 0 ? 1 / scale : double(in) / out;
  };
  const double ry = ratio(h, oh), rx = ratio(w, ow);
  std::vector<double> out;
  for (int64_t b = 0; b < n * c; ++b) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        const double sy = align_corners ? ry * oy : ry * (oy + 0.5) - 0.5;
        const double sx = align_corners ? rx * ox : rx * (ox + 0.5) - 0.5;
        const int64_t iy = static_cast<int64_t>(std::floor(sy));
        const int64_t ix = static_cast<int64_t>(std::floor(sx));
        double sum = 0;
        for (int64_t y = iy - 1; y <= iy + 2; ++y) {
          for (int64_t xx = ix - 1; xx <= ix + 2; ++xx) {
            const int64_t cy = std::clamp<int64_t>(y, 0, h - 1),
                          cx = std::clamp<int64_t>(xx, 0, w - 1);
            sum += Keys(sy - y) * Keys(sx - xx) * x[(b * h + cy) * w + cx];
          }
        }
        out.push_back(sum);
      }
    }
  }
  return out;
}

TEST_F(Interpolate, BicubicMatchesKeysConvolutionWrittenOut) {
  const int64_t n = 2, c = 3, h = 5, w = 6;
  const std::vector<double> x = RandomValues(n * c * h * w, -1, 1, 21);
  struct Size {
    int64_t oh, ow;
    float scale;
  };
  for (const Size& sz : {Size{9, 4, 0.f}, Size{3, 11, 0.f}, Size{10, 12, 2.f}, Size{1, 1, 0.f}}) {
    for (bool align : {false, true}) {
      for (bool nhwc : {false, true}) {
        SCOPED_TRACE(std::to_string(sz.oh) + "x" + std::to_string(sz.ow) +
                     (align ? " align_corners" : "") + (nhwc ? " NHWC" : ""));
        std::vector<double> xin = x;
        if (nhwc) {  // The same image with the channels last.
          for (int64_t b = 0; b < n; ++b)
            for (int64_t ch = 0; ch < c; ++ch)
              for (int64_t p = 0; p < h * w; ++p)
                xin[(b * h * w + p) * c + ch] = x[(b * c + ch) * h * w + p];
        }
        AttributeMap attrs = {{"align_corners", align},
                              {"interp_method", std::string("bicubic")},
                              {"data_layout", std::string(nhwc ? "NHWC" : "NCHW")}};
        if (sz.scale > 0) {
          attrs["scale"] = std::vector<float>{sz.scale, sz.scale};
        } else {
          attrs["out_h"] = static_cast<int>(sz.oh);
          attrs["out_w"] = static_cast<int>(sz.ow);
        }
        for (bool dbl : {false, true}) {
          const DenseTensor xt =
              dbl ? MakeTensor<double>(nhwc ? DDim{n, h, w, c} : DDim{n, c, h, w}, xin)
                  : MakeTensor<float>(nhwc ? DDim{n, h, w, c} : DDim{n, c, h, w}, xin);
          std::vector<double> got =
              ToDoubles(Out(RunOp("bicubic_interp_v2", {{"X", {xt}}}, {{"Out", 1}}, attrs)));
          if (nhwc) {
            std::vector<double> back(got.size());
            const int64_t op = sz.oh * sz.ow;
            for (int64_t b = 0; b < n; ++b)
              for (int64_t ch = 0; ch < c; ++ch)
                for (int64_t p = 0; p < op; ++p)
                  back[(b * c + ch) * op + p] = got[(b * op + p) * c + ch];
            got = back;
          }
          const std::vector<double> want =
              sz.oh == h && sz.ow == w ? x
                                       : NaiveBicubic(x, n, c, h, w, sz.oh, sz.ow, align, sz.scale);
          ExpectNear(got, want, 2e-5, 2e-5, dbl ? "bicubic double" : "bicubic float");
        }
      }
    }
  }
}

TEST_F(Interpolate, BicubicGradientsMatchFiniteDifferences) {
  const DenseTensor x = MakeTensor<double>({1, 2, 4, 5}, RandomValues(40, -1, 1, 22));
  for (const char* op : {"bicubic_interp_v2", "bicubic_interp"}) {
    for (bool align : {false, true}) {
      SCOPED_TRACE(std::string(op) + (align ? " align_corners" : ""));
      GradCheck check;
      check.op_type = op;
      check.inputs = {{"X", {x}}};
      check.outputs = {{"Out", 1}};
      check.attrs = {{"out_h", 7}, {"out_w", 3}, {"align_corners", align}};
      CheckGradients(check);
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("bicubic_interp_v2",
              {{"X", {MakeTensor<float>({1, 1, 2, 2, 2}, RandomValues(8, -1, 1))}}}, {{"Out", 1}},
              {{"out_d", 3}, {"out_h", 3}, {"out_w", 3}});
      },
      {"op `bicubic_interp_v2` attribute `interp_method`", "`bicubic` does not apply to 5-D X"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
