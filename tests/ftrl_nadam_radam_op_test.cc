// ftrl, nadam and radam against their update rules computed here in double: several steps run
// as programs whose outputs are the input variables (radam's steps cross from the plain to the
// rectified update), ftrl on SelectedRows gradients, and the errors for mismatched state.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tests/optimizer_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// ---- ftrl ----

// One FTRL step on element i, as the op documents it.
void FtrlStep(double g, double lr, double l1, double l2, double power, double* p, double* n,
              double* z) {
  const auto pw = [power](double v) { return std::pow(v, -power); };
  const double acc = *n + g * g;
  *z += g - (pw(acc) - pw(*n)) / lr * *p;
  const double sign = *z > 0 ? 1.0 : (*z < 0 ? -1.0 : 0.0);
  *p = std::abs(*z) > l1 ? (l1 * sign - *z) / (pw(acc) / lr + 2 * l2) : 0.0;
  *n = acc;
}

template <typename T>
void CheckFtrlSteps(float l1, float l2, float power) {
  SCOPED_TRACE(::testing::Message() << "l1 " << l1 << " l2 " << l2 << " lr_power " << power);
  OneOpProgram prog("ftrl",
                    {{"Param", {"w"}},
                     {"SquaredAccumulator", {"n"}},
                     {"LinearAccumulator", {"z"}},
                     {"Grad", {"g"}},
                     {"LearningRate", {"lr"}}},
                    {{"ParamOut", {"w"}}, {"SquaredAccumOut", {"n"}}, {"LinearAccumOut", {"z"}}},
                    {{"l1", l1}, {"l2", l2}, {"lr_power", power}});
  std::vector<double> p = RandomValues(12, -1, 1, 41);
  std::vector<double> n = RandomValues(12, 0.1, 1, 42);
  std::vector<double> z = RandomValues(12, -1.5, 1.5, 43);
  const std::vector<double> g = RandomValues(12, -1, 1, 44);
  prog.Set("w", MakeTensor<T>({3, 4}, p));
  prog.Set("n", MakeTensor<T>({3, 4}, n));
  prog.Set("z", MakeTensor<T>({3, 4}, z));
  prog.Set("g", MakeTensor<T>({3, 4}, g));
  prog.Set("lr", Scalar<T>(0.1));
  prog.Run(3);
  const double a1 = static_cast<T>(l1) + static_cast<T>(1e-10);
  const double a2 = static_cast<T>(l2) + static_cast<T>(1e-10);
  for (int s = 0; s < 3; ++s) {
    for (size_t i = 0; i < p.size(); ++i) {
      FtrlStep(static_cast<T>(g[i]), static_cast<T>(0.1), a1, a2, static_cast<T>(power), &p[i],
               &n[i], &z[i]);
    }
  }
  // Elements whose |z| nears l1 switch between 0 and a value: none do with these seeds.
  ExpectNear(prog.Values("w"), p, 1e3 * Tol<T>(), Tol<T>(), "ftrl param");
  ExpectNear(prog.Values("n"), n, Tol<T>(), Tol<T>(), "ftrl squared accumulator");
  ExpectNear(prog.Values("z"), z, 1e3 * Tol<T>(), Tol<T>(), "ftrl linear accumulator");
}

TEST(FtrlOp, StepsClosedForm) {
  for (const auto& [l1, l2, power] : std::vector<std::tuple<float, float, float>>{
           {0.0f, 0.0f, -0.5f}, {0.3f, 0.1f, -0.5f}, {0.1f, 0.2f, -0.7f}}) {
    CheckFtrlSteps<double>(l1, l2, power);
    CheckFtrlSteps<float>(l1, l2, power);
  }
}

