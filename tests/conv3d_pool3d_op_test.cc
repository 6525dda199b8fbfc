// conv3d, conv3d_transpose and pool3d against direct sums written here (every tap of every
// output cell; every input cell scattered for the transpose), over strides, paddings (3 and 6
// values, SAME, VALID), dilations, groups, output_padding and output_size, NDHWC, ceil_mode,
// exclusive, adaptive and global pooling; gradients against finite differences; errors.
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

struct ConvCase {
  int64_t n, c, d, h, w, m, kd, kh, kw;
  int groups;
  std::vector<int> strides, paddings, dilations;  // paddings: 6 values.
};

int64_t OutSize(int64_t in, int64_t k, int s, int p0, int p1, int dil) {
  return (in + p0 + p1 - (dil * (k - 1) + 1)) / s + 1;
}

std::vector<double> NaiveConv3d(const ConvCase& c, const std::vector<double>& x,
                                const std::vector<double>& f) {
  const int64_t od = OutSize(c.d, c.kd, c.strides[0], c.paddings[0], c.paddings[1], c.dilations[0]);
  const int64_t oh = OutSize(c.h, c.kh, c.strides[1], c.paddings[2], c.paddings[3], c.dilations[1]);
  const int64_t ow = OutSize(c.w, c.kw, c.strides[2], c.paddings[4], c.paddings[5], c.dilations[2]);
  const int64_t cg = c.c / c.groups, mg = c.m / c.groups;
  std::vector<double> out;
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t o = 0; o < c.m; ++o)
      for (int64_t z = 0; z < od; ++z)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t xx = 0; xx < ow; ++xx) {
            double sum = 0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t i = 0; i < c.kd; ++i)
                for (int64_t j = 0; j < c.kh; ++j)
                  for (int64_t k = 0; k < c.kw; ++k) {
                    const int64_t iz = z * c.strides[0] - c.paddings[0] + i * c.dilations[0];
                    const int64_t iy = y * c.strides[1] - c.paddings[2] + j * c.dilations[1];
                    const int64_t ix = xx * c.strides[2] - c.paddings[4] + k * c.dilations[2];
                    if (iz < 0 || iz >= c.d || iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                    const int64_t ch = (o / mg) * cg + ci;
                    sum += f[(((o * cg + ci) * c.kd + i) * c.kh + j) * c.kw + k] *
                           x[(((b * c.c + ch) * c.d + iz) * c.h + iy) * c.w + ix];
                  }
            out.push_back(sum);
          }
  return out;
}

// NCDHW data of [n, c, cells] as NDHWC.
std::vector<double> ChannelsLast(const std::vector<double>& v, int64_t n, int64_t c,
                                 int64_t cells) {
  std::vector<double> out(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < cells; ++p)
        out[(b * cells + p) * c + ch] = v[(b * c + ch) * cells + p];
  return out;
}

AttributeMap ConvAttrs(const ConvCase& c) {
  return {{"strides", c.strides},
          {"paddings", c.paddings},
          {"dilations", c.dilations},
          {"groups", c.groups}};
}

const std::vector<ConvCase>& ConvCases() {
  static const std::vector<ConvCase> cases = {
      {1, 2, 4, 5, 6, 3, 3, 3, 3, 1, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}},
      {2, 4, 5, 4, 6, 4, 2, 3, 2, 2, {2, 1, 2}, {0, 1, 1, 0, 2, 1}, {1, 2, 1}},
  };
  return cases;
}

