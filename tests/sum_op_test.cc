// sum: forward against a double reference for 1..4 inputs and both float dtypes; errors.
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

template <typename T>
void CheckSum(int count, const DDim& dims) {
  std::vector<DenseTensor> xs;
  std::vector<double> expected(static_cast<size_t>(dims.numel()), 0.0);
  for (int k = 0; k < count; ++k) {
    const auto v = RandomValues(dims.numel(), -2, 2, 100 + static_cast<unsigned>(k));
    for (size_t i = 0; i < v.size(); ++i) expected[i] += static_cast<double>(static_cast<T>(v[i]));
    xs.push_back(MakeTensor<T>(dims, v));
  }
  auto r = RunOp("sum", {{"X", xs}}, {{"Out", 1}});
  const DataType t = platform::ToDataType<T>();
  EXPECT_EQ(r.outputs["Out"][0].dims(), dims);
  ExpectNear(ToDoubles(r.outputs["Out"][0]), expected, RelTol(t), AbsTol(t) * count, "sum");
}

TEST(SumOp, MatchesReference) {
  for (int count : {1, 2, 4}) {
    for (const DDim& d : {DDim({3, 4}), DDim({1}), DDim({0, 2}), DDim({})}) {
      CheckSum<float>(count, d);
      CheckSum<double>(count, d);
    }
  }
}

TEST(SumOp, ShapeMismatchNamesOpAndSlot) {
  try {
    RunOp("sum", {{"X", {MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({3}, {1, 2, 3})}}}, {{"Out", 1}});
    FAIL();
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `sum` input `X`: expected every tensor to have shape [2], received [3]"),
              std::string::npos) << e.what();
  }
}

TEST(SumOp, MixedDtypesAreRejected) {
  try {
    RunOp("sum", {{"X", {MakeTensor<float>({2}, {1, 2}), MakeTensor<double>({2}, {1, 2})}}}, {{"Out", 1}});
    FAIL();
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `sum` input `X`"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected dtype float32, received float64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
