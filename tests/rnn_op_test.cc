// rnn: every mode (LSTM, GRU, RNN_TANH, RNN_RELU), one and two layers, one and two
// directions, with and without SequenceLength (a zero-length row among them), against a naive
// per-row recurrence in double written from the op's formulas; dropout between layers in
// training; gradients of Input, PreState and WeightList by finite differences, through Out
// and State, for every mode, depth, direction and length set, and with dropout; typed errors.
// PaddlePaddle's own outputs are checked by the fixture test (tests/fixtures/ops/rnn_*).
#include <cmath>
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr int64_t kSteps = 4, kBatch = 3, kInput = 3, kHidden = 2;

struct RnnSetup {
  std::string mode = "LSTM";
  int64_t layers = 1, dirs = 1;
  std::vector<int64_t> lengths;  // Empty: every row runs kSteps.
  std::vector<double> x;
  std::vector<std::vector<double>> states;   // h0 (and c0), each [L D, N, H].
  std::vector<std::vector<double>> weights;  // WeightList order.

  int64_t Gates() const { return mode == "LSTM" ? 4 : mode == "GRU" ? 3 : 1; }
  int64_t InputOf(int64_t layer) const { return layer == 0 ? kInput : dirs * kHidden; }
};

RnnSetup MakeSetup(const std::string& mode, int64_t layers, int64_t dirs,
                   const std::vector<int64_t>& lengths) {
  RnnSetup s;
  s.mode = mode;
  s.layers = layers;
  s.dirs = dirs;
  s.lengths = lengths;
  s.x = RandomValues(kSteps * kBatch * kInput, -1, 1, 11);
  const int64_t state_size = layers * dirs * kBatch * kHidden;
  s.states.push_back(RandomValues(state_size, -1, 1, 13));
  if (mode == "LSTM") s.states.push_back(RandomValues(state_size, -1, 1, 17));
  const int64_t rows = s.Gates() * kHidden;
  std::vector<std::vector<double>> biases;
  for (int64_t k = 0; k < layers * dirs; ++k) {
    const int64_t in = s.InputOf(k / dirs);
    s.weights.push_back(RandomValues(rows * in, -0.7, 0.7, 19 + 4 * k));
    s.weights.push_back(RandomValues(rows * kHidden, -0.7, 0.7, 20 + 4 * k));
    biases.push_back(RandomValues(rows, -0.3, 0.3, 21 + 4 * k));
    biases.push_back(RandomValues(rows, -0.3, 0.3, 22 + 4 * k));
  }
  s.weights.insert(s.weights.end(), biases.begin(), biases.end());
  return s;
}

double Sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

struct NaiveResult {
  std::vector<double> out;                  // [T, N, D H]
  std::vector<std::vector<double>> states;  // as RnnSetup::states
};

