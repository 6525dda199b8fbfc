// sgd, momentum and adam against closed forms computed here in double: several steps run as
// programs whose outputs are the input variables (ParamOut = Param ...), SelectedRows
// gradients (duplicate rows, lazy_mode), bitwise reproducibility and error messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "framework/executor.h"
#include "framework/op_registry.h"
#include "framework/selected_rows.h"
#include "framework/shape_inference_contexts.h"
#include "platform/device_context_pool.h"
#include "tests/optimizer_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// ---- sgd ----

template <typename T>
void CheckSgdDense() {
  const auto p = RandomValues(12, -1, 1, 1);
  const auto g = RandomValues(12, -1, 1, 2);
  const double lr = 0.1;
  auto r = RunOp("sgd",
                 {{"Param", {MakeTensor<T>({3, 4}, p)}},
                  {"LearningRate", {Scalar<T>(lr)}},
                  {"Grad", {MakeTensor<T>({3, 4}, g)}}},
                 {{"ParamOut", 1}});
  std::vector<double> want(12);
  for (size_t i = 0; i < 12; ++i) want[i] = p[i] - static_cast<T>(lr) * g[i];
  ExpectNear(ToDoubles(r.outputs["ParamOut"][0]), want, Tol<T>(), Tol<T>(), "sgd");
  EXPECT_EQ(r.outputs["ParamOut"][0].dtype(), platform::ToDataType<T>());
}

TEST(SgdOp, DenseClosedForm) {
  CheckSgdDense<float>();
  CheckSgdDense<double>();
}

TEST(SgdOp, ParamOutAliasesParamInProgram) {
  OneOpProgram prog("sgd", {{"Param", {"w"}}, {"LearningRate", {"lr"}}, {"Grad", {"g"}}},
                    {{"ParamOut", {"w"}}}, {});
  const auto p = RandomValues(6, -1, 1, 3);
  const auto g = RandomValues(6, -1, 1, 4);
  prog.Set("w", MakeTensor<float>({2, 3}, p));
  prog.Set("lr", Scalar<float>(0.5));
  prog.Set("g", MakeTensor<float>({2, 3}, g));
  const void* before = prog.Get("w").raw_data();
  prog.Run(3);
  std::vector<double> want = p;
  for (int s = 0; s < 3; ++s) {
    for (size_t i = 0; i < 6; ++i)
      want[i] = static_cast<float>(want[i] - 0.5f * static_cast<float>(g[i]));
  }
  ExpectNear(prog.Values("w"), want, 1e-6, 1e-6, "sgd 3 steps");
  EXPECT_EQ(prog.Get("w").raw_data(), before) << "an owned Param is updated in place";
}

template <typename T>
void CheckSgdSparse(bool aliased) {
  Scope scope;
  const auto p = RandomValues(8, -1, 1, 5);
  const std::vector<int64_t> rows = {3, 0, 3};
  const std::vector<double> v = {1, 2, 3, 4, 5, 6};
  SetDense(&scope, "w", MakeTensor<T>({4, 2}, p));
  SetDense(&scope, "lr", Scalar<T>(0.25));
  SetSparseGrad<T>(&scope, "g", rows, 4, 2, v);
  const std::string out = aliased ? "w" : "w_out";
  RunKernelDirect("sgd", {{"Param", {"w"}}, {"LearningRate", {"lr"}}, {"Grad", {"g"}}},
                  {{"ParamOut", {out}}}, {}, &scope);
  std::vector<double> want = p;
  for (size_t k = 0; k < rows.size(); ++k) {
    for (int j = 0; j < 2; ++j) want[rows[k] * 2 + j] -= 0.25 * v[k * 2 + j];
  }
  ExpectNear(Get(scope, out), want, Tol<T>(), Tol<T>(), "sgd sparse");
  if (!aliased) ExpectNear(Get(scope, "w"), p, 0, 1e-7, "sgd sparse leaves Param");
}

TEST(SgdOp, SelectedRowsGradWithDuplicateRows) {
  CheckSgdSparse<float>(false);
  CheckSgdSparse<float>(true);
  CheckSgdSparse<double>(false);
  CheckSgdSparse<double>(true);
}

TEST(SgdOp, MultiPrecisionUpdatesMasterParam) {
  const std::vector<double> master = {0.1, 0.2, 0.3};
  const std::vector<double> g = {1, 2, 3};
  auto r = RunOp("sgd",
                 {{"Param", {MakeTensor<float>({3}, master)}},
                  {"MasterParam", {MakeTensor<double>({3}, master)}},
                  {"LearningRate", {Scalar<float>(0.5)}},
                  {"Grad", {MakeTensor<float>({3}, g)}}},
                 {{"ParamOut", 1}, {"MasterParamOut", 1}}, {{"multi_precision", true}});
  const DenseTensor& mo = r.outputs["MasterParamOut"][0];
  ASSERT_EQ(mo.dtype(), DataType::FLOAT64);
  EXPECT_EQ(r.outputs["ParamOut"][0].dtype(), DataType::FLOAT32);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(mo.data<double>()[i],
              master[i] - 0.5 * static_cast<double>(static_cast<float>(g[i])));
    EXPECT_EQ(r.outputs["ParamOut"][0].data<float>()[i], static_cast<float>(mo.data<double>()[i]));
  }
}

