// lstm: every combination of direction, peepholes, initial states and activations against a
// naive per-sequence recurrence in double (no batch reordering), including an empty
// sequence; gradients of Input, H0, C0, Weight and Bias (peepholes included) by finite
// differences, through Hidden and Cell both; typed errors. PaddlePaddle's own outputs are
// checked by the fixture test (tests/fixtures/ops/lstm_*). fusion_lstm: X's projection by
// WeightX computed naively, then the same recurrence, and its shape errors.
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
constexpr int64_t kRows = 6;

double Act(const std::string& name, double x) {
  if (name == "sigmoid") return 1 / (1 + std::exp(-x));
  if (name == "tanh") return std::tanh(x);
  if (name == "relu") return x > 0 ? x : 0;
  return x;
}

struct LstmSetup {
  std::vector<double> x, h0, c0, w, b;
  bool reverse = false, peepholes = true, with_h0 = false, with_c0 = false;
  std::string gate_act = "sigmoid", cell_act = "tanh", cand_act = "tanh";
};

struct LstmResult {
  std::vector<double> hidden, cell;
};

// The recurrence of the op doc, one sequence at a time, in the input's row order.
LstmResult NaiveLstm(const LstmSetup& s) {
  const auto& off = kLoD[0];
  LstmResult r{std::vector<double>(kRows * kD), std::vector<double>(kRows * kD)};
  for (size_t q = 0; q + 1 < off.size(); ++q) {
    std::vector<double> h(kD, 0.0), c(kD, 0.0);
    if (s.with_h0) h.assign(s.h0.begin() + q * kD, s.h0.begin() + (q + 1) * kD);
    if (s.with_c0) c.assign(s.c0.begin() + q * kD, s.c0.begin() + (q + 1) * kD);
    const size_t len = off[q + 1] - off[q];
    for (size_t t = 0; t < len; ++t) {
      const size_t row = s.reverse ? off[q + 1] - 1 - t : off[q] + t;
      // z[block][j] = x + b + h W for blocks candidate, input, forget, output.
      std::vector<double> z(4 * kD);
      for (int64_t j = 0; j < 4 * kD; ++j) {
        z[j] = s.x[row * 4 * kD + j] + s.b[j];
        for (int64_t k = 0; k < kD; ++k) z[j] += h[k] * s.w[k * 4 * kD + j];
      }
      auto peep = [&](int which, int64_t j) { return s.peepholes ? s.b[(4 + which) * kD + j] : 0; };
      std::vector<double> next_c(kD), next_h(kD);
      for (int64_t j = 0; j < kD; ++j) {
        const double cand = Act(s.cand_act, z[j]);
        const double i = Act(s.gate_act, z[kD + j] + peep(0, j) * c[j]);
        const double f = Act(s.gate_act, z[2 * kD + j] + peep(1, j) * c[j]);
        next_c[j] = f * c[j] + i * cand;
        const double o = Act(s.gate_act, z[3 * kD + j] + peep(2, j) * next_c[j]);
        next_h[j] = o * Act(s.cell_act, next_c[j]);
      }
      h = next_h;
      c = next_c;
      for (int64_t j = 0; j < kD; ++j) {
        r.hidden[row * kD + j] = h[j];
        r.cell[row * kD + j] = c[j];
      }
    }
  }
  return r;
}

LstmSetup RandomSetup() {
  LstmSetup s;
  s.x = RandomValues(kRows * 4 * kD, -1, 1, 3);
  s.h0 = RandomValues(4 * kD, -1, 1, 5);
  s.c0 = RandomValues(4 * kD, -1, 1, 6);
  s.w = RandomValues(4 * kD * kD, -0.8, 0.8, 7);
  s.b = RandomValues(7 * kD, -0.5, 0.5, 9);
  return s;
}

template <typename T>
SlotTensors Inputs(const LstmSetup& s) {
  DenseTensor x = MakeTensor<T>({kRows, 4 * kD}, s.x);
  x.set_lod(kLoD);
  const int64_t bias_width = (s.peepholes ? 7 : 4) * kD;
  SlotTensors in = {{"Input", {x}},
                    {"Weight", {MakeTensor<T>({kD, 4 * kD}, s.w)}},
                    {"Bias",
                     {MakeTensor<T>({1, bias_width},
                                    std::vector<double>(s.b.begin(), s.b.begin() + bias_width))}}};
  if (s.with_h0) in["H0"] = {MakeTensor<T>({4, kD}, s.h0)};
  if (s.with_c0) in["C0"] = {MakeTensor<T>({4, kD}, s.c0)};
  return in;
}

AttributeMap Attrs(const LstmSetup& s) {
  return {{"is_reverse", s.reverse},
          {"use_peepholes", s.peepholes},
          {"gate_activation", s.gate_act},
          {"cell_activation", s.cell_act},
          {"candidate_activation", s.cand_act}};
}

