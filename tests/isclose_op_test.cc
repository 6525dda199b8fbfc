// isclose and allclose against the closed-form test |a - b| <= atol + rtol |b|, with NaN and
// infinities, tolerances from attributes and from tensors; typed errors.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class CloseOps : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

std::vector<double> Close(const std::string& op, const DenseTensor& a, const DenseTensor& b,
                          const AttributeMap& attrs, const SlotTensors& extra = {}) {
  SlotTensors in = extra;
  in["Input"] = {a};
  in["Other"] = {b};
  const auto r = RunOp(op, in, {{"Out", 1}}, attrs);
  const DenseTensor& out = r.outputs.at("Out")[0];
  EXPECT_EQ(out.dtype(), DataType::BOOL);
  EXPECT_EQ(out.dims(), op == "allclose" ? DDim() : a.dims());
  return ToDoubles(out);
}

TEST_F(CloseOps, ElementwiseTestMatchesTheFormula) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const std::vector<double> a = {1, 2, 3, nan, 5, inf, -inf, inf, 0, 1e-9};
  const std::vector<double> b = {1, 2.00001, 3.1, nan, 5.00006, inf, inf, 1e30, 1e-8, 0};
  for (bool equal_nan : {false, true}) {
    for (const char* rtol : {"1e-5", "0.05"}) {
      const double r = std::stod(rtol), at = 1e-8;
      std::vector<double> want;
      for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i])) {
          want.push_back(equal_nan && std::isnan(a[i]) && std::isnan(b[i]));
        } else {
          want.push_back(a[i] == b[i] || std::fabs(a[i] - b[i]) <= at + r * std::fabs(b[i]));
        }
      }
      const AttributeMap attrs = {{"rtol", std::string(rtol)}, {"equal_nan", equal_nan}};
      const DDim dims({2, 5});
      EXPECT_EQ(Close("isclose", MakeTensor<double>(dims, a), MakeTensor<double>(dims, b), attrs),
                want)
          << rtol << " " << equal_nan;
      bool all = true;
      for (double w : want) all = all && w;
      EXPECT_EQ(Close("allclose", MakeTensor<double>(dims, a), MakeTensor<double>(dims, b), attrs),
                std::vector<double>{static_cast<double>(all)});
    }
  }
  // float32: 2.00001 is within 1e-5 of 2 relative to b.
  EXPECT_EQ(
      Close("isclose", MakeTensor<float>({2}, {2, 1}), MakeTensor<float>({2}, {2.00001, 1.1}), {}),
      (std::vector<double>{1, 0}));
  // Identical tensors with a NaN: close only with equal_nan.
  const DenseTensor n = MakeTensor<float>({2}, {1, nan});
  EXPECT_EQ(Close("allclose", n, n, {}), std::vector<double>{0});
  EXPECT_EQ(Close("allclose", n, n, {{"equal_nan", true}}), std::vector<double>{1});
  EXPECT_EQ(Close("allclose", MakeTensor<float>({0}, {}), MakeTensor<float>({0}, {}), {}),
            std::vector<double>{1});
}

TEST_F(CloseOps, TensorTolerancesOverrideTheAttributes) {
  const DenseTensor a = MakeTensor<double>({2}, {1, 2});
  const DenseTensor b = MakeTensor<double>({2}, {1.5, 2});
  EXPECT_EQ(Close("allclose", a, b, {}), std::vector<double>{0});
  EXPECT_EQ(Close("allclose", a, b, {}, {{"Rtol", {MakeTensor<double>({1}, {0.5})}}}),
            std::vector<double>{1});
  EXPECT_EQ(Close("isclose", a, b, {}, {{"Atol", {MakeTensor<float>({1}, {0.5})}}}),
            (std::vector<double>{1, 1}));
  EXPECT_EQ(Close("isclose", a, b, {}, {{"Atol", {MakeTensor<float>({1}, {0.49})}}}),
            (std::vector<double>{0, 1}));
}

TEST_F(CloseOps, BadArgumentsAreRefused) {
  const DenseTensor a = MakeTensor<float>({2}, {1, 2});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Close("isclose", a, MakeTensor<float>({1, 2}, {1, 2}), {});
      },
      {"op `isclose` inputs `Input` and `Other`", "[2]", "[1, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Close("allclose", a, a, {{"rtol", std::string("1e-5x")}});
      },
      {"op `allclose` attribute `rtol`", "decimal", "1e-5x"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Close("allclose", a, a, {}, {{"Atol", {MakeTensor<float>({2}, {1, 2})}}});
      },
      {"op `allclose` input `Atol`", "one float or double element", "[2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
