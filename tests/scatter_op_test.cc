// scatter (overwrite and accumulate, repeated ids) and scatter_nd_add (full and partial
// index depth, repeated and negative positions) against direct loops; their gradients
// (gather, gather_nd, scatter: differentiable again) against finite differences; their errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(ScatterOp, OverwritesOrAccumulatesRows) {
  operators::RegisterAllOps();
  const auto x = RandomValues(12, -1, 1, 3);  // [4, 3]
  const auto u = RandomValues(9, -1, 1, 4);   // [3, 3]
  const std::vector<double> ids = {2, 0, 2};
  for (const bool overwrite : {true, false}) {
    std::vector<double> want = x;
    if (overwrite) {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) want[ids[i] * 3 + j] = u[i * 3 + j];
      }
    } else {
      for (double r : ids) {
        for (int j = 0; j < 3; ++j) want[r * 3 + j] = 0;
      }
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) want[ids[i] * 3 + j] += u[i * 3 + j];
      }
    }
    const OpRunResult r = RunOp("scatter",
                                {{"X", {MakeTensor<double>({4, 3}, x)}},
                                 {"Ids", {MakeTensor<int64_t>({3}, ids)}},
                                 {"Updates", {MakeTensor<double>({3, 3}, u)}}},
                                {{"Out", 1}}, {{"overwrite", overwrite}});
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "scatter");
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("scatter",
              {{"X", {MakeTensor<double>({4, 3}, x)}},
               {"Ids", {MakeTensor<int64_t>({3}, {0, 4, 1})}},
               {"Updates", {MakeTensor<double>({3, 3}, u)}}},
              {{"Out", 1}});
      },
      {"op `scatter` input `Ids`", "[0, 4)"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("scatter",
              {{"X", {MakeTensor<double>({4, 3}, x)}},
               {"Ids", {MakeTensor<int64_t>({2}, {0, 1})}},
               {"Updates", {MakeTensor<double>({3, 3}, u)}}},
              {{"Out", 1}});
      },
      {"op `scatter` input `Updates`", "[2, X's trailing dims]", "[3, 3]"});
}

TEST(ScatterNdAddOp, AddsAtEveryPosition) {
  operators::RegisterAllOps();
  const auto x = RandomValues(24, -1, 1, 5);  // [2, 3, 4]
  // Depth 2 (slices of 4), with a repeat and a negative index.
  const std::vector<double> index = {1, 2, 0, -1, 1, 2};
  const auto u = RandomValues(12, -1, 1, 6);  // [3, 4]
  std::vector<double> want = x;
  const int rows[] = {1 * 3 + 2, 0 * 3 + 2, 1 * 3 + 2};
  for (int p = 0; p < 3; ++p) {
    for (int j = 0; j < 4; ++j) want[rows[p] * 4 + j] += u[p * 4 + j];
  }
  const OpRunResult r = RunOp("scatter_nd_add",
                              {{"X", {MakeTensor<double>({2, 3, 4}, x)}},
                               {"Index", {MakeTensor<int32_t>({3, 2}, index)}},
                               {"Updates", {MakeTensor<double>({3, 4}, u)}}},
                              {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "scatter_nd_add");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("scatter_nd_add",
              {{"X", {MakeTensor<double>({2, 3, 4}, x)}},
               {"Index", {MakeTensor<int32_t>({3, 2}, index)}},
               {"Updates", {MakeTensor<double>({3, 3}, RandomValues(9, -1, 1))}}},
              {{"Out", 1}});
      },
      {"op `scatter_nd_add` input `Updates`", "expected [3, 4]", "[3, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("scatter_nd_add",
              {{"X", {MakeTensor<double>({2, 3, 4}, x)}},
               {"Index", {MakeTensor<int32_t>({1, 2}, {2, 0})}},
               {"Updates", {MakeTensor<double>({1, 4}, RandomValues(4, -1, 1))}}},
              {{"Out", 1}});
      },
      {"op `scatter_nd_add` input `Index`", "[-2, 2)", "received 2"});
}

TEST(ScatterOps, GradientsUpToSecondOrder) {
  operators::RegisterAllOps();
  {
    GradCheck check;
    check.op_type = "scatter";
    check.inputs = {{"X", {MakeTensor<double>({4, 2}, RandomValues(8, -1, 1, 7))}},
                    {"Ids", {MakeTensor<int64_t>({2}, {3, 1})}},
                    {"Updates", {MakeTensor<double>({2, 2}, RandomValues(4, -1, 1, 8))}}};
    check.outputs = {{"Out", 1}};
    check.wrt = {"X", "Updates"};
    check.max_order = 2;
    CheckGradients(check);
  }
  {
    GradCheck check;
    check.op_type = "scatter_nd_add";
    check.inputs = {{"X", {MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 9))}},
                    {"Index", {MakeTensor<int64_t>({4, 1}, {2, 0, 2, 1})}},
                    {"Updates", {MakeTensor<double>({4, 2}, RandomValues(8, -1, 1, 10))}}};
    check.outputs = {{"Out", 1}};
    check.wrt = {"X", "Updates"};
    check.max_order = 2;
    CheckGradients(check);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