TEST(SgdOp, Errors) {
  try {
    RunOp("sgd",
          {{"Param", {MakeTensor<float>({2}, {1, 2})}},
           {"LearningRate", {MakeTensor<float>({2}, {1, 2})}},
           {"Grad", {MakeTensor<float>({2}, {1, 2})}}},
          {{"ParamOut", 1}});
    FAIL() << "expected an error";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `sgd` input `LearningRate`"), std::string::npos)
        << e.what();
  }
  try {
    RunOp("sgd",
          {{"Param", {MakeTensor<float>({2}, {1, 2})}},
           {"LearningRate", {Scalar<float>(1)}},
           {"Grad", {MakeTensor<float>({3}, {1, 2, 3})}}},
          {{"ParamOut", 1}});
    FAIL() << "expected an error";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `sgd` input `Grad`"), std::string::npos) << e.what();
  }
  Scope scope;
  SetDense(&scope, "w", MakeTensor<float>({2, 1}, {1, 2}));
  SetDense(&scope, "lr", Scalar<float>(1));
  SetSparseGrad<float>(&scope, "g", {2}, 2, 1, {1});
  try {
    RunKernelDirect("sgd", {{"Param", {"w"}}, {"LearningRate", {"lr"}}, {"Grad", {"g"}}},
                    {{"ParamOut", {"w"}}}, {}, &scope);
    FAIL() << "expected an error";
  } catch (const platform::OutOfRangeError& e) {
    EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
  }
}

// ---- momentum ----

struct MomentumCase {
  bool nesterov;
  bool l2;
  double rescale;
};

template <typename T>
void CheckMomentumSteps(const MomentumCase& c) {
  SCOPED_TRACE(::testing::Message() << "nesterov " << c.nesterov << " l2 " << c.l2);
  OneOpProgram prog(
      "momentum",
      {{"Param", {"w"}}, {"Grad", {"g"}}, {"Velocity", {"v"}}, {"LearningRate", {"lr"}}},
      {{"ParamOut", {"w"}}, {"VelocityOut", {"v"}}},
      {{"mu", 0.9f},
       {"use_nesterov", c.nesterov},
       {"regularization_method", std::string(c.l2 ? "l2_decay" : "")},
       {"regularization_coeff", 0.01f},
       {"rescale_grad", static_cast<float>(c.rescale)}});
  std::vector<double> p = RandomValues(10, -1, 1, 6);
  const std::vector<double> g = RandomValues(10, -1, 1, 7);
  std::vector<double> v(10, 0.0);
  prog.Set("w", MakeTensor<T>({2, 5}, p));
  prog.Set("g", MakeTensor<T>({2, 5}, g));
  prog.Set("v", MakeTensor<T>({2, 5}, v));
  prog.Set("lr", Scalar<T>(0.1));
  prog.Run(3);
  const double mu = static_cast<T>(0.9f), lr = static_cast<T>(0.1);
  const double coeff = static_cast<T>(0.01f);
  for (int s = 0; s < 3; ++s) {
    for (size_t i = 0; i < 10; ++i) {
      double gi = static_cast<T>(g[i]) * c.rescale;
      if (c.l2) gi += coeff * p[i];
      v[i] = mu * v[i] + gi;
      p[i] -= c.nesterov ? lr * (gi + mu * v[i]) : lr * v[i];
    }
  }
  ExpectNear(prog.Values("w"), p, Tol<T>(), Tol<T>(), "momentum param");
  ExpectNear(prog.Values("v"), v, Tol<T>(), Tol<T>(), "momentum velocity");
}

TEST(MomentumOp, StepsClosedForm) {
  for (const MomentumCase& c : {MomentumCase{false, false, 1.0}, MomentumCase{true, false, 1.0},
                                MomentumCase{false, true, 0.5}, MomentumCase{true, true, 2.0}}) {
    CheckMomentumSteps<float>(c);
    CheckMomentumSteps<double>(c);
  }
}

