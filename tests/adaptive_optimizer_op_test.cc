// rmsprop, adagrad, adamax, adadelta and decayed_adagrad against their closed forms computed here
// in double: several steps run as programs whose outputs are the input variables, SelectedRows
// gradients, multi-precision master parameters and the errors for missing or mismatched state.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/optimizer_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// ---- rmsprop ----

struct RmspropCase {
  bool centered;
  double momentum;
};

template <typename T>
void CheckRmspropSteps(const RmspropCase& c) {
  SCOPED_TRACE(::testing::Message() << "centered " << c.centered << " momentum " << c.momentum);
  // MeanGradOut is a required slot (as in PaddlePaddle's proto); MeanGrad is read and
  // written only when centered.
  VariableNameMap inputs = {{"Param", {"w"}},
                            {"MeanSquare", {"ms"}},
                            {"Grad", {"g"}},
                            {"Moment", {"mom"}},
                            {"LearningRate", {"lr"}}};
  const VariableNameMap outputs = {{"ParamOut", {"w"}},
                                   {"MomentOut", {"mom"}},
                                   {"MeanSquareOut", {"ms"}},
                                   {"MeanGradOut", {"mg"}}};
  if (c.centered) inputs["MeanGrad"] = {"mg"};
  OneOpProgram prog("rmsprop", inputs, outputs,
                    {{"decay", 0.8f},
                     {"epsilon", 1e-4f},
                     {"momentum", static_cast<float>(c.momentum)},
                     {"centered", c.centered}});
  std::vector<double> p = RandomValues(10, -1, 1, 21);
  const std::vector<double> g = RandomValues(10, -1, 1, 22);
  std::vector<double> ms = RandomValues(10, 0.5, 1, 23);
  std::vector<double> mg = RandomValues(10, -0.1, 0.1, 24);
  std::vector<double> mom(10, 0.0);
  prog.Set("w", MakeTensor<T>({2, 5}, p));
  prog.Set("g", MakeTensor<T>({2, 5}, g));
  prog.Set("ms", MakeTensor<T>({2, 5}, ms));
  prog.Set("mg", MakeTensor<T>({2, 5}, mg));
  prog.Set("mom", MakeTensor<T>({2, 5}, mom));
  prog.Set("lr", Scalar<T>(0.01));
  prog.Run(3);
  const double rho = static_cast<T>(0.8f), eps = static_cast<T>(1e-4f);
  const double momentum = static_cast<T>(static_cast<float>(c.momentum));
  const double lr = static_cast<T>(0.01);
  for (int s = 0; s < 3; ++s) {
    for (size_t i = 0; i < 10; ++i) {
      const double gi = static_cast<T>(g[i]);
      ms[i] = rho * ms[i] + (1 - rho) * gi * gi;
      double variance = ms[i];
      if (c.centered) {
        mg[i] = rho * mg[i] + (1 - rho) * gi;
        variance -= mg[i] * mg[i];
      }
      mom[i] = momentum * mom[i] + lr * gi / std::sqrt(variance + eps);
      p[i] -= mom[i];
    }
  }
  ExpectNear(prog.Values("w"), p, Tol<T>(), Tol<T>(), "rmsprop param");
  ExpectNear(prog.Values("ms"), ms, Tol<T>(), Tol<T>(), "rmsprop mean square");
  ExpectNear(prog.Values("mom"), mom, Tol<T>(), Tol<T>(), "rmsprop moment");
  ExpectNear(prog.Values("mg"), mg, Tol<T>(), Tol<T>(), "rmsprop mean grad");
}

TEST(RmspropOp, StepsClosedForm) {
  for (const RmspropCase& c : {RmspropCase{false, 0.0}, RmspropCase{false, 0.9},
                               RmspropCase{true, 0.0}, RmspropCase{true, 0.9}}) {
    CheckRmspropSteps<float>(c);
    CheckRmspropSteps<double>(c);
  }
}

