// check_finite_and_unscale, update_loss_scaling and clip_by_norm against closed forms computed
// here in double: the loss-scale state machine step by step, gradients of every floating
// dtype, in-place and separate outputs, SelectedRows for clip_by_norm, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/optimizer_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using operators::RegisterAllOps;

// ---- check_finite_and_unscale ----

template <typename S>
class CheckFiniteAndUnscaleTest : public ::testing::Test {};
using ScaleTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CheckFiniteAndUnscaleTest, ScaleTypes);

TYPED_TEST(CheckFiniteAndUnscaleTest, UnscalesEveryGradientWhenAllAreFinite) {
  using S = TypeParam;
  const std::vector<double> a = RandomValues(6, -500, 500, 1), b = RandomValues(4, -500, 500, 2);
  const NamedOpRun r = RunNamedOp(
      "check_finite_and_unscale", {{"X", {"a", "b"}}, {"Scale", {"s"}}},
      {{"Out", {"a_out", "b"}}, {"FoundInfinite", {"found"}}},
      {{"a", MakeTensor<S>({2, 3}, a)}, {"b", MakeTensor<double>({4}, b)}, {"s", Scalar<S>(256)}});
  std::vector<double> ea, eb;
  for (double v : a) ea.push_back(static_cast<S>(v) * static_cast<S>(1.0 / 256));
  for (double v : b) eb.push_back(v / 256);
  ExpectNear(ToDoubles(r.vars.at("a_out")), ea, RelTol(platform::ToDataType<S>()), 0, "a");
  ExpectNear(ToDoubles(r.vars.at("b")), eb, 1e-15, 0, "b in place");
  EXPECT_EQ(r.vars.at("a_out").dims(), DDim({2, 3}));
  EXPECT_EQ(ToDoubles(r.vars.at("found")), std::vector<double>{0});
}

TYPED_TEST(CheckFiniteAndUnscaleTest, ZeroesFromTheFirstNonFiniteGradientOn) {
  using S = TypeParam;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // The nan is in the second gradient: the first is unscaled, the second and third are
  // multiplied by 0 (an inf times 0 is nan).
  const NamedOpRun r =
      RunNamedOp("check_finite_and_unscale", {{"X", {"a", "b", "c"}}, {"Scale", {"s"}}},
                 {{"Out", {"a", "b", "c"}}, {"FoundInfinite", {"found"}}},
                 {{"a", MakeTensor<S>({2}, {8, -4})},
                  {"b", MakeTensor<S>({3}, {2, nan, 6})},
                  {"c", MakeTensor<S>({2}, {inf, 3})},
                  {"s", Scalar<S>(4)}});
  EXPECT_EQ(ToDoubles(r.vars.at("a")), (std::vector<double>{2, -1}));
  const std::vector<double> b = ToDoubles(r.vars.at("b"));
  EXPECT_EQ(b[0], 0);
  EXPECT_TRUE(std::isnan(b[1]));
  EXPECT_EQ(b[2], 0);
  const std::vector<double> c = ToDoubles(r.vars.at("c"));
  EXPECT_TRUE(std::isnan(c[0]));
  EXPECT_EQ(c[1], 0);
  EXPECT_EQ(ToDoubles(r.vars.at("found")), std::vector<double>{1});
}

TEST(CheckFiniteAndUnscale, SixteenBitGradientsScaleInFloat) {
  RegisterAllOps();
  const NamedOpRun r =
      RunNamedOp("check_finite_and_unscale", {{"X", {"h", "bf"}}, {"Scale", {"s"}}},
                 {{"Out", {"h_out", "bf_out"}}, {"FoundInfinite", {"found"}}},
                 {{"h", MakeTensor<platform::float16>({3}, {1024, -6, 0.5})},
                  {"bf", MakeTensor<platform::bfloat16>({2}, {96, -3})},
                  {"s", Scalar<float>(32)}});
  EXPECT_EQ(r.vars.at("h_out").dtype(), DataType::FLOAT16);
  EXPECT_EQ(ToDoubles(r.vars.at("h_out")), (std::vector<double>{32, -0.1875, 0.015625}));
  EXPECT_EQ(ToDoubles(r.vars.at("bf_out")), (std::vector<double>{3, -0.09375}));
  EXPECT_EQ(ToDoubles(r.vars.at("found")), std::vector<double>{0});

  // A float16 overflow is found as inf.
  const NamedOpRun o =
      RunNamedOp("check_finite_and_unscale", {{"X", {"h"}}, {"Scale", {"s"}}},
                 {{"Out", {"h"}}, {"FoundInfinite", {"found"}}},
                 {{"h", MakeTensor<platform::float16>({2}, {1e6, 1})}, {"s", Scalar<float>(2)}});
  EXPECT_EQ(ToDoubles(o.vars.at("found")), std::vector<double>{1});
}

