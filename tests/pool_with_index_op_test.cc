// max_pool2d_with_index against windows searched by hand (strides, paddings, ceil_mode,
// global and adaptive windows) and unpool against values placed by hand; fractional max
// pooling against the windows of its documented index rule and the documentation's worked
// example; the doc examples, gradients by finite differences, typed errors.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Pooled {
  std::vector<double> out, mask;
};

// Windows [i s - p, i s - p + k) clipped to [0, in) (adaptive: [floor(i in / n),
// ceil((i + 1) in / n))), the first maximum in row-major order.
Pooled NaivePool(const std::vector<double>& x, int64_t planes, int64_t h, int64_t w, int64_t oh,
                 int64_t ow, int k, int s, int p, bool adaptive) {
  Pooled r;
  auto range = [&](int64_t i, int64_t in, int64_t n) -> std::pair<int64_t, int64_t> {
    if (adaptive) return {i * in / n, (i * in + in + n - 1) / n};
    return {std::max<int64_t>(i * s - p, 0), std::min<int64_t>(i * s - p + k, in)};
  };
  for (int64_t q = 0; q < planes; ++q) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        const auto [h0, h1] = range(i, h, oh);
        const auto [w0, w1] = range(j, w, ow);
        double best = -1e300;
        int64_t arg = -1;
        for (int64_t a = h0; a < h1; ++a) {
          for (int64_t b = w0; b < w1; ++b) {
            if (x[q * h * w + a * w + b] > best) {
              best = x[q * h * w + a * w + b];
              arg = a * w + b;
            }
          }
        }
        r.out.push_back(best);
        r.mask.push_back(static_cast<double>(arg));
      }
    }
  }
  return r;
}

TEST(MaxPoolWithIndexOp, DocExamples) {
  operators::RegisterAllOps();
  const auto r =
      RunOp("max_pool2d_with_index", {{"X", {MakeTensor<float>({1, 1, 2, 2}, {1, 3, 4, 2})}}},
            {{"Out", 1}, {"Mask", 1}},
            {{"ksize", std::vector<int>{2, 2}}, {"strides", std::vector<int>{2, 2}}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{4}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Mask")[0]), (std::vector<double>{2}));
  const auto u = RunOp("unpool",
                       {{"X", {MakeTensor<float>({1, 1, 1, 1}, {4})}},
                        {"Indices", {MakeTensor<int32_t>({1, 1, 1, 1}, {2})}}},
                       {{"Out", 1}},
                       {{"ksize", std::vector<int>{2, 2}},
                        {"strides", std::vector<int>{2, 2}},
                        {"paddings", std::vector<int>{0, 0}},
                        {"output_size", std::vector<int>{2, 2}}});
  EXPECT_EQ(ToDoubles(u.outputs.at("Out")[0]), (std::vector<double>{0, 0, 4, 0}));
}

TEST(MaxPoolWithIndexOp, MatchesWindowsSearchedByHand) {
  operators::RegisterAllOps();
  const int64_t n = 2, c = 3, h = 7, w = 9;
  const std::vector<double> x = RandomValues(n * c * h * w, -1, 1, 3);
  struct Config {
    int k, s, p;
    bool ceil;
    int64_t oh, ow;
  };
  for (const Config& cfg : {Config{2, 2, 0, false, 3, 4}, Config{3, 2, 1, false, 4, 5},
                            Config{2, 2, 0, true, 4, 5}, Config{3, 1, 1, false, 7, 9}}) {
    SCOPED_TRACE("k " + std::to_string(cfg.k) + " s " + std::to_string(cfg.s) + " p " +
                 std::to_string(cfg.p) + (cfg.ceil ? " ceil" : ""));
    const auto r = RunOp("max_pool2d_with_index", {{"X", {MakeTensor<double>({n, c, h, w}, x)}}},
                         {{"Out", 1}, {"Mask", 1}},
                         {{"ksize", std::vector<int>{cfg.k, cfg.k}},
                          {"strides", std::vector<int>{cfg.s, cfg.s}},
                          {"paddings", std::vector<int>{cfg.p, cfg.p}},
                          {"ceil_mode", cfg.ceil}});
    const Pooled want = NaivePool(x, n * c, h, w, cfg.oh, cfg.ow, cfg.k, cfg.s, cfg.p, false);
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({n, c, cfg.oh, cfg.ow}));
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want.out);
    EXPECT_EQ(ToDoubles(r.outputs.at("Mask")[0]), want.mask);
  }
  const auto a =
      RunOp("max_pool2d_with_index", {{"X", {MakeTensor<double>({n, c, h, w}, x)}}},
            {{"Out", 1}, {"Mask", 1}}, {{"ksize", std::vector<int>{3, 4}}, {"adaptive", true}});
  const Pooled want = NaivePool(x, n * c, h, w, 3, 4, 0, 0, 0, true);
  EXPECT_EQ(ToDoubles(a.outputs.at("Out")[0]), want.out);
  EXPECT_EQ(ToDoubles(a.outputs.at("Mask")[0]), want.mask);
  const auto g = RunOp("max_pool2d_with_index", {{"X", {MakeTensor<double>({n, c, h, w}, x)}}},
                       {{"Out", 1}, {"Mask", 1}},
                       {{"ksize", std::vector<int>{1, 1}}, {"global_pooling", true}});
  EXPECT_EQ(ToDoubles(g.outputs.at("Out")[0]), NaivePool(x, n * c, h, w, 1, 1, 9, 1, 0, false).out);
}