TEST(RmspropOp, SelectedRowsGradAbsentRowsDecay) {
  Scope scope;
  const auto p = RandomValues(6, -1, 1, 25);
  const auto ms0 = RandomValues(6, 0.5, 1, 26);
  const auto mom0 = RandomValues(6, -0.1, 0.1, 27);
  const std::vector<int64_t> rows = {0, 0};
  const std::vector<double> vals = {1, -2, 0.5, 0.25};
  SetDense(&scope, "w", MakeTensor<double>({3, 2}, p));
  SetDense(&scope, "ms", MakeTensor<double>({3, 2}, ms0));
  SetDense(&scope, "mom", MakeTensor<double>({3, 2}, mom0));
  SetDense(&scope, "lr", Scalar<double>(0.1));
  SetSparseGrad<double>(&scope, "g", rows, 3, 2, vals);
  RunKernelDirect("rmsprop",
                  {{"Param", {"w"}},
                   {"MeanSquare", {"ms"}},
                   {"Grad", {"g"}},
                   {"Moment", {"mom"}},
                   {"LearningRate", {"lr"}}},
                  {{"ParamOut", {"w"}},
                   {"MomentOut", {"mom"}},
                   {"MeanSquareOut", {"ms"}},
                   {"MeanGradOut", {"mg"}}},
                  {{"decay", 0.5f}, {"epsilon", 0.01f}, {"momentum", 0.5f}}, &scope);
  std::vector<bool> present;
  const auto g = Densify(rows, 3, 2, vals, &present);
  std::vector<double> wp(6), wms(6), wmom(6);
  for (size_t i = 0; i < 6; ++i) {
    wms[i] = 0.5 * ms0[i] + 0.5 * g[i] * g[i];
    wmom[i] = 0.5 * mom0[i] + 0.1 * g[i] / std::sqrt(wms[i] + static_cast<double>(0.01f));
    wp[i] = p[i] - wmom[i];
  }
  ExpectNear(Get(scope, "w"), wp, 1e-12, 1e-12, "rmsprop sparse param");
  ExpectNear(Get(scope, "ms"), wms, 1e-12, 1e-12, "rmsprop sparse mean square");
  ExpectNear(Get(scope, "mom"), wmom, 1e-12, 1e-12, "rmsprop sparse moment");
}

TEST(RmspropOp, CenteredNeedsMeanGradAndStateIsChecked) {
  const SlotTensors inputs = {{"Param", {MakeTensor<float>({2}, {1, 2})}},
                              {"MeanSquare", {MakeTensor<float>({2}, {1, 1})}},
                              {"Grad", {MakeTensor<float>({2}, {1, 1})}},
                              {"Moment", {MakeTensor<float>({2}, {0, 0})}},
                              {"LearningRate", {Scalar<float>(0.1)}}};
  const std::map<std::string, int> outputs = {
      {"ParamOut", 1}, {"MomentOut", 1}, {"MeanSquareOut", 1}, {"MeanGradOut", 1}};
  try {
    RunOp("rmsprop", inputs, outputs, {{"centered", true}});
    ADD_FAILURE() << "centered rmsprop without MeanGrad ran";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `rmsprop` input `MeanGrad`"), std::string::npos)
        << e.what();
  }
  SlotTensors bad = inputs;
  bad["MeanSquare"] = {MakeTensor<float>({3}, {1, 1, 1})};
  try {
    RunOp("rmsprop", bad, outputs, {});
    ADD_FAILURE() << "rmsprop with a MeanSquare of the wrong shape ran";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("MeanSquare"), std::string::npos) << e.what();
  }
}

// ---- adagrad ----