// The op doc's recurrence, one batch row, layer and direction at a time. `zero_above`: the
// inputs of layers above the first are dropped (dropout_prob 1 in training).
NaiveResult NaiveRnn(const RnnSetup& s, bool zero_above = false) {
  const int64_t h = kHidden, g = s.Gates() * h, width = s.dirs * h;
  NaiveResult r;
  r.states = s.states;
  std::vector<double> in = s.x;  // [T, N, in]
  for (int64_t l = 0; l < s.layers; ++l) {
    const int64_t in_w = s.InputOf(l);
    std::vector<double> out(kSteps * kBatch * width, 0.0);
    for (int64_t dir = 0; dir < s.dirs; ++dir) {
      const int64_t k = l * s.dirs + dir;
      const auto& w_ih = s.weights[2 * k];
      const auto& w_hh = s.weights[2 * k + 1];
      const auto& b_ih = s.weights[s.weights.size() / 2 + 2 * k];
      const auto& b_hh = s.weights[s.weights.size() / 2 + 2 * k + 1];
      for (int64_t n = 0; n < kBatch; ++n) {
        const int64_t len = s.lengths.empty() ? kSteps : s.lengths[n];
        std::vector<double> hv(r.states[0].begin() + (k * kBatch + n) * h,
                               r.states[0].begin() + (k * kBatch + n + 1) * h);
        std::vector<double> cv(h, 0.0);
        if (s.mode == "LSTM") {
          cv.assign(r.states[1].begin() + (k * kBatch + n) * h,
                    r.states[1].begin() + (k * kBatch + n + 1) * h);
        }
        for (int64_t step = 0; step < len; ++step) {
          const int64_t t = dir == 0 ? step : len - 1 - step;
          std::vector<double> a(g), q(g);
          for (int64_t j = 0; j < g; ++j) {
            a[j] = b_ih[j];
            for (int64_t i = 0; i < in_w; ++i) {
              a[j] += w_ih[j * in_w + i] * in[(t * kBatch + n) * in_w + i];
            }
            q[j] = b_hh[j];
            for (int64_t i = 0; i < h; ++i) q[j] += w_hh[j * h + i] * hv[i];
          }
          std::vector<double> next(h);
          for (int64_t j = 0; j < h; ++j) {
            if (s.mode == "LSTM") {
              const double ig = Sigmoid(a[j] + q[j]), fg = Sigmoid(a[h + j] + q[h + j]);
              const double cand = std::tanh(a[2 * h + j] + q[2 * h + j]);
              const double og = Sigmoid(a[3 * h + j] + q[3 * h + j]);
              cv[j] = fg * cv[j] + ig * cand;
              next[j] = og * std::tanh(cv[j]);
            } else if (s.mode == "GRU") {
              const double rg = Sigmoid(a[j] + q[j]), zg = Sigmoid(a[h + j] + q[h + j]);
              const double cand = std::tanh(a[2 * h + j] + rg * q[2 * h + j]);
              next[j] = zg * hv[j] + (1 - zg) * cand;
            } else {
              const double v = a[j] + q[j];
              next[j] = s.mode == "RNN_TANH" ? std::tanh(v) : (v > 0 ? v : 0);
            }
          }
          hv = next;
          for (int64_t j = 0; j < h; ++j) out[(t * kBatch + n) * width + dir * h + j] = hv[j];
        }
        for (int64_t j = 0; j < h; ++j) {
          r.states[0][(k * kBatch + n) * h + j] = hv[j];
          if (s.mode == "LSTM") r.states[1][(k * kBatch + n) * h + j] = cv[j];
        }
      }
    }
    in = out;
    if (zero_above) in.assign(in.size(), 0.0);
    r.out = out;
  }
  return r;
}

template <typename T>
SlotTensors Inputs(const RnnSetup& s) {
  SlotTensors in;
  in["Input"] = {MakeTensor<T>({kSteps, kBatch, kInput}, s.x)};
  for (const auto& st : s.states) {
    in["PreState"].push_back(MakeTensor<T>({s.layers * s.dirs, kBatch, kHidden}, st));
  }
  const int64_t rows = s.Gates() * kHidden;
  const size_t half = s.weights.size() / 2;
  for (size_t i = 0; i < s.weights.size(); ++i) {
    const int64_t k = static_cast<int64_t>(i < half ? i / 2 : (i - half) / 2);
    DDim dims = i >= half    ? DDim{rows}
                : i % 2 == 0 ? DDim{rows, s.InputOf(k / s.dirs)}
                             : DDim{rows, kHidden};
    in["WeightList"].push_back(MakeTensor<T>(dims, s.weights[i]));
  }
  if (!s.lengths.empty()) {
    in["SequenceLength"] = {
        MakeTensor<int64_t>({kBatch}, std::vector<double>(s.lengths.begin(), s.lengths.end()))};
  }
  return in;
}

