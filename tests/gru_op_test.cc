// gru: every combination of direction, origin_mode, H0 and activation against a naive
// per-sequence recurrence in double (no batch reordering), including an empty sequence;
// gradients of Input, H0, Weight and Bias by finite differences; typed errors. PaddlePaddle's
// own outputs are checked by the fixture test (tests/fixtures/ops/gru_*). fusion_gru: X's
// projection by WeightX computed naively, then the same recurrence, and its shape errors.
#include <cmath>
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using LoD = framework::LoD;

const LoD kLoD = {{0, 2, 2, 5, 6}};  // Lengths 2, 0, 3, 1.
constexpr int64_t kD = 3;

double Act(const std::string& name, double x) {
  if (name == "sigmoid") return 1 / (1 + std::exp(-x));
  if (name == "tanh") return std::tanh(x);
  if (name == "relu") return x > 0 ? x : 0;
  return x;
}

struct GruSetup {
  std::vector<double> x, h0, w, b;
  bool reverse = false, origin = false, with_h0 = false;
  std::string act = "tanh", gate_act = "sigmoid";
};

// The recurrence of the op doc, one sequence at a time, in the input's row order.
std::vector<double> NaiveGru(const GruSetup& s) {
  const auto& off = kLoD[0];
  std::vector<double> out(off.back() * kD);
  for (size_t q = 0; q + 1 < off.size(); ++q) {
    std::vector<double> h(kD, 0.0);
    if (s.with_h0) h.assign(s.h0.begin() + q * kD, s.h0.begin() + (q + 1) * kD);
    const size_t len = off[q + 1] - off[q];
    for (size_t t = 0; t < len; ++t) {
      const size_t row = s.reverse ? off[q + 1] - 1 - t : off[q] + t;
      std::vector<double> u(kD), r(kD), c(kD), next(kD);
      for (int64_t j = 0; j < kD; ++j) {
        double zu = s.x[row * 3 * kD + j] + s.b[j];
        double zr = s.x[row * 3 * kD + kD + j] + s.b[kD + j];
        for (int64_t k = 0; k < kD; ++k) {
          zu += h[k] * s.w[k * 2 * kD + j];  // W_g is [D, 2 D] in the first 2 D^2 values.
          zr += h[k] * s.w[k * 2 * kD + kD + j];
        }
        u[j] = Act(s.gate_act, zu);
        r[j] = Act(s.gate_act, zr);
      }
      for (int64_t j = 0; j < kD; ++j) {
        double zc = s.x[row * 3 * kD + 2 * kD + j] + s.b[2 * kD + j];
        for (int64_t k = 0; k < kD; ++k) zc += r[k] * h[k] * s.w[2 * kD * kD + k * kD + j];
        c[j] = Act(s.act, zc);
        next[j] = s.origin ? u[j] * h[j] + (1 - u[j]) * c[j] : (1 - u[j]) * h[j] + u[j] * c[j];
      }
      h = next;
      for (int64_t j = 0; j < kD; ++j) out[row * kD + j] = h[j];
    }
  }
  return out;
}

GruSetup RandomSetup() {
  GruSetup s;
  const int64_t rows = static_cast<int64_t>(kLoD[0].back());
  s.x = RandomValues(rows * 3 * kD, -1, 1, 3);
  s.h0 = RandomValues(4 * kD, -1, 1, 5);
  s.w = RandomValues(3 * kD * kD, -0.8, 0.8, 7);
  s.b = RandomValues(3 * kD, -0.3, 0.3, 9);
  return s;
}

template <typename T>
SlotTensors Inputs(const GruSetup& s) {
  DenseTensor x = MakeTensor<T>({static_cast<int64_t>(kLoD[0].back()), 3 * kD}, s.x);
  x.set_lod(kLoD);
  SlotTensors in = {{"Input", {x}},
                    {"Weight", {MakeTensor<T>({kD, 3 * kD}, s.w)}},
                    {"Bias", {MakeTensor<T>({1, 3 * kD}, s.b)}}};
  if (s.with_h0) in["H0"] = {MakeTensor<T>({4, kD}, s.h0)};
  return in;
}

AttributeMap Attrs(const GruSetup& s) {
  return {{"is_reverse", s.reverse},
          {"origin_mode", s.origin},
          {"activation", s.act},
          {"gate_activation", s.gate_act}};
}

const std::map<std::string, int> kOutputs = {
    {"BatchGate", 1}, {"BatchResetHiddenPrev", 1}, {"BatchHidden", 1}, {"Hidden", 1}};