TEST(MomentumOp, SelectedRowsGradAbsentRowsStillDecay) {
  Scope scope;
  const auto p = RandomValues(6, -1, 1, 8);
  const auto v0 = RandomValues(6, -1, 1, 9);
  const std::vector<int64_t> rows = {2, 2};
  const std::vector<double> vals = {1, 2, 3, 4};
  SetDense(&scope, "w", MakeTensor<double>({3, 2}, p));
  SetDense(&scope, "v", MakeTensor<double>({3, 2}, v0));
  SetDense(&scope, "lr", Scalar<double>(0.1));
  SetSparseGrad<double>(&scope, "g", rows, 3, 2, vals);
  RunKernelDirect(
      "momentum",
      {{"Param", {"w"}}, {"Grad", {"g"}}, {"Velocity", {"v"}}, {"LearningRate", {"lr"}}},
      {{"ParamOut", {"w"}}, {"VelocityOut", {"v"}}}, {{"mu", 0.5f}}, &scope);
  std::vector<bool> present;
  const auto g = Densify(rows, 3, 2, vals, &present);
  std::vector<double> wp = p, wv = v0;
  for (size_t i = 0; i < 6; ++i) {
    wv[i] = 0.5 * v0[i] + g[i];
    wp[i] = p[i] - 0.1 * wv[i];
  }
  ExpectNear(Get(scope, "w"), wp, 1e-12, 1e-12, "momentum sparse param");
  ExpectNear(Get(scope, "v"), wv, 1e-12, 1e-12, "momentum sparse velocity");
}

TEST(MomentumOp, RequiresMuAndChecksVelocity) {
  EXPECT_THROW(RunOp("momentum",
                     {{"Param", {MakeTensor<float>({2}, {1, 2})}},
                      {"Grad", {MakeTensor<float>({2}, {1, 2})}},
                      {"Velocity", {MakeTensor<float>({2}, {0, 0})}},
                      {"LearningRate", {Scalar<float>(1)}}},
                     {{"ParamOut", 1}, {"VelocityOut", 1}}),
               platform::InvalidArgumentError);
  try {
    RunOp("momentum",
          {{"Param", {MakeTensor<float>({2}, {1, 2})}},
           {"Grad", {MakeTensor<float>({2}, {1, 2})}},
           {"Velocity", {MakeTensor<float>({3}, {0, 0, 0})}},
           {"LearningRate", {Scalar<float>(1)}}},
          {{"ParamOut", 1}, {"VelocityOut", 1}}, {{"mu", 0.9f}});
    FAIL() << "expected an error";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `momentum` input `Velocity`"), std::string::npos)
        << e.what();
  }
}

// ---- adam ----

struct AdamRef {
  double beta1, beta2, eps, lr, beta1_pow, beta2_pow;
  double decay = 0;  // adamw: lr * lr_ratio * coeff, applied to the parameter first
  // One step; `present` (optional) limits the update to those elements (lazy_mode).
  void Step(std::vector<double>* p, std::vector<double>* m1, std::vector<double>* m2,
            const std::vector<double>& g, const std::vector<bool>* present = nullptr) {
    const double lr_t = lr * std::sqrt(1 - beta2_pow) / (1 - beta1_pow);
    const double eps_t = eps * std::sqrt(1 - beta2_pow);
    for (size_t i = 0; i < p->size(); ++i) {
      if (present != nullptr && !(*present)[i]) continue;
      (*p)[i] -= decay * (*p)[i];
      (*m1)[i] = beta1 * (*m1)[i] + (1 - beta1) * g[i];
      (*m2)[i] = beta2 * (*m2)[i] + (1 - beta2) * g[i] * g[i];
      (*p)[i] -= lr_t * (*m1)[i] / (std::sqrt((*m2)[i]) + eps_t);
    }
    beta1_pow *= beta1;
    beta2_pow *= beta2;
  }
};

const VariableNameMap& AdamInputs() {
  static const VariableNameMap kIn = {
      {"Param", {"w"}},    {"Grad", {"g"}},       {"LearningRate", {"lr"}}, {"Moment1", {"m1"}},
      {"Moment2", {"m2"}}, {"Beta1Pow", {"b1p"}}, {"Beta2Pow", {"b2p"}}};
  return kIn;
}
const VariableNameMap& AdamOutputs() {
  static const VariableNameMap kOut = {{"ParamOut", {"w"}},
                                       {"Moment1Out", {"m1"}},
                                       {"Moment2Out", {"m2"}},
                                       {"Beta1PowOut", {"b1p"}},
                                       {"Beta2PowOut", {"b2p"}}};
  return kOut;
}

// adam, or adamw with `attrs` (decay = lr * lr_ratio * coeff when with_decay).
template <typename T>
void CheckAdamSteps(const std::string& op = "adam", const AttributeMap& attrs = {},
                    double decay = 0) {
  SCOPED_TRACE(op);
  OneOpProgram prog(op, AdamInputs(), AdamOutputs(), attrs);
  std::vector<double> p = RandomValues(12, -1, 1, 10);
  std::vector<double> m1(12, 0.0), m2(12, 0.0);
  const std::vector<double> g = RandomValues(12, -1, 1, 11);
  // The attributes are floats: the reference uses their float values.
  AdamRef ref{0.9f, 0.999f, 1e-8f, static_cast<T>(0.01), 0.9f, 0.999f};
  ref.decay = decay;
  prog.Set("w", MakeTensor<T>({3, 4}, p));
  prog.Set("g", MakeTensor<T>({3, 4}, g));
  prog.Set("m1", MakeTensor<T>({3, 4}, m1));
  prog.Set("m2", MakeTensor<T>({3, 4}, m2));
  prog.Set("lr", Scalar<T>(0.01));
  prog.Set("b1p", Scalar<T>(0.9f));
  prog.Set("b2p", Scalar<T>(0.999f));
  const void* before = prog.Get("w").raw_data();
  prog.Run(4);
  std::vector<double> gt(12);
  for (size_t i = 0; i < 12; ++i) gt[i] = static_cast<T>(g[i]);
  for (int s = 0; s < 4; ++s) ref.Step(&p, &m1, &m2, gt);
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  ExpectNear(prog.Values("w"), p, tol, tol, "adam param");
  ExpectNear(prog.Values("m1"), m1, tol, tol, "adam moment1");
  ExpectNear(prog.Values("m2"), m2, tol, tol, "adam moment2");
  ExpectNear(prog.Values("b1p"), {ref.beta1_pow}, tol, 0, "adam beta1 pow");
  ExpectNear(prog.Values("b2p"), {ref.beta2_pow}, tol, 0, "adam beta2 pow");
  EXPECT_EQ(prog.Get("w").raw_data(), before) << "an owned Param is updated in place";
}

