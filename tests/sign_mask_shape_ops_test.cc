// copysign, elementwise_heaviside, the bit shifts, masked_fill, equal_all, is_empty, empty,
// tril_indices / triu_indices, logspace, diag_embed, baddbmm, renorm and segment_pool against
// references written here (loops in double, integer arithmetic for the shifts), gradients by
// finite differences (second order where the backward is written with ops), typed errors.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class SignMaskShapeOps : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

DenseTensor Out(const OpRunResult& r, const std::string& slot = "Out") {
  return r.outputs.at(slot)[0];
}

TEST_F(SignMaskShapeOps, CopysignTakesTheSignBitOfYWithBroadcasting) {
  const std::vector<double> x = {1.5, -2, 0, 3, -4, 0.25};
  const std::vector<double> y = {-1, -0.0, 2};
  const auto r = RunOp(
      "copysign", {{"x", {MakeTensor<double>({2, 3}, x)}}, {"y", {MakeTensor<double>({3}, y)}}},
      {{"out", 1}});
  const std::vector<double> got = ToDoubles(Out(r, "out"));
  for (int i = 0; i < 6; ++i) {
    const double want = std::fabs(x[i]) * (std::signbit(y[i % 3]) ? -1 : 1);
    EXPECT_EQ(got[i], want) << i;
    EXPECT_EQ(std::signbit(got[i]), std::signbit(y[i % 3])) << i;
  }
  const auto ri = RunOp("copysign",
                        {{"x", {MakeTensor<int64_t>({3}, {3, -4, 7})}},
                         {"y", {MakeTensor<int64_t>({2, 1}, {-1, 1})}}},
                        {{"out", 1}});
  EXPECT_EQ(ToDoubles(Out(ri, "out")), (std::vector<double>{-3, -4, -7, 3, 4, 7}));
  // d out / d x = sgn(x) sgn(y) away from x = 0; y gets zeros.
  GradCheck g;
  g.op_type = "copysign";
  g.inputs = {{"x", {MakeTensor<double>({2, 3}, {1.5, -2, 0.7, 3, -4, 0.25})}},
              {"y", {MakeTensor<double>({3}, {-1, 0.5, 2})}}};
  g.outputs = {{"out", 1}};
  g.max_order = 2;
  CheckGradients(g);
}

TEST_F(SignMaskShapeOps, HeavisideStepAndItsGradientAtZero) {
  const std::vector<double> x = {-1, 0, 2, 0, -0.5, 0};
  const std::vector<double> y = {0.5, 7, -3};
  const SlotTensors in = {{"X", {MakeTensor<double>({2, 3}, x)}},
                          {"Y", {MakeTensor<double>({3}, y)}}};
  const auto r = RunOp("elementwise_heaviside", in, {{"Out", 1}});
  std::vector<double> want;
  for (int i = 0; i < 6; ++i) want.push_back(x[i] == 0 ? y[i % 3] : (x[i] > 0 ? 1 : 0));
  EXPECT_EQ(ToDoubles(Out(r)), want);
  GradCheck g;
  g.op_type = "elementwise_heaviside";
  g.inputs = in;
  g.outputs = {{"Out", 1}};
  g.wrt = {"Y"};
  g.max_order = 2;
  CheckGradients(g);
  // dX is zero away from the step.
  GradCheck h = g;
  h.inputs = {{"X", {MakeTensor<double>({2, 3}, {-1, 0.3, 2, 0.1, -0.5, 4})}},
              {"Y", {MakeTensor<double>({3}, y)}}};
  h.wrt = {"X"};
  CheckGradients(h);
}

