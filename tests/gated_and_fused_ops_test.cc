// swiglu, l1_norm, identity_loss, rms_norm and fused_elemwise_activation against references
// written here in double (naive loops with their own broadcasting), their gradients by finite
// differences to the orders they claim; fused_elemwise_activation's through
// AppendCompositeGrad, which gives it the gradients of the two ops it fuses.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

double Silu(double a) { return a / (1 + std::exp(-a)); }

TEST(Swiglu, TwoInputsAndHalvesOfOne) {
  const std::vector<double> x = RandomValues(12, -4, 4, 1), y = RandomValues(12, -2, 2, 2);
  auto r = RunOp("swiglu",
                 {{"x", {MakeTensor<double>({3, 4}, x)}}, {"y", {MakeTensor<double>({3, 4}, y)}}},
                 {{"out", 1}});
  std::vector<double> expected(12);
  for (size_t i = 0; i < 12; ++i) expected[i] = Silu(x[i]) * y[i];
  ExpectNear(ToDoubles(r.outputs.at("out")[0]), expected, 1e-14, 0, "swiglu(x, y)");

  // One input [2, 3, 4]: gates x[..., :2], values x[..., 2:].
  const std::vector<double> v = RandomValues(24, -4, 4, 3);
  r = RunOp("swiglu", {{"x", {MakeTensor<double>({2, 3, 4}, v)}}}, {{"out", 1}});
  EXPECT_EQ(r.outputs.at("out")[0].dims(), DDim({2, 3, 2}));
  std::vector<double> halves;
  for (int row = 0; row < 6; ++row) {
    for (int i = 0; i < 2; ++i) halves.push_back(Silu(v[row * 4 + i]) * v[row * 4 + 2 + i]);
  }
  ExpectNear(ToDoubles(r.outputs.at("out")[0]), halves, 1e-14, 0, "swiglu(x)");
}

TEST(Swiglu, BadShapesAreTypedErrors) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("swiglu", {{"x", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1))}}},
              {{"out", 1}});
      },
      {"swiglu", "`x`", "even", "[2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("swiglu",
              {{"x", {MakeTensor<double>({2, 4}, RandomValues(8, -1, 1))}},
               {"y", {MakeTensor<double>({4, 2}, RandomValues(8, -1, 1))}}},
              {{"out", 1}});
      },
      {"swiglu", "`y`", "[4, 2]", "[2, 4]"});
}

TEST(Swiglu, GradientsToSecondOrder) {
  GradCheck two;
  two.op_type = "swiglu";
  two.inputs = {{"x", {MakeTensor<double>({2, 3}, RandomValues(6, -3, 3, 4))}},
                {"y", {MakeTensor<double>({2, 3}, RandomValues(6, -2, 2, 5))}}};
  two.outputs = {{"out", 1}};
  two.max_order = 2;
  CheckGradients(two);
  GradCheck one;
  one.op_type = "swiglu";
  one.inputs = {{"x", {MakeTensor<double>({3, 4}, RandomValues(12, -3, 3, 6))}}};
  one.outputs = {{"out", 1}};
  one.max_order = 2;
  CheckGradients(one);
}

TEST(L1Norm, SumOfAbsoluteValuesAndItsGradient) {
  const std::vector<double> x = {-1.5, 2, 0.25, -0.125, 3, -4};
  auto r = RunOp("l1_norm", {{"X", {MakeTensor<double>({2, 3}, x)}}}, {{"Out", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim());
  EXPECT_DOUBLE_EQ(ToDoubles(r.outputs.at("Out")[0])[0], 10.875);
  r = RunOp("l1_norm", {{"X", {MakeTensor<double>({0, 3}, {})}}}, {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0])[0], 0.0);
  GradCheck g;
  g.op_type = "l1_norm";
  g.inputs = {{"X", {MakeTensor<double>({2, 3}, x)}}};
  g.outputs = {{"Out", 1}};
  CheckGradients(g);
}

TEST(IdentityLoss, EachReductionAndItsGradient) {
  const std::vector<double> x = RandomValues(12, -2, 2, 8);
  double sum = 0;
  for (double v : x) sum += v;
  const std::vector<double> expected[] = {{sum}, {sum / 12}, x};
  for (int reduction = 0; reduction < 3; ++reduction) {
    const auto r = RunOp("identity_loss", {{"X", {MakeTensor<double>({3, 4}, x)}}}, {{"Out", 1}},
                         {{"reduction", reduction}});
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), reduction == 2 ? DDim({3, 4}) : DDim());
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected[reduction], 1e-14, 1e-15,
               "reduction " + std::to_string(reduction));
    GradCheck g;
    g.op_type = "identity_loss";
    g.inputs = {{"X", {MakeTensor<double>({3, 4}, x)}}};
    g.outputs = {{"Out", 1}};
    g.attrs = {{"reduction", reduction}};
    g.max_order = 2;
    CheckGradients(g);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("identity_loss", {{"X", {MakeTensor<double>({3, 4}, x)}}}, {{"Out", 1}},
              {{"reduction", 3}});
      },
      {"identity_loss", "reduction", "3"});
}

