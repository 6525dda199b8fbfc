// lars_momentum, merged_momentum, merged_adam, asgd and rprop against their update rules
// written here in double, parameter by parameter; the typed errors of bad lists and inputs.
// PaddlePaddle's own outputs are checked by the fixture test.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Lists {
  std::vector<DDim> dims = {DDim({3, 2}), DDim({4})};
  std::vector<std::vector<double>> p, g, v;
  Lists() {
    for (size_t i = 0; i < dims.size(); ++i) {
      p.push_back(RandomValues(dims[i].numel(), -1, 1, 10 + i));
      g.push_back(RandomValues(dims[i].numel(), -1, 1, 20 + i));
      v.push_back(RandomValues(dims[i].numel(), -0.2, 0.2, 30 + i));
    }
  }
  std::vector<DenseTensor> Tensors(const std::vector<std::vector<double>>& values) const {
    std::vector<DenseTensor> out;
    for (size_t i = 0; i < dims.size(); ++i) out.push_back(MakeTensor<double>(dims[i], values[i]));
    return out;
  }
};

double Norm(const std::vector<double>& x, double scale = 1) {
  double s = 0;
  for (double v : x) s += (v * scale) * (v * scale);
  return std::sqrt(s);
}

TEST(LarsMomentum, LocalRatePerParameter) {
  const Lists l;
  const std::vector<float> decays = {0.01f, 0.0f};  // The second falls back to lr.
  const double mu = 0.9, eta = 0.002, eps = 1e-6, rescale = 0.5, lr = 0.1;
  const auto r = RunOp("lars_momentum",
                       {{"Param", l.Tensors(l.p)},
                        {"Grad", l.Tensors(l.g)},
                        {"Velocity", l.Tensors(l.v)},
                        {"LearningRate", {MakeTensor<double>({1}, {lr})}}},
                       {{"ParamOut", 2}, {"VelocityOut", 2}},
                       {{"mu", 0.9f},
                        {"lars_coeff", 0.002f},
                        {"lars_weight_decay", decays},
                        {"epsilon", 1e-6f},
                        {"rescale_grad", 0.5f}});
  for (size_t i = 0; i < 2; ++i) {
    const double decay = static_cast<double>(decays[i]);
    const double pn = Norm(l.p[i]), gn = Norm(l.g[i], rescale);
    const double local = decay > 0
                             ? lr * static_cast<double>(static_cast<float>(eta)) * pn /
                                   (gn + decay * pn + static_cast<double>(static_cast<float>(eps)))
                             : lr;
    std::vector<double> v_want, p_want;
    for (size_t k = 0; k < l.p[i].size(); ++k) {
      const double v = static_cast<double>(static_cast<float>(mu)) * l.v[i][k] +
                       local * (l.g[i][k] * rescale + decay * l.p[i][k]);
      v_want.push_back(v);
      p_want.push_back(l.p[i][k] - v);
    }
    const std::string what = "param " + std::to_string(i);
    ExpectNear(ToDoubles(r.outputs.at("VelocityOut")[i]), v_want, 1e-12, 1e-15, what);
    ExpectNear(ToDoubles(r.outputs.at("ParamOut")[i]), p_want, 1e-12, 1e-15, what);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lars_momentum",
              {{"Param", l.Tensors(l.p)},
               {"Grad", {l.Tensors(l.g)[0]}},
               {"Velocity", l.Tensors(l.v)},
               {"LearningRate", {MakeTensor<double>({1}, {lr})}}},
              {{"ParamOut", 2}, {"VelocityOut", 2}}, {{"mu", 0.9f}});
      },
      {"op `lars_momentum` slot `Grad`", "expected 2 tensors", "received 1"});
}