TEST(FtrlOp, SelectedRowsGradLeavesAbsentRows) {
  Scope scope;
  const auto p = RandomValues(8, -1, 1, 45);
  const auto n0 = RandomValues(8, 0.1, 1, 46);
  const auto z0 = RandomValues(8, -1, 1, 47);
  const std::vector<int64_t> rows = {2, 0, 2};
  const std::vector<double> vals = {1, 2, -1, 0.5, 3, -4};
  SetDense(&scope, "w", MakeTensor<double>({4, 2}, p));
  SetDense(&scope, "n", MakeTensor<double>({4, 2}, n0));
  SetDense(&scope, "z", MakeTensor<double>({4, 2}, z0));
  SetDense(&scope, "lr", Scalar<double>(0.2));
  SetSparseGrad<double>(&scope, "g", rows, 4, 2, vals);
  RunKernelDirect("ftrl",
                  {{"Param", {"w"}},
                   {"SquaredAccumulator", {"n"}},
                   {"LinearAccumulator", {"z"}},
                   {"Grad", {"g"}},
                   {"LearningRate", {"lr"}}},
                  {{"ParamOut", {"w"}}, {"SquaredAccumOut", {"n"}}, {"LinearAccumOut", {"z"}}},
                  {{"l1", 0.2f}, {"l2", 0.05f}}, &scope);
  std::vector<bool> present;
  const auto g = Densify(rows, 4, 2, vals, &present);
  std::vector<double> wp = p, wn = n0, wz = z0;
  const double l1 = static_cast<double>(0.2f) + 1e-10, l2 = static_cast<double>(0.05f) + 1e-10;
  for (size_t i = 0; i < 8; ++i) {
    if (present[i]) FtrlStep(g[i], 0.2, l1, l2, -0.5, &wp[i], &wn[i], &wz[i]);
  }
  ExpectNear(Get(scope, "w"), wp, 1e-12, 1e-12, "ftrl sparse param");
  ExpectNear(Get(scope, "n"), wn, 1e-12, 1e-12, "ftrl sparse squared accumulator");
  ExpectNear(Get(scope, "z"), wz, 1e-12, 1e-12, "ftrl sparse linear accumulator");
}

// ---- nadam and radam ----

// The one-op program of nadam or radam with every output its input, seeded with moments and
// the 1-element states of the first step.
template <typename T>
std::unique_ptr<OneOpProgram> MomentProgram(const std::string& op,
                                            const std::vector<std::string>& scalars,
                                            const AttributeMap& attrs,
                                            const std::vector<double>& initial) {
  VariableNameMap inputs = {{"param", {"w"}},
                            {"grad", {"g"}},
                            {"learning_rate", {"lr"}},
                            {"moment1", {"m"}},
                            {"moment2", {"v"}}};
  VariableNameMap outputs = {{"param_out", {"w"}}, {"moment1_out", {"m"}}, {"moment2_out", {"v"}}};
  for (const std::string& s : scalars) {
    inputs[s] = {s};
    outputs[s + "_out"] = {s};
  }
  auto prog = std::make_unique<OneOpProgram>(op, inputs, outputs, attrs);
  for (size_t k = 0; k < scalars.size(); ++k) prog->Set(scalars[k], Scalar<T>(initial[k]));
  return prog;
}

template <typename T>
void CheckNadamSteps() {
  SCOPED_TRACE(platform::DataTypeName(platform::ToDataType<T>()));
  const auto prog = MomentProgram<T>(
      "nadam", {"momentum_decay_pow", "beta2_pow", "mu_product"},
      {{"beta1", 0.8f}, {"beta2", 0.99f}, {"epsilon", 1e-6f}, {"momentum_decay", 0.01f}},
      {1.0, 1.0, 1.0});
  std::vector<double> p = RandomValues(10, -1, 1, 51), m(10, 0.0), v(10, 0.0);
  const std::vector<double> g = RandomValues(10, -1, 1, 52);
  prog->Set("w", MakeTensor<T>({2, 5}, p));
  prog->Set("g", MakeTensor<T>({2, 5}, g));
  prog->Set("m", MakeTensor<T>({2, 5}, m));
  prog->Set("v", MakeTensor<T>({2, 5}, v));
  prog->Set("lr", Scalar<T>(0.05));
  const int steps = 4;
  prog->Run(steps);
  const double b1 = static_cast<T>(0.8f), b2 = static_cast<T>(0.99f);
  const double eps = static_cast<T>(1e-6f), psi = static_cast<T>(0.01f);
  const double lr = static_cast<T>(0.05);
  double mu_product = 1.0;
  for (int t = 1; t <= steps; ++t) {
    // mu_t = beta1 (1 - 0.5 * 0.96^(t psi)), as in Dozat's schedule.
    const double mu_t = b1 * (1 - 0.5 * std::pow(0.96, t * psi));
    const double mu_next = b1 * (1 - 0.5 * std::pow(0.96, (t + 1) * psi));
    mu_product *= mu_t;
    for (size_t i = 0; i < p.size(); ++i) {
      const double gi = static_cast<T>(g[i]);
      m[i] = b1 * m[i] + (1 - b1) * gi;
      v[i] = b2 * v[i] + (1 - b2) * gi * gi;
      const double m_hat =
          mu_next * m[i] / (1 - mu_product * mu_next) + (1 - mu_t) * gi / (1 - mu_product);
      const double v_hat = v[i] / (1 - std::pow(b2, t));
      p[i] -= lr * m_hat / (std::sqrt(v_hat) + eps);
    }
  }
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-10;
  ExpectNear(prog->Values("w"), p, tol, tol, "nadam param");
  ExpectNear(prog->Values("m"), m, tol, tol, "nadam moment1");
  ExpectNear(prog->Values("v"), v, tol, tol, "nadam moment2");
  ExpectNear(prog->Values("mu_product"), {mu_product}, tol, tol, "nadam mu_product");
  ExpectNear(prog->Values("beta2_pow"), {std::pow(b2, steps)}, tol, tol, "nadam beta2_pow");
  ExpectNear(prog->Values("momentum_decay_pow"), {std::pow(0.96, steps)}, tol, tol,
             "nadam momentum_decay_pow");
}

