// unfold and fold against their index formulas written here in double (asymmetric paddings,
// strides, dilations), the doc example, gradients by finite differences to the second order
// (each op's gradient is the other one), typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Window {
  std::vector<int> k, s, p, d;
};

AttributeMap AttrsOf(const Window& w) {
  return {{"kernel_sizes", w.k}, {"strides", w.s}, {"paddings", w.p}, {"dilations", w.d}};
}

// Calls fn(column row, block position, image offset or -1 in the padding) for every entry of
// the unfolded [C * kh * kw, L] of one [C, H, W] image.
template <typename Fn>
void ForEachEntry(const Window& w, int64_t c_n, int64_t h, int64_t wd, Fn&& fn) {
  const int64_t oh = (h + w.p[0] + w.p[2] - (w.d[0] * (w.k[0] - 1) + 1)) / w.s[0] + 1;
  const int64_t ow = (wd + w.p[1] + w.p[3] - (w.d[1] * (w.k[1] - 1) + 1)) / w.s[1] + 1;
  for (int64_t c = 0; c < c_n; ++c) {
    for (int64_t i = 0; i < w.k[0]; ++i) {
      for (int64_t j = 0; j < w.k[1]; ++j) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t x = 0; x < ow; ++x) {
            const int64_t row = (c * w.k[0] + i) * w.k[1] + j;
            const int64_t iy = y * w.s[0] - w.p[0] + i * w.d[0];
            const int64_t ix = x * w.s[1] - w.p[1] + j * w.d[1];
            const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < wd;
            fn(row, y * ow + x, oh * ow, inside ? (c * h + iy) * wd + ix : -1);
          }
        }
      }
    }
  }
}

const std::vector<Window> kWindows = {
    {{2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}},
    {{3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 1}},
    {{2, 3}, {1, 2}, {0, 2, 1, 0}, {2, 1}},
    {{1, 1}, {3, 3}, {0, 0, 0, 0}, {1, 1}},
};

TEST(UnfoldFold, DocExample) {
  operators::RegisterAllOps();
  std::vector<double> v(9);
  for (int i = 0; i < 9; ++i) v[i] = i;
  const auto r = RunOp("unfold", {{"X", {MakeTensor<float>({1, 1, 3, 3}, v)}}}, {{"Y", 1}},
                       {{"kernel_sizes", std::vector<int>{2, 2}}});
  EXPECT_EQ(r.outputs.at("Y")[0].dims(), DDim({1, 4, 4}));
  const std::vector<double> y = ToDoubles(r.outputs.at("Y")[0]);
  // Column 0 is rows 0..3 at position 0.
  EXPECT_EQ((std::vector<double>{y[0], y[4], y[8], y[12]}), (std::vector<double>{0, 1, 3, 4}));
}

TEST(UnfoldFold, MatchTheIndexFormulas) {
  operators::RegisterAllOps();
  const int64_t n = 2, c = 3, h = 5, wd = 6;
  const std::vector<double> x = RandomValues(n * c * h * wd, -1, 1, 3);
  for (const Window& w : kWindows) {
    const std::string what = "kernel " + std::to_string(w.k[0]) + "x" + std::to_string(w.k[1]) +
                             " stride " + std::to_string(w.s[0]) + " pad " +
                             std::to_string(w.p[0]) + std::to_string(w.p[1]) +
                             std::to_string(w.p[2]) + std::to_string(w.p[3]);
    int64_t rows = c * w.k[0] * w.k[1], positions = 0;
    ForEachEntry(w, c, h, wd, [&](int64_t, int64_t, int64_t l, int64_t) { positions = l; });
    std::vector<double> want(static_cast<size_t>(n * rows * positions), 0.0);
    for (int64_t b = 0; b < n; ++b) {
      ForEachEntry(w, c, h, wd, [&](int64_t row, int64_t pos, int64_t l, int64_t at) {
        want[(b * rows + row) * l + pos] = at < 0 ? 0 : x[b * c * h * wd + at];
      });
    }
    for (bool as_float : {false, true}) {
      const DenseTensor t =
          as_float ? MakeTensor<float>({n, c, h, wd}, x) : MakeTensor<double>({n, c, h, wd}, x);
      const auto r = RunOp("unfold", {{"X", {t}}}, {{"Y", 1}}, AttrsOf(w));
      EXPECT_EQ(r.outputs.at("Y")[0].dims(), DDim({n, rows, positions})) << what;
      const double tol = as_float ? 1e-7 : 0;  // float rounds X.
      ExpectNear(ToDoubles(r.outputs.at("Y")[0]), want, tol, tol, "unfold " + what);
    }
    // fold: every column entry added back where it was read from.
    const std::vector<double> cols = RandomValues(n * rows * positions, -1, 1, 4);
    std::vector<double> back(x.size(), 0.0);
    for (int64_t b = 0; b < n; ++b) {
      ForEachEntry(w, c, h, wd, [&](int64_t row, int64_t pos, int64_t l, int64_t at) {
        if (at >= 0) back[b * c * h * wd + at] += cols[(b * rows + row) * l + pos];
      });
    }
    AttributeMap attrs = AttrsOf(w);
    attrs["output_sizes"] = std::vector<int>{static_cast<int>(h), static_cast<int>(wd)};
    const auto f =
        RunOp("fold", {{"X", {MakeTensor<double>({n, rows, positions}, cols)}}}, {{"Y", 1}}, attrs);
    EXPECT_EQ(f.outputs.at("Y")[0].dims(), DDim({n, c, h, wd})) << what;
    ExpectNear(ToDoubles(f.outputs.at("Y")[0]), back, 1e-14, 1e-14, "fold " + what);
  }
}

