// argsort, index_sample, where_index, masked_select and linspace against direct loops, their
// gradients against finite differences (argsort, index_sample, masked_select), and their
// errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(ArgsortOp, SortsEachLineStably) {
  operators::RegisterAllOps();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Lines along axis 1 of [2, 5, 2]; ties and a NaN included.
  const std::vector<double> x = {3, 1, 1, nan, 2, 0, 1, 5, 3, 1, -1, 4, 2, 2, 0, 0, 7, -3, 2, 9};
  const DDim dims({2, 5, 2});
  for (const bool descending : {false, true}) {
    std::vector<double> want_out(x.size()), want_idx(x.size());
    for (int p = 0; p < 2; ++p) {
      for (int q = 0; q < 2; ++q) {
        std::vector<int> order(5);
        std::iota(order.begin(), order.end(), 0);
        const auto at = [&](int j) { return x[(p * 5 + j) * 2 + q]; };
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
          const bool an = std::isnan(at(a)), bn = std::isnan(at(b));
          if (an != bn) return descending ? an : bn;
          if (an) return false;
          return descending ? at(a) > at(b) : at(a) < at(b);
        });
        for (int j = 0; j < 5; ++j) {
          want_out[(p * 5 + j) * 2 + q] = at(order[j]);
          want_idx[(p * 5 + j) * 2 + q] = order[j];
        }
      }
    }
    const OpRunResult r =
        RunOp("argsort", {{"X", {MakeTensor<double>(dims, x)}}}, {{"Out", 1}, {"Indices", 1}},
              {{"axis", 1}, {"descending", descending}});
    const std::vector<double> out = ToDoubles(r.outputs.at("Out")[0]);
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(want_out[i])) {
        EXPECT_TRUE(std::isnan(out[i])) << i;
      } else {
        EXPECT_EQ(out[i], want_out[i]) << i << " descending " << descending;
      }
    }
    EXPECT_EQ(r.outputs.at("Indices")[0].dtype(), DataType::INT64);
    EXPECT_EQ(ToDoubles(r.outputs.at("Indices")[0]), want_idx) << "descending " << descending;
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("argsort", {{"X", {MakeTensor<double>(dims, x)}}}, {{"Out", 1}, {"Indices", 1}},
              {{"axis", 3}});
      },
      {"op `argsort` attribute `axis`", "[-3, 3)", "received 3"});
}

TEST(ArgsortOp, GradientMatchesFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "argsort";
  check.inputs = {{"X", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 3))}}};
  check.outputs = {{"Out", 1}, {"Indices", 1}};
  check.loss_outputs = {"Out"};
  check.attrs = {{"axis", 0}, {"descending", true}};
  CheckGradients(check);
}

TEST(IndexSampleOp, PicksPerRowAndSumsRepeatsInTheGradient) {
  operators::RegisterAllOps();
  const auto x = RandomValues(12, -1, 1, 4);
  const std::vector<double> index = {3, 0, 3, 1, 1, 2};  // [3, 2]
  const OpRunResult r = RunOp(
      "index_sample",
      {{"X", {MakeTensor<double>({3, 4}, x)}}, {"Index", {MakeTensor<int64_t>({3, 2}, index)}}},
      {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]),
            (std::vector<double>{x[3], x[0], x[7], x[5], x[9], x[10]}));
  const std::vector<double> repeat = {1, 1, 0, 2, 3, 3};
  GradCheck check;
  check.op_type = "index_sample";
  check.inputs = {{"X", {MakeTensor<double>({3, 4}, x)}},
                  {"Index", {MakeTensor<int32_t>({3, 2}, repeat)}}};
  check.outputs = {{"Out", 1}};
  check.wrt = {"X"};
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("index_sample",
              {{"X", {MakeTensor<double>({3, 4}, x)}},
               {"Index", {MakeTensor<int64_t>({3, 2}, {0, 4, 0, 0, 0, 0})}}},
              {{"Out", 1}});
      },
      {"op `index_sample` input `Index`", "[0, 4)", "received 4"});
}

