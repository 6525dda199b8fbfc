// fill_diagonal_tensor against index arithmetic written out for every dim pair and offset,
// its gradients (second order) by finite differences, and its shape errors.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// X [2, 3, 4] with the diagonals over (dim1, dim2) at `offset` set from Y, by coordinates.
std::vector<double> Expected(const std::vector<double>& x, const std::vector<double>& y, int dim1,
                             int dim2, int offset) {
  const int dims[3] = {2, 3, 4};
  const int other = 3 - dim1 - dim2;
  const int row0 = std::max(-offset, 0), col0 = std::max(offset, 0);
  const int length = std::max(0, std::min(dims[dim1] - row0, dims[dim2] - col0));
  std::vector<double> out = x;
  for (int r = 0; r < dims[other]; ++r) {
    for (int i = 0; i < length; ++i) {
      int idx[3];
      idx[other] = r;
      idx[dim1] = i + row0;
      idx[dim2] = i + col0;
      out[(idx[0] * 3 + idx[1]) * 4 + idx[2]] = y[r * length + i];
    }
  }
  return out;
}

TEST(FillDiagonalTensorOp, EveryDimPairAndOffset) {
  const std::vector<double> x = RandomValues(24, -1, 1, 3);
  const int dims[3] = {2, 3, 4};
  for (int dim1 = 0; dim1 < 3; ++dim1) {
    for (int dim2 = 0; dim2 < 3; ++dim2) {
      if (dim1 == dim2) continue;
      for (int offset = -3; offset <= 4; ++offset) {
        const int other = 3 - dim1 - dim2;
        const int length = std::max(
            0, std::min(dims[dim1] - std::max(-offset, 0), dims[dim2] - std::max(offset, 0)));
        const std::vector<double> y = RandomValues(dims[other] * length, 5, 6, 9);
        // Negative dims count from the end.
        const auto r =
            RunOp("fill_diagonal_tensor",
                  {{"X", {MakeTensor<double>({2, 3, 4}, x)}},
                   {"Y", {MakeTensor<double>({dims[other], length}, y)}}},
                  {{"Out", 1}},
                  {{"offset", static_cast<int64_t>(offset)}, {"dim1", dim1 - 3}, {"dim2", dim2}});
        EXPECT_EQ(ToDoubles(r.outputs.at("Out").at(0)), Expected(x, y, dim1, dim2, offset))
            << dim1 << " " << dim2 << " " << offset;
      }
    }
  }
}

TEST(FillDiagonalTensorOp, GradientsToSecondOrder) {
  GradCheck g;
  g.op_type = "fill_diagonal_tensor";
  g.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, RandomValues(24, -1, 1, 4))}},
              {"Y", {MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 5))}}};
  g.outputs = {{"Out", 1}};
  g.attrs = {{"offset", int64_t{-1}}, {"dim1", 2}, {"dim2", 0}};
  g.max_order = 2;
  CheckGradients(g);
}

// paddle.diagonal_scatter hands a matrix's diagonal over as [1, n].
TEST(FillDiagonalTensorOp, YWithLeadingOnesAndItsGradients) {
  const std::vector<double> x = RandomValues(12, -1, 1, 6), y = {7, 8, 9};
  const auto r =
      RunOp("fill_diagonal_tensor",
            {{"X", {MakeTensor<double>({3, 4}, x)}}, {"Y", {MakeTensor<double>({1, 1, 3}, y)}}},
            {{"Out", 1}}, {{"offset", int64_t{1}}});
  std::vector<double> want = x;
  for (int i = 0; i < 3; ++i) want[i * 4 + i + 1] = y[i];
  EXPECT_EQ(ToDoubles(r.outputs.at("Out").at(0)), want);

  GradCheck g;
  g.op_type = "fill_diagonal_tensor";
  g.inputs = {{"X", {MakeTensor<double>({3, 4}, x)}}, {"Y", {MakeTensor<double>({1, 3}, y)}}};
  g.outputs = {{"Out", 1}};
  g.attrs = {{"offset", int64_t{1}}};
  g.max_order = 2;
  CheckGradients(g);
}

TEST(FillDiagonalTensorOp, WrongYShapeNamesTheExpectedOne) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("fill_diagonal_tensor",
              {{"X", {MakeTensor<double>({3, 3}, std::vector<double>(9, 0))}},
               {"Y", {MakeTensor<double>({2}, {1, 2})}}},
              {{"Out", 1}});
      },
      {"op `fill_diagonal_tensor`", "input `Y`", "[3]", "[2]"});
  ExpectError<platform::InvalidArgumentError>(  // Leading dims other than 1.
      [] {
        RunOp("fill_diagonal_tensor",
              {{"X", {MakeTensor<double>({3, 3}, std::vector<double>(9, 0))}},
               {"Y", {MakeTensor<double>({3, 1}, {1, 2, 3})}}},
              {{"Out", 1}});
      },
      {"op `fill_diagonal_tensor`", "input `Y`", "[3]", "[3, 1]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("fill_diagonal_tensor",
              {{"X", {MakeTensor<double>({3, 3}, std::vector<double>(9, 0))}},
               {"Y", {MakeTensor<double>({3}, {1, 2, 3})}}},
              {{"Out", 1}}, {{"dim1", 1}, {"dim2", -1}});
      },
      {"op `fill_diagonal_tensor`", "`dim1`", "`dim2`"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