class GruOp : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(GruOp, MatchesTheRecurrenceForEveryMode) {
  for (bool reverse : {false, true}) {
    for (bool origin : {false, true}) {
      for (bool with_h0 : {false, true}) {
        for (const char* act : {"tanh", "relu", "identity"}) {
          GruSetup s = RandomSetup();
          s.reverse = reverse;
          s.origin = origin;
          s.with_h0 = with_h0;
          s.act = act;
          s.gate_act = std::string(act) == "tanh" ? "sigmoid" : "tanh";
          const std::string what = std::string("reverse ") + (reverse ? "1" : "0") + " origin " +
                                   (origin ? "1" : "0") + " h0 " + (with_h0 ? "1" : "0") +
                                   " act " + act;
          const auto r = RunOp("gru", Inputs<double>(s), kOutputs, Attrs(s));
          const DenseTensor& hidden = r.outputs.at("Hidden")[0];
          EXPECT_EQ(hidden.dims(), DDim({6, kD})) << what;
          EXPECT_EQ(hidden.lod(), kLoD) << what;
          ExpectNear(ToDoubles(hidden), NaiveGru(s), 1e-12, 1e-12, what);
          const auto f = RunOp("gru", Inputs<float>(s), kOutputs, Attrs(s));
          ExpectNear(ToDoubles(f.outputs.at("Hidden")[0]), NaiveGru(s), 1e-5, 1e-6,
                     what + " float");
        }
      }
    }
  }
}

void CheckGruGradients(const GruSetup& s) {
  GradCheck check;
  check.op_type = "gru";
  check.inputs = Inputs<double>(s);
  check.outputs = kOutputs;
  check.attrs = Attrs(s);
  check.loss_outputs = {"Hidden"};
  check.rtol = 1e-6;
  check.atol = 1e-8;
  CheckGradients(check);
}

TEST_F(GruOp, GradientsMatchFiniteDifferences) {
  for (bool reverse : {false, true}) {
    for (bool origin : {false, true}) {
      GruSetup s = RandomSetup();
      s.reverse = reverse;
      s.origin = origin;
      s.with_h0 = true;
      SCOPED_TRACE(std::string("reverse ") + (reverse ? "1" : "0") + " origin " +
                   (origin ? "1" : "0"));
      CheckGruGradients(s);
    }
  }
  GruSetup s = RandomSetup();  // No H0; relu candidate, tanh gates.
  s.act = "relu";
  s.gate_act = "tanh";
  CheckGruGradients(s);
}

TEST_F(GruOp, BadInputsNameWhatIsWrong) {
  GruSetup s = RandomSetup();
  SlotTensors no_lod = Inputs<double>(s);
  no_lod["Input"][0].set_lod({});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("gru", no_lod, kOutputs, Attrs(s)); },
      {"op `gru` input `Input`", "expected a level-1 LoD", "received 0 levels"});
  SlotTensors bad_lod = Inputs<double>(s);
  bad_lod["Input"][0].set_lod({{0, 2, 7}});
  ExpectError<platform::InvalidArgumentError>([&] { RunOp("gru", bad_lod, kOutputs, Attrs(s)); },
                                              {"op `gru` input `Input`"});
  SlotTensors bad_w = Inputs<double>(s);
  bad_w["Weight"] = {MakeTensor<double>({kD, 2 * kD}, std::vector<double>(2 * kD * kD))};
  ExpectError<platform::InvalidArgumentError>([&] { RunOp("gru", bad_w, kOutputs, Attrs(s)); },
                                              {"op `gru` input `Weight`", "expected [D, 3 D]"});
  s.with_h0 = true;
  SlotTensors bad_h0 = Inputs<double>(s);
  bad_h0["H0"] = {MakeTensor<double>({3, kD}, std::vector<double>(3 * kD))};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("gru", bad_h0, kOutputs, Attrs(s)); },
      {"op `gru` input `H0`", "one row per sequence, 4", "[3, 3]"});
  AttributeMap bad_act = Attrs(s);
  bad_act["gate_activation"] = std::string("softmax");
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("gru", Inputs<double>(s), kOutputs, bad_act); },
      {"op `gru` attribute `gate_activation`", "\"softmax\""});
}

// gru_unit: one step for a batch of rows, its activations by code (0 identity, 1 sigmoid,
// 2 tanh, 3 relu).
struct GruUnitSetup {
  std::vector<double> x, h, w, b;
  int act = 2, gate_act = 1;
  bool origin = false, with_bias = true;
};

constexpr int64_t kUnitRows = 3;