TEST(WhereIndexOp, ListsTheTruePositions) {
  operators::RegisterAllOps();
  const std::vector<double> c = {0, 1, 0, 2, 0, 0, -1, 0, 0, 0, 0, 3};
  const OpRunResult r =
      RunOp("where_index", {{"Condition", {MakeTensor<float>({2, 3, 2}, c)}}}, {{"Out", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({4, 3}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]),
            (std::vector<double>{0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 2, 1}));
  const OpRunResult none =
      RunOp("where_index", {{"Condition", {MakeTensor<bool>({4}, {0, 0, 0, 0})}}}, {{"Out", 1}});
  EXPECT_EQ(none.outputs.at("Out")[0].dims(), DDim({0, 1}));
}

TEST(MaskedSelectOp, SelectsInBroadcastOrder) {
  operators::RegisterAllOps();
  const auto x = RandomValues(6, -1, 1, 5);  // [2, 3]
  // Mask [2, 1] broadcast along the columns; then X [3] broadcast along rows of a [2, 3] mask.
  const OpRunResult r =
      RunOp("masked_select",
            {{"X", {MakeTensor<double>({2, 3}, x)}}, {"Mask", {MakeTensor<bool>({2, 1}, {0, 1})}}},
            {{"Y", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Y")[0]), (std::vector<double>{x[3], x[4], x[5]}));
  const OpRunResult b = RunOp("masked_select",
                              {{"X", {MakeTensor<double>({3}, {x[0], x[1], x[2]})}},
                               {"Mask", {MakeTensor<bool>({2, 3}, {1, 0, 1, 0, 1, 1})}}},
                              {{"Y", 1}});
  EXPECT_EQ(ToDoubles(b.outputs.at("Y")[0]), (std::vector<double>{x[0], x[2], x[1], x[2]}));
  GradCheck check;
  check.op_type = "masked_select";
  check.inputs = {{"X", {MakeTensor<double>({3}, {x[0], x[1], x[2]})}},
                  {"Mask", {MakeTensor<bool>({2, 3}, {1, 0, 1, 0, 1, 1})}}};
  check.outputs = {{"Y", 1}};
  check.wrt = {"X"};
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("masked_select",
              {{"X", {MakeTensor<double>({2, 3}, x)}}, {"Mask", {MakeTensor<bool>({2}, {1, 0})}}},
              {{"Y", 1}});
      },
      {"op `masked_select` inputs `X` and `Mask`", "[2, 3] and [2]", "do not broadcast"});
}

TEST(LinspaceOp, SpansBothEnds) {
  operators::RegisterAllOps();
  const auto run = [](double start, double stop, int num, int dtype) {
    return ToDoubles(RunOp("linspace",
                           {{"Start", {MakeTensor<double>({1}, {start})}},
                            {"Stop", {MakeTensor<float>({1}, {stop})}},
                            {"Num", {MakeTensor<int32_t>({1}, {static_cast<double>(num)})}}},
                           {{"Out", 1}}, {{"dtype", dtype}})
                         .outputs.at("Out")[0]);
  };
  EXPECT_EQ(run(0, 1, 5, 6), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(run(2, -2, 3, 6), (std::vector<double>{2, 0, -2}));
  EXPECT_EQ(run(7, 9, 1, 6), (std::vector<double>{7}));
  EXPECT_EQ(run(0, 10, 4, 3), (std::vector<double>{0, 3, 6, 10}));  // int64: truncated.
  const std::vector<double> f = run(-1, 1, 7, 5);
  ASSERT_EQ(f.size(), 7u);
  EXPECT_EQ(f.front(), -1);
  EXPECT_EQ(f.back(), 1);
  ExpectError<platform::InvalidArgumentError>([&] { run(0, 1, 0, 5); },
                                              {"op `linspace` input `Num`", "> 0", "received 0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