TEST(CheckFiniteAndUnscale, RejectsBadInputs) {
  RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunNamedOp("check_finite_and_unscale", {{"X", {"a"}}, {"Scale", {"s"}}},
                   {{"Out", {"a"}}, {"FoundInfinite", {"found"}}},
                   {{"a", MakeTensor<int32_t>({2}, {1, 2})}, {"s", Scalar<float>(2)}});
      },
      {"check_finite_and_unscale", "`X`", "`a`", "int32"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunNamedOp("check_finite_and_unscale", {{"X", {"a"}}, {"Scale", {"s"}}},
                   {{"Out", {"a"}}, {"FoundInfinite", {"found"}}},
                   {{"a", MakeTensor<float>({2}, {1, 2})}, {"s", MakeTensor<float>({2}, {1, 2})}});
      },
      {"check_finite_and_unscale", "`Scale`", "1 element"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunNamedOp("check_finite_and_unscale", {{"X", {"a", "b"}}, {"Scale", {"s"}}},
                   {{"Out", {"a"}}, {"FoundInfinite", {"found"}}},
                   {{"a", MakeTensor<float>({2}, {1, 2})},
                    {"b", MakeTensor<float>({2}, {1, 2})},
                    {"s", Scalar<float>(2)}});
      },
      {"check_finite_and_unscale", "`Out`", "one variable per input `X`"});
}

// ---- update_loss_scaling ----

struct LossScaleState {
  double scale;
  int good, bad;
};

// The documented update, in double.
LossScaleState NextState(const LossScaleState& s, bool found, int incr_n, int decr_n, double incr,
                         double decr) {
  LossScaleState n = s;
  if (found) {
    n.good = 0;
    n.bad = s.bad + 1;
    if (n.bad == decr_n) {
      n.scale = std::max(1.0, s.scale * decr);
      n.bad = 0;
    }
  } else {
    n.bad = 0;
    n.good = s.good + 1;
    if (n.good == incr_n) {
      const double grown = s.scale * incr;
      n.scale = std::isfinite(static_cast<float>(grown)) ? grown : s.scale;
      n.good = 0;
    }
  }
  return n;
}

// update_loss_scaling's inputs over the variables found, scale, good, bad and gradients `xs`.
framework::VariableNameMap UpdateInputs(const std::vector<std::string>& xs) {
  return {{"X", xs},
          {"FoundInfinite", {"found"}},
          {"PrevLossScaling", {"scale"}},
          {"InGoodSteps", {"good"}},
          {"InBadSteps", {"bad"}}};
}

// Its outputs: gradients `outs`; the scale and counts in place or into "<name>_out".
framework::VariableNameMap UpdateOutputs(const std::vector<std::string>& outs, bool in_place) {
  const std::string suffix = in_place ? "" : "_out";
  return {{"Out", outs},
          {"LossScaling", {"scale" + suffix}},
          {"OutGoodSteps", {"good" + suffix}},
          {"OutBadSteps", {"bad" + suffix}}};
}

