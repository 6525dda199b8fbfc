// deformable_conv and deformable_conv_v1 against a direct sum written here (each tap sampled
// as a sum of tent functions over the pixels), with groups, deformable groups, strides,
// paddings and dilations; zero offsets and unit masks reduce it to conv2d; gradients of Input,
// Offset, Mask and Filter against finite differences; the shape errors.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Shape {
  int64_t n, c, h, w, m, kh, kw;
  int groups, dgroups;
  std::vector<int> strides, paddings, dilations;
  int64_t OutH() const {
    return (h + 2 * paddings[0] - (dilations[0] * (kh - 1) + 1)) / strides[0] + 1;
  }
  int64_t OutW() const {
    return (w + 2 * paddings[1] - (dilations[1] * (kw - 1) + 1)) / strides[1] + 1;
  }
};

double Sample(const std::vector<double>& x, int64_t base, int64_t h, int64_t w, double y,
              double xx) {
  if (!(y > -1 && xx > -1 && y < h && xx < w)) return 0;
  double v = 0;
  for (int64_t q = 0; q < h; ++q) {
    for (int64_t p = 0; p < w; ++p) {
      v += std::max(0.0, 1 - std::abs(y - q)) * std::max(0.0, 1 - std::abs(xx - p)) *
           x[base + q * w + p];
    }
  }
  return v;
}

std::vector<double> Reference(const Shape& s, const std::vector<double>& x,
                              const std::vector<double>& off, const std::vector<double>* mask,
                              const std::vector<double>& filter) {
  const int64_t oh = s.OutH(), ow = s.OutW(), taps = s.kh * s.kw;
  const int64_t cg = s.c / s.groups, mg = s.m / s.groups, per_dg = s.c / s.dgroups;
  std::vector<double> out;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.m; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double sum = 0;
          const int64_t grp = o / mg;
          for (int64_t cc = 0; cc < cg; ++cc) {
            const int64_t c = grp * cg + cc, dg = c / per_dg;
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                const int64_t t = i * s.kw + j;
                const auto at = [&](int64_t ch) {
                  return ((n * 2 * s.dgroups * taps + ch) * oh + y) * ow + xo;
                };
                const double dy = off[at(dg * 2 * taps + 2 * t)],
                             dx = off[at(dg * 2 * taps + 2 * t + 1)];
                const double m =
                    mask ? (*mask)[((n * s.dgroups * taps + dg * taps + t) * oh + y) * ow + xo]
                         : 1.0;
                const double py = y * s.strides[0] - s.paddings[0] + i * s.dilations[0] + dy;
                const double px = xo * s.strides[1] - s.paddings[1] + j * s.dilations[1] + dx;
                sum += filter[((o * cg + cc) * s.kh + i) * s.kw + j] * m *
                       Sample(x, (n * s.c + c) * s.h * s.w, s.h, s.w, py, px);
              }
          }
          out.push_back(sum);
        }
  return out;
}

AttributeMap AttrsOf(const Shape& s) {
  return {{"strides", s.strides},
          {"paddings", s.paddings},
          {"dilations", s.dilations},
          {"groups", s.groups},
          {"deformable_groups", s.dgroups}};
}

const std::vector<Shape>& Shapes() {
  static const std::vector<Shape> shapes = {
      {1, 2, 5, 6, 3, 3, 3, 1, 1, {1, 1}, {1, 1}, {1, 1}},
      {2, 4, 6, 5, 4, 3, 2, 2, 2, {2, 1}, {1, 0}, {1, 2}},
      {1, 4, 7, 7, 2, 2, 2, 1, 4, {1, 2}, {0, 1}, {2, 1}},
  };
  return shapes;
}

TEST(DeformableConvOp, MatchesTheDirectSum) {
  operators::RegisterAllOps();
  for (const Shape& s : Shapes()) {
    const int64_t oh = s.OutH(), ow = s.OutW(), taps = s.kh * s.kw;
    const auto x = RandomValues(s.n * s.c * s.h * s.w, -1, 1, 51);
    const auto off = RandomValues(s.n * 2 * s.dgroups * taps * oh * ow, -2.5, 2.5, 52);
    const auto mask = RandomValues(s.n * s.dgroups * taps * oh * ow, 0, 1, 53);
    const auto filter = RandomValues(s.m * s.c / s.groups * taps, -1, 1, 54);
    // deformable_conv with and without its (dispensable) Mask, and deformable_conv_v1.
    for (const auto& [type, masked] :
         std::vector<std::pair<std::string, bool>>{{"deformable_conv", true},
                                                   {"deformable_conv", false},
                                                   {"deformable_conv_v1", false}}) {
      const bool v1 = !masked;
      SCOPED_TRACE(type + (masked ? " with Mask" : "") + " groups " + std::to_string(s.groups) +
                   " deformable_groups " + std::to_string(s.dgroups));
      SlotTensors in = {
          {"Input", {MakeTensor<double>({s.n, s.c, s.h, s.w}, x)}},
          {"Offset", {MakeTensor<double>({s.n, 2 * s.dgroups * taps, oh, ow}, off)}},
          {"Filter", {MakeTensor<double>({s.m, s.c / s.groups, s.kh, s.kw}, filter)}}};
      if (masked) in["Mask"] = {MakeTensor<double>({s.n, s.dgroups * taps, oh, ow}, mask)};
      const OpRunResult r = RunOp(type, in, {{"Output", 1}}, AttrsOf(s));
      EXPECT_EQ(r.outputs.at("Output")[0].dims(), DDim({s.n, s.m, oh, ow}));
      ExpectNear(ToDoubles(r.outputs.at("Output")[0]),
                 Reference(s, x, off, v1 ? nullptr : &mask, filter), 1e-10, 1e-10, "Output");
    }
  }
}