AttributeMap Attrs(const RnnSetup& s, bool is_test = true, float dropout = 0.0f) {
  return {{"mode", s.mode},
          {"num_layers", static_cast<int>(s.layers)},
          {"is_bidirec", s.dirs == 2},
          {"input_size", static_cast<int>(kInput)},
          {"hidden_size", static_cast<int>(kHidden)},
          {"is_test", is_test},
          {"dropout_prob", dropout}};
}

std::map<std::string, int> Outputs(const RnnSetup& s) {
  return {{"Out", 1},
          {"State", static_cast<int>(s.states.size())},
          {"Reserve", 1},
          {"DropoutState", 1}};
}

class RnnOp : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(RnnOp, MatchesTheRecurrenceForEveryMode) {
  for (const char* mode : {"LSTM", "GRU", "RNN_TANH", "RNN_RELU"}) {
    for (int64_t layers : {1, 2}) {
      for (int64_t dirs : {1, 2}) {
        for (bool with_lengths : {false, true}) {
          const RnnSetup s =
              MakeSetup(mode, layers, dirs,
                        with_lengths ? std::vector<int64_t>{2, 4, 0} : std::vector<int64_t>{});
          const std::string what = std::string(mode) + " layers " + std::to_string(layers) +
                                   " dirs " + std::to_string(dirs) +
                                   (with_lengths ? " with lengths" : "");
          const NaiveResult want = NaiveRnn(s);
          const auto r = RunOp("rnn", Inputs<double>(s), Outputs(s), Attrs(s));
          const DenseTensor& out = r.outputs.at("Out")[0];
          EXPECT_EQ(out.dims(), DDim({kSteps, kBatch, dirs * kHidden})) << what;
          ExpectNear(ToDoubles(out), want.out, 1e-12, 1e-12, what);
          for (size_t i = 0; i < want.states.size(); ++i) {
            ExpectNear(ToDoubles(r.outputs.at("State")[i]), want.states[i], 1e-12, 1e-12,
                       what + " state " + std::to_string(i));
          }
          const auto f = RunOp("rnn", Inputs<float>(s), Outputs(s), Attrs(s));
          ExpectNear(ToDoubles(f.outputs.at("Out")[0]), want.out, 1e-5, 1e-6, what + " float");
        }
      }
    }
  }
}

TEST_F(RnnOp, TrainingDropsTheInputsOfUpperLayers) {
  const RnnSetup s = MakeSetup("GRU", 2, 2, {});
  // dropout_prob 0 in training is inference; 1 drops every input of layer 2.
  const auto keep = RunOp("rnn", Inputs<double>(s), Outputs(s), Attrs(s, false, 0.0f));
  ExpectNear(ToDoubles(keep.outputs.at("Out")[0]), NaiveRnn(s).out, 1e-12, 1e-12, "p = 0");
  const auto drop = RunOp("rnn", Inputs<double>(s), Outputs(s), Attrs(s, false, 1.0f));
  ExpectNear(ToDoubles(drop.outputs.at("Out")[0]), NaiveRnn(s, true).out, 1e-12, 1e-12, "p = 1");
  const DenseTensor& mask = drop.outputs.at("DropoutState")[0];
  EXPECT_EQ(mask.dtype(), DataType::UINT8);
  ASSERT_EQ(mask.numel(), kSteps * kBatch * 2 * kHidden);
  for (int64_t i = 0; i < mask.numel(); ++i) EXPECT_EQ(mask.data<uint8_t>()[i], 0) << i;
  // is_test ignores dropout_prob.
  const auto test = RunOp("rnn", Inputs<double>(s), Outputs(s), Attrs(s, true, 1.0f));
  ExpectNear(ToDoubles(test.outputs.at("Out")[0]), NaiveRnn(s).out, 1e-12, 1e-12, "is_test");
}

void CheckRnnGradients(const RnnSetup& s, const AttributeMap& attrs) {
  GradCheck check;
  check.op_type = "rnn";
  check.inputs = Inputs<double>(s);
  check.outputs = Outputs(s);
  check.attrs = attrs;
  check.wrt = {"Input", "PreState", "WeightList"};
  check.loss_outputs = {"Out", "State"};
  check.rtol = 1e-6;
  check.atol = 1e-8;
  CheckGradients(check);
}

