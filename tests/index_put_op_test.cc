// index_put against explicit loops (int and bool indices, broadcast indices, partial indexing,
// duplicates with and without accumulate, negative indices), gradients by finite differences;
// typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class IndexPut : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

std::vector<double> Iota(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

std::vector<double> Put(const std::vector<DenseTensor>& indices, const DenseTensor& value,
                        bool accumulate,
                        const DenseTensor& x = MakeTensor<float>({3, 4}, Iota(12))) {
  const auto r = RunOp("index_put", {{"x", {x}}, {"indices", indices}, {"value", {value}}},
                       {{"out", 1}}, {{"accumulate", accumulate}});
  EXPECT_EQ(r.outputs.at("out")[0].dims(), x.dims());
  return ToDoubles(r.outputs.at("out")[0]);
}

TEST_F(IndexPut, RowsColumnsMasksAndBroadcasts) {
  const DenseTensor rows = MakeTensor<int64_t>({3}, {0, 2, 0});
  // Whole rows; row 0 twice: the last write, or both added.
  std::vector<double> want = Iota(12);
  for (int c = 0; c < 4; ++c) want[c] = want[8 + c] = 100;
  EXPECT_EQ(Put({rows}, MakeTensor<float>({1}, {100}), false), want);
  want = Iota(12);
  for (int c = 0; c < 4; ++c) want[c] += 200, want[8 + c] += 100;
  EXPECT_EQ(Put({rows}, MakeTensor<float>({1}, {100}), true), want);
  // Element pairs (0, 1) and (2, 3).
  want = Iota(12);
  want[1] = 7, want[11] = 8;
  EXPECT_EQ(Put({MakeTensor<int64_t>({2}, {0, 2}), MakeTensor<int32_t>({2}, {1, 3})},
                MakeTensor<float>({2}, {7, 8}), false),
            want);
  // Indices [2, 1] and [2] broadcast to [2, 2]: (0, 1), (0, 3), (2, 1), (2, 3).
  want = Iota(12);
  want[1] += 7, want[3] += 8, want[9] += 7, want[11] += 8;
  EXPECT_EQ(Put({MakeTensor<int64_t>({2, 1}, {0, 2}), MakeTensor<int64_t>({2}, {1, 3})},
                MakeTensor<float>({2}, {7, 8}), true),
            want);
  // A value per row, broadcast along the row; negative index -1 is row 2.
  want = Iota(12);
  for (int c = 0; c < 4; ++c) want[c] += 1, want[8 + c] += 2;
  EXPECT_EQ(Put({MakeTensor<int64_t>({2}, {0, -1})}, MakeTensor<float>({2, 1}, {1, 2}), true),
            want);
  // A bool mask over rows, and one over every element.
  want = Iota(12);
  for (int c = 0; c < 4; ++c) want[c] = want[8 + c] = 5;
  EXPECT_EQ(Put({MakeTensor<bool>({3}, {1, 0, 1})}, MakeTensor<float>({1}, {5}), false), want);
  std::vector<double> mask(12);
  want = Iota(12);
  for (int i = 0; i < 12; ++i) mask[i] = i > 5, want[i] = i > 5 ? -1 : i;
  EXPECT_EQ(Put({MakeTensor<bool>({3, 4}, mask)}, MakeTensor<float>({1}, {-1}), false), want);
  // A full value for the rows, and int64 data.
  const DenseTensor xi = MakeTensor<int64_t>({3, 4}, Iota(12));
  want = Iota(12);
  for (int c = 0; c < 4; ++c) want[4 + c] = 10 + c;
  EXPECT_EQ(
      Put({MakeTensor<int64_t>({1}, {1})}, MakeTensor<int64_t>({4}, {10, 11, 12, 13}), false, xi),
      want);
}

TEST_F(IndexPut, InputIsNotModified) {
  const DenseTensor x = MakeTensor<double>({2, 2}, {1, 2, 3, 4});
  Put({MakeTensor<int64_t>({1}, {0})}, MakeTensor<double>({1}, {9}), false, x);
  EXPECT_EQ(ToDoubles(x), (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(IndexPut, GradientsByFiniteDifferences) {
  for (bool accumulate : {false, true}) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(std::string(accumulate ? "accumulate" : "replace") + " variant " +
                   std::to_string(variant));
      GradCheck c;
      c.op_type = "index_put";
      std::vector<DenseTensor> indices;
      DenseTensor value;
      if (variant == 0) {  // rows, a value broadcast along them (distinct rows: replace is
                           // differentiable in value)
        indices = {MakeTensor<int64_t>({2}, {2, 0})};
        value = MakeTensor<double>({2, 1}, {0.5, -1.5});
      } else if (variant == 1) {  // elements, duplicates only with accumulate
        indices = {MakeTensor<int64_t>({3}, {0, 1, accumulate ? 0.0 : 2.0}),
                   MakeTensor<int64_t>({3}, {1, 3, 1})};
        value = MakeTensor<double>({3}, {0.25, 2, -1});
      } else {  // a mask, one value for all
        indices = {MakeTensor<bool>({3, 4}, {1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1})};
        value = MakeTensor<double>({1}, {0.75});
      }
      c.inputs = {{"x", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 3))}},
                  {"indices", indices},
                  {"value", {value}}};
      c.outputs = {{"out", 1}};
      c.wrt = {"x", "value"};
      c.attrs = {{"accumulate", accumulate}};
      CheckGradients(c);
    }
  }
}

TEST_F(IndexPut, BadArgumentsAreRefused) {
  const DenseTensor x = MakeTensor<float>({3, 4}, Iota(12));
  const DenseTensor one = MakeTensor<float>({1}, {1});
  ExpectError<platform::InvalidArgumentError>(
      [&] { Put({MakeTensor<int64_t>({1}, {3})}, one, false); },
      {"op `index_put` input `indices` #0", "3", "[-3, 3)", "[3, 4]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Put({MakeTensor<bool>({4}, {1, 0, 1, 0})}, one, false);
      },
      {"op `index_put` input `indices` #0", "bool mask", "[4]", "[3, 4]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Put({MakeTensor<int64_t>({2}, {0, 1})}, MakeTensor<float>({3}, {1, 2, 3}), false);
      },
      {"op `index_put` input `value`", "[3]", "[2, 4]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Put({MakeTensor<int64_t>({1}, {0}), MakeTensor<int64_t>({1}, {0}),
             MakeTensor<int64_t>({1}, {0})},
            one, false);
      },
      {"op `index_put` input `indices`", "3 index tensors", "rank 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { Put({MakeTensor<float>({1}, {0})}, one, false); },
      {"op `index_put` input `indices` #0", "int32, int64 or bool", "float32"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { Put({MakeTensor<int64_t>({1}, {0})}, MakeTensor<double>({1}, {1}), false); },
      {"op `index_put` input `value`", "float32", "float64"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Put({MakeTensor<int64_t>({2}, {0, 1}), MakeTensor<int64_t>({3}, {0, 1, 2})}, one, false);
      },
      {"index_put", "indices", "[2]", "[3]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
