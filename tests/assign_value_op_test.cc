// assign_value: PaddlePaddle 3's scalar `values` for every dtype, the typed lists of earlier
// programs, ValuesTensor, and typed errors for a count that does not match `shape`.
// PaddlePaddle's own programs are checked by the fixture test (tests/fixtures/ops/assign_value_*).
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

framework::Scalar Real(double v) {
  framework::Scalar s;
  s.type = framework::Scalar::Type::FLOAT64;
  s.r = v;
  return s;
}

framework::Scalar Long(int64_t v) {
  framework::Scalar s;
  s.type = framework::Scalar::Type::LONG;
  s.i = v;
  return s;
}

class AssignValueOp : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(AssignValueOp, ScalarsGiveEveryDtype) {
  const std::vector<framework::Scalar> values = {Real(1.5), Long(-2), Real(0), Long(7)};
  const struct {
    DataType dtype;
    std::vector<double> want;
  } cases[] = {{DataType::FLOAT32, {1.5, -2, 0, 7}},
               {DataType::FLOAT64, {1.5, -2, 0, 7}},
               {DataType::INT32, {1, -2, 0, 7}},
               {DataType::INT64, {1, -2, 0, 7}},
               {DataType::BOOL, {1, 1, 0, 1}}};
  for (const auto& c : cases) {
    const auto r = RunOp("assign_value", {}, {{"Out", 1}},
                         {{"shape", std::vector<int>{2, 2}},
                          {"dtype", static_cast<int>(c.dtype)},
                          {"values", values}});
    const DenseTensor& out = r.outputs.at("Out")[0];
    EXPECT_EQ(out.dtype(), c.dtype);
    EXPECT_EQ(out.dims(), DDim({2, 2}));
    ExpectNear(ToDoubles(out), c.want, 0, 0, DataTypeName(c.dtype));
  }
}

TEST_F(AssignValueOp, TypedListsOfEarlierPrograms) {
  const auto f = RunOp("assign_value", {}, {{"Out", 1}},
                       {{"shape", std::vector<int>{3}},
                        {"dtype", static_cast<int>(DataType::FLOAT32)},
                        {"fp32_values", std::vector<float>{0.25f, -1, 3}}});
  ExpectNear(ToDoubles(f.outputs.at("Out")[0]), {0.25, -1, 3}, 0, 0, "fp32_values");
  const auto i = RunOp("assign_value", {}, {{"Out", 1}},
                       {{"shape", std::vector<int>{1, 2}},
                        {"dtype", static_cast<int>(DataType::INT64)},
                        {"int64_values", std::vector<int64_t>{int64_t{1} << 40, -3}}});
  ExpectNear(ToDoubles(i.outputs.at("Out")[0]), {1099511627776.0, -3}, 0, 0, "int64_values");
  const auto b = RunOp("assign_value", {}, {{"Out", 1}},
                       {{"shape", std::vector<int>{2}},
                        {"dtype", static_cast<int>(DataType::BOOL)},
                        {"bool_values", std::vector<int>{0, 1}}});
  ExpectNear(ToDoubles(b.outputs.at("Out")[0]), {0, 1}, 0, 0, "bool_values");
  // An empty constant.
  const auto e =
      RunOp("assign_value", {}, {{"Out", 1}},
            {{"shape", std::vector<int>{0, 3}}, {"dtype", static_cast<int>(DataType::FLOAT64)}});
  EXPECT_EQ(e.outputs.at("Out")[0].dims(), DDim({0, 3}));
}

TEST_F(AssignValueOp, ValuesTensorWins) {
  const auto r = RunOp("assign_value", {{"ValuesTensor", {MakeTensor<double>({4}, {1, 2, 3, 4})}}},
                       {{"Out", 1}},
                       {{"shape", std::vector<int>{2, 2}},
                        {"dtype", static_cast<int>(DataType::FLOAT64)},
                        {"values", std::vector<framework::Scalar>{Real(9)}}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 2}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {1, 2, 3, 4}, 0, 0, "ValuesTensor");
}

TEST_F(AssignValueOp, CountsMustMatchTheShape) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("assign_value", {}, {{"Out", 1}},
              {{"shape", std::vector<int>{2, 2}},
               {"dtype", static_cast<int>(DataType::FLOAT32)},
               {"values", std::vector<framework::Scalar>{Real(1), Real(2), Real(3)}}});
      },
      {"op `assign_value` attribute `values`", "expected 4 values", "received 3"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("assign_value", {}, {{"Out", 1}},
              {{"shape", std::vector<int>{2}},
               {"dtype", static_cast<int>(DataType::INT32)},
               {"int32_values", std::vector<int>{1}}});
      },
      {"op `assign_value` attribute `int32_values`", "expected 2 values", "received 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("assign_value", {}, {{"Out", 1}},
              {{"shape", std::vector<int>{-1, 2}}, {"dtype", static_cast<int>(DataType::FLOAT32)}});
      },
      {"op `assign_value` attribute `shape`", "received -1 at dim 0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