TEST(AdamOp, FourStepsWithBetaPowAccumulation) {
  CheckAdamSteps<float>();
  CheckAdamSteps<double>();
}

// The dense float32 update runs as a per-CPU clone (SSE, AVX2 or AVX-512) over two threads'
// ranges: each element must be the scalar float formula's bits in the kernel's order of
// operations (no FMA on either side), vector tails and range ends included.
TEST(AdamOp, DenseFloatUpdateIsTheScalarFormulaBitForBit) {
  for (const bool adamw : {false, true}) {
    SCOPED_TRACE(adamw ? "adamw" : "adam");
    const int64_t n = 100003;
    const AttributeMap attrs =
        adamw ? AttributeMap{{"with_decay", true}, {"coeff", 0.1f}, {"lr_ratio", 0.5f}}
              : AttributeMap{};
    OneOpProgram prog(adamw ? "adamw" : "adam", AdamInputs(), AdamOutputs(), attrs);
    const std::vector<double> p0 = RandomValues(n, -1, 1, 20);
    const std::vector<double> g0 = RandomValues(n, -0.1, 0.1, 21);
    const std::vector<double> m10 = RandomValues(n, -0.01, 0.01, 22);
    const std::vector<double> m20 = RandomValues(n, 0, 0.001, 23);
    prog.Set("w", MakeTensor<float>({n}, p0));
    prog.Set("g", MakeTensor<float>({n}, g0));
    prog.Set("m1", MakeTensor<float>({n}, m10));
    prog.Set("m2", MakeTensor<float>({n}, m20));
    prog.Set("lr", Scalar<float>(0.01));
    prog.Set("b1p", Scalar<float>(0.9f * 0.9f));
    prog.Set("b2p", Scalar<float>(0.999f * 0.999f));
    prog.Run();
    const float b1 = 0.9f, b2 = 0.999f, b1p = 0.9f * 0.9f, b2p = 0.999f * 0.999f;
    const float lr = 0.01f;
    const float lr_t = lr * (std::sqrt(1.f - b2p) / (1.f - b1p));
    const float eps_t = 1e-8f * std::sqrt(1.f - b2p);
    const float decay = adamw ? lr * 0.5f * 0.1f : 0.f;
    const std::vector<double> w = prog.Values("w"), m1 = prog.Values("m1"), m2 = prog.Values("m2");
    int64_t mismatches = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float g = static_cast<float>(g0[i]);
      float param = static_cast<float>(p0[i]);
      if (adamw) param = param - decay * param;
      const float mom1 = b1 * static_cast<float>(m10[i]) + (1.f - b1) * g;
      const float mom2 = b2 * static_cast<float>(m20[i]) + (1.f - b2) * g * g;
      param = param - lr_t * (mom1 / (std::sqrt(mom2) + eps_t));
      if (static_cast<float>(m1[i]) != mom1 || static_cast<float>(m2[i]) != mom2 ||
          static_cast<float>(w[i]) != param) {
        if (++mismatches <= 3)
          ADD_FAILURE() << "element " << i << ": param " << w[i] << " vs " << param << ", m1 "
                        << m1[i] << " vs " << mom1 << ", m2 " << m2[i] << " vs " << mom2;
      }
    }
    EXPECT_EQ(mismatches, 0);
  }
}

// AdamW: decoupled weight decay at LearningRate * lr_ratio * coeff, then adam's step at the
// unscaled learning rate (PaddlePaddle's CPU kernel); without with_decay it is adam.
TEST(AdamOp, AdamWDecaysBeforeTheAdamStep) {
  const AttributeMap decayed = {{"with_decay", true}, {"coeff", 0.1f}, {"lr_ratio", 0.5f}};
  // The learning rate is a T tensor, lr_ratio and coeff float attributes.
  CheckAdamSteps<double>("adamw", decayed, 0.01 * 0.5 * static_cast<double>(0.1f));
  CheckAdamSteps<float>("adamw", decayed, 0.01f * 0.5f * 0.1f);
  CheckAdamSteps<double>("adamw", {{"with_decay", false}, {"coeff", 0.1f}, {"lr_ratio", 0.5f}});
}