TEST_F(RnnOp, GradientsMatchFiniteDifferences) {
  for (const char* mode : {"LSTM", "GRU", "RNN_TANH", "RNN_RELU"}) {
    for (int64_t layers : {1, 2}) {
      for (int64_t dirs : {1, 2}) {
        for (bool with_lengths : {false, true}) {
          const RnnSetup s =
              MakeSetup(mode, layers, dirs,
                        with_lengths ? std::vector<int64_t>{2, 4, 0} : std::vector<int64_t>{});
          SCOPED_TRACE(std::string(mode) + " layers " + std::to_string(layers) + " dirs " +
                       std::to_string(dirs) + (with_lengths ? " with lengths" : ""));
          CheckRnnGradients(s, Attrs(s));
        }
      }
    }
  }
}

TEST_F(RnnOp, GradientsFollowTheForwardDropoutMask) {
  // Three layers share one mask; a fixed seed makes the forward repeatable for the finite
  // differences, and the backward reads the mask from DropoutState.
  for (const char* mode : {"LSTM", "GRU"}) {
    SCOPED_TRACE(mode);
    const RnnSetup s = MakeSetup(mode, 3, 2, {3, 4, 1});
    AttributeMap attrs = Attrs(s, false, 0.4f);
    attrs["seed"] = 7;
    const auto r = RunOp("rnn", Inputs<double>(s), Outputs(s), attrs);
    const DenseTensor& mask = r.outputs.at("DropoutState")[0];
    ASSERT_EQ(mask.numel(), kSteps * kBatch * 2 * kHidden);
    int64_t dropped = 0;
    for (int64_t i = 0; i < mask.numel(); ++i) dropped += mask.data<uint8_t>()[i] == 0;
    EXPECT_GT(dropped, 0);
    EXPECT_LT(dropped, mask.numel());
    CheckRnnGradients(s, attrs);
  }
}

TEST_F(RnnOp, BadInputsNameWhatIsWrong) {
  const RnnSetup s = MakeSetup("LSTM", 1, 1, {});
  AttributeMap bad_mode = Attrs(s);
  bad_mode["mode"] = std::string("GRU2");
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("rnn", Inputs<double>(s), Outputs(s), bad_mode); },
      {"op `rnn` attribute `mode`", "\"GRU2\""});
  SlotTensors one_state = Inputs<double>(s);
  one_state["PreState"].pop_back();
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("rnn", one_state, Outputs(s), Attrs(s)); },
      {"op `rnn` input `PreState`", "expected 2 tensors for mode LSTM", "received 1"});
  SlotTensors few_weights = Inputs<double>(s);
  few_weights["WeightList"].pop_back();
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("rnn", few_weights, Outputs(s), Attrs(s)); },
      {"op `rnn` input `WeightList`", "= 4 tensors", "received 3"});
  SlotTensors bad_weight = Inputs<double>(s);
  bad_weight["WeightList"][1] = MakeTensor<double>({8, 3}, std::vector<double>(24));
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("rnn", bad_weight, Outputs(s), Attrs(s)); },
      {"op `rnn` input `WeightList` 1", "expected shape [8, 2]", "received [8, 3]"});
  AttributeMap bad_input_size = Attrs(s);
  bad_input_size["input_size"] = 5;
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("rnn", Inputs<double>(s), Outputs(s), bad_input_size); },
      {"op `rnn` input `Input`", "input_size = 5", "[4, 3, 3]"});
  RnnSetup long_rows = s;
  long_rows.lengths = {1, 5, 2};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("rnn", Inputs<double>(long_rows), Outputs(s), Attrs(s)); },
      {"op `rnn` input `SequenceLength`", "row 1 has 5 steps", "0 to 4"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