TEST(MaxPoolWithIndexOp, UnpoolPutsValuesBackByHand) {
  operators::RegisterAllOps();
  const std::vector<double> x = RandomValues(2 * 3 * 4, -1, 1, 5);
  // Indices into a 3x5 plane, distinct per plane.
  std::vector<double> idx;
  for (int p = 0; p < 6; ++p) {
    for (int k = 0; k < 4; ++k) idx.push_back((k * 4 + p) % 15);
  }
  // The output size as the attribute, and as one-element tensors read when the program runs
  // (PaddlePaddle's PIR programs: [H, W] or [N, C, H, W]) overriding a wrong attribute.
  for (int form = 0; form < 4; ++form) {
    const bool wide = form % 2 == 1;
    SlotTensors in = {{"X", {MakeTensor<double>({2, 3, 2, 2}, x)}}};
    in["Indices"] = {wide ? MakeTensor<int64_t>({2, 3, 2, 2}, idx)
                          : MakeTensor<int32_t>({2, 3, 2, 2}, idx)};
    framework::AttributeMap attrs = {{"ksize", std::vector<int>{2, 2}},
                                     {"strides", std::vector<int>{2, 2}},
                                     {"paddings", std::vector<int>{0, 0}},
                                     {"output_size", std::vector<int>{3, 5}}};
    if (form == 2) {
      in["OutputSizeTensorList"] = {MakeTensor<int32_t>({1}, {3}), MakeTensor<int64_t>({1}, {5})};
      attrs["output_size"] = std::vector<int>{4, 4};
    } else if (form == 3) {
      in["OutputSizeTensorList"] = {MakeTensor<int64_t>({1}, {2}), MakeTensor<int64_t>({1}, {3}),
                                    MakeTensor<int64_t>({1}, {3}), MakeTensor<int64_t>({1}, {5})};
      attrs["output_size"] = std::vector<int>{};
    }
    SCOPED_TRACE(form);
    const auto r = RunOp("unpool", in, {{"Out", 1}}, attrs);
    ASSERT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 3, 3, 5}));
    std::vector<double> want(2 * 3 * 15, 0.0);
    for (int p = 0; p < 6; ++p) {
      for (int k = 0; k < 4; ++k) want[p * 15 + static_cast<int>(idx[p * 4 + k])] = x[p * 4 + k];
    }
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  }
  // Without output_size: (H - 1) s - 2 p + k.
  const auto d = RunOp("unpool",
                       {{"X", {MakeTensor<float>({1, 1, 2, 3}, RandomValues(6, 0, 1))}},
                        {"Indices", {MakeTensor<int32_t>({1, 1, 2, 3}, {0, 1, 2, 3, 4, 5})}}},
                       {{"Out", 1}},
                       {{"ksize", std::vector<int>{3, 3}},
                        {"strides", std::vector<int>{2, 2}},
                        {"paddings", std::vector<int>{1, 1}}});
  EXPECT_EQ(d.outputs.at("Out")[0].dims(), DDim({1, 1, 3, 5}));
}

