// huber_loss, log_loss and hinge_loss against their formulas written here in double (both
// sides of delta, probabilities at 0 and 1, scores on both sides of the margin), gradients by
// finite differences, typed errors.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(ElementwiseLoss, HuberLossOnBothSidesOfDelta) {
  operators::RegisterAllOps();
  const std::vector<double> x = {0.1, -2, 1.5, 0.3, 3}, y = {0.4, 0.5, -1, 0.3, 2.2};
  std::vector<double> want, residual;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - x[i], m = std::abs(r);
    residual.push_back(r);
    want.push_back(m <= 1.2 ? 0.5 * r * r : 1.2 * (m - 0.6));
  }
  const SlotTensors in = {{"X", {MakeTensor<double>({5, 1}, x)}},
                          {"Y", {MakeTensor<double>({5, 1}, y)}}};
  const auto r = RunOp("huber_loss", in, {{"Out", 1}, {"Residual", 1}}, {{"delta", 1.2f}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-7, 1e-7, "huber");
  ExpectNear(ToDoubles(r.outputs.at("Residual")[0]), residual, 1e-15, 1e-15, "residual");
  GradCheck g;
  g.op_type = "huber_loss";
  g.inputs = in;
  g.outputs = {{"Out", 1}, {"Residual", 1}};
  g.loss_outputs = {"Out"};
  g.attrs = {{"delta", 1.2f}};
  CheckGradients(g);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("huber_loss", in, {{"Out", 1}, {"Residual", 1}}, {{"delta", 0.0f}});
      },
      {"op `huber_loss` attribute `delta`", "positive", "0"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("huber_loss", {{"X", in.at("X")}, {"Y", {MakeTensor<double>({5}, y)}}},
              {{"Out", 1}, {"Residual", 1}}, {{"delta", 1.0f}});
      },
      {"op `huber_loss` input `Y`", "[5, 1]", "[5]"});
}

TEST(ElementwiseLoss, LogLossWithEpsilon) {
  operators::RegisterAllOps();
  const std::vector<double> p = {0.2, 0.9, 0, 1, 0.5}, y = {1, 0, 1, 0, 0.3};
  const double eps = static_cast<double>(1e-4f);
  std::vector<double> want;
  for (size_t i = 0; i < p.size(); ++i) {
    want.push_back(-y[i] * std::log(p[i] + eps) - (1 - y[i]) * std::log(1 - p[i] + eps));
  }
  const auto r = RunOp(
      "log_loss",
      {{"Predicted", {MakeTensor<double>({5, 1}, p)}}, {"Labels", {MakeTensor<double>({5, 1}, y)}}},
      {{"Loss", 1}}, {{"epsilon", 1e-4f}});
  ExpectNear(ToDoubles(r.outputs.at("Loss")[0]), want, 1e-14, 1e-14, "log_loss");
  GradCheck g;
  g.op_type = "log_loss";
  g.inputs = {{"Predicted", {MakeTensor<double>({4, 1}, {0.2, 0.9, 0.4, 0.6})}},
              {"Labels", {MakeTensor<double>({4, 1}, {1, 0, 1, 0.3})}}};
  g.outputs = {{"Loss", 1}};
  g.attrs = {{"epsilon", 1e-4f}};
  g.wrt = {"Predicted"};
  CheckGradients(g);
}

TEST(ElementwiseLoss, HingeLossOnBothSidesOfTheMargin) {
  operators::RegisterAllOps();
  const std::vector<double> x = {2.5, -0.3, 0.4, -1.7, 0.9, -2}, y = {1, 1, 0, 0, 1, 0};
  std::vector<double> want;
  for (size_t i = 0; i < x.size(); ++i) {
    const double s = y[i] == 1 ? 1.0 : -1.0;
    want.push_back(std::max(0.0, 1 - s * x[i]));
  }
  const SlotTensors in = {{"Logits", {MakeTensor<double>({6, 1}, x)}},
                          {"Labels", {MakeTensor<double>({6, 1}, y)}}};
  const auto r = RunOp("hinge_loss", in, {{"Loss", 1}}, {});
  ExpectNear(ToDoubles(r.outputs.at("Loss")[0]), want, 1e-15, 1e-15, "hinge_loss");
  // Float too; the margin's kink (s x = 1) is kept away from the finite differences.
  const auto f = RunOp(
      "hinge_loss",
      {{"Logits", {MakeTensor<float>({6, 1}, x)}}, {"Labels", {MakeTensor<float>({6, 1}, y)}}},
      {{"Loss", 1}}, {});
  ExpectNear(ToDoubles(f.outputs.at("Loss")[0]), want, 1e-6, 1e-6, "hinge_loss float");
  GradCheck g;
  g.op_type = "hinge_loss";
  g.inputs = in;
  g.outputs = {{"Loss", 1}};
  g.wrt = {"Logits"};
  CheckGradients(g);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("hinge_loss", {{"Logits", in.at("Logits")}, {"Labels", {MakeTensor<double>({6}, y)}}},
              {{"Loss", 1}}, {});
      },
      {"op `hinge_loss` input `Labels`", "[6, 1]", "[6]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