TEST(MergedMomentum, NesterovAndL2PerParameter) {
  const Lists l;
  const double mu = static_cast<double>(0.9f), coeff = static_cast<double>(0.01f);
  const std::vector<double> lrs = {0.1, 0.05};
  for (bool nesterov : {false, true}) {
    const auto r = RunOp(
        "merged_momentum",
        {{"Param", l.Tensors(l.p)},
         {"Grad", l.Tensors(l.g)},
         {"Velocity", l.Tensors(l.v)},
         {"LearningRate", {MakeTensor<double>({1}, {lrs[0]}), MakeTensor<double>({1}, {lrs[1]})}}},
        {{"ParamOut", 2}, {"VelocityOut", 2}},
        {{"mu", 0.9f},
         {"use_nesterov", nesterov},
         {"regularization_method", std::vector<std::string>{"l2_decay", ""}},
         {"regularization_coeff", std::vector<float>{0.01f, 0.0f}}});
    for (size_t i = 0; i < 2; ++i) {
      std::vector<double> v_want, p_want;
      for (size_t k = 0; k < l.p[i].size(); ++k) {
        const double g = l.g[i][k] + (i == 0 ? coeff * l.p[i][k] : 0);
        const double v = mu * l.v[i][k] + g;
        v_want.push_back(v);
        p_want.push_back(nesterov ? l.p[i][k] - lrs[i] * (g + mu * v) : l.p[i][k] - lrs[i] * v);
      }
      const std::string what =
          std::string(nesterov ? "nesterov" : "plain") + " param " + std::to_string(i);
      ExpectNear(ToDoubles(r.outputs.at("VelocityOut")[i]), v_want, 1e-14, 1e-15, what);
      ExpectNear(ToDoubles(r.outputs.at("ParamOut")[i]), p_want, 1e-14, 1e-15, what);
    }
  }
  ExpectError<platform::UnimplementedError>(
      [&] {
        RunOp("merged_momentum",
              {{"Param", l.Tensors(l.p)},
               {"Grad", l.Tensors(l.g)},
               {"Velocity", l.Tensors(l.v)},
               {"LearningRate", {MakeTensor<double>({1}, {0.1})}}},
              {{"ParamOut", 2}, {"VelocityOut", 2}}, {{"mu", 0.9f}, {"multi_precision", true}});
      },
      {"op `merged_momentum` attribute `multi_precision`"});
}

TEST(MergedAdam, AdamPerParameterWithAmsgrad) {
  const Lists l;
  std::vector<std::vector<double>> m2;
  for (const auto& v : l.v) {
    std::vector<double> sq;
    for (double x : v) sq.push_back(x * x);
    m2.push_back(sq);
  }
  const double b1 = static_cast<double>(0.9f), b2 = static_cast<double>(0.999f);
  const double eps = static_cast<double>(1e-6f);
  const std::vector<double> b1p = {0.729, 0.9}, b2p = {0.997, 0.999};
  for (bool amsgrad : {false, true}) {
    SlotTensors in = {
        {"Param", l.Tensors(l.p)},
        {"Grad", l.Tensors(l.g)},
        {"LearningRate", {MakeTensor<double>({1}, {0.05})}},
        {"Moment1", l.Tensors(l.v)},
        {"Moment2", l.Tensors(m2)},
        {"Beta1Pow", {MakeTensor<double>({1}, {b1p[0]}), MakeTensor<double>({1}, {b1p[1]})}},
        {"Beta2Pow", {MakeTensor<double>({1}, {b2p[0]}), MakeTensor<double>({1}, {b2p[1]})}}};
    std::map<std::string, int> outs = {{"ParamOut", 2},
                                       {"Moment1Out", 2},
                                       {"Moment2Out", 2},
                                       {"Beta1PowOut", 2},
                                       {"Beta2PowOut", 2}};
    if (amsgrad) {
      in["Moment2Max"] = l.Tensors(l.g);  // Some larger, some smaller than the new moment.
      for (auto& t : in["Moment2Max"]) {
        double* p = t.mutable_data<double>(platform::CPUPlace());
        for (int64_t k = 0; k < t.numel(); ++k) p[k] = p[k] * p[k] * 0.02;
      }
      outs["Moment2MaxOut"] = 2;
    }
    const auto r =
        RunOp("merged_adam", in, outs,
              {{"beta1", 0.9f}, {"beta2", 0.999f}, {"epsilon", 1e-6f}, {"amsgrad", amsgrad}});
    for (size_t i = 0; i < 2; ++i) {
      const std::vector<double> m2max = amsgrad ? ToDoubles(in["Moment2Max"][i]) : m2[i];
      std::vector<double> p_want, m1_want;
      const double lr_t = 0.05 * std::sqrt(1 - b2p[i]) / (1 - b1p[i]);
      const double eps_t = eps * std::sqrt(1 - b2p[i]);
      for (size_t k = 0; k < l.p[i].size(); ++k) {
        const double g = l.g[i][k];
        const double a = b1 * l.v[i][k] + (1 - b1) * g;
        const double b = b2 * m2[i][k] + (1 - b2) * g * g;
        const double denom = amsgrad ? std::max(m2max[k], b) : b;
        m1_want.push_back(a);
        p_want.push_back(l.p[i][k] - lr_t * a / (std::sqrt(denom) + eps_t));
      }
      const std::string what =
          std::string(amsgrad ? "amsgrad" : "adam") + " param " + std::to_string(i);
      ExpectNear(ToDoubles(r.outputs.at("ParamOut")[i]), p_want, 1e-12, 1e-15, what);
      ExpectNear(ToDoubles(r.outputs.at("Moment1Out")[i]), m1_want, 1e-14, 0, what);
      ExpectNear(ToDoubles(r.outputs.at("Beta1PowOut")[i]), {b1p[i] * b1}, 1e-15, 0, what);
    }
  }
}