// rms_norm ------------------------------------------------------------------------------------

TEST(RmsNorm, NormalisesTheTrailingDims) {
  const std::vector<double> x = RandomValues(24, -2, 2, 21), scale = RandomValues(12, 0.5, 1.5, 22);
  const double eps = 1e-3;
  // normalized_shape [3, 4] over x [2, 3, 4]: two rows of 12.
  auto r = RunOp(
      "rms_norm",
      {{"x", {MakeTensor<double>({2, 3, 4}, x)}}, {"scale", {MakeTensor<double>({3, 4}, scale)}}},
      {{"y", 1}, {"invvar", 1}},
      {{"normalized_shape", std::vector<int64_t>{3, 4}}, {"epsilon", static_cast<float>(eps)}});
  std::vector<double> y(24), inv(2);
  for (int row = 0; row < 2; ++row) {
    double ms = 0;
    for (int i = 0; i < 12; ++i) ms += x[row * 12 + i] * x[row * 12 + i] / 12;
    inv[row] = 1 / std::sqrt(ms + static_cast<float>(eps));
    for (int i = 0; i < 12; ++i) y[row * 12 + i] = x[row * 12 + i] * inv[row] * scale[i];
  }
  EXPECT_EQ(r.outputs.at("invvar")[0].dims(), DDim({2}));
  ExpectNear(ToDoubles(r.outputs.at("y")[0]), y, 1e-14, 1e-15, "y");
  ExpectNear(ToDoubles(r.outputs.at("invvar")[0]), inv, 1e-14, 0, "invvar");
  // Without scale, over the last dim: y has unit mean square in each row (eps aside).
  r = RunOp("rms_norm", {{"x", {MakeTensor<double>({2, 3, 4}, x)}}}, {{"y", 1}, {"invvar", 1}},
            {{"normalized_shape", std::vector<int64_t>{4}}, {"epsilon", 0.0f}});
  EXPECT_EQ(r.outputs.at("invvar")[0].dims(), DDim({2, 3}));
  const std::vector<double> unscaled = ToDoubles(r.outputs.at("y")[0]);
  for (int row = 0; row < 6; ++row) {
    double ms = 0;
    for (int i = 0; i < 4; ++i) ms += unscaled[row * 4 + i] * unscaled[row * 4 + i] / 4;
    EXPECT_NEAR(ms, 1.0, 1e-14) << "row " << row;
  }
}

TEST(RmsNorm, ShapesThatDoNotMatchAreTypedErrors) {
  const DenseTensor x = MakeTensor<double>({2, 3, 4}, RandomValues(24, -1, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("rms_norm", {{"x", {x}}}, {{"y", 1}, {"invvar", 1}},
              {{"normalized_shape", std::vector<int64_t>{3}}});
      },
      {"rms_norm", "`normalized_shape`", "[2, 3, 4]", "[3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("rms_norm", {{"x", {x}}, {"scale", {MakeTensor<double>({3}, {1, 2, 3})}}},
              {{"y", 1}, {"invvar", 1}}, {{"normalized_shape", std::vector<int64_t>{4}}});
      },
      {"rms_norm", "`scale`", "[4]", "[3]"});
}

TEST(RmsNorm, GradientsOfInputAndScale) {
  for (bool scaled : {true, false}) {
    GradCheck g;
    g.op_type = "rms_norm";
    g.inputs = {{"x", {MakeTensor<double>({3, 2, 4}, RandomValues(24, -2, 2, 23))}}};
    if (scaled) g.inputs["scale"] = {MakeTensor<double>({2, 4}, RandomValues(8, 0.5, 1.5, 24))};
    g.outputs = {{"y", 1}, {"invvar", 1}};
    g.loss_outputs = {"y"};
    g.attrs = {{"normalized_shape", std::vector<int64_t>{2, 4}}, {"epsilon", 1e-4f}};
    CheckGradients(g);
  }
}

// fused_elemwise_activation ------------------------------------------------------------------

double Apply(const std::string& f, double v, double scale) {
  if (f == "scale") return v * scale;
  if (f == "relu") return v > 0 ? v : 0;
  if (f == "tanh") return std::tanh(v);
  if (f == "sigmoid") return 1 / (1 + std::exp(-v));
  const double k = std::sqrt(2 / M_PI);
  return 0.5 * v * (1 + std::tanh(k * (v + 0.044715 * v * v * v)));
}