// Shifts of every int8 value by every count in [-2, 10], against integer arithmetic.
TEST_F(SignMaskShapeOps, ShiftsMatchIntegerArithmeticForEveryInt8Value) {
  std::vector<double> xs, ys;
  for (int v = -128; v < 128; ++v) {
    for (int c = -2; c <= 10; ++c) {
      xs.push_back(v);
      ys.push_back(c);
    }
  }
  const auto n = static_cast<int64_t>(xs.size());
  const SlotTensors in = {{"x", {MakeTensor<int8_t>({n}, xs)}},
                          {"y", {MakeTensor<int8_t>({n}, ys)}}};
  const auto left = ToDoubles(Out(RunOp("bitwise_left_shift", in, {{"out", 1}}), "out"));
  const auto arith = ToDoubles(
      Out(RunOp("bitwise_right_shift", in, {{"out", 1}}, {{"is_arithmetic", true}}), "out"));
  const auto logic = ToDoubles(
      Out(RunOp("bitwise_right_shift", in, {{"out", 1}}, {{"is_arithmetic", false}}), "out"));
  for (int64_t i = 0; i < n; ++i) {
    const int v = static_cast<int>(xs[i]), c = static_cast<int>(ys[i]);
    const bool in_range = c >= 0 && c < 8;
    // Left: the low 8 bits of v * 2^c, read as int8.
    int l = in_range ? ((v * (1 << c)) % 256 + 256) % 256 : 0;
    if (l >= 128) l -= 256;
    const int a = in_range ? static_cast<int>(std::floor(v / std::pow(2.0, c))) : (v < 0 ? -1 : 0);
    int g = in_range ? ((v + 256) % 256) >> c : 0;
    if (g >= 128) g -= 256;
    ASSERT_EQ(left[i], l) << v << " << " << c;
    ASSERT_EQ(arith[i], a) << v << " >> " << c;
    ASSERT_EQ(logic[i], g) << v << " >>> " << c;
  }
  // int64 and broadcasting: [2, 1] by [3].
  const auto r = RunOp("bitwise_left_shift",
                       {{"x", {MakeTensor<int64_t>({2, 1}, {1, -3})}},
                        {"y", {MakeTensor<int64_t>({3}, {0, 40, 64})}}},
                       {{"out", 1}});
  EXPECT_EQ(ToDoubles(Out(r, "out")),
            (std::vector<double>{1, std::ldexp(1.0, 40), 0, -3, -3 * std::ldexp(1.0, 40), 0}));
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(
            "bitwise_left_shift",
            {{"x", {MakeTensor<int32_t>({2}, {1, 2})}}, {"y", {MakeTensor<int64_t>({2}, {1, 2})}}},
            {{"out", 1}});
      },
      {"bitwise_left_shift", "`y`", "int32", "int64"});
}

TEST_F(SignMaskShapeOps, MaskedFillBroadcastsAndDifferentiatesTwice) {
  const std::vector<double> x = RandomValues(12, -1, 1, 3);
  const std::vector<double> mask = {1, 0, 1};
  const SlotTensors in = {{"x", {MakeTensor<double>({4, 3}, x)}},
                          {"mask", {MakeTensor<bool>({3}, mask)}},
                          {"value", {MakeTensor<double>({}, {2.5})}}};
  const auto r = RunOp("masked_fill", in, {{"out", 1}});
  std::vector<double> want(x);
  for (int i = 0; i < 12; ++i) {
    if (mask[i % 3] != 0) want[i] = 2.5;
  }
  EXPECT_EQ(ToDoubles(Out(r, "out")), want);
  // mask of higher rank than x: out [2, 3].
  const auto r2 = RunOp("masked_fill",
                        {{"x", {MakeTensor<double>({3}, {1, 2, 3})}},
                         {"mask", {MakeTensor<bool>({2, 1}, {0, 1})}},
                         {"value", {MakeTensor<double>({1}, {-1})}}},
                        {{"out", 1}});
  EXPECT_EQ(Out(r2, "out").dims(), DDim({2, 3}));
  EXPECT_EQ(ToDoubles(Out(r2, "out")), (std::vector<double>{1, 2, 3, -1, -1, -1}));
  GradCheck g;
  g.op_type = "masked_fill";
  g.inputs = {{"x", {MakeTensor<double>({4, 3}, x)}},
              {"mask", {MakeTensor<bool>({3}, mask)}},
              {"value", {MakeTensor<double>({3}, {0.5, -1, 2})}}};
  g.outputs = {{"out", 1}};
  g.wrt = {"x", "value"};
  g.max_order = 2;
  CheckGradients(g);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("masked_fill",
              {{"x", {MakeTensor<double>({3}, {1, 2, 3})}},
               {"mask", {MakeTensor<bool>({3}, {0, 1, 0})}},
               {"value", {MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})}}},
              {{"out", 1}});
      },
      {"op `masked_fill`", "`value`", "[3]", "[2, 3]"});
}