const std::map<std::string, int> kOutputs = {
    {"Hidden", 1}, {"Cell", 1}, {"BatchGate", 1}, {"BatchCellPreAct", 1}};

class LstmOp : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(LstmOp, MatchesTheRecurrenceForEveryMode) {
  const char* acts[][3] = {
      {"sigmoid", "tanh", "tanh"}, {"tanh", "relu", "identity"}, {"sigmoid", "identity", "relu"}};
  for (bool reverse : {false, true}) {
    for (bool peepholes : {false, true}) {
      for (int states = 0; states < 4; ++states) {
        for (const auto& a : acts) {
          LstmSetup s = RandomSetup();
          s.reverse = reverse;
          s.peepholes = peepholes;
          s.with_h0 = states & 1;
          s.with_c0 = states & 2;
          s.gate_act = a[0];
          s.cell_act = a[1];
          s.cand_act = a[2];
          const std::string what = std::string("reverse ") + (reverse ? "1" : "0") + " peepholes " +
                                   (peepholes ? "1" : "0") + " states " + std::to_string(states) +
                                   " acts " + a[0] + "/" + a[1] + "/" + a[2];
          const LstmResult want = NaiveLstm(s);
          const auto r = RunOp("lstm", Inputs<double>(s), kOutputs, Attrs(s));
          const DenseTensor& hidden = r.outputs.at("Hidden")[0];
          const DenseTensor& cell = r.outputs.at("Cell")[0];
          EXPECT_EQ(hidden.dims(), DDim({kRows, kD})) << what;
          EXPECT_EQ(hidden.lod(), kLoD) << what;
          EXPECT_EQ(cell.lod(), kLoD) << what;
          ExpectNear(ToDoubles(hidden), want.hidden, 1e-12, 1e-12, what);
          ExpectNear(ToDoubles(cell), want.cell, 1e-12, 1e-12, what + " cell");
          const auto f = RunOp("lstm", Inputs<float>(s), kOutputs, Attrs(s));
          ExpectNear(ToDoubles(f.outputs.at("Hidden")[0]), want.hidden, 1e-5, 1e-6,
                     what + " float");
          ExpectNear(ToDoubles(f.outputs.at("Cell")[0]), want.cell, 1e-5, 1e-6,
                     what + " float cell");
        }
      }
    }
  }
}

void CheckLstmGradients(const LstmSetup& s, const std::vector<std::string>& losses) {
  GradCheck check;
  check.op_type = "lstm";
  check.inputs = Inputs<double>(s);
  check.outputs = kOutputs;
  check.attrs = Attrs(s);
  check.loss_outputs = losses;
  check.rtol = 1e-6;
  check.atol = 1e-8;
  CheckGradients(check);
}

TEST_F(LstmOp, GradientsMatchFiniteDifferences) {
  for (bool reverse : {false, true}) {
    for (bool peepholes : {false, true}) {
      LstmSetup s = RandomSetup();
      s.reverse = reverse;
      s.peepholes = peepholes;
      s.with_h0 = s.with_c0 = true;
      SCOPED_TRACE(std::string("reverse ") + (reverse ? "1" : "0") + " peepholes " +
                   (peepholes ? "1" : "0"));
      CheckLstmGradients(s, {"Hidden", "Cell"});
    }
  }
  LstmSetup s = RandomSetup();  // Hidden only; C0 without H0; other activations.
  s.with_c0 = true;
  s.gate_act = "tanh";
  s.cell_act = "sigmoid";
  s.cand_act = "identity";
  SCOPED_TRACE("hidden only");
  CheckLstmGradients(s, {"Hidden"});
}

TEST_F(LstmOp, BadInputsNameWhatIsWrong) {
  LstmSetup s = RandomSetup();
  SlotTensors no_lod = Inputs<double>(s);
  no_lod["Input"][0].set_lod({});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("lstm", no_lod, kOutputs, Attrs(s)); },
      {"op `lstm` input `Input`", "expected a level-1 LoD", "received 0 levels"});
  SlotTensors bad_w = Inputs<double>(s);
  bad_w["Weight"] = {MakeTensor<double>({kD, 3 * kD}, std::vector<double>(3 * kD * kD))};
  ExpectError<platform::InvalidArgumentError>([&] { RunOp("lstm", bad_w, kOutputs, Attrs(s)); },
                                              {"op `lstm` input `Weight`", "expected [D, 4 D]"});
  AttributeMap no_peep = Attrs(s);
  no_peep["use_peepholes"] = false;  // Bias still [1, 7 D].
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("lstm", Inputs<double>(s), kOutputs, no_peep); },
      {"op `lstm` input `Bias`", "expected [1, 12] (use_peepholes false)", "[1, 21]"});
  s.with_c0 = true;
  SlotTensors bad_c0 = Inputs<double>(s);
  bad_c0["C0"] = {MakeTensor<double>({3, kD}, std::vector<double>(3 * kD))};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("lstm", bad_c0, kOutputs, Attrs(s)); },
      {"op `lstm` input `C0`", "one row per sequence, 4", "[3, 3]"});
  AttributeMap bad_act = Attrs(s);
  bad_act["cell_activation"] = std::string("softmax");
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("lstm", Inputs<double>(s), kOutputs, bad_act); },
      {"op `lstm` attribute `cell_activation`", "\"softmax\""});
}