TEST(Conv3dOp, MatchesTheDirectSumInBothLayouts) {
  operators::RegisterAllOps();
  for (const ConvCase& c : ConvCases()) {
    const auto x = RandomValues(c.n * c.c * c.d * c.h * c.w, -1, 1, 61);
    const auto f = RandomValues(c.m * c.c / c.groups * c.kd * c.kh * c.kw, -1, 1, 62);
    const auto want = NaiveConv3d(c, x, f);
    const DDim fd{c.m, c.c / c.groups, c.kd, c.kh, c.kw};
    const OpRunResult first = RunOp("conv3d",
                                    {{"Input", {MakeTensor<double>({c.n, c.c, c.d, c.h, c.w}, x)}},
                                     {"Filter", {MakeTensor<double>(fd, f)}}},
                                    {{"Output", 1}}, ConvAttrs(c));
    ExpectNear(ToDoubles(first.outputs.at("Output")[0]), want, 1e-12, 1e-12, "NCDHW");
    AttributeMap attrs = ConvAttrs(c);
    attrs["data_format"] = std::string("NDHWC");
    const OpRunResult last =
        RunOp("conv3d",
              {{"Input",
                {MakeTensor<float>({c.n, c.d, c.h, c.w, c.c},
                                   ChannelsLast(x, c.n, c.c, c.d * c.h * c.w))}},
               {"Filter", {MakeTensor<float>(fd, f)}}},
              {{"Output", 1}}, attrs);
    const DDim od = first.outputs.at("Output")[0].dims();
    ExpectNear(ToDoubles(last.outputs.at("Output")[0]),
               ChannelsLast(want, c.n, c.m, od[2] * od[3] * od[4]), 1e-5, 1e-5, "NDHWC");
  }
}

TEST(Conv3dOp, SameAndValidPaddings) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({1, 1, 5, 4, 3}, RandomValues(60, -1, 1, 63));
  const DenseTensor f = MakeTensor<float>({2, 1, 3, 2, 3}, RandomValues(36, -1, 1, 64));
  auto run = [&](const std::string& algorithm) {
    return RunOp("conv3d", {{"Input", {x}}, {"Filter", {f}}}, {{"Output", 1}},
                 {{"strides", std::vector<int>{2, 1, 2}},
                  {"paddings", std::vector<int>{5, 5, 5}},
                  {"padding_algorithm", algorithm}})
        .outputs.at("Output")[0]
        .dims();
  };
  EXPECT_EQ(run("SAME"), DDim({1, 2, 3, 4, 2}));   // ceil(in / stride).
  EXPECT_EQ(run("VALID"), DDim({1, 2, 2, 3, 1}));  // No padding.
}

TEST(Conv3dOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  const ConvCase c = {1, 2, 3, 4, 3, 2, 2, 2, 2, 2, {1, 2, 1}, {1, 0, 0, 1, 1, 1}, {1, 1, 2}};
  GradCheck check;
  check.op_type = "conv3d";
  check.inputs = {{"Input", {MakeTensor<double>({1, 2, 3, 4, 3}, RandomValues(72, -1, 1, 65))}},
                  {"Filter", {MakeTensor<double>({2, 1, 2, 2, 2}, RandomValues(16, -1, 1, 66))}}};
  check.outputs = {{"Output", 1}};
  check.attrs = ConvAttrs(c);
  CheckGradients(check);
}

// conv3d_transpose written out: every input cell scatters Filter[c, m] into the output.
// Output sizes (in - 1) s - p0 - p1 + d (k - 1) + 1 + extra per axis.
std::vector<double> NaiveConv3dTranspose(const ConvCase& c, const std::vector<int>& extra,
                                         const std::vector<double>& x, const std::vector<double>& f,
                                         std::vector<int64_t>* dims) {
  const int64_t in[3] = {c.d, c.h, c.w}, k[3] = {c.kd, c.kh, c.kw};
  int64_t out[3];
  for (int a = 0; a < 3; ++a) {
    out[a] = (in[a] - 1) * c.strides[a] - c.paddings[2 * a] - c.paddings[2 * a + 1] +
             c.dilations[a] * (k[a] - 1) + 1 + extra[a];
  }
  const int64_t cg = c.c / c.groups, mg = c.m / c.groups;
  *dims = {c.n, c.m, out[0], out[1], out[2]};
  std::vector<double> y(static_cast<size_t>(c.n * c.m * out[0] * out[1] * out[2]), 0.0);
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t ci = 0; ci < c.c; ++ci)
      for (int64_t z = 0; z < c.d; ++z)
        for (int64_t yy = 0; yy < c.h; ++yy)
          for (int64_t xx = 0; xx < c.w; ++xx)
            for (int64_t m = 0; m < mg; ++m)
              for (int64_t i = 0; i < c.kd; ++i)
                for (int64_t j = 0; j < c.kh; ++j)
                  for (int64_t kx = 0; kx < c.kw; ++kx) {
                    const int64_t oz = z * c.strides[0] - c.paddings[0] + i * c.dilations[0];
                    const int64_t oy = yy * c.strides[1] - c.paddings[2] + j * c.dilations[1];
                    const int64_t ox = xx * c.strides[2] - c.paddings[4] + kx * c.dilations[2];
                    if (oz < 0 || oz >= out[0] || oy < 0 || oy >= out[1] || ox < 0 ||
                        ox >= out[2]) {
                      continue;
                    }
                    const int64_t o = (ci / cg) * mg + m;
                    y[(((b * c.m + o) * out[0] + oz) * out[1] + oy) * out[2] + ox] +=
                        f[(((ci * mg + m) * c.kd + i) * c.kh + j) * c.kw + kx] *
                        x[(((b * c.c + ci) * c.d + z) * c.h + yy) * c.w + xx];
                  }
  return y;
}