std::vector<double> NaiveGruUnit(const GruUnitSetup& s) {
  static const char* const names[] = {"identity", "sigmoid", "tanh", "relu"};
  std::vector<double> out(kUnitRows * kD);
  for (int64_t i = 0; i < kUnitRows; ++i) {
    std::vector<double> u(kD), r(kD);
    for (int64_t j = 0; j < kD; ++j) {
      double zu = s.x[i * 3 * kD + j] + (s.with_bias ? s.b[j] : 0);
      double zr = s.x[i * 3 * kD + kD + j] + (s.with_bias ? s.b[kD + j] : 0);
      for (int64_t k = 0; k < kD; ++k) {
        zu += s.h[i * kD + k] * s.w[k * 2 * kD + j];
        zr += s.h[i * kD + k] * s.w[k * 2 * kD + kD + j];
      }
      u[j] = Act(names[s.gate_act], zu);
      r[j] = Act(names[s.gate_act], zr);
    }
    for (int64_t j = 0; j < kD; ++j) {
      double zc = s.x[i * 3 * kD + 2 * kD + j] + (s.with_bias ? s.b[2 * kD + j] : 0);
      for (int64_t k = 0; k < kD; ++k) zc += r[k] * s.h[i * kD + k] * s.w[2 * kD * kD + k * kD + j];
      const double c = Act(names[s.act], zc), p = s.h[i * kD + j];
      out[i * kD + j] = s.origin ? u[j] * p + (1 - u[j]) * c : (1 - u[j]) * p + u[j] * c;
    }
  }
  return out;
}

GruUnitSetup RandomUnitSetup() {
  GruUnitSetup s;
  s.x = RandomValues(kUnitRows * 3 * kD, -1, 1, 21);
  s.h = RandomValues(kUnitRows * kD, -1, 1, 22);
  s.w = RandomValues(3 * kD * kD, -0.8, 0.8, 23);
  s.b = RandomValues(3 * kD, -0.3, 0.3, 24);
  return s;
}

template <typename T>
SlotTensors UnitInputs(const GruUnitSetup& s) {
  SlotTensors in = {{"Input", {MakeTensor<T>({kUnitRows, 3 * kD}, s.x)}},
                    {"HiddenPrev", {MakeTensor<T>({kUnitRows, kD}, s.h)}},
                    {"Weight", {MakeTensor<T>({kD, 3 * kD}, s.w)}}};
  if (s.with_bias) in["Bias"] = {MakeTensor<T>({1, 3 * kD}, s.b)};
  return in;
}

AttributeMap UnitAttrs(const GruUnitSetup& s) {
  return {{"activation", s.act}, {"gate_activation", s.gate_act}, {"origin_mode", s.origin}};
}

const std::map<std::string, int> kUnitOutputs = {
    {"Gate", 1}, {"ResetHiddenPrev", 1}, {"Hidden", 1}};

TEST_F(GruOp, GruUnitIsOneStepOfTheRecurrence) {
  for (bool origin : {false, true}) {
    for (int act = 0; act < 4; ++act) {
      for (bool with_bias : {false, true}) {
        GruUnitSetup s = RandomUnitSetup();
        s.origin = origin;
        s.act = act;
        s.gate_act = act == 1 ? 2 : 1;
        s.with_bias = with_bias;
        const std::string what = std::string("origin ") + (origin ? "1" : "0") + " act " +
                                 std::to_string(act) + " bias " + (with_bias ? "1" : "0");
        const auto r = RunOp("gru_unit", UnitInputs<double>(s), kUnitOutputs, UnitAttrs(s));
        ExpectNear(ToDoubles(r.outputs.at("Hidden")[0]), NaiveGruUnit(s), 1e-12, 1e-13, what);
        const auto f = RunOp("gru_unit", UnitInputs<float>(s), kUnitOutputs, UnitAttrs(s));
        ExpectNear(ToDoubles(f.outputs.at("Hidden")[0]), NaiveGruUnit(s), 1e-5, 1e-6,
                   what + " float");
      }
    }
  }
}

TEST_F(GruOp, GruUnitGradientsMatchFiniteDifferences) {
  for (bool origin : {false, true}) {
    for (int act : {2, 0}) {  // tanh and identity candidates (relu's kink is not smooth).
      GruUnitSetup s = RandomUnitSetup();
      s.origin = origin;
      s.act = act;
      SCOPED_TRACE(std::string("origin ") + (origin ? "1" : "0") + " act " + std::to_string(act));
      GradCheck check;
      check.op_type = "gru_unit";
      check.inputs = UnitInputs<double>(s);
      check.outputs = kUnitOutputs;
      check.attrs = UnitAttrs(s);
      check.loss_outputs = {"Hidden"};
      check.rtol = 1e-6;
      check.atol = 1e-8;
      CheckGradients(check);
    }
  }
}

