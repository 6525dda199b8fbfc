// quadratic: forward against closed-form values and a double reference, both dtypes.
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(QuadraticOp, IssueExample) {
  auto r = RunOp("quadratic", {{"X", {MakeTensor<float>({2, 2}, {1, 2, 3, 4})}}}, {{"Out", 1}},
                 {{"a", 1.0f}, {"b", 2.0f}, {"c", 3.0f}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), DDim({2, 2}));
  EXPECT_EQ(out.dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(out), {6, 11, 18, 27}, 0, 0, "quadratic");
}

template <typename T>
void CheckRandom(const DDim& dims) {
  const auto x = RandomValues(dims.numel(), -3, 3);
  const double a = -0.75, b = 1.5, c = 0.25;
  auto r = RunOp("quadratic", {{"X", {MakeTensor<T>(dims, x)}}}, {{"Out", 1}},
                 {{"a", static_cast<float>(a)}, {"b", static_cast<float>(b)}, {"c", static_cast<float>(c)}});
  std::vector<double> expected;
  for (double v : x) expected.push_back(a * v * v + b * v + c);
  const DataType t = platform::ToDataType<T>();
  ExpectNear(ToDoubles(r.outputs["Out"][0]), expected, RelTol(t), AbsTol(t), "quadratic");
  EXPECT_EQ(r.outputs["Out"][0].dims(), dims);
}

TEST(QuadraticOp, RandomFloatAndDouble) {
  for (const DDim& d : {DDim({3, 5}), DDim({1, 1, 7}), DDim({0, 4}), DDim({})}) {
    CheckRandom<float>(d);
    CheckRandom<double>(d);
  }
}

TEST(QuadraticOp, DefaultsAreZero) {
  auto r = RunOp("quadratic", {{"X", {MakeTensor<double>({3}, {1, -2, 5})}}}, {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {0, 0, 0}, 0, 0, "defaults");
}

TEST(QuadraticOp, WrongAttributeTypeNamesOpAndAttribute) {
  try {
    RunOp("quadratic", {{"X", {MakeTensor<float>({1}, {1})}}}, {{"Out", 1}},
          {{"a", std::string("one")}});
    FAIL() << "expected InvalidArgumentError";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `quadratic` attribute `a`"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("FLOAT"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