TEST(UnfoldFold, GradientsToTheSecondOrder) {
  operators::RegisterAllOps();
  for (const Window& w : {kWindows[1], kWindows[2]}) {
    GradCheck u;
    u.op_type = "unfold";
    u.inputs = {{"X", {MakeTensor<double>({2, 2, 5, 4}, RandomValues(80, -1, 1, 5))}}};
    u.outputs = {{"Y", 1}};
    u.attrs = AttrsOf(w);
    u.max_order = 2;
    CheckGradients(u);
  }
  // fold of [1, 2 * 2 * 2, 4 * 3] columns back into [1, 2, 5, 4] (kernel 2x2, stride 1).
  GradCheck f;
  f.op_type = "fold";
  f.inputs = {{"X", {MakeTensor<double>({1, 8, 12}, RandomValues(96, -1, 1, 6))}}};
  f.outputs = {{"Y", 1}};
  f.attrs = AttrsOf(kWindows[0]);
  f.attrs["output_sizes"] = std::vector<int>{5, 4};
  f.max_order = 2;
  CheckGradients(f);
}

TEST(UnfoldFold, BadWindowsAndShapesAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({1, 2, 4, 4}, RandomValues(32, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unfold", {{"X", {x}}}, {{"Y", 1}}, {{"kernel_sizes", std::vector<int>{2}}});
      },
      {"op `unfold` attribute `kernel_sizes`", "2 values"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unfold", {{"X", {x}}}, {{"Y", 1}},
              {{"kernel_sizes", std::vector<int>{2, 2}}, {"paddings", std::vector<int>{1, 1}}});
      },
      {"op `unfold` attribute `paddings`", "4 values"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unfold", {{"X", {x}}}, {{"Y", 1}}, {{"kernel_sizes", std::vector<int>{5, 2}}});
      },
      {"op `unfold`", "no block"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("unfold", {{"X", {MakeTensor<float>({2, 4, 4}, RandomValues(32, 0, 1))}}}, {{"Y", 1}},
              {{"kernel_sizes", std::vector<int>{2, 2}}});
      },
      {"op `unfold` input `X`", "[N, C, H, W]", "[2, 4, 4]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fold", {{"X", {MakeTensor<float>({1, 8, 10}, RandomValues(80, 0, 1))}}}, {{"Y", 1}},
              {{"kernel_sizes", std::vector<int>{2, 2}}, {"output_sizes", std::vector<int>{4, 4}}});
      },
      {"op `fold` input `X`", "block positions", "9", "[1, 8, 10]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fold", {{"X", {MakeTensor<float>({1, 7, 9}, RandomValues(63, 0, 1))}}}, {{"Y", 1}},
              {{"kernel_sizes", std::vector<int>{2, 2}}, {"output_sizes", std::vector<int>{4, 4}}});
      },
      {"op `fold` input `X`", "multiple of kh * kw = 4"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
