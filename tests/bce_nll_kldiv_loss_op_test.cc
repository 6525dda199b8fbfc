// bce_loss, nll_loss and kldiv_loss against their formulas written here in double (log floors,
// class weights, ignored labels, 4-D inputs, every reduction, log targets), gradients by
// finite differences, typed errors.
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class Losses : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(Losses, BceLossWithItsLogFloor) {
  const std::vector<double> p = {0.5, 0.9, 0.1, 0, 1, 0.3}, y = {1, 0, 1, 1, 0, 0.25};
  std::vector<double> want;
  for (size_t i = 0; i < p.size(); ++i) {
    want.push_back(-(y[i] * std::max(std::log(p[i]), -100.0) +
                     (1 - y[i]) * std::max(std::log(1 - p[i]), -100.0)));
  }
  const auto r =
      RunOp("bce_loss",
            {{"X", {MakeTensor<double>({2, 3}, p)}}, {"Label", {MakeTensor<double>({2, 3}, y)}}},
            {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "bce");
  GradCheck g;
  g.op_type = "bce_loss";
  g.inputs = {{"X", {MakeTensor<double>({2, 3}, {0.5, 0.9, 0.1, 0.2, 0.7, 0.3})}},
              {"Label", {MakeTensor<double>({2, 3}, y)}}};
  g.outputs = {{"Out", 1}};
  g.wrt = {"X"};
  CheckGradients(g);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("bce_loss",
              {{"X", {MakeTensor<double>({2}, {0.5, 1.5})}},
               {"Label", {MakeTensor<double>({2}, {1, 0})}}},
              {{"Out", 1}});
      },
      {"op `bce_loss` input `X`", "[0, 1]", "1.5", "index 1"});
}

TEST_F(Losses, NllLossEveryReduction) {
  // [N = 2, C = 3, H = 1, W = 2]: labels per position, one ignored.
  const std::vector<double> x = RandomValues(12, -3, 0, 3);
  const std::vector<double> labels = {2, 0, -100, 1};
  const std::vector<double> w = {0.5, 2, 1.5};
  std::vector<double> per_pos;
  double total = 0, sum = 0;
  for (int n = 0; n < 2; ++n) {
    for (int k = 0; k < 2; ++k) {
      const int c = static_cast<int>(labels[n * 2 + k]);
      if (c < 0) {
        per_pos.push_back(0);
        continue;
      }
      per_pos.push_back(-w[c] * x[(n * 3 + c) * 2 + k]);
      total += w[c];
      sum += per_pos.back();
    }
  }
  const SlotTensors in = {{"X", {MakeTensor<double>({2, 3, 1, 2}, x)}},
                          {"Label", {MakeTensor<int64_t>({2, 1, 2}, labels)}},
                          {"Weight", {MakeTensor<double>({3}, w)}}};
  for (const std::string reduction : {"none", "sum", "mean"}) {
    const auto r =
        RunOp("nll_loss", in, {{"Out", 1}, {"Total_weight", 1}}, {{"reduction", reduction}});
    const std::vector<double> want =
        reduction == "none" ? per_pos : std::vector<double>{reduction == "sum" ? sum : sum / total};
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, reduction);
    ExpectNear(ToDoubles(r.outputs.at("Total_weight")[0]), {reduction == "none" ? 0 : total}, 1e-15,
               0, "total weight");
    GradCheck g;
    g.op_type = "nll_loss";
    g.inputs = in;
    g.outputs = {{"Out", 1}, {"Total_weight", 1}};
    g.loss_outputs = {"Out"};
    g.attrs = {{"reduction", reduction}};
    g.wrt = {"X"};
    CheckGradients(g);
  }
  // 2-D without weights.
  const auto r = RunOp(
      "nll_loss",
      {{"X",
        {MakeTensor<double>({2, 2}, {std::log(0.5), std::log(0.5), std::log(0.1), std::log(0.9)})}},
       {"Label", {MakeTensor<int64_t>({2}, {0, 1})}}},
      {{"Out", 1}, {"Total_weight", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {-(std::log(0.5) + std::log(0.9)) / 2}, 1e-15, 0,
             "2-D");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("nll_loss",
              {{"X", in.at("X")}, {"Label", {MakeTensor<int64_t>({2, 1, 2}, {2, 3, 0, 0})}}},
              {{"Out", 1}, {"Total_weight", 1}});
      },
      {"op `nll_loss` input `Label`", "[0, 3)", "3", "position 1"});
}

TEST_F(Losses, KldivLossEveryReduction) {
  const std::vector<double> x = RandomValues(6, -3, 0, 5);
  const std::vector<double> t = {0.2, 0, 0.5, 0.3, 0.7, 0.1};
  for (bool log_target : {false, true}) {
    std::vector<double> l;
    for (size_t i = 0; i < 6; ++i) {
      const double target = log_target ? std::log(t[i] + 0.05) : t[i];
      l.push_back(log_target ? std::exp(target) * (target - x[i])
                             : (target > 0 ? target * (std::log(target) - x[i]) : 0));
    }
    std::vector<double> tv;
    for (double v : t) tv.push_back(log_target ? std::log(v + 0.05) : v);
    double sum = 0;
    for (double v : l) sum += v;
    const SlotTensors in = {{"X", {MakeTensor<double>({2, 3}, x)}},
                            {"Target", {MakeTensor<double>({2, 3}, tv)}}};
    for (const std::string reduction : {"none", "sum", "mean", "batchmean"}) {
      const auto r = RunOp("kldiv_loss", in, {{"Loss", 1}},
                           {{"reduction", reduction}, {"log_target", log_target}});
      std::vector<double> want = l;
      if (reduction == "sum") want = {sum};
      if (reduction == "mean") want = {sum / 6};
      if (reduction == "batchmean") want = {sum / 2};
      ExpectNear(ToDoubles(r.outputs.at("Loss")[0]), want, 1e-14, 1e-15, reduction);
      GradCheck g;
      g.op_type = "kldiv_loss";
      g.inputs = in;
      g.outputs = {{"Loss", 1}};
      g.attrs = {{"reduction", reduction}, {"log_target", log_target}};
      g.wrt = {"X"};
      CheckGradients(g);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