// c.c: the transpose's input channels, c.m its output channels.
TEST(Conv3dTransposeOp, MatchesTheScatteredSumsInBothLayouts) {
  operators::RegisterAllOps();
  const std::vector<std::pair<ConvCase, std::vector<int>>> cases = {
      {{1, 2, 3, 4, 2, 3, 3, 3, 3, 1, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}}, {0, 0, 0}},
      {{2, 4, 3, 2, 3, 6, 2, 3, 2, 2, {2, 1, 3}, {0, 1, 1, 0, 1, 0}, {1, 2, 1}}, {1, 0, 2}},
  };
  for (const auto& [c, extra] : cases) {
    const auto x = RandomValues(c.n * c.c * c.d * c.h * c.w, -1, 1, 71);
    const auto f = RandomValues(c.c * c.m / c.groups * c.kd * c.kh * c.kw, -1, 1, 72);
    std::vector<int64_t> dims;
    const auto want = NaiveConv3dTranspose(c, extra, x, f, &dims);
    const DDim fd{c.c, c.m / c.groups, c.kd, c.kh, c.kw};
    AttributeMap attrs = ConvAttrs(c);
    attrs["output_padding"] = extra;
    const OpRunResult first = RunOp("conv3d_transpose",
                                    {{"Input", {MakeTensor<double>({c.n, c.c, c.d, c.h, c.w}, x)}},
                                     {"Filter", {MakeTensor<double>(fd, f)}}},
                                    {{"Output", 1}}, attrs);
    EXPECT_EQ(first.outputs.at("Output")[0].dims(), DDim(dims));
    ExpectNear(ToDoubles(first.outputs.at("Output")[0]), want, 1e-12, 1e-12, "NCDHW");
    // output_size naming the same sizes gives the same; NDHWC in float.
    attrs.erase("output_padding");
    attrs["output_size"] = std::vector<int>{static_cast<int>(dims[2]), static_cast<int>(dims[3]),
                                            static_cast<int>(dims[4])};
    attrs["data_format"] = std::string("NHWC");  // What this op reads as channels last.
    const OpRunResult last =
        RunOp("conv3d_transpose",
              {{"Input",
                {MakeTensor<float>({c.n, c.d, c.h, c.w, c.c},
                                   ChannelsLast(x, c.n, c.c, c.d * c.h * c.w))}},
               {"Filter", {MakeTensor<float>(fd, f)}}},
              {{"Output", 1}}, attrs);
    ExpectNear(ToDoubles(last.outputs.at("Output")[0]),
               ChannelsLast(want, c.n, c.m, dims[2] * dims[3] * dims[4]), 1e-5, 1e-5, "NDHWC");
  }
}