TEST(Asgd, StepsAlongTheWindowMean) {
  const std::vector<double> p = RandomValues(6, -1, 1, 1), g = RandomValues(6, -1, 1, 2),
                            d = RandomValues(6, -1, 1, 3), y = RandomValues(6, -1, 1, 4);
  const auto r = RunOp("asgd",
                       {{"param", {MakeTensor<double>({2, 3}, p)}},
                        {"grad", {MakeTensor<double>({2, 3}, g)}},
                        {"learning_rate", {MakeTensor<double>({1}, {0.1})}},
                        {"d", {MakeTensor<double>({2, 3}, d)}},
                        {"y", {MakeTensor<double>({2, 3}, y)}},
                        {"n", {MakeTensor<double>({1}, {4})}}},
                       {{"param_out", 1}, {"d_out", 1}, {"y_out", 1}});
  std::vector<double> p_want, d_want;
  for (size_t k = 0; k < 6; ++k) {
    d_want.push_back(d[k] - y[k] + g[k]);
    p_want.push_back(p[k] - 0.1 / 4 * d_want.back());
  }
  ExpectNear(ToDoubles(r.outputs.at("d_out")[0]), d_want, 1e-15, 1e-15, "d_out");
  ExpectNear(ToDoubles(r.outputs.at("param_out")[0]), p_want, 1e-15, 1e-15, "param_out");
  ExpectNear(ToDoubles(r.outputs.at("y_out")[0]), g, 0, 0, "y_out");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("asgd",
              {{"param", {MakeTensor<double>({2, 3}, p)}},
               {"grad", {MakeTensor<double>({2, 3}, g)}},
               {"learning_rate", {MakeTensor<double>({1}, {0.1})}},
               {"d", {MakeTensor<double>({2, 3}, d)}},
               {"y", {MakeTensor<double>({3, 2}, y)}},
               {"n", {MakeTensor<double>({1}, {4})}}},
              {{"param_out", 1}, {"d_out", 1}, {"y_out", 1}});
      },
      {"op `asgd` input `y`", "[2, 3]", "[3, 2]"});
}

TEST(Rprop, GrowsShrinksAndStepsAgainstTheSign) {
  // prev * grad: > 0, < 0, = 0, > 0 hitting the cap, < 0 hitting the floor.
  const std::vector<double> prev = {1, 1, 0, 2, -1}, grad = {0.5, -0.5, 0.3, 1, 2};
  const std::vector<double> lr = {0.01, 0.01, 0.02, 0.045, 0.0001}, p = {1, 2, 3, 4, 5};
  const auto r = RunOp("rprop",
                       {{"param", {MakeTensor<double>({5}, p)}},
                        {"grad", {MakeTensor<double>({5}, grad)}},
                        {"prev", {MakeTensor<double>({5}, prev)}},
                        {"learning_rate", {MakeTensor<double>({5}, lr)}},
                        {"learning_rate_range", {MakeTensor<double>({2}, {1e-4, 0.05})}},
                        {"etas", {MakeTensor<double>({2}, {0.5, 1.2})}}},
                       {{"param_out", 1}, {"prev_out", 1}, {"learning_rate_out", 1}});
  const std::vector<double> lr_want = {0.012, 0.005, 0.02, 0.05, 1e-4};
  const std::vector<double> g_want = {0.5, 0, 0.3, 1, 0};
  const std::vector<double> p_want = {1 - 0.012, 2, 3 - 0.02, 4 - 0.05, 5};
  ExpectNear(ToDoubles(r.outputs.at("learning_rate_out")[0]), lr_want, 1e-15, 0, "lr");
  ExpectNear(ToDoubles(r.outputs.at("prev_out")[0]), g_want, 0, 0, "prev");
  ExpectNear(ToDoubles(r.outputs.at("param_out")[0]), p_want, 1e-15, 0, "param");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("rprop",
              {{"param", {MakeTensor<double>({5}, p)}},
               {"grad", {MakeTensor<double>({5}, grad)}},
               {"prev", {MakeTensor<double>({5}, prev)}},
               {"learning_rate", {MakeTensor<double>({5}, lr)}},
               {"learning_rate_range", {MakeTensor<double>({2}, {0.5, 0.1})}},
               {"etas", {MakeTensor<double>({2}, {0.5, 1.2})}}},
              {{"param_out", 1}, {"prev_out", 1}, {"learning_rate_out", 1}});
      },
      {"op `rprop` input `learning_rate_range`", "min <= max"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