TEST(MaxPoolWithIndexOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck pool;
  pool.op_type = "max_pool2d_with_index";
  pool.inputs = {{"X", {MakeTensor<double>({1, 2, 5, 5}, RandomValues(50, -1, 1, 7))}}};
  pool.outputs = {{"Out", 1}, {"Mask", 1}};
  pool.loss_outputs = {"Out"};
  pool.attrs = {{"ksize", std::vector<int>{3, 3}},
                {"strides", std::vector<int>{2, 2}},
                {"paddings", std::vector<int>{1, 1}}};  // Overlapping windows.
  CheckGradients(pool);
  GradCheck unpool;
  unpool.op_type = "unpool";
  unpool.inputs = {{"X", {MakeTensor<double>({1, 2, 2, 2}, RandomValues(8, -1, 1, 8))}},
                   {"Indices", {MakeTensor<int32_t>({1, 2, 2, 2}, {0, 3, 10, 15, 1, 4, 9, 12})}}};
  unpool.wrt = {"X"};
  unpool.outputs = {{"Out", 1}};
  unpool.attrs = {{"ksize", std::vector<int>{2, 2}},
                  {"strides", std::vector<int>{2, 2}},
                  {"paddings", std::vector<int>{0, 0}}};
  CheckGradients(unpool);
  // An output size read at run time (5 x 4, not the window's 4 x 4) reaches the gradient op.
  unpool.inputs["OutputSizeTensorList"] = {MakeTensor<int64_t>({1}, {5}),
                                           MakeTensor<int64_t>({1}, {4})};
  CheckGradients(unpool);
}

// The windows of fractional max pooling along one axis (the op's documented rule, in float).
std::vector<std::pair<int64_t, int64_t>> FractionalWindows(int64_t in, int64_t out, int64_t k,
                                                           float u) {
  const float alpha = static_cast<float>(in - k) / static_cast<float>(out - (k > 0 ? 1 : 0));
  if (k == 0) {
    const int64_t base = in / out;
    u *= std::min(static_cast<float>(base + 2) / alpha - 1,
                  static_cast<float>(in + 1 - base) / alpha - static_cast<float>(out - 1));
  }
  const auto floor_of = [](float v) { return static_cast<int64_t>(v); };
  std::vector<std::pair<int64_t, int64_t>> w;
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = floor_of((static_cast<float>(i) + u) * alpha) - floor_of(u * alpha);
    const int64_t end =
        k > 0 ? start + k : floor_of((static_cast<float>(i) + 1 + u) * alpha) - floor_of(u * alpha);
    w.push_back({std::max<int64_t>(start, 0), std::min(end, in)});
  }
  return w;
}