TEST_F(GruOp, GruUnitRejectsBadShapesAndCodes) {
  GruUnitSetup s = RandomUnitSetup();
  SlotTensors bad_h = UnitInputs<double>(s);
  bad_h["HiddenPrev"] = {MakeTensor<double>({2, kD}, std::vector<double>(2 * kD))};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("gru_unit", bad_h, kUnitOutputs, UnitAttrs(s)); },
      {"op `gru_unit` input `HiddenPrev`", "expected [3, 3]", "[2, 3]"});
  AttributeMap bad_code = UnitAttrs(s);
  bad_code["activation"] = 7;
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("gru_unit", UnitInputs<double>(s), kUnitOutputs, bad_code); },
      {"gru_unit", "activation", "7"});
}

// fusion_gru's X [6, kM] and WeightX [kM, 3 D]; NaiveGru then runs on X WeightX.
constexpr int64_t kM = 2;

TEST_F(GruOp, FusionGruIsTheProjectionThenTheRecurrence) {
  const int64_t rows = static_cast<int64_t>(kLoD[0].back());
  const std::vector<double> x = RandomValues(rows * kM, -1, 1, 11);
  const std::vector<double> wx = RandomValues(kM * 3 * kD, -0.8, 0.8, 13);
  for (bool reverse : {false, true}) {
    for (bool origin : {false, true}) {
      for (bool with_h0 : {false, true}) {
        for (bool with_bias : {false, true}) {
          GruSetup s = RandomSetup();
          s.reverse = reverse;
          s.origin = origin;
          s.with_h0 = with_h0;
          if (!with_bias) s.b.assign(s.b.size(), 0.0);
          s.x.assign(rows * 3 * kD, 0.0);
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t j = 0; j < 3 * kD; ++j) {
              for (int64_t k = 0; k < kM; ++k)
                s.x[r * 3 * kD + j] += x[r * kM + k] * wx[k * 3 * kD + j];
            }
          }
          const std::string what = std::string("reverse ") + (reverse ? "1" : "0") + " origin " +
                                   (origin ? "1" : "0") + " h0 " + (with_h0 ? "1" : "0") +
                                   " bias " + (with_bias ? "1" : "0");
          auto run = [&](auto tag) {
            using T = decltype(tag);
            DenseTensor xt = MakeTensor<T>({rows, kM}, x);
            xt.set_lod(kLoD);
            SlotTensors in = {{"X", {xt}},
                              {"WeightX", {MakeTensor<T>({kM, 3 * kD}, wx)}},
                              {"WeightH", {MakeTensor<T>({kD, 3 * kD}, s.w)}}};
            if (with_bias) in["Bias"] = {MakeTensor<T>({1, 3 * kD}, s.b)};
            if (with_h0) in["H0"] = {MakeTensor<T>({4, kD}, s.h0)};
            AttributeMap attrs = Attrs(s);
            attrs["use_seq"] = true;
            return RunOp("fusion_gru", in, {{"XX", 1}, {"Hidden", 1}}, attrs);
          };
          const auto r = run(double());
          const DenseTensor& hidden = r.outputs.at("Hidden")[0];
          EXPECT_EQ(hidden.dims(), DDim({rows, kD})) << what;
          EXPECT_EQ(hidden.lod(), kLoD) << what;
          ExpectNear(ToDoubles(hidden), NaiveGru(s), 1e-12, 1e-12, what);
          ExpectNear(ToDoubles(r.outputs.at("XX")[0]), s.x, 1e-12, 1e-12, what + " XX");
          ExpectNear(ToDoubles(run(float()).outputs.at("Hidden")[0]), NaiveGru(s), 1e-5, 1e-5,
                     what + " float");
        }
      }
    }
  }
}

TEST_F(GruOp, FusionGruRejectsMismatchedWeights) {
  const int64_t rows = static_cast<int64_t>(kLoD[0].back());
  DenseTensor x = MakeTensor<double>({rows, kM}, RandomValues(rows * kM, -1, 1, 1));
  x.set_lod(kLoD);
  auto inputs = [&](DDim wx, DDim wh) {
    return SlotTensors{{"X", {x}},
                       {"WeightX", {MakeTensor<double>(wx, std::vector<double>(wx.numel(), 0.1))}},
                       {"WeightH", {MakeTensor<double>(wh, std::vector<double>(wh.numel(), 0.1))}}};
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_gru", inputs({kM + 1, 3 * kD}, {kD, 3 * kD}), {{"Hidden", 1}}, {});
      },
      {"op `fusion_gru` input `WeightX`", "expected [M, 3 D] = [2, 9]", "[3, 9]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_gru", inputs({kM, 3 * kD}, {kD, 2 * kD}), {{"Hidden", 1}}, {});
      },
      {"op `fusion_gru` input `WeightH`", "expected [D, 3 D]", "[3, 6]"});
  x.set_lod({});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_gru", inputs({kM, 3 * kD}, {kD, 3 * kD}), {{"Hidden", 1}}, {});
      },
      {"op `fusion_gru`", "expected a level-1 LoD"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