// AMSGrad: the denominator uses the running maximum of the second moment. Large gradients
// first, then small ones, so the maximum stays above the decaying second moment.
TEST(AdamOp, AmsgradKeepsTheMaximumSecondMoment) {
  auto in = AdamInputs();
  in["Moment2Max"] = {"m2max"};
  auto out = AdamOutputs();
  out["Moment2MaxOut"] = {"m2max"};
  OneOpProgram prog("adam", in, out, {{"amsgrad", true}});
  std::vector<double> p = RandomValues(6, -1, 1, 20);
  std::vector<double> m1(6, 0.0), m2(6, 0.0), m2max(6, 0.0);
  prog.Set("w", MakeTensor<double>({6}, p));
  prog.Set("m1", MakeTensor<double>({6}, m1));
  prog.Set("m2", MakeTensor<double>({6}, m2));
  prog.Set("m2max", MakeTensor<double>({6}, m2max));
  prog.Set("lr", Scalar<double>(0.01));
  prog.Set("b1p", Scalar<double>(0.9f));
  prog.Set("b2p", Scalar<double>(0.999f));
  const double beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  double b1p = 0.9f, b2p = 0.999f;
  for (int step = 0; step < 4; ++step) {
    const std::vector<double> g = RandomValues(6, -1, 1, 30 + step);
    std::vector<double> scaled(6);
    for (size_t i = 0; i < 6; ++i) scaled[i] = g[i] * (step < 2 ? 10.0 : 0.1);
    prog.Set("g", MakeTensor<double>({6}, scaled));
    prog.Run();
    const double lr_t = 0.01 * std::sqrt(1 - b2p) / (1 - b1p);
    for (size_t i = 0; i < 6; ++i) {
      m1[i] = beta1 * m1[i] + (1 - beta1) * scaled[i];
      m2[i] = beta2 * m2[i] + (1 - beta2) * scaled[i] * scaled[i];
      m2max[i] = std::max(m2max[i], m2[i]);
      p[i] -= lr_t * m1[i] / (std::sqrt(m2max[i]) + eps * std::sqrt(1 - b2p));
    }
    b1p *= beta1;
    b2p *= beta2;
  }
  ExpectNear(prog.Values("w"), p, 1e-12, 1e-12, "amsgrad param");
  ExpectNear(prog.Values("m2"), m2, 1e-12, 1e-12, "amsgrad moment2");
  ExpectNear(prog.Values("m2max"), m2max, 1e-12, 1e-12, "amsgrad moment2 max");
  for (size_t i = 0; i < 6; ++i) EXPECT_GT(m2max[i], m2[i]) << "the maximum is in use";

  OneOpProgram missing("adam", AdamInputs(), AdamOutputs(), {{"amsgrad", true}});
  for (const char* name : {"w", "g", "m1", "m2"}) {
    missing.Set(name, MakeTensor<double>({2}, {1, 2}));
  }
  missing.Set("lr", Scalar<double>(0.01));
  missing.Set("b1p", Scalar<double>(0.9));
  missing.Set("b2p", Scalar<double>(0.999));
  ExpectError<platform::InvalidArgumentError>([&] { missing.Run(); },
                                              {"op `adam`", "Moment2Max", "amsgrad"});
}

TEST(AdamOp, TensorsOverrideAttributes) {
  const std::vector<double> p = {0.5, -0.5}, g = {0.2, -0.3}, m1 = {0.1, 0.1}, m2 = {0.2, 0.3};
  auto r = RunOp("adam",
                 {{"Param", {MakeTensor<double>({2}, p)}},
                  {"Grad", {MakeTensor<double>({2}, g)}},
                  {"LearningRate", {Scalar<double>(0.1)}},
                  {"Moment1", {MakeTensor<double>({2}, m1)}},
                  {"Moment2", {MakeTensor<double>({2}, m2)}},
                  {"Beta1Pow", {Scalar<double>(0.25)}},
                  {"Beta2Pow", {Scalar<double>(0.64)}},
                  {"Beta1Tensor", {Scalar<double>(0.5)}},
                  {"Beta2Tensor", {Scalar<double>(0.8)}},
                  {"EpsilonTensor", {Scalar<double>(0.01)}}},
                 {{"ParamOut", 1},
                  {"Moment1Out", 1},
                  {"Moment2Out", 1},
                  {"Beta1PowOut", 1},
                  {"Beta2PowOut", 1}});
  std::vector<double> wp = p, wm1 = m1, wm2 = m2;
  AdamRef ref{0.5, 0.8, 0.01, 0.1, 0.25, 0.64};
  ref.Step(&wp, &wm1, &wm2, g);
  ExpectNear(ToDoubles(r.outputs["ParamOut"][0]), wp, 1e-12, 1e-12, "param");
  ExpectNear(ToDoubles(r.outputs["Moment1Out"][0]), wm1, 1e-12, 1e-12, "m1");
  ExpectNear(ToDoubles(r.outputs["Moment2Out"][0]), wm2, 1e-12, 1e-12, "m2");
  ExpectNear(ToDoubles(r.outputs["Beta1PowOut"][0]), {0.125}, 1e-12, 0, "b1 pow");
  ExpectNear(ToDoubles(r.outputs["Beta2PowOut"][0]), {0.512}, 1e-12, 0, "b2 pow");
}