template <typename T>
void CheckAdagradSteps() {
  OneOpProgram prog(
      "adagrad", {{"Param", {"w"}}, {"Grad", {"g"}}, {"Moment", {"m"}}, {"LearningRate", {"lr"}}},
      {{"ParamOut", {"w"}}, {"MomentOut", {"m"}}}, {{"epsilon", 1e-3f}});
  std::vector<double> p = RandomValues(12, -1, 1, 31);
  const std::vector<double> g = RandomValues(12, -1, 1, 32);
  std::vector<double> m = RandomValues(12, 0, 0.5, 33);
  prog.Set("w", MakeTensor<T>({3, 4}, p));
  prog.Set("g", MakeTensor<T>({3, 4}, g));
  prog.Set("m", MakeTensor<T>({3, 4}, m));
  prog.Set("lr", Scalar<T>(0.05));
  prog.Run(4);
  const double eps = static_cast<T>(1e-3f), lr = static_cast<T>(0.05);
  for (int s = 0; s < 4; ++s) {
    for (size_t i = 0; i < 12; ++i) {
      const double gi = static_cast<T>(g[i]);
      m[i] += gi * gi;
      p[i] -= lr * gi / (std::sqrt(m[i]) + eps);
    }
  }
  ExpectNear(prog.Values("w"), p, Tol<T>(), Tol<T>(), "adagrad param");
  ExpectNear(prog.Values("m"), m, Tol<T>(), Tol<T>(), "adagrad moment");
}

TEST(AdagradOp, StepsClosedForm) {
  CheckAdagradSteps<float>();
  CheckAdagradSteps<double>();
}

TEST(AdagradOp, SelectedRowsGradLeavesAbsentRows) {
  Scope scope;
  const auto p = RandomValues(8, -1, 1, 34);
  const auto m0 = RandomValues(8, 0, 1, 35);
  const std::vector<int64_t> rows = {3, 1, 3};
  const std::vector<double> vals = {1, 2, -1, 0.5, 3, -4};
  SetDense(&scope, "w", MakeTensor<double>({4, 2}, p));
  SetDense(&scope, "m", MakeTensor<double>({4, 2}, m0));
  SetDense(&scope, "lr", Scalar<double>(0.1));
  SetSparseGrad<double>(&scope, "g", rows, 4, 2, vals);
  RunKernelDirect("adagrad",
                  {{"Param", {"w"}}, {"Grad", {"g"}}, {"Moment", {"m"}}, {"LearningRate", {"lr"}}},
                  {{"ParamOut", {"w"}}, {"MomentOut", {"m"}}}, {}, &scope);
  std::vector<bool> present;
  const auto g = Densify(rows, 4, 2, vals, &present);
  std::vector<double> wp = p, wm = m0;
  const double eps = static_cast<double>(1e-6f);
  for (size_t i = 0; i < 8; ++i) {
    if (!present[i]) continue;
    wm[i] = m0[i] + g[i] * g[i];
    wp[i] = p[i] - 0.1 * g[i] / (std::sqrt(wm[i]) + eps);
  }
  ExpectNear(Get(scope, "w"), wp, 1e-12, 1e-12, "adagrad sparse param");
  ExpectNear(Get(scope, "m"), wm, 1e-12, 1e-12, "adagrad sparse moment");
}

TEST(AdagradOp, MultiPrecisionUpdatesTheMasterParam) {
  const auto master = RandomValues(5, -1, 1, 36);
  const auto g = RandomValues(5, -1, 1, 37);
  auto r = RunOp("adagrad",
                 {{"Param", {MakeTensor<float>({5}, master)}},
                  {"Grad", {MakeTensor<float>({5}, g)}},
                  {"Moment", {MakeTensor<double>({5}, std::vector<double>(5, 0.25))}},
                  {"LearningRate", {Scalar<float>(0.1)}},
                  {"MasterParam", {MakeTensor<double>({5}, master)}}},
                 {{"ParamOut", 1}, {"MomentOut", 1}, {"MasterParamOut", 1}},
                 {{"multi_precision", true}});
  std::vector<double> want(5);
  for (size_t i = 0; i < 5; ++i) {
    const double gi = static_cast<float>(g[i]);
    want[i] = master[i] - static_cast<double>(0.1f) * gi /
                              (std::sqrt(0.25 + gi * gi) + static_cast<double>(1e-6f));
  }
  EXPECT_EQ(r.outputs["MasterParamOut"][0].dtype(), DataType::FLOAT64);
  EXPECT_EQ(r.outputs["ParamOut"][0].dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(r.outputs["MasterParamOut"][0]), want, 1e-12, 1e-12, "adagrad master");
  ExpectNear(ToDoubles(r.outputs["ParamOut"][0]), want, 1e-6, 1e-7, "adagrad param");
}