TEST(UpdateLossScaling, FollowsTheStateMachineOverManySteps) {
  RegisterAllOps();
  const int incr_n = 3, decr_n = 2;
  OneOpProgram prog("update_loss_scaling", UpdateInputs({"g"}), UpdateOutputs({"g"}, true),
                    {{"incr_every_n_steps", incr_n},
                     {"decr_every_n_nan_or_inf", decr_n},
                     {"incr_ratio", 2.0f},
                     {"decr_ratio", 0.25f}});
  LossScaleState s{8.0, 0, 0};
  prog.Set("scale", Scalar<float>(s.scale));
  prog.Set("good", MakeTensor<int32_t>({1}, {0}));
  prog.Set("bad", MakeTensor<int32_t>({1}, {0}));
  // Shrinks to the floor of 1, grows back, and a streak is broken by the other kind of step.
  const bool pattern[] = {false, false, false, true,  false, true,  true,  true,  true,
                          true,  true,  false, false, false, false, false, false, true};
  int step = 0;
  for (bool found : pattern) {
    SCOPED_TRACE(::testing::Message() << "step " << step++ << " found " << found);
    const std::vector<double> g = RandomValues(4, -1, 1, static_cast<unsigned>(step));
    prog.Set("g", MakeTensor<float>({2, 2}, g));
    prog.Set("found", MakeTensor<bool>({1}, {found ? 1.0 : 0.0}));
    prog.Run();
    s = NextState(s, found, incr_n, decr_n, 2.0, 0.25);
    EXPECT_EQ(prog.Values("scale"), std::vector<double>{s.scale});
    EXPECT_EQ(prog.Values("good"), std::vector<double>{static_cast<double>(s.good)});
    EXPECT_EQ(prog.Values("bad"), std::vector<double>{static_cast<double>(s.bad)});
    std::vector<double> expect_g = found ? std::vector<double>(4, 0.0) : g;
    if (!found) {
      for (double& v : expect_g) v = static_cast<float>(v);
    }
    EXPECT_EQ(prog.Values("g"), expect_g);
  }
  EXPECT_EQ(s.scale, 4.0);  // The pattern reaches the floor of 1 and grows back twice.
}

TEST(UpdateLossScaling, KeepsAScaleThatWouldOverflow) {
  RegisterAllOps();
  const NamedOpRun r =
      RunNamedOp("update_loss_scaling", UpdateInputs({"g"}), UpdateOutputs({"g_out"}, false),
                 {{"g", MakeTensor<double>({3}, {1, 2, 3})},
                  {"found", MakeTensor<bool>({1}, {0})},
                  {"scale", Scalar<float>(3e38)},
                  {"good", MakeTensor<int32_t>({1}, {1})},
                  {"bad", MakeTensor<int32_t>({1}, {4})}},
                 {{"incr_every_n_steps", 2},
                  {"decr_every_n_nan_or_inf", 1},
                  {"incr_ratio", 2.0f},
                  {"decr_ratio", 0.5f}});
  EXPECT_EQ(ToDoubles(r.vars.at("scale_out")), std::vector<double>{static_cast<float>(3e38)});
  EXPECT_EQ(ToDoubles(r.vars.at("good_out")), std::vector<double>{0});
  EXPECT_EQ(ToDoubles(r.vars.at("bad_out")), std::vector<double>{0});
  EXPECT_EQ(ToDoubles(r.vars.at("g_out")), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r.vars.at("g_out").dtype(), DataType::FLOAT64);
}

TEST(UpdateLossScaling, StopUpdateZeroesGradientsAndKeepsTheState) {
  RegisterAllOps();
  for (bool from_tensor : {false, true}) {
    SCOPED_TRACE(from_tensor ? "StopUpdate tensor" : "stop_update attribute");
    framework::VariableNameMap inputs = UpdateInputs({"g", "h"});
    std::map<std::string, DenseTensor> feeds = {
        {"g", MakeTensor<float>({2}, {5, 6})},   {"h", MakeTensor<platform::float16>({1}, {7})},
        {"found", MakeTensor<bool>({1}, {1})},   {"scale", Scalar<double>(64)},
        {"good", MakeTensor<int32_t>({1}, {0})}, {"bad", MakeTensor<int32_t>({1}, {1})}};
    // The tensor overrides the attribute: a false attribute with a true tensor stops too.
    if (from_tensor) {
      inputs["StopUpdate"] = {"stop"};
      feeds["stop"] = MakeTensor<bool>({1}, {1});
    }
    const NamedOpRun r =
        RunNamedOp("update_loss_scaling", inputs, UpdateOutputs({"g", "h"}, false), feeds,
                   {{"incr_every_n_steps", 2},
                    {"decr_every_n_nan_or_inf", 2},
                    {"incr_ratio", 2.0f},
                    {"decr_ratio", 0.5f},
                    {"stop_update", !from_tensor}});
    EXPECT_EQ(ToDoubles(r.vars.at("g")), (std::vector<double>{0, 0}));
    EXPECT_EQ(ToDoubles(r.vars.at("h")), (std::vector<double>{0}));
    EXPECT_EQ(r.vars.at("h").dtype(), DataType::FLOAT16);
    EXPECT_EQ(ToDoubles(r.vars.at("scale_out")), std::vector<double>{64});
    EXPECT_EQ(r.vars.at("scale_out").dtype(), DataType::FLOAT64);
    EXPECT_EQ(ToDoubles(r.vars.at("good_out")), std::vector<double>{0});
    EXPECT_EQ(ToDoubles(r.vars.at("bad_out")), std::vector<double>{1});
  }
}