TEST(AdamOp, SkipUpdateAndGlobalBetaPow) {
  OneOpProgram skip("adam",
                    [] {
                      auto in = AdamInputs();
                      in["SkipUpdate"] = {"skip"};
                      return in;
                    }(),
                    AdamOutputs(), {});
  std::vector<double> p = RandomValues(4, -1, 1, 12);
  for (auto& x : p) x = static_cast<float>(x);
  for (const char* n : {"w", "g", "m1", "m2"}) skip.Set(n, MakeTensor<float>({4}, p));
  skip.Set("lr", Scalar<float>(0.1));
  skip.Set("b1p", Scalar<float>(0.9));
  skip.Set("b2p", Scalar<float>(0.999));
  auto flag = DenseTensor(DDim{1}, DataType::BOOL);
  *flag.mutable_data<bool>(platform::CPUPlace()) = true;
  skip.Set("skip", flag);
  skip.Run(2);
  ExpectNear(skip.Values("w"), p, 0, 0, "skipped param");
  ExpectNear(skip.Values("m2"), p, 0, 0, "skipped moment2");
  ExpectNear(skip.Values("b1p"), {static_cast<float>(0.9)}, 0, 0, "skipped beta1 pow");

  OneOpProgram global("adam", AdamInputs(), AdamOutputs(), {{"use_global_beta_pow", true}});
  for (const char* n : {"w", "g", "m1", "m2"}) global.Set(n, MakeTensor<float>({4}, p));
  global.Set("lr", Scalar<float>(0.1));
  global.Set("b1p", Scalar<float>(0.9));
  global.Set("b2p", Scalar<float>(0.999));
  global.Run(2);
  ExpectNear(global.Values("b1p"), {static_cast<float>(0.9)}, 0, 0, "global beta1 pow");
  ExpectNear(global.Values("b2p"), {static_cast<float>(0.999)}, 0, 0, "global beta2 pow");
  EXPECT_NE(global.Values("w"), p) << "the parameter still moves";
}

template <typename T>
void CheckAdamSparse(bool lazy) {
  SCOPED_TRACE(::testing::Message() << "lazy " << lazy);
  Scope scope;
  const int64_t height = 5, width = 3;
  std::vector<double> p = RandomValues(15, -1, 1, 13);
  std::vector<double> m1 = RandomValues(15, -0.1, 0.1, 14);
  std::vector<double> m2 = RandomValues(15, 0.01, 0.2, 15);
  const std::vector<int64_t> rows = {4, 1, 4};
  const std::vector<double> vals = RandomValues(9, -1, 1, 16);
  SetDense(&scope, "w", MakeTensor<T>({height, width}, p));
  SetDense(&scope, "m1", MakeTensor<T>({height, width}, m1));
  SetDense(&scope, "m2", MakeTensor<T>({height, width}, m2));
  SetDense(&scope, "lr", Scalar<T>(0.01));
  SetDense(&scope, "b1p", Scalar<double>(0.5));
  SetDense(&scope, "b2p", Scalar<double>(0.75));
  SetSparseGrad<T>(&scope, "g", rows, height, width, vals);
  RunKernelDirect("adam", AdamInputs(), AdamOutputs(), {{"lazy_mode", lazy}}, &scope);
  std::vector<bool> present;
  std::vector<double> tv(vals.size());
  for (size_t i = 0; i < vals.size(); ++i) tv[i] = static_cast<T>(vals[i]);
  for (auto* v : {&p, &m1, &m2}) {
    for (auto& x : *v) x = static_cast<T>(x);
  }
  const auto g = Densify(rows, height, width, tv, &present);
  AdamRef ref{0.9f, 0.999f, 1e-8f, static_cast<T>(0.01), 0.5, 0.75};
  ref.Step(&p, &m1, &m2, g, lazy ? &present : nullptr);
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  ExpectNear(Get(scope, "w"), p, tol, tol, "adam sparse param");
  ExpectNear(Get(scope, "m1"), m1, tol, tol, "adam sparse m1");
  ExpectNear(Get(scope, "m2"), m2, tol, tol, "adam sparse m2");
  ExpectNear(Get(scope, "b1p"), {0.5 * static_cast<double>(0.9f)}, 1e-15, 0, "beta1 pow");
  EXPECT_EQ(scope.FindVar("b1p")->Get<DenseTensor>().dtype(), DataType::FLOAT64)
      << "the beta pows keep their own dtype";
}