TEST_F(SignMaskShapeOps, EqualAllAndIsEmptyGiveZeroDimBools) {
  const auto eq = [](const DenseTensor& a, const DenseTensor& b) {
    const DenseTensor o = Out(RunOp("equal_all", {{"X", {a}}, {"Y", {b}}}, {{"Out", 1}}));
    EXPECT_EQ(o.dims(), DDim());
    return ToDoubles(o)[0] != 0;
  };
  EXPECT_TRUE(eq(MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({2}, {1, 2})));
  EXPECT_FALSE(eq(MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({2}, {1, 3})));
  EXPECT_FALSE(eq(MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({1, 2}, {1, 2})));
  EXPECT_FALSE(eq(MakeTensor<double>({1}, {NAN}), MakeTensor<double>({1}, {NAN})));
  EXPECT_TRUE(eq(MakeTensor<int64_t>({0}, {}), MakeTensor<int64_t>({0}, {})));
  const auto empty = [](const DenseTensor& t) {
    return ToDoubles(Out(RunOp("is_empty", {{"X", {t}}}, {{"Out", 1}})))[0] != 0;
  };
  EXPECT_TRUE(empty(MakeTensor<float>({2, 0}, {})));
  EXPECT_FALSE(empty(MakeTensor<float>({}, {4})));
  EXPECT_FALSE(empty(MakeTensor<int32_t>({3}, {1, 2, 3})));
}

TEST_F(SignMaskShapeOps, EmptyTakesItsShapeFromAttributeOrTensors) {
  const auto a = Out(
      RunOp("empty", {}, {{"Out", 1}}, {{"shape", std::vector<int64_t>{3, 0, 2}}, {"dtype", 6}}));
  EXPECT_EQ(a.dims(), DDim({3, 0, 2}));
  EXPECT_EQ(a.dtype(), DataType::FLOAT64);
  const auto b = Out(
      RunOp("empty",
            {{"ShapeTensorList", {MakeTensor<int32_t>({1}, {2}), MakeTensor<int64_t>({1}, {3})}}},
            {{"Out", 1}}, {{"dtype", 2}}));
  EXPECT_EQ(b.dims(), DDim({2, 3}));
  EXPECT_EQ(b.dtype(), DataType::INT32);
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("empty", {{"ShapeTensor", {MakeTensor<int64_t>({2}, {2, -3})}}}, {{"Out", 1}});
      },
      {"op `empty`", "ShapeTensor", "-3"});
}

TEST_F(SignMaskShapeOps, TriangleIndicesSplitEveryMatrix) {
  for (const auto& [rows, cols] :
       std::vector<std::pair<int, int>>{{4, 4}, {3, 6}, {6, 2}, {0, 3}}) {
    for (int offset = -7; offset <= 7; ++offset) {
      const auto lower = Out(RunOp("tril_indices", {}, {{"out", 1}},
                                   {{"rows", rows}, {"cols", cols}, {"offset", offset}}),
                             "out");
      const auto upper = Out(RunOp("triu_indices", {}, {{"out", 1}},
                                   {{"row", rows}, {"col", cols}, {"offset", offset + 1}}),
                             "out");
      // Every cell is in exactly one of tril(offset) and triu(offset + 1), each listed in
      // row-major order.
      std::vector<int> seen(static_cast<size_t>(rows * cols), 0);
      for (const auto& [t, lower_side] : {std::pair{lower, true}, std::pair{upper, false}}) {
        ASSERT_EQ(t.dims().size(), 2);
        const std::vector<double> v = ToDoubles(t);
        const int64_t n = t.dims()[1];
        for (int64_t i = 0; i < n; ++i) {
          const int r = static_cast<int>(v[i]), c = static_cast<int>(v[n + i]);
          ASSERT_TRUE(r >= 0 && r < rows && c >= 0 && c < cols);
          EXPECT_EQ(lower_side, c - r <= offset);
          if (i > 0) {
            EXPECT_LT(v[i - 1] * cols + v[n + i - 1], r * cols + c);
          }
          ++seen[r * cols + c];
        }
      }
      for (int s : seen) EXPECT_EQ(s, 1);
    }
  }
}