TEST(Conv3dTransposeOp, GradientsAndErrors) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "conv3d_transpose";
  check.inputs = {{"Input", {MakeTensor<double>({1, 2, 2, 3, 2}, RandomValues(24, -1, 1, 73))}},
                  {"Filter", {MakeTensor<double>({2, 2, 2, 2, 2}, RandomValues(32, -1, 1, 74))}}};
  check.outputs = {{"Output", 1}};
  check.attrs = {{"strides", std::vector<int>{2, 1, 2}},
                 {"paddings", std::vector<int>{1, 0, 0}},
                 {"dilations", std::vector<int>{1, 2, 1}},
                 {"output_padding", std::vector<int>{1, 0, 1}},
                 {"groups", 2}};
  CheckGradients(check);
  // SAME: the paddings conv3d would take over this input (ceil(in / s) outputs): depth 3
  // with stride 2 and k 3 is padded 1 + 1, so (3 - 1) 2 - 2 + 3 = 5 (PaddlePaddle's size).
  const OpRunResult same =
      RunOp("conv3d_transpose",
            {{"Input", {MakeTensor<float>({1, 1, 3, 4, 2}, RandomValues(24, -1, 1, 75))}},
             {"Filter", {MakeTensor<float>({1, 2, 3, 2, 3}, RandomValues(36, -1, 1, 76))}}},
            {{"Output", 1}},
            {{"strides", std::vector<int>{2, 1, 3}}, {"padding_algorithm", std::string("SAME")}});
  EXPECT_EQ(same.outputs.at("Output")[0].dims(), DDim({1, 2, 5, 4, 5}));
  const SlotTensors in = {
      {"Input", {MakeTensor<float>({1, 2, 2, 2, 2}, RandomValues(16, -1, 1))}},
      {"Filter", {MakeTensor<float>({2, 1, 2, 2, 2}, RandomValues(16, -1, 1))}}};
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("conv3d_transpose", in, {{"Output", 1}},
              {{"output_size", std::vector<int>{9, 3, 3}}});
      },
      {"op `conv3d_transpose` attribute `output_size`", "depth in [3, 4)", "9"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("conv3d_transpose", in, {{"Output", 1}},
              {{"output_padding", std::vector<int>{1, 0, 0}}});
      },
      {"op `conv3d_transpose` attribute `output_padding`", "max(stride 1, dilation 1)", "1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("conv3d_transpose",
              {{"Input", in.at("Input")},
               {"Filter", {MakeTensor<float>({3, 1, 2, 2, 2}, RandomValues(24, -1, 1))}}},
              {{"Output", 1}});
      },
      {"op `conv3d_transpose` input `Filter`", "C_in = 2"});
}

struct PoolCase {
  std::string type;
  std::vector<int> ksize, strides, paddings;
  bool exclusive, adaptive, global, ceil;
};

std::vector<double> NaivePool3d(const PoolCase& p, const std::vector<double>& x, int64_t n,
                                int64_t c, const int64_t in[3], std::vector<int64_t>* out_dims) {
  int64_t out[3];
  for (int a = 0; a < 3; ++a) {
    if (p.global) {
      out[a] = 1;
    } else if (p.adaptive) {
      out[a] = p.ksize[a];
    } else {
      const int64_t span = in[a] + p.paddings[2 * a] + p.paddings[2 * a + 1] - p.ksize[a] +
                           (p.ceil ? p.strides[a] - 1 : 0);
      out[a] = span / p.strides[a] + 1;
    }
  }
  *out_dims = {n, c, out[0], out[1], out[2]};
  std::vector<double> result;
  for (int64_t plane = 0; plane < n * c; ++plane)
    for (int64_t z = 0; z < out[0]; ++z)
      for (int64_t y = 0; y < out[1]; ++y)
        for (int64_t xx = 0; xx < out[2]; ++xx) {
          const int64_t o[3] = {z, y, xx};
          int64_t lo[3], hi[3];
          for (int a = 0; a < 3; ++a) {
            if (p.global) {
              lo[a] = 0;
              hi[a] = in[a];
            } else if (p.adaptive) {
              lo[a] = static_cast<int64_t>(std::floor(double(o[a]) * in[a] / out[a]));
              hi[a] = static_cast<int64_t>(std::ceil(double(o[a] + 1) * in[a] / out[a]));
            } else {
              const int64_t s = o[a] * p.strides[a] - p.paddings[2 * a];
              lo[a] = std::max<int64_t>(s, 0);
              hi[a] = std::min<int64_t>(s + p.ksize[a], in[a]);
            }
          }
          double best = -std::numeric_limits<double>::max(), sum = 0;
          int64_t count = 0;
          for (int64_t i = lo[0]; i < hi[0]; ++i)
            for (int64_t j = lo[1]; j < hi[1]; ++j)
              for (int64_t k = lo[2]; k < hi[2]; ++k) {
                const double v = x[((plane * in[0] + i) * in[1] + j) * in[2] + k];
                best = std::max(best, v);
                sum += v;
                ++count;
              }
          // Non-exclusive: PaddlePaddle's divisor, each axis' window clipped to the volume
          // plus its leading padding, from the window's unclipped start.
          double divisor = double(count);
          if (!(p.exclusive || p.adaptive || p.global)) {
            divisor = 1;
            for (int a = 0; a < 3; ++a) {
              const int64_t s = o[a] * p.strides[a] - p.paddings[2 * a];
              divisor *= double(std::min<int64_t>(s + p.ksize[a], in[a] + p.paddings[2 * a]) - s);
            }
          }
          result.push_back(p.type == "max" ? best : count > 0 ? sum / divisor : 0.0);
        }
  return result;
}