TEST(AdamOp, SelectedRowsGradLazyAndDense) {
  CheckAdamSparse<float>(false);
  CheckAdamSparse<float>(true);
  CheckAdamSparse<double>(false);
  CheckAdamSparse<double>(true);
}

// ---- lamb ----

struct LambRef {
  double beta1, beta2, eps, decay, lr, beta1_pow, beta2_pow;
  bool adapt;
  void Step(std::vector<double>* p, std::vector<double>* m1, std::vector<double>* m2,
            const std::vector<double>& g) {
    std::vector<double> r(p->size());
    double pn = 0, rn = 0;
    for (size_t i = 0; i < p->size(); ++i) {
      (*m1)[i] = beta1 * (*m1)[i] + (1 - beta1) * g[i];
      (*m2)[i] = beta2 * (*m2)[i] + (1 - beta2) * g[i] * g[i];
      r[i] = ((*m1)[i] / (1 - beta1_pow)) / (std::sqrt((*m2)[i] / (1 - beta2_pow)) + eps) +
             decay * (*p)[i];
      pn += (*p)[i] * (*p)[i];
      rn += r[i] * r[i];
    }
    const double ratio = (decay > 0 || adapt) && pn > 0 && rn > 0 ? std::sqrt(pn / rn) : 1.0;
    for (size_t i = 0; i < p->size(); ++i) (*p)[i] -= lr * ratio * r[i];
    beta1_pow *= beta1;
    beta2_pow *= beta2;
  }
};

template <typename T>
void CheckLambSteps(float decay, bool adapt) {
  SCOPED_TRACE(::testing::Message() << "weight_decay " << decay << " always_adapt " << adapt);
  OneOpProgram prog("lamb", AdamInputs(), AdamOutputs(),
                    {{"weight_decay", decay}, {"always_adapt", adapt}, {"epsilon", 1e-6f}});
  std::vector<double> p = RandomValues(12, -1, 1, 40);
  std::vector<double> m1(12, 0.0), m2(12, 0.0);
  LambRef ref{0.9f, 0.999f, 1e-6f, decay, static_cast<T>(0.05), 0.9f, 0.999f, adapt};
  prog.Set("w", MakeTensor<T>({3, 4}, p));
  prog.Set("m1", MakeTensor<T>({3, 4}, m1));
  prog.Set("m2", MakeTensor<T>({3, 4}, m2));
  prog.Set("lr", Scalar<T>(0.05));
  prog.Set("b1p", Scalar<T>(0.9f));
  prog.Set("b2p", Scalar<T>(0.999f));
  for (int s = 0; s < 3; ++s) {
    const std::vector<double> g = RandomValues(12, -1, 1, 41 + s);
    prog.Set("g", MakeTensor<T>({3, 4}, g));
    prog.Run();
    std::vector<double> gt(12);
    for (size_t i = 0; i < 12; ++i) gt[i] = static_cast<T>(g[i]);
    ref.Step(&p, &m1, &m2, gt);
  }
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
  ExpectNear(prog.Values("w"), p, tol, tol, "lamb param");
  ExpectNear(prog.Values("m1"), m1, tol, tol, "lamb moment1");
  ExpectNear(prog.Values("m2"), m2, tol, tol, "lamb moment2");
  ExpectNear(prog.Values("b1p"), {ref.beta1_pow}, tol, 0, "lamb beta1 pow");
}

TEST(LambOp, ThreeStepsWithAndWithoutTheTrustRatio) {
  for (float decay : {0.0f, 0.01f}) {
    for (bool adapt : {false, true}) {
      CheckLambSteps<float>(decay, adapt);
      CheckLambSteps<double>(decay, adapt);
    }
  }
}