TEST_F(SignMaskShapeOps, LogspaceRaisesTheBaseToEvenlySpacedExponents) {
  const auto run = [](double start, double stop, int num, double base, int dtype) {
    return ToDoubles(Out(RunOp("logspace",
                               {{"Start", {MakeTensor<double>({1}, {start})}},
                                {"Stop", {MakeTensor<double>({1}, {stop})}},
                                {"Num", {MakeTensor<int32_t>({1}, {static_cast<double>(num)})}},
                                {"Base", {MakeTensor<double>({1}, {base})}}},
                               {{"Out", 1}}, {{"dtype", dtype}})));
  };
  const std::vector<double> got = run(0.5, 3, 6, 2, 6);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(got[i], std::pow(2.0, 0.5 + 0.5 * i), 1e-13) << i;
  EXPECT_EQ(run(0, 3, 4, 10, 3), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_EQ(run(2, 5, 1, 3, 6), (std::vector<double>{9}));
  ExpectError<platform::InvalidArgumentError>([&] { run(0, 1, 0, 2, 5); },
                                              {"op `logspace`", "`Num`", "0"});
}

TEST_F(SignMaskShapeOps, DiagEmbedPlacesVectorsOnDiagonalsOfAnyTwoDims) {
  const std::vector<double> x = RandomValues(6, -1, 1, 9);  // [2, 3]
  struct Case {
    int offset, dim1, dim2;
  };
  for (const Case& c : {Case{0, -2, -1}, Case{1, 0, 2}, Case{-2, 2, 0}, Case{2, 1, 0}}) {
    const auto r = RunOp("diag_embed", {{"Input", {MakeTensor<double>({2, 3}, x)}}}, {{"Out", 1}},
                         {{"offset", c.offset}, {"dim1", c.dim1}, {"dim2", c.dim2}});
    const int m = 3 + std::abs(c.offset);
    const int d1 = (c.dim1 + 3) % 3, d2 = (c.dim2 + 3) % 3, b = 3 - d1 - d2;
    std::vector<int64_t> dims(3);
    dims[d1] = m;
    dims[d2] = m;
    dims[b] = 2;
    const DenseTensor o = Out(r);
    ASSERT_EQ(o.dims(), DDim(dims));
    const std::vector<double> v = ToDoubles(o);
    for (int64_t flat = 0; flat < o.numel(); ++flat) {
      int64_t idx[3];
      for (int k = 2, rest = static_cast<int>(flat); k >= 0; --k) {
        idx[k] = rest % dims[k];
        rest /= static_cast<int>(dims[k]);
      }
      const int64_t i = idx[d1], j = idx[d2];
      const double want = j - i == c.offset ? x[idx[b] * 3 + std::min(i, j)] : 0.0;
      EXPECT_EQ(v[flat], want) << flat;
    }
    GradCheck g;
    g.op_type = "diag_embed";
    g.inputs = {{"Input", {MakeTensor<double>({2, 3}, x)}}};
    g.outputs = {{"Out", 1}};
    g.attrs = {{"offset", c.offset}, {"dim1", c.dim1}, {"dim2", c.dim2}};
    g.max_order = 2;
    CheckGradients(g);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("diag_embed", {{"Input", {MakeTensor<double>({2, 3}, x)}}}, {{"Out", 1}},
              {{"dim1", 1}, {"dim2", -2}});
      },
      {"op `diag_embed`", "`dim1`, `dim2`", "1"});
}

TEST_F(SignMaskShapeOps, BaddbmmAgainstLoopsAndSecondOrderGradients) {
  const int b = 2, m = 3, k = 4, n = 2;
  const std::vector<double> x = RandomValues(b * m * k, -1, 1, 1);
  const std::vector<double> y = RandomValues(b * k * n, -1, 1, 2);
  const std::vector<double> in = RandomValues(m * n, -1, 1, 3);  // [1, M, N] -> broadcast
  const SlotTensors inputs = {{"Input", {MakeTensor<double>({m, n}, in)}},
                              {"X", {MakeTensor<double>({b, m, k}, x)}},
                              {"Y", {MakeTensor<double>({b, k, n}, y)}}};
  const AttributeMap attrs = {{"Alpha", 0.5f}, {"Beta", -2.0f}};
  const auto r = RunOp("baddbmm", inputs, {{"Out", 1}}, attrs);
  std::vector<double> want;
  for (int p = 0; p < b; ++p) {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int q = 0; q < k; ++q) s += x[(p * m + i) * k + q] * y[(p * k + q) * n + j];
        want.push_back(-2.0 * in[i * n + j] + 0.5 * s);
      }
    }
  }
  EXPECT_EQ(Out(r).dims(), DDim({b, m, n}));
  ExpectNear(ToDoubles(Out(r)), want, 1e-13, 1e-13, "baddbmm");
  GradCheck g;
  g.op_type = "baddbmm";
  g.inputs = inputs;
  g.outputs = {{"Out", 1}};
  g.attrs = attrs;
  g.max_order = 2;
  CheckGradients(g);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("baddbmm",
              {{"Input", {MakeTensor<double>({m, n}, in)}},
               {"X", {MakeTensor<double>({b, m, k}, x)}},
               {"Y", {MakeTensor<double>({b, k + 1, n}, RandomValues(b * (k + 1) * n, -1, 1))}}},
              {{"Out", 1}});
      },
      {"op `baddbmm`", "`Y`", "[2, 5, 2]"});
}