// fusion_lstm's X [kRows, kM] and WeightX [kM, 4 D]; NaiveLstm then runs on X WeightX.
constexpr int64_t kM = 2;

TEST_F(LstmOp, FusionLstmIsTheProjectionThenTheRecurrence) {
  const std::vector<double> x = RandomValues(kRows * kM, -1, 1, 11);
  const std::vector<double> wx = RandomValues(kM * 4 * kD, -0.8, 0.8, 13);
  for (bool reverse : {false, true}) {
    for (bool peepholes : {false, true}) {
      for (int states = 0; states < 4; ++states) {
        LstmSetup s = RandomSetup();
        s.reverse = reverse;
        s.peepholes = peepholes;
        s.with_h0 = states & 1;
        s.with_c0 = states & 2;
        s.x.assign(kRows * 4 * kD, 0.0);
        for (int64_t r = 0; r < kRows; ++r) {
          for (int64_t j = 0; j < 4 * kD; ++j) {
            for (int64_t k = 0; k < kM; ++k)
              s.x[r * 4 * kD + j] += x[r * kM + k] * wx[k * 4 * kD + j];
          }
        }
        const std::string what = std::string("reverse ") + (reverse ? "1" : "0") + " peepholes " +
                                 (peepholes ? "1" : "0") + " states " + std::to_string(states);
        auto run = [&](auto tag) {
          using T = decltype(tag);
          SlotTensors in = Inputs<T>(s);
          DenseTensor xt = MakeTensor<T>({kRows, kM}, x);
          xt.set_lod(kLoD);
          in["X"] = {xt};
          in["WeightX"] = {MakeTensor<T>({kM, 4 * kD}, wx)};
          in["WeightH"] = in.at("Weight");
          in.erase("Input");
          in.erase("Weight");
          return RunOp("fusion_lstm", in, {{"Hidden", 1}, {"Cell", 1}, {"XX", 1}}, Attrs(s));
        };
        const LstmResult want = NaiveLstm(s);
        const auto r = run(double());
        EXPECT_EQ(r.outputs.at("Hidden")[0].lod(), kLoD) << what;
        EXPECT_EQ(r.outputs.at("Cell")[0].lod(), kLoD) << what;
        ExpectNear(ToDoubles(r.outputs.at("Hidden")[0]), want.hidden, 1e-12, 1e-12, what);
        ExpectNear(ToDoubles(r.outputs.at("Cell")[0]), want.cell, 1e-12, 1e-12, what + " cell");
        ExpectNear(ToDoubles(r.outputs.at("XX")[0]), s.x, 1e-12, 1e-12, what + " XX");
        ExpectNear(ToDoubles(run(float()).outputs.at("Hidden")[0]), want.hidden, 1e-5, 1e-5,
                   what + " float");
      }
    }
  }
}

TEST_F(LstmOp, FusionLstmRejectsMismatchedWeights) {
  LstmSetup s = RandomSetup();
  SlotTensors in = Inputs<double>(s);
  DenseTensor x = MakeTensor<double>({kRows, kM}, RandomValues(kRows * kM, -1, 1, 1));
  x.set_lod(kLoD);
  in["X"] = {x};
  in["WeightX"] = {MakeTensor<double>({kM + 1, 4 * kD}, std::vector<double>((kM + 1) * 4 * kD))};
  in["WeightH"] = in.at("Weight");
  in.erase("Input");
  in.erase("Weight");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_lstm", in, {{"Hidden", 1}, {"Cell", 1}}, Attrs(s));
      },
      {"op `fusion_lstm` inputs `X` and `WeightX`", "[6, 2] and [3, 12]"});
  in["WeightX"] = {MakeTensor<double>({kM, 4 * kD}, std::vector<double>(kM * 4 * kD))};
  in["WeightH"] = {MakeTensor<double>({kD, 3 * kD}, std::vector<double>(3 * kD * kD))};
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fusion_lstm", in, {{"Hidden", 1}, {"Cell", 1}}, Attrs(s));
      },
      {"op `fusion_lstm` input `WeightH`", "expected [D, 4 D]", "[3, 9]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