TEST(NadamOp, StepsClosedForm) {
  CheckNadamSteps<double>();
  CheckNadamSteps<float>();
}

template <typename T>
void CheckRadamSteps() {
  SCOPED_TRACE(platform::DataTypeName(platform::ToDataType<T>()));
  const auto prog =
      MomentProgram<T>("radam", {"beta1_pow", "beta2_pow", "rho"},
                       {{"beta1", 0.9f}, {"beta2", 0.999f}, {"epsilon", 1e-8f}}, {1.0, 1.0, 0.0});
  std::vector<double> p = RandomValues(10, -1, 1, 53), m(10, 0.0), v(10, 0.0);
  const std::vector<double> g = RandomValues(10, -1, 1, 54);
  prog->Set("w", MakeTensor<T>({10}, p));
  prog->Set("g", MakeTensor<T>({10}, g));
  prog->Set("m", MakeTensor<T>({10}, m));
  prog->Set("v", MakeTensor<T>({10}, v));
  prog->Set("lr", Scalar<T>(0.01));
  const int steps = 8;
  const double b1 = static_cast<T>(0.9f), b2 = static_cast<T>(0.999f);
  const double eps = static_cast<T>(1e-8f), lr = static_cast<T>(0.01);
  const double rho_inf = 2 / (1 - b2) - 1;
  int rectified_steps = 0;
  for (int t = 1; t <= steps; ++t) {
    prog->Run(1);
    // Liu et al.: rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t); rectified when above 5.
    const double b2t = std::pow(b2, t);
    const double rho_t = rho_inf - 2 * t * b2t / (1 - b2t);
    for (size_t i = 0; i < p.size(); ++i) {
      const double gi = static_cast<T>(g[i]);
      m[i] = b1 * m[i] + (1 - b1) * gi;
      v[i] = b2 * v[i] + (1 - b2) * gi * gi;
      const double m_hat = m[i] / (1 - std::pow(b1, t));
      if (rho_t > 5) {
        const double r = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                   ((rho_inf - 4) * (rho_inf - 2) * rho_t));
        p[i] -= lr * m_hat * r * std::sqrt(1 - b2t) / (std::sqrt(v[i]) + eps);
      } else {
        p[i] -= lr * m_hat;
      }
    }
    rectified_steps += rho_t > 5;
    const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-9;
    ExpectNear(prog->Values("w"), p, tol, tol, "radam param, step " + std::to_string(t));
    ExpectNear(prog->Values("rho"), {t * b2t / (1 - b2t)}, tol, tol, "radam rho");
  }
  EXPECT_GT(rectified_steps, 0);
  EXPECT_LT(rectified_steps, steps);
}

TEST(RadamOp, StepsCrossIntoTheRectifiedUpdate) {
  CheckRadamSteps<double>();
  CheckRadamSteps<float>();
}

TEST(NadamOp, StateOfAnotherDtypeIsAnError) {
  const auto prog = MomentProgram<float>("nadam", {"momentum_decay_pow", "beta2_pow", "mu_product"},
                                         {}, {1.0, 1.0, 1.0});
  prog->Set("w", MakeTensor<float>({3}, {1, 2, 3}));
  prog->Set("g", MakeTensor<float>({3}, {1, 2, 3}));
  prog->Set("m", MakeTensor<double>({3}, {0, 0, 0}));
  prog->Set("v", MakeTensor<float>({3}, {0, 0, 0}));
  prog->Set("lr", Scalar<float>(0.1));
  ExpectError<platform::InvalidArgumentError>([&] { prog->Run(); },
                                              {"op `nadam` input `moment1`", "float32"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