AttributeMap PoolAttrs(const PoolCase& p) {
  return {{"pooling_type", p.type},     {"ksize", p.ksize},         {"strides", p.strides},
          {"paddings", p.paddings},     {"exclusive", p.exclusive}, {"adaptive", p.adaptive},
          {"global_pooling", p.global}, {"ceil_mode", p.ceil}};
}

const std::vector<PoolCase>& PoolCases() {
  static const std::vector<PoolCase> cases = {
      {"max", {2, 2, 2}, {2, 2, 2}, {0, 0, 0, 0, 0, 0}, true, false, false, false},
      {"avg", {3, 2, 3}, {1, 2, 2}, {1, 1, 0, 1, 1, 0}, true, false, false, false},
      {"avg", {3, 2, 3}, {1, 2, 2}, {1, 1, 0, 1, 1, 0}, false, false, false, true},
      // ceil_mode's last windows reach past the input: shorter divisors.
      {"avg", {3, 3, 3}, {2, 2, 2}, {0, 0, 0, 0, 0, 0}, false, false, false, true},
      {"max", {2, 3, 2}, {2, 2, 2}, {1, 0, 0, 0, 1, 1}, true, false, false, true},
      {"avg", {2, 3, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, true, true, false, false},
      {"max", {3, 2, 4}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, true, true, false, false},
      {"avg", {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, true, false, true, false},
  };
  return cases;
}

TEST(Pool3dOp, MatchesTheDirectWindows) {
  operators::RegisterAllOps();
  const int64_t n = 2, c = 3, in[3] = {5, 6, 7};
  const auto x = RandomValues(n * c * 5 * 6 * 7, -1, 1, 67);
  for (const PoolCase& p : PoolCases()) {
    SCOPED_TRACE(p.type + (p.adaptive ? " adaptive" : "") + (p.global ? " global" : "") +
                 (p.ceil ? " ceil" : "") + (p.exclusive ? "" : " inclusive"));
    std::vector<int64_t> od;
    const auto want = NaivePool3d(p, x, n, c, in, &od);
    const OpRunResult r = RunOp("pool3d", {{"X", {MakeTensor<double>({n, c, 5, 6, 7}, x)}}},
                                {{"Out", 1}}, PoolAttrs(p));
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(od));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-12, 1e-12, "NCDHW");
    AttributeMap attrs = PoolAttrs(p);
    attrs["data_format"] = std::string("NDHWC");
    const OpRunResult last =
        RunOp("pool3d", {{"X", {MakeTensor<double>({n, 5, 6, 7, c}, ChannelsLast(x, n, c, 210))}}},
              {{"Out", 1}}, attrs);
    ExpectNear(ToDoubles(last.outputs.at("Out")[0]),
               ChannelsLast(want, n, c, od[2] * od[3] * od[4]), 1e-12, 1e-12, "NDHWC");
  }
}

