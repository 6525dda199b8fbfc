// bitwise_and/or/xor/not against the C++ operators on each integer type and bool, with
// broadcasting, and the dtype errors.
#include <cstdint>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

template <typename T>
void CheckType(const std::vector<double>& xv, const std::vector<double>& yv) {
  SCOPED_TRACE(DataTypeName(platform::ToDataType<T>()));
  // X [2, 3] against Y [3]: Y is broadcast over the rows.
  const DenseTensor x = MakeTensor<T>({2, 3}, xv), y = MakeTensor<T>({3}, yv);
  for (const std::string op : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
    const OpRunResult r = RunOp(op, {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}});
    const DenseTensor& out = r.outputs.at("Out")[0];
    ASSERT_EQ(out.dims(), DDim({2, 3})) << op;
    ASSERT_EQ(out.dtype(), platform::ToDataType<T>()) << op;
    for (int i = 0; i < 6; ++i) {
      const T a = static_cast<T>(xv[i]), b = static_cast<T>(yv[i % 3]);
      T want;
      if constexpr (std::is_same_v<T, bool>) {
        want = op == "bitwise_and" ? (a && b) : op == "bitwise_or" ? (a || b) : (a != b);
      } else {
        want = static_cast<T>(op == "bitwise_and" ? (a & b) : op == "bitwise_or" ? (a | b) : (a ^ b));
      }
      EXPECT_EQ(out.data<T>()[i], want) << op << " element " << i;
    }
  }
  const OpRunResult r = RunOp("bitwise_not", {{"X", {x}}}, {{"Out", 1}});
  for (int i = 0; i < 6; ++i) {
    const T a = static_cast<T>(xv[i]);
    T want;
    if constexpr (std::is_same_v<T, bool>) {
      want = !a;
    } else {
      want = static_cast<T>(~a);
    }
    EXPECT_EQ(r.outputs.at("Out")[0].data<T>()[i], want) << "bitwise_not element " << i;
  }
}

TEST(BitwiseOps, EachIntegerTypeAndBool) {
  operators::RegisterAllOps();
  const std::vector<double> x = {0, 1, 5, -1, -128, 127}, y = {3, -6, 127};
  CheckType<int8_t>(x, y);
  CheckType<int16_t>({0, 1, 5, -1, -32768, 32767}, {3, -6, 1000});
  CheckType<int32_t>({0, 1, 5, -1, -2147483648.0, 2147483647}, {3, -6, 123456});
  CheckType<int64_t>({0, 1, 5, -1, -4e18, 4e18}, {3, -6, 1e15});
  CheckType<uint8_t>({0, 1, 5, 255, 128, 127}, {3, 250, 15});
  CheckType<bool>({0, 1, 1, 0, 1, 0}, {1, 0, 1});
}

TEST(BitwiseOps, FloatsAndMixedTypesAreErrors) {
  operators::RegisterAllOps();
  ExpectError<platform::Error>(
      [] { RunOp("bitwise_not", {{"X", {MakeTensor<float>({2}, {1, 2})}}}, {{"Out", 1}}); },
      {"bitwise_not", "float32"});
  ExpectError<platform::Error>(
      [] {
        RunOp("bitwise_and",
              {{"X", {MakeTensor<int32_t>({2}, {1, 2})}}, {"Y", {MakeTensor<int64_t>({2}, {1, 2})}}},
              {{"Out", 1}});
      },
      {"bitwise_and", "Y", "int64"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