TEST(LambOp, SelectedRowsGradSkipUpdateAndErrors) {
  Scope scope;
  const int64_t height = 4, width = 2;
  std::vector<double> p = RandomValues(8, -1, 1, 50);
  std::vector<double> m1 = RandomValues(8, -0.1, 0.1, 51);
  std::vector<double> m2 = RandomValues(8, 0.01, 0.2, 52);
  const std::vector<int64_t> rows = {2, 0, 2};
  const std::vector<double> vals = RandomValues(6, -1, 1, 53);
  SetDense(&scope, "w", MakeTensor<double>({height, width}, p));
  SetDense(&scope, "m1", MakeTensor<double>({height, width}, m1));
  SetDense(&scope, "m2", MakeTensor<double>({height, width}, m2));
  SetDense(&scope, "lr", Scalar<double>(0.1));
  SetDense(&scope, "b1p", Scalar<double>(0.5));
  SetDense(&scope, "b2p", Scalar<double>(0.75));
  SetSparseGrad<double>(&scope, "g", rows, height, width, vals);
  RunKernelDirect("lamb", AdamInputs(), AdamOutputs(), {{"weight_decay", 0.1f}}, &scope);
  std::vector<bool> present;
  const auto g = Densify(rows, height, width, vals, &present);  // Absent rows: 0.
  LambRef ref{0.9f, 0.999f, 1e-6f, 0.1f, 0.1, 0.5, 0.75, false};
  ref.Step(&p, &m1, &m2, g);
  ExpectNear(Get(scope, "w"), p, 1e-12, 1e-12, "lamb sparse param");
  ExpectNear(Get(scope, "m2"), m2, 1e-12, 1e-12, "lamb sparse m2");

  // SkipUpdate: every output is its input.
  const auto r = RunOp("lamb",
                       {{"Param", {MakeTensor<float>({2}, {0.5, -0.5})}},
                        {"Grad", {MakeTensor<float>({2}, {1, 1})}},
                        {"LearningRate", {Scalar<float>(0.1)}},
                        {"Moment1", {MakeTensor<float>({2}, {0.1, 0.2})}},
                        {"Moment2", {MakeTensor<float>({2}, {0.3, 0.4})}},
                        {"Beta1Pow", {Scalar<float>(0.5)}},
                        {"Beta2Pow", {Scalar<float>(0.25)}},
                        {"SkipUpdate", {MakeTensor<bool>({1}, {1})}}},
                       {{"ParamOut", 1}, {"Moment1Out", 1}, {"Moment2Out", 1}, {"Beta1PowOut", 1}},
                       {{"weight_decay", 0.01f}});
  EXPECT_EQ(ToDoubles(r.outputs.at("ParamOut")[0]), (std::vector<double>{0.5, -0.5}));
  ExpectNear(ToDoubles(r.outputs.at("Moment2Out")[0]), {0.3, 0.4}, 1e-7, 0, "moment2");
  EXPECT_EQ(ToDoubles(r.outputs.at("Beta1PowOut")[0]), (std::vector<double>{0.5}));
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("lamb",
              {{"Param", {MakeTensor<float>({2}, {0.5, -0.5})}},
               {"Grad", {MakeTensor<float>({2}, {1, 1})}},
               {"LearningRate", {Scalar<float>(0.1)}},
               {"Moment1", {MakeTensor<float>({3}, {0.1, 0.2, 0.3})}},
               {"Moment2", {MakeTensor<float>({2}, {0.3, 0.4})}},
               {"Beta1Pow", {Scalar<float>(0.5)}},
               {"Beta2Pow", {Scalar<float>(0.25)}}},
              {{"ParamOut", 1}, {"Moment1Out", 1}, {"Moment2Out", 1}}, {{"weight_decay", 0.01f}});
      },
      {"op `lamb` input `Moment1`", "[2]", "[3]"});
}

// ---- reproducibility ----

std::string Bytes(const DenseTensor& t) {
  return std::string(static_cast<const char*>(t.raw_data()),
                     static_cast<size_t>(t.numel()) * platform::SizeOf(t.dtype()));
}

TEST(OptimizerOps, RepeatedRunsAreBitwiseEqual) {
  const int64_t n = 200003;  // Large enough for ParallelFor to split the work.
  const auto p = RandomValues(n, -1, 1, 17);
  const auto g = RandomValues(n, -1, 1, 18);
  auto run_adam = [&] {
    OneOpProgram prog("adam", AdamInputs(), AdamOutputs(), {});
    prog.Set("w", MakeTensor<float>({n}, p));
    prog.Set("g", MakeTensor<float>({n}, g));
    prog.Set("m1", MakeTensor<float>({n}, std::vector<double>(n, 0.0)));
    prog.Set("m2", MakeTensor<float>({n}, std::vector<double>(n, 0.0)));
    prog.Set("lr", Scalar<float>(0.01));
    prog.Set("b1p", Scalar<float>(0.9));
    prog.Set("b2p", Scalar<float>(0.999));
    prog.Run(3);
    return Bytes(prog.Get("w")) + Bytes(prog.Get("m1")) + Bytes(prog.Get("m2"));
  };
  EXPECT_TRUE(run_adam() == run_adam());
  auto run_momentum = [&] {
    OneOpProgram prog(
        "momentum",
        {{"Param", {"w"}}, {"Grad", {"g"}}, {"Velocity", {"v"}}, {"LearningRate", {"lr"}}},
        {{"ParamOut", {"w"}}, {"VelocityOut", {"v"}}}, {{"mu", 0.9f}, {"use_nesterov", true}});
    prog.Set("w", MakeTensor<double>({n}, p));
    prog.Set("g", MakeTensor<double>({n}, g));
    prog.Set("v", MakeTensor<double>({n}, std::vector<double>(n, 0.0)));
    prog.Set("lr", Scalar<double>(0.01));
    prog.Run(3);
    return Bytes(prog.Get("w")) + Bytes(prog.Get("v"));
  };
  EXPECT_TRUE(run_momentum() == run_momentum());
}

TEST(OptimizerOps, OpVersions) {
  operators::RegisterAllOps();
  EXPECT_EQ(framework::OpInfoMap::Instance().Get("adam").version(), 5);
  EXPECT_EQ(framework::OpInfoMap::Instance().Get("momentum").version(), 1);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