TEST(Pool3dOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const PoolCase& p : PoolCases()) {
    GradCheck check;
    check.op_type = "pool3d";
    check.inputs = {{"X", {MakeTensor<double>({1, 2, 4, 5, 4}, RandomValues(160, -1, 1, 68))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = PoolAttrs(p);
    if (p.adaptive) check.attrs["ksize"] = std::vector<int>{2, 3, 2};
    CheckGradients(check);
  }
}

// max_pool3d_with_index against windows scanned here: the first strict maximum and its
// offset in the channel's volume; padding, ceil_mode and adaptive windows; gradient.
TEST(MaxPool3dWithIndexOp, MaximaAndWhereTheyAre) {
  operators::RegisterAllOps();
  const int64_t n = 2, c = 2, d = 4, h = 5, w = 3;
  std::vector<double> x = RandomValues(n * c * d * h * w, -1, 1, 81);
  x[7] = x[8];  // A tie: the first one is taken.
  struct Case {
    std::vector<int> ksize, strides, paddings;
    bool ceil, adaptive;
  };
  for (const Case& k : {Case{{2, 3, 2}, {2, 1, 2}, {1, 0, 1}, false, false},
                        Case{{3, 2, 2}, {2, 2, 2}, {0, 1, 0}, true, false},
                        Case{{3, 2, 2}, {1, 1, 1}, {0, 0, 0}, false, true}}) {
    const int64_t in[3] = {d, h, w};
    int64_t out[3];
    for (int a = 0; a < 3; ++a) {
      if (k.adaptive) {
        out[a] = k.ksize[a];
      } else {
        const int64_t span =
            in[a] + 2 * k.paddings[a] - k.ksize[a] + (k.ceil ? k.strides[a] - 1 : 0);
        out[a] = span / k.strides[a] + 1;
      }
    }
    std::vector<double> want_out, want_mask;
    for (int64_t p = 0; p < n * c; ++p)
      for (int64_t z = 0; z < out[0]; ++z)
        for (int64_t y = 0; y < out[1]; ++y)
          for (int64_t xx = 0; xx < out[2]; ++xx) {
            const int64_t o[3] = {z, y, xx};
            int64_t lo[3], hi[3];
            for (int a = 0; a < 3; ++a) {
              if (k.adaptive) {
                lo[a] = o[a] * in[a] / out[a];
                hi[a] = ((o[a] + 1) * in[a] + out[a] - 1) / out[a];
              } else {
                const int64_t start = o[a] * k.strides[a] - k.paddings[a];
                lo[a] = std::max<int64_t>(start, 0);
                hi[a] = std::min<int64_t>(start + k.ksize[a], in[a]);
              }
            }
            double best = -std::numeric_limits<float>::max();
            int64_t arg = -1;
            for (int64_t i = lo[0]; i < hi[0]; ++i)
              for (int64_t j = lo[1]; j < hi[1]; ++j)
                for (int64_t l = lo[2]; l < hi[2]; ++l) {
                  const int64_t at = (i * h + j) * w + l;
                  if (best < x[p * d * h * w + at]) {
                    best = x[p * d * h * w + at];
                    arg = at;
                  }
                }
            want_out.push_back(best);
            want_mask.push_back(static_cast<double>(arg));
          }
    const AttributeMap attrs = {{"ksize", k.ksize},
                                {"strides", k.strides},
                                {"paddings", k.paddings},
                                {"ceil_mode", k.ceil},
                                {"adaptive", k.adaptive}};
    const auto r = RunOp("max_pool3d_with_index", {{"X", {MakeTensor<double>({n, c, d, h, w}, x)}}},
                         {{"Out", 1}, {"Mask", 1}}, attrs);
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({n, c, out[0], out[1], out[2]}));
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want_out);
    EXPECT_EQ(ToDoubles(r.outputs.at("Mask")[0]), want_mask);
    EXPECT_EQ(r.outputs.at("Mask")[0].dtype(), DataType::INT32);
  }
  GradCheck check;
  check.op_type = "max_pool3d_with_index";
  std::vector<double> distinct(2 * 3 * 4 * 3);
  for (size_t i = 0; i < distinct.size(); ++i) distinct[i] = std::sin(1.3 * static_cast<double>(i));
  check.inputs = {{"X", {MakeTensor<double>({1, 2, 3, 4, 3}, distinct)}}};
  check.outputs = {{"Out", 1}, {"Mask", 1}};
  check.loss_outputs = {"Out"};
  check.attrs = {{"ksize", std::vector<int>{2, 2, 2}}, {"strides", std::vector<int>{1, 2, 1}}};
  CheckGradients(check);
}

TEST(Conv3dPool3dOps, ShapeErrors) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("conv3d",
              {{"Input", {MakeTensor<float>({1, 2, 3, 3}, RandomValues(18, -1, 1))}},
               {"Filter", {MakeTensor<float>({1, 2, 1, 1, 1}, {1, 1})}}},
              {{"Output", 1}});
      },
      {"op `conv3d` input `Input`", "5-D", "[1, 2, 3, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("pool3d", {{"X", {MakeTensor<float>({1, 1, 2, 2, 2}, RandomValues(8, -1, 1))}}},
              {{"Out", 1}},
              {{"pooling_type", std::string("max")}, {"ksize", std::vector<int>{3, 3, 3}}});
      },
      {"op `pool3d`", "output depth would be 0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