TEST(DeformableConvOp, ZeroOffsetsAndUnitMasksGiveConv2d) {
  operators::RegisterAllOps();
  const Shape s = Shapes()[1];
  const int64_t oh = s.OutH(), ow = s.OutW(), taps = s.kh * s.kw;
  const DenseTensor x =
      MakeTensor<float>({s.n, s.c, s.h, s.w}, RandomValues(s.n * s.c * s.h * s.w, -1, 1, 55));
  const DenseTensor f = MakeTensor<float>({s.m, s.c / s.groups, s.kh, s.kw},
                                          RandomValues(s.m * s.c / s.groups * taps, -1, 1, 56));
  const OpRunResult d =
      RunOp("deformable_conv",
            {{"Input", {x}},
             {"Filter", {f}},
             {"Offset",
              {MakeTensor<float>({s.n, 2 * s.dgroups * taps, oh, ow},
                                 std::vector<double>(s.n * 2 * s.dgroups * taps * oh * ow, 0))}},
             {"Mask",
              {MakeTensor<float>({s.n, s.dgroups * taps, oh, ow},
                                 std::vector<double>(s.n * s.dgroups * taps * oh * ow, 1))}}},
            {{"Output", 1}}, AttrsOf(s));
  const OpRunResult c = RunOp("conv2d", {{"Input", {x}}, {"Filter", {f}}}, {{"Output", 1}},
                              {{"strides", s.strides},
                               {"paddings", s.paddings},
                               {"dilations", s.dilations},
                               {"groups", s.groups}});
  ExpectNear(ToDoubles(d.outputs.at("Output")[0]), ToDoubles(c.outputs.at("Output")[0]), 1e-5, 1e-5,
             "deformable_conv vs conv2d");
}

TEST(DeformableConvOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const Shape& s : {Shapes()[0], Shapes()[1]}) {
    for (const auto& [type, v1] : std::vector<std::pair<std::string, bool>>{
             {"deformable_conv", false}, {"deformable_conv", true}, {"deformable_conv_v1", true}}) {
      const int64_t oh = s.OutH(), ow = s.OutW(), taps = s.kh * s.kw;
      GradCheck check;
      check.op_type = type;  // v1: without Mask.
      check.inputs = {
          {"Input",
           {MakeTensor<double>({s.n, s.c, s.h, s.w},
                               RandomValues(s.n * s.c * s.h * s.w, -1, 1, 57))}},
          {"Offset",
           {MakeTensor<double>({s.n, 2 * s.dgroups * taps, oh, ow},
                               RandomValues(s.n * 2 * s.dgroups * taps * oh * ow, -1.7, 1.7, 58))}},
          {"Filter",
           {MakeTensor<double>({s.m, s.c / s.groups, s.kh, s.kw},
                               RandomValues(s.m * s.c / s.groups * taps, -1, 1, 59))}}};
      if (!v1) {
        check.inputs["Mask"] = {
            MakeTensor<double>({s.n, s.dgroups * taps, oh, ow},
                               RandomValues(s.n * s.dgroups * taps * oh * ow, 0, 1, 60))};
      }
      check.outputs = {{"Output", 1}};
      check.attrs = AttrsOf(s);
      check.rtol = 1e-4;
      check.atol = 1e-6;
      CheckGradients(check);
    }
  }
}

TEST(DeformableConvOp, BadShapesAreErrors) {
  operators::RegisterAllOps();
  const auto run = [](const DDim& offset, const DDim& mask) {
    RunOp("deformable_conv",
          {{"Input", {MakeTensor<float>({1, 2, 5, 5}, RandomValues(50, -1, 1))}},
           {"Offset", {MakeTensor<float>(offset, RandomValues(offset.numel(), -1, 1))}},
           {"Mask", {MakeTensor<float>(mask, RandomValues(mask.numel(), 0, 1))}},
           {"Filter", {MakeTensor<float>({3, 2, 3, 3}, RandomValues(54, -1, 1))}}},
          {{"Output", 1}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 9, 3, 3}, {1, 9, 3, 3});
      },
      {"op `deformable_conv` input `Offset`", "[1, 18, 3, 3]", "[1, 9, 3, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 18, 3, 3}, {1, 9, 2, 3});
      },
      {"op `deformable_conv` input `Mask`", "[1, 9, 3, 3]", "[1, 9, 2, 3]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