double Combine(const std::string& f, double a, double b) {
  return f == "elementwise_add" ? a + b : a * b;
}

const char* const kUnary[] = {"scale", "relu", "tanh", "sigmoid", "gelu"};
const char* const kBinary[] = {"elementwise_add", "elementwise_mul"};

// X [2, 3, 4] with Y [3, 4] (axis -1) or Y [2, 3] (axis 0): y_index maps an element of X to
// Y's element.
struct Layout {
  DDim y_dims;
  int axis;
  std::function<int(int, int, int)> y_index;
};

const Layout kLayouts[] = {
    {DDim({3, 4}), -1, [](int, int j, int k) { return j * 4 + k; }},
    {DDim({2, 3}), 0, [](int i, int j, int) { return i * 3 + j; }},
};

TEST(FusedElemwiseActivation, EveryCompoundMatchesItsTwoFunctions) {
  const std::vector<double> x = RandomValues(24, -2, 2, 11);
  const double scale = -1.5;
  for (const Layout& layout : kLayouts) {
    const std::vector<double> y = RandomValues(layout.y_dims.numel(), -2, 2, 12);
    for (const char* b : kBinary) {
      for (const char* u : kUnary) {
        for (bool unary_outer : {false, true}) {
          const std::vector<std::string> functors =
              unary_outer ? std::vector<std::string>{u, b} : std::vector<std::string>{b, u};
          const auto r = RunOp("fused_elemwise_activation",
                               {{"X", {MakeTensor<double>({2, 3, 4}, x)}},
                                {"Y", {MakeTensor<double>(layout.y_dims, y)}}},
                               {{"Out", 1}, {"IntermediateOut", 1}},
                               {{"functor_list", functors},
                                {"axis", layout.axis},
                                {"scale", static_cast<float>(scale)},
                                {"save_intermediate_out", true}});
          std::vector<double> out(24), inter(unary_outer ? 24 : y.size());
          for (int i = 0; i < 2; ++i) {
            for (int j = 0; j < 3; ++j) {
              for (int k = 0; k < 4; ++k) {
                const int e = (i * 3 + j) * 4 + k, yi = layout.y_index(i, j, k);
                if (unary_outer) {
                  inter[e] = Combine(b, x[e], y[yi]);
                  out[e] = Apply(u, inter[e], scale);
                } else {
                  inter[yi] = Apply(u, y[yi], scale);
                  out[e] = Combine(b, x[e], inter[yi]);
                }
              }
            }
          }
          const std::string what =
              functors[0] + "," + functors[1] + " axis " + std::to_string(layout.axis);
          ExpectNear(ToDoubles(r.outputs.at("Out")[0]), out, 1e-14, 1e-15, what);
          ExpectNear(ToDoubles(r.outputs.at("IntermediateOut")[0]), inter, 1e-14, 1e-15,
                     what + " IntermediateOut");
        }
      }
    }
  }
}

TEST(FusedElemwiseActivation, GradientsAreThoseOfTheFusedOpsToSecondOrder) {
  for (const Layout& layout : kLayouts) {
    for (const char* b : kBinary) {
      for (const char* u : kUnary) {
        for (bool unary_outer : {false, true}) {
          GradCheck g;
          g.op_type = "fused_elemwise_activation";
          // Away from relu's kink at 0 for both operands and their sum or product.
          g.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, RandomValues(24, 0.2, 1.5, 13))}},
                      {"Y",
                       {MakeTensor<double>(layout.y_dims,
                                           RandomValues(layout.y_dims.numel(), 0.3, 1.2, 14))}}};
          g.outputs = {{"Out", 1}};
          g.attrs = {{"functor_list", unary_outer ? std::vector<std::string>{u, b}
                                                  : std::vector<std::string>{b, u}},
                     {"axis", layout.axis},
                     {"scale", 0.75f}};
          // gelu's own gradient is a fused first-order op; the others differentiate again.
          g.max_order = std::string(u) == "gelu" ? 1 : 2;
          SCOPED_TRACE(std::string(unary_outer ? u : b) + "," + (unary_outer ? b : u) + " axis " +
                       std::to_string(layout.axis));
          CheckGradients(g);
        }
      }
    }
  }
}

TEST(FusedElemwiseActivation, AnUnknownCompoundIsATypedError) {
  for (const auto& functors : {std::vector<std::string>{"relu", "tanh"},
                               std::vector<std::string>{"elementwise_add", "softplus"},
                               std::vector<std::string>{"elementwise_add"}}) {
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp(
              "fused_elemwise_activation",
              {{"X", {MakeTensor<double>({2}, {1, 2})}}, {"Y", {MakeTensor<double>({2}, {3, 4})}}},
              {{"Out", 1}}, {{"functor_list", functors}});
        },
        {"fused_elemwise_activation", "`functor_list`", functors[0]});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