// ---- adamax ----

template <typename T>
void CheckAdamaxSteps() {
  OneOpProgram prog("adamax",
                    {{"Param", {"w"}},
                     {"Grad", {"g"}},
                     {"LearningRate", {"lr"}},
                     {"Moment", {"m"}},
                     {"InfNorm", {"u"}},
                     {"Beta1Pow", {"b1p"}}},
                    {{"ParamOut", {"w"}}, {"MomentOut", {"m"}}, {"InfNormOut", {"u"}}},
                    {{"beta1", 0.8f}, {"beta2", 0.9f}, {"epsilon", 1e-6f}});
  std::vector<double> p = RandomValues(10, -1, 1, 41);
  const std::vector<double> g = RandomValues(10, -1, 1, 42);
  std::vector<double> m(10, 0.0), u(10, 0.0);
  prog.Set("w", MakeTensor<T>({10}, p));
  prog.Set("g", MakeTensor<T>({10}, g));
  prog.Set("m", MakeTensor<T>({10}, m));
  prog.Set("u", MakeTensor<T>({10}, u));
  prog.Set("lr", Scalar<T>(0.02));
  const double beta1 = static_cast<T>(0.8f), beta2 = static_cast<T>(0.9f);
  const double eps = static_cast<T>(1e-6f), lr = static_cast<T>(0.02);
  double beta1_pow = beta1;
  for (int s = 0; s < 3; ++s) {
    // The op reads Beta1Pow only; a program advances it with a scale op.
    prog.Set("b1p", Scalar<T>(beta1_pow));
    prog.Run();
    const double step = lr / (1 - static_cast<T>(beta1_pow));
    for (size_t i = 0; i < 10; ++i) {
      const double gi = static_cast<T>(g[i]);
      m[i] = beta1 * m[i] + (1 - beta1) * gi;
      u[i] = std::max(beta2 * u[i] + eps, std::abs(gi));
      p[i] -= step * (m[i] / u[i]);
    }
    beta1_pow *= beta1;
  }
  ExpectNear(prog.Values("w"), p, Tol<T>(), Tol<T>(), "adamax param");
  ExpectNear(prog.Values("m"), m, Tol<T>(), Tol<T>(), "adamax moment");
  ExpectNear(prog.Values("u"), u, Tol<T>(), Tol<T>(), "adamax inf norm");
}

TEST(AdamaxOp, StepsClosedForm) {
  CheckAdamaxSteps<float>();
  CheckAdamaxSteps<double>();
}

TEST(AdamaxOp, Beta1PowOfOneAndStateDtypeAreErrors) {
  auto inputs = [](double beta1_pow, const DenseTensor& moment) {
    return SlotTensors{
        {"Param", {MakeTensor<float>({2}, {1, 2})}},   {"Grad", {MakeTensor<float>({2}, {1, -1})}},
        {"LearningRate", {Scalar<float>(0.1)}},        {"Moment", {moment}},
        {"InfNorm", {MakeTensor<float>({2}, {0, 0})}}, {"Beta1Pow", {Scalar<float>(beta1_pow)}}};
  };
  const std::map<std::string, int> outputs = {{"ParamOut", 1}, {"MomentOut", 1}, {"InfNormOut", 1}};
  try {
    RunOp("adamax", inputs(1.0, MakeTensor<float>({2}, {0, 0})), outputs, {});
    ADD_FAILURE() << "adamax with Beta1Pow 1 ran";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `adamax` input `Beta1Pow`"), std::string::npos)
        << e.what();
  }
  try {
    RunOp("adamax", inputs(0.9, MakeTensor<double>({2}, {0, 0})), outputs, {});
    ADD_FAILURE() << "adamax with a float64 Moment for float32 Param ran";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("Moment"), std::string::npos) << e.what();
  }
}