TEST(FractionalMaxPoolOp, MaximaOfTheDocumentedWindows) {
  operators::RegisterAllOps();
  // The documentation's example: [2, 4, 3, 1, 5, 2, 3] to 5 outputs with u = 0.3 gives
  // windows of sizes [1, 2, 1, 2, 1] and [2, 4, 1, 5, 3].
  const OpRunResult doc = RunOp(
      "fractional_max_pool2d", {{"x", {MakeTensor<float>({1, 1, 1, 7}, {2, 4, 3, 1, 5, 2, 3})}}},
      {{"out", 1}, {"mask", 1}}, {{"output_size", std::vector<int>{1, 5}}, {"random_u", 0.3f}});
  EXPECT_EQ(ToDoubles(doc.outputs.at("out")[0]), (std::vector<double>{2, 4, 1, 5, 3}));
  EXPECT_EQ(ToDoubles(doc.outputs.at("mask")[0]), (std::vector<double>{0, 1, 3, 4, 6}));

  struct Case {
    std::vector<int64_t> x;
    std::vector<int> out, kernel;
    float u;
  };
  for (const Case& c :
       {Case{{2, 3, 7, 9}, {5, 4}, {0, 0}, 0.3f}, Case{{1, 2, 8, 7}, {3, 4}, {3, 2}, 0.7f},
        Case{{1, 2, 5, 6, 7}, {3, 4, 5}, {0, 0, 0}, 0.45f},
        Case{{1, 1, 6, 5, 6}, {2, 2, 3}, {2, 3, 2}, 0.2f}}) {
    const int dims = static_cast<int>(c.out.size());
    const std::string op = dims == 2 ? "fractional_max_pool2d" : "fractional_max_pool3d";
    const DDim xd(c.x);
    const std::vector<double> x = RandomValues(xd.numel(), -1, 1, 61);
    // Spatial dims padded in front to three: [D, H, W].
    std::vector<int64_t> in(3, 1), out(3, 1), kernel(3, 0);
    for (int d = 0; d < dims; ++d) {
      in[3 - dims + d] = c.x[2 + d];
      out[3 - dims + d] = c.out[d];
      kernel[3 - dims + d] = c.kernel[d];
    }
    std::vector<std::pair<int64_t, int64_t>> win[3];
    for (int d = 0; d < 3; ++d) {
      win[d] = d < 3 - dims ? std::vector<std::pair<int64_t, int64_t>>{{0, 1}}
                            : FractionalWindows(in[d], out[d], kernel[d], c.u);
    }
    std::vector<double> want, want_mask;
    const int64_t planes = c.x[0] * c.x[1], plane = in[0] * in[1] * in[2];
    for (int64_t q = 0; q < planes; ++q) {
      for (const auto& [d0, d1] : win[0]) {
        for (const auto& [h0, h1] : win[1]) {
          for (const auto& [w0, w1] : win[2]) {
            double best = -1e300;
            int64_t at = -1;
            for (int64_t d = d0; d < d1; ++d) {
              for (int64_t h = h0; h < h1; ++h) {
                for (int64_t w = w0; w < w1; ++w) {
                  const int64_t e = (d * in[1] + h) * in[2] + w;
                  if (x[q * plane + e] > best) best = x[q * plane + e], at = e;
                }
              }
            }
            want.push_back(best);
            want_mask.push_back(static_cast<double>(at));
          }
        }
      }
    }
    const AttributeMap attrs = {
        {"output_size", c.out}, {"kernel_size", c.kernel}, {"random_u", c.u}};
    for (const bool dbl : {false, true}) {
      const DenseTensor xt = dbl ? MakeTensor<double>(xd, x) : MakeTensor<float>(xd, x);
      const OpRunResult r = RunOp(op, {{"x", {xt}}}, {{"out", 1}, {"mask", 1}}, attrs);
      ExpectNear(ToDoubles(r.outputs.at("out")[0]), want, 1e-6, 1e-6, op);
      EXPECT_EQ(ToDoubles(r.outputs.at("mask")[0]), want_mask) << op;
    }
    GradCheck check;
    check.op_type = op;
    check.inputs = {{"x", {MakeTensor<double>(xd, x)}}};
    check.outputs = {{"out", 1}, {"mask", 1}};
    check.loss_outputs = {"out"};
    check.attrs = attrs;
    CheckGradients(check);
  }
  // Too few input rows for the windows.
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("fractional_max_pool2d",
              {{"x", {MakeTensor<float>({1, 1, 4, 4}, std::vector<double>(16, 1))}}},
              {{"out", 1}, {"mask", 1}},
              {{"output_size", std::vector<int>{3, 3}}, {"kernel_size", std::vector<int>{3, 1}}});
      },
      {"fractional_max_pool2d", "input `x`", "at least output_size - 1 + kernel_size = 5"});
}

TEST(MaxPoolWithIndexOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("unpool",
              {{"X", {MakeTensor<float>({1, 1, 1, 2}, {1, 2})}},
               {"Indices", {MakeTensor<int32_t>({1, 1, 1, 2}, {0, 4})}}},
              {{"Out", 1}},
              {{"ksize", std::vector<int>{2, 2}},
               {"strides", std::vector<int>{2, 2}},
               {"paddings", std::vector<int>{0, 0}},
               {"output_size", std::vector<int>{2, 2}}});
      },
      {"op `unpool` input `Indices`", "index 4", "4 elements"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("unpool",
              {{"X", {MakeTensor<float>({1, 1, 1, 2}, {1, 2})}},
               {"Indices", {MakeTensor<int32_t>({1, 1, 2, 1}, {0, 1})}}},
              {{"Out", 1}},
              {{"ksize", std::vector<int>{2, 2}},
               {"strides", std::vector<int>{2, 2}},
               {"paddings", std::vector<int>{0, 0}}});
      },
      {"op `unpool` input `Indices`", "[1, 1, 1, 2]", "[1, 1, 2, 1]"});
  ExpectError<platform::OutOfRangeError>(
      [] {
        RunOp("unpool",
              {{"X", {MakeTensor<float>({1, 1, 1, 1}, {1})}},
               {"Indices", {MakeTensor<int32_t>({1, 1, 1, 1}, {0})}}},
              {{"Out", 1}},
              {{"ksize", std::vector<int>{2, 2}},
               {"strides", std::vector<int>{2, 2}},
               {"paddings", std::vector<int>{0, 0}},
               {"output_size", std::vector<int>{2147483647, 2147483647}}});
      },
      {"`unpool`", "[1, 1, 2147483647, 2147483647]", "exceeds int64"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("max_pool2d_with_index", {{"X", {MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})}}},
              {{"Out", 1}, {"Mask", 1}}, {{"ksize", std::vector<int>{3, 3}}});
      },
      {"max_pool2d_with_index", "expected > 0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
