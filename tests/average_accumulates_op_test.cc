// average_accumulates (operators/optimizers/average_accumulates_op.cc): thirty steps fed back
// into the op against the window bookkeeping written here, the average over the last window
// equal to the mean of its parameters, the 16384-step move into sum_2, and bad inputs.
// PaddlePaddle's outputs: fixtures average_accumulates_*.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "operators/registry.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct State {
  std::vector<double> s1, s2, s3;
  int64_t accumulates = 0, old_accumulates = 0, updates = 0;
};

State Step(const State& in, const std::vector<double>& param, const AttributeMap& attrs) {
  const int64_t n = static_cast<int64_t>(param.size());
  const OpRunResult r =
      RunOp("average_accumulates",
            {{"param", {MakeTensor<double>({n}, param)}},
             {"in_sum_1", {MakeTensor<double>({static_cast<int64_t>(in.s1.size())}, in.s1)}},
             {"in_sum_2", {MakeTensor<double>({static_cast<int64_t>(in.s2.size())}, in.s2)}},
             {"in_sum_3", {MakeTensor<double>({static_cast<int64_t>(in.s3.size())}, in.s3)}},
             {"in_num_accumulates", {MakeTensor<int64_t>({1}, {double(in.accumulates)})}},
             {"in_old_num_accumulates", {MakeTensor<int64_t>({1}, {double(in.old_accumulates)})}},
             {"in_num_updates", {MakeTensor<int64_t>({1}, {double(in.updates)})}}},
            {{"out_sum_1", 1},
             {"out_sum_2", 1},
             {"out_sum_3", 1},
             {"out_num_accumulates", 1},
             {"out_old_num_accumulates", 1},
             {"out_num_updates", 1}},
            attrs);
  const auto one = [&](const char* s) {
    return static_cast<int64_t>(ToDoubles(r.outputs.at(s)[0])[0]);
  };
  return {ToDoubles(r.outputs.at("out_sum_1")[0]), ToDoubles(r.outputs.at("out_sum_2")[0]),
          ToDoubles(r.outputs.at("out_sum_3")[0]), one("out_num_accumulates"),
          one("out_old_num_accumulates"),          one("out_num_updates")};
}

TEST(AverageAccumulatesOp, WindowsRestartAndAverageTheirParameters) {
  operators::RegisterAllOps();
  // Windows of at least 4 steps and at most 6, else half the steps so far.
  const AttributeMap attrs = {{"average_window", 0.5f},
                              {"min_average_window", int64_t{4}},
                              {"max_average_window", int64_t{6}}};
  State s{std::vector<double>(3, 0), std::vector<double>(3, 0), std::vector<double>(3, 0)};
  std::vector<std::vector<double>> params;
  int64_t window_start = 0, restarts = 0;
  for (int64_t step = 1; step <= 30; ++step) {
    params.push_back(RandomValues(3, -1, 1, 170 + step));
    const int64_t before = s.accumulates + 1;
    s = Step(s, params.back(), attrs);
    EXPECT_EQ(s.updates, step);
    // A window closes when it holds at least 4 steps and min(6, floor(step / 2)).
    const bool closes = before >= 4 && before >= std::min<int64_t>(6, step / 2);
    if (closes) {
      ++restarts;
      EXPECT_EQ(s.accumulates, 0) << "step " << step;
      EXPECT_EQ(s.old_accumulates, before) << "step " << step;
      // sum_3 holds the closed window's parameters.
      for (int k = 0; k < 3; ++k) {
        double want = 0;
        for (int64_t i = window_start; i < step; ++i) want += params[i][k];
        EXPECT_NEAR(s.s3[k], want, 1e-12) << "step " << step;
        EXPECT_EQ(s.s1[k], 0);
      }
      window_start = step;
    } else {
      EXPECT_EQ(s.accumulates, before) << "step " << step;
      for (int k = 0; k < 3; ++k) {
        double want = 0;
        for (int64_t i = window_start; i < step; ++i) want += params[i][k];
        EXPECT_NEAR(s.s1[k] + s.s2[k], want, 1e-12) << "step " << step;
      }
    }
  }
  EXPECT_GE(restarts, 4);
}

TEST(AverageAccumulatesOp, EveryMaxNumAccumulatesStepsSum1MovesToSum2) {
  operators::RegisterAllOps();
  const AttributeMap attrs = {{"average_window", 1.0f},
                              {"min_average_window", int64_t{1000000}},
                              {"max_average_window", int64_t{2000000}}};
  State s{{1, 2}, {10, 20}, {0, 0}, 5, 0, 16383};
  s = Step(s, {0.5, 0.25}, attrs);
  EXPECT_EQ(s.updates, 16384);
  EXPECT_EQ(s.s1, std::vector<double>({0, 0}));
  EXPECT_EQ(s.s2, std::vector<double>({11.5, 22.25}));
  EXPECT_EQ(s.accumulates, 6);
}

TEST(AverageAccumulatesOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  State s{{1, 2}, {0, 0}, {0, 0}, 0, 0, 0};
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Step(s, {1, 2}, {{"min_average_window", int64_t{5}}, {"max_average_window", int64_t{4}}});
      },
      {"op `average_accumulates`", "min_average_window <= max_average_window"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Step(s, {1, 2, 3}, {});
      },
      {"op `average_accumulates` input `in_sum_1`"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