// ---- adadelta ----

template <typename T>
void CheckAdadeltaSteps() {
  OneOpProgram prog(
      "adadelta",
      {{"Param", {"w"}},
       {"Grad", {"g"}},
       {"AvgSquaredGrad", {"sg"}},
       {"AvgSquaredUpdate", {"su"}},
       {"LearningRate", {"lr"}}},
      {{"ParamOut", {"w"}}, {"AvgSquaredGradOut", {"sg"}}, {"AvgSquaredUpdateOut", {"su"}}},
      {{"rho", 0.9f}, {"epsilon", 1e-3f}});
  std::vector<double> p = RandomValues(12, -1, 1, 51);
  const std::vector<double> g = RandomValues(12, -1, 1, 52);
  std::vector<double> sg = RandomValues(12, 0, 0.5, 53), su = RandomValues(12, 0, 0.1, 54);
  prog.Set("w", MakeTensor<T>({3, 4}, p));
  prog.Set("g", MakeTensor<T>({3, 4}, g));
  prog.Set("sg", MakeTensor<T>({3, 4}, sg));
  prog.Set("su", MakeTensor<T>({3, 4}, su));
  prog.Set("lr", Scalar<T>(0.5));
  prog.Run(4);
  const double rho = static_cast<T>(0.9f), eps = static_cast<T>(1e-3f), lr = static_cast<T>(0.5);
  for (int s = 0; s < 4; ++s) {
    for (size_t i = 0; i < 12; ++i) {
      const double gi = static_cast<T>(g[i]);
      sg[i] = rho * sg[i] + (1 - rho) * gi * gi;
      const double update = -std::sqrt((su[i] + eps) / (sg[i] + eps)) * gi;
      su[i] = rho * su[i] + (1 - rho) * update * update;
      p[i] += lr * update;
    }
  }
  ExpectNear(prog.Values("w"), p, Tol<T>(), Tol<T>(), "adadelta param");
  ExpectNear(prog.Values("sg"), sg, Tol<T>(), Tol<T>(), "adadelta avg squared grad");
  ExpectNear(prog.Values("su"), su, Tol<T>(), Tol<T>(), "adadelta avg squared update");
}

TEST(AdadeltaOp, StepsClosedForm) {
  CheckAdadeltaSteps<float>();
  CheckAdadeltaSteps<double>();
}

TEST(AdadeltaOp, SparseGradAndMasterParam) {
  // Rows 2 and 0 of a [3, 2] parameter; row 1 has a zero gradient: its averages decay and
  // the parameter stays. The update runs on the float64 master of a float32 parameter.
  Scope scope;
  const auto master = RandomValues(6, -1, 1, 55);
  const auto sg0 = RandomValues(6, 0, 0.5, 56), su0 = RandomValues(6, 0, 0.1, 57);
  const std::vector<int64_t> rows = {2, 0};
  const std::vector<double> vals = {0.5, -1, 2, 0.25};
  SetDense(&scope, "w", MakeTensor<float>({3, 2}, master));
  SetDense(&scope, "mw", MakeTensor<double>({3, 2}, master));
  SetDense(&scope, "sg", MakeTensor<double>({3, 2}, sg0));
  SetDense(&scope, "su", MakeTensor<double>({3, 2}, su0));
  SetDense(&scope, "lr", Scalar<float>(0.5));
  SetSparseGrad<float>(&scope, "g", rows, 3, 2, vals);
  RunKernelDirect("adadelta",
                  {{"Param", {"w"}},
                   {"Grad", {"g"}},
                   {"AvgSquaredGrad", {"sg"}},
                   {"AvgSquaredUpdate", {"su"}},
                   {"LearningRate", {"lr"}},
                   {"MasterParam", {"mw"}}},
                  {{"ParamOut", {"w"}},
                   {"AvgSquaredGradOut", {"sg"}},
                   {"AvgSquaredUpdateOut", {"su"}},
                   {"MasterParamOut", {"mw"}}},
                  {{"multi_precision", true}}, &scope);
  std::vector<bool> present;
  const auto g = Densify(rows, 3, 2, vals, &present);
  std::vector<double> wp = master, wg = sg0, wu = su0;
  const double rho = static_cast<double>(0.95f), eps = static_cast<double>(1e-6f);
  for (size_t i = 0; i < 6; ++i) {
    wg[i] = rho * sg0[i] + (1 - rho) * g[i] * g[i];
    const double update = -std::sqrt((su0[i] + eps) / (wg[i] + eps)) * g[i];
    wu[i] = rho * su0[i] + (1 - rho) * update * update;
    wp[i] = master[i] + 0.5 * update;
  }
  ExpectNear(Get(scope, "mw"), wp, 1e-12, 1e-12, "adadelta master");
  ExpectNear(Get(scope, "w"), wp, 1e-6, 1e-7, "adadelta param");
  ExpectNear(Get(scope, "sg"), wg, 1e-12, 1e-12, "adadelta avg squared grad");
  ExpectNear(Get(scope, "su"), wu, 1e-12, 1e-12, "adadelta avg squared update");
  EXPECT_EQ(Get(scope, "w")[2], static_cast<float>(master[2]));  // Row 1: no gradient.
}