TEST_F(SignMaskShapeOps, RenormScalesOnlyTheSlicesAboveTheLimit) {
  const std::vector<double> x = RandomValues(24, -2, 2, 4);  // [3, 4, 2]
  for (const auto& [p, axis, max_norm] :
       std::vector<std::tuple<float, int, float>>{{2, 0, 1.5f}, {1, 1, 2}, {3, -1, 0.5f}}) {
    const AttributeMap attrs = {{"p", p}, {"axis", axis}, {"max_norm", max_norm}};
    const auto r =
        RunOp("renorm", {{"X", {MakeTensor<double>({3, 4, 2}, x)}}}, {{"Out", 1}}, attrs);
    const int a = (axis + 3) % 3;
    const int64_t dims[3] = {3, 4, 2};
    std::vector<double> norm(dims[a], 0.0);
    const auto slice = [&](int64_t flat) {
      const int64_t idx[3] = {flat / 8, (flat / 2) % 4, flat % 2};
      return idx[a];
    };
    for (int64_t i = 0; i < 24; ++i) norm[slice(i)] += std::pow(std::fabs(x[i]), p);
    std::vector<double> want(24);
    for (int64_t i = 0; i < 24; ++i) {
      const double nk = std::pow(norm[slice(i)], 1.0 / p);
      want[i] = nk > max_norm ? x[i] * max_norm / nk : x[i];
    }
    ExpectNear(ToDoubles(Out(r)), want, 1e-12, 1e-12, "renorm");
    GradCheck g;
    g.op_type = "renorm";
    g.inputs = {{"X", {MakeTensor<double>({3, 4, 2}, x)}}};
    g.outputs = {{"Out", 1}};
    g.attrs = attrs;
    CheckGradients(g);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("renorm", {{"X", {MakeTensor<double>({3, 4, 2}, x)}}}, {{"Out", 1}},
              {{"p", 0.0f}, {"axis", 0}, {"max_norm", 1.0f}});
      },
      {"op `renorm`", "`p`", "0"});
}

TEST_F(SignMaskShapeOps, SegmentPoolEveryPoolTypeAndGradient) {
  const std::vector<double> x = RandomValues(18, -1, 1, 5);  // [6, 3]
  const std::vector<double> ids = {0, 0, 1, 3, 3, 3};
  for (const std::string pool : {"SUM", "MEAN", "MAX", "MIN"}) {
    const SlotTensors in = {{"X", {MakeTensor<double>({6, 3}, x)}},
                            {"SegmentIds", {MakeTensor<int64_t>({6}, ids)}}};
    const auto r = RunOp("segment_pool", in, {{"Out", 1}, {"SummedIds", 1}}, {{"pooltype", pool}});
    ASSERT_EQ(Out(r).dims(), DDim({4, 3}));
    std::vector<double> want(12, 0.0);
    for (int s = 0; s < 4; ++s) {
      for (int j = 0; j < 3; ++j) {
        std::vector<double> members;
        for (int i = 0; i < 6; ++i) {
          if (ids[i] == s) members.push_back(x[i * 3 + j]);
        }
        if (members.empty()) continue;
        double v = members[0], sum = 0;
        for (double e : members) {
          sum += e;
          v = pool == "MAX" ? std::max(v, e) : std::min(v, e);
        }
        want[s * 3 + j] = pool == "SUM" ? sum : (pool == "MEAN" ? sum / members.size() : v);
      }
    }
    ExpectNear(ToDoubles(Out(r)), want, 1e-14, 1e-14, pool);
    EXPECT_EQ(ToDoubles(Out(r, "SummedIds")), (std::vector<double>{2, 1, 0, 3}));
    GradCheck g;
    g.op_type = "segment_pool";
    g.inputs = in;
    g.outputs = {{"Out", 1}, {"SummedIds", 1}};
    g.loss_outputs = {"Out"};
    g.wrt = {"X"};
    g.attrs = {{"pooltype", pool}};
    CheckGradients(g);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("segment_pool",
              {{"X", {MakeTensor<double>({3, 1}, {1, 2, 3})}},
               {"SegmentIds", {MakeTensor<int32_t>({3}, {0, 2, 1})}}},
              {{"Out", 1}, {"SummedIds", 1}});
      },
      {"op `segment_pool`", "`SegmentIds`", "sorted", "1"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