TEST(UpdateLossScaling, RejectsBadStateTensors) {
  RegisterAllOps();
  const auto run = [](DenseTensor good) {
    RunNamedOp("update_loss_scaling", UpdateInputs({"g"}), UpdateOutputs({"g"}, true),
               {{"g", MakeTensor<float>({1}, {1})},
                {"found", MakeTensor<bool>({1}, {0})},
                {"scale", Scalar<float>(2)},
                {"good", good},
                {"bad", MakeTensor<int32_t>({1}, {0})}},
               {{"incr_every_n_steps", 2},
                {"decr_every_n_nan_or_inf", 2},
                {"incr_ratio", 2.0f},
                {"decr_ratio", 0.5f}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] { run(MakeTensor<int64_t>({1}, {0})); },
      {"update_loss_scaling", "`InGoodSteps`", "int32", "int64"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(MakeTensor<int32_t>({2}, {0, 0}));
      },
      {"update_loss_scaling", "`InGoodSteps`", "1 element"});
}

// ---- clip_by_norm ----

template <typename T>
class ClipByNormTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ClipByNormTest, FloatTypes);

TYPED_TEST(ClipByNormTest, ScalesOnlyAboveTheLimit) {
  using T = TypeParam;
  const std::vector<double> x = RandomValues(12, -1, 1, 5);
  double sum = 0;
  for (double v : x) sum += static_cast<double>(static_cast<T>(v)) * static_cast<T>(v);
  const double norm = std::sqrt(sum);
  for (double max_norm : {0.5 * norm, 2 * norm}) {
    const NamedOpRun r =
        RunNamedOp("clip_by_norm", {{"X", {"x"}}}, {{"Out", {"out"}}},
                   {{"x", MakeTensor<T>({3, 4}, x)}}, {{"max_norm", static_cast<float>(max_norm)}});
    const double limit = static_cast<float>(max_norm);
    const double scale = norm <= limit ? 1.0 : limit / norm;
    std::vector<double> expect;
    for (double v : x) expect.push_back(static_cast<T>(v) * scale);
    ExpectNear(ToDoubles(r.vars.at("out")), expect, RelTol(platform::ToDataType<T>()), 0,
               "clip_by_norm");
  }
}

TYPED_TEST(ClipByNormTest, SelectedRowsAreMergedThenScaled) {
  using T = TypeParam;
  Scope scope;
  // Rows 2, 0, 2 of a [4, 3] gradient: row 2 appears twice and is summed first.
  const std::vector<double> v = {3, 0, 0, 0, 4, 0, 1, 0, 0};
  SetSparseGrad<T>(&scope, "x", {2, 0, 2}, 4, 3, v);
  scope.Var("out")->GetMutable<SelectedRows>();  // As the program's var-type inference makes it.
  RunKernelDirect("clip_by_norm", {{"X", {"x"}}}, {{"Out", {"out"}}}, {{"max_norm", 2.5f}}, &scope);
  const SelectedRows& out = scope.FindVar("out")->Get<SelectedRows>();
  EXPECT_EQ(out.height(), 4);
  ASSERT_EQ(out.rows().size(), 2u);
  // Merged rows: row 2 = [4, 0, 0], row 0 = [0, 4, 0]; norm sqrt(32), scale 2.5 / sqrt(32).
  const double scale = 2.5 / std::sqrt(32.0);
  const std::vector<double> values = ToDoubles(out.value());
  for (size_t k = 0; k < 2; ++k) {
    const std::vector<double> expect =
        out.rows()[k] == 2 ? std::vector<double>{4, 0, 0} : std::vector<double>{0, 4, 0};
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(values[k * 3 + j], expect[j] * scale, 1e-6) << "row " << out.rows()[k];
    }
  }
}

TEST(ClipByNorm, RejectsANonPositiveLimit) {
  RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunNamedOp("clip_by_norm", {{"X", {"x"}}}, {{"Out", {"out"}}},
                   {{"x", MakeTensor<float>({2}, {1, 2})}}, {{"max_norm", 0.0f}});
      },
      {"clip_by_norm", "`max_norm`", "> 0", "0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