TEST(AdadeltaOp, StateOfAnotherDtypeIsAnError) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("adadelta",
              {{"Param", {MakeTensor<float>({2}, {1, 2})}},
               {"Grad", {MakeTensor<float>({2}, {1, 2})}},
               {"AvgSquaredGrad", {MakeTensor<double>({2}, {0, 0})}},
               {"AvgSquaredUpdate", {MakeTensor<float>({2}, {0, 0})}},
               {"LearningRate", {Scalar<float>(0.1)}}},
              {{"ParamOut", 1}, {"AvgSquaredGradOut", 1}, {"AvgSquaredUpdateOut", 1}});
      },
      {"adadelta", "`AvgSquaredGrad`"});
}

// ---- decayed_adagrad ----

template <typename T>
void CheckDecayedAdagradSteps() {
  OneOpProgram prog(
      "decayed_adagrad",
      {{"Param", {"w"}}, {"Grad", {"g"}}, {"Moment", {"m"}}, {"LearningRate", {"lr"}}},
      {{"ParamOut", {"w"}}, {"MomentOut", {"m"}}}, {{"decay", 0.8f}, {"epsilon", 1e-3f}});
  std::vector<double> p = RandomValues(10, -1, 1, 61);
  const std::vector<double> g = RandomValues(10, -1, 1, 62);
  std::vector<double> m = RandomValues(10, 0, 0.5, 63);
  prog.Set("w", MakeTensor<T>({2, 5}, p));
  prog.Set("g", MakeTensor<T>({2, 5}, g));
  prog.Set("m", MakeTensor<T>({2, 5}, m));
  prog.Set("lr", Scalar<T>(0.05));
  prog.Run(3);
  const double decay = static_cast<T>(0.8f), eps = static_cast<T>(1e-3f);
  const double lr = static_cast<T>(0.05);
  for (int s = 0; s < 3; ++s) {
    for (size_t i = 0; i < 10; ++i) {
      const double gi = static_cast<T>(g[i]);
      m[i] = decay * m[i] + (1 - decay) * gi * gi;
      p[i] -= lr * gi / (std::sqrt(m[i]) + eps);
    }
  }
  ExpectNear(prog.Values("w"), p, Tol<T>(), Tol<T>(), "decayed_adagrad param");
  ExpectNear(prog.Values("m"), m, Tol<T>(), Tol<T>(), "decayed_adagrad moment");
}

TEST(DecayedAdagradOp, StepsClosedForm) {
  CheckDecayedAdagradSteps<float>();
  CheckDecayedAdagradSteps<double>();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
