// warpctc (the CTC loss and its gradient) against a brute-force sum over every alignment,
// and edit_distance against a top-down recursion; LoD and padded layouts, errors.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

const DenseTensor& Out(const OpRunResult& r, const std::string& slot) {
  return r.outputs.at(slot).at(0);
}

// -log p(labels | logits) by enumerating every path of `steps` symbols out of `width`,
// collapsing repeats, dropping blanks and summing the products of the softmax probabilities
// of the paths that give `labels`.
double BruteForceCtc(const std::vector<double>& logits, int steps, int width,
                     const std::vector<int>& labels, int blank) {
  std::vector<double> y(logits.size());
  for (int t = 0; t < steps; ++t) {
    double sum = 0;
    for (int k = 0; k < width; ++k) sum += std::exp(logits[t * width + k]);
    for (int k = 0; k < width; ++k) y[t * width + k] = std::exp(logits[t * width + k]) / sum;
  }
  int64_t paths = 1;
  for (int t = 0; t < steps; ++t) paths *= width;
  double p = 0;
  for (int64_t code = 0; code < paths; ++code) {
    std::vector<int> path(steps);
    int64_t c = code;
    double prob = 1;
    for (int t = 0; t < steps; ++t) {
      path[t] = static_cast<int>(c % width);
      c /= width;
      prob *= y[t * width + path[t]];
    }
    std::vector<int> collapsed;
    for (int t = 0; t < steps; ++t) {
      if (path[t] != blank && (t == 0 || path[t] != path[t - 1])) collapsed.push_back(path[t]);
    }
    if (collapsed == labels) p += prob;
  }
  return -std::log(p);
}

struct Sample {
  int steps;
  std::vector<int> labels;
};

// Three samples, with a repeated label, a single label and an empty labelling; 4 symbols.
const std::vector<Sample> kSamples = {{5, {1, 1, 3}}, {4, {2}}, {3, {}}};
constexpr int kWidth = 4;

std::vector<double> SampleLogits(size_t n) {
  return RandomValues(kSamples[n].steps * kWidth, -2.0, 2.0, 11 + static_cast<unsigned>(n));
}

// The samples as LoD tensors: Logits [total steps, C], Label [total labels, 1].
SlotTensors LoDInputs(DataType dtype) {
  std::vector<double> logits, labels;
  std::vector<size_t> steps{0}, label_offsets{0};
  for (size_t n = 0; n < kSamples.size(); ++n) {
    const auto x = SampleLogits(n);
    logits.insert(logits.end(), x.begin(), x.end());
    labels.insert(labels.end(), kSamples[n].labels.begin(), kSamples[n].labels.end());
    steps.push_back(steps.back() + kSamples[n].steps);
    label_offsets.push_back(label_offsets.back() + kSamples[n].labels.size());
  }
  const DDim ld{static_cast<int64_t>(steps.back()), kWidth};
  DenseTensor x = dtype == DataType::FLOAT64 ? MakeLoDTensor<double>(ld, logits, {steps})
                                             : MakeLoDTensor<float>(ld, logits, {steps});
  return {{"Logits", {x}},
          {"Label",
           {MakeLoDTensor<int32_t>({static_cast<int64_t>(labels.size()), 1}, labels,
                                   {label_offsets})}}};
}

// The same samples padded: Logits [max steps, N, C] (time-major), Label [N, max labels].
SlotTensors PaddedInputs() {
  const int64_t n = static_cast<int64_t>(kSamples.size());
  const int max_steps = 5, max_labels = 4;
  std::vector<double> logits(max_steps * n * kWidth, 9.0);  // Padding must not be read.
  std::vector<double> labels(n * max_labels, 3), steps, label_lengths;
  for (int64_t s = 0; s < n; ++s) {
    const auto x = SampleLogits(s);
    for (int t = 0; t < kSamples[s].steps; ++t) {
      for (int k = 0; k < kWidth; ++k) logits[(t * n + s) * kWidth + k] = x[t * kWidth + k];
    }
    for (size_t j = 0; j < kSamples[s].labels.size(); ++j) {
      labels[s * max_labels + j] = kSamples[s].labels[j];
    }
    steps.push_back(kSamples[s].steps);
    label_lengths.push_back(static_cast<double>(kSamples[s].labels.size()));
  }
  return {{"Logits", {MakeTensor<double>({max_steps, n, kWidth}, logits)}},
          {"Label", {MakeTensor<int32_t>({n, max_labels}, labels)}},
          {"LogitsLength", {MakeTensor<int64_t>({n}, steps)}},
          {"LabelLength", {MakeTensor<int64_t>({n}, label_lengths)}}};
}

std::vector<double> BruteForceLosses(int blank) {
  std::vector<double> want;
  for (size_t n = 0; n < kSamples.size(); ++n) {
    want.push_back(
        BruteForceCtc(SampleLogits(n), kSamples[n].steps, kWidth, kSamples[n].labels, blank));
  }
  return want;
}

const std::map<std::string, int> kOutputs = {{"Loss", 1}, {"WarpCTCGrad", 1}};

TEST(WarpCtcOp, LoDLossMatchesEveryAlignmentSummed) {
  const auto r = RunOp("warpctc", LoDInputs(DataType::FLOAT64), kOutputs, {{"blank", 0}});
  EXPECT_EQ(Out(r, "Loss").dims(), DDim({3, 1}));
  ExpectNear(ToDoubles(Out(r, "Loss")), BruteForceLosses(0), 1e-12, 1e-12, "loss");
  EXPECT_EQ(Out(r, "WarpCTCGrad").dims(), DDim({5, 3, kWidth}));
  // Each step's gradient is softmax minus a distribution: it sums to 0.
  const auto g = ToDoubles(Out(r, "WarpCTCGrad"));
  for (int64_t row = 0; row < 15; ++row) {
    double sum = 0;
    for (int k = 0; k < kWidth; ++k) sum += g[row * kWidth + k];
    EXPECT_NEAR(sum, 0.0, 1e-12) << "row " << row;
  }
}

TEST(WarpCtcOp, PaddedMatchesLoD) {
  const auto padded = RunOp("warpctc", PaddedInputs(), kOutputs);
  ExpectNear(ToDoubles(Out(padded, "Loss")), BruteForceLosses(0), 1e-12, 1e-12, "padded loss");
  const auto lod = RunOp("warpctc", LoDInputs(DataType::FLOAT64), kOutputs);
  EXPECT_EQ(ToDoubles(Out(padded, "Loss")), ToDoubles(Out(lod, "Loss")));
  EXPECT_EQ(ToDoubles(Out(padded, "WarpCTCGrad")), ToDoubles(Out(lod, "WarpCTCGrad")));
}

TEST(WarpCtcOp, NonzeroBlankMatchesBruteForce) {
  // Labels drawn from {0, 1, 3} with blank 2.
  const std::vector<double> x = RandomValues(4 * kWidth, -1.5, 1.5, 5);
  const std::vector<int> labels{3, 0};
  const auto r = RunOp("warpctc",
                       {{"Logits", {MakeLoDTensor<double>({4, kWidth}, x, {{0, 4}})}},
                        {"Label", {MakeLoDTensor<int64_t>({2, 1}, {3, 0}, {{0, 2}})}}},
                       kOutputs, {{"blank", 2}});
  ExpectNear(ToDoubles(Out(r, "Loss")), {BruteForceCtc(x, 4, kWidth, labels, 2)}, 1e-12, 1e-12,
             "loss");
}

TEST(WarpCtcOp, GradientMatchesFiniteDifferences) {
  for (bool padded : {false, true}) {
    GradCheck g;
    g.op_type = "warpctc";
    g.inputs = padded ? PaddedInputs() : LoDInputs(DataType::FLOAT64);
    g.outputs = kOutputs;
    g.loss_outputs = {"Loss"};
    g.wrt = {"Logits"};
    g.attrs = {{"blank", 0}};
    SCOPED_TRACE(padded ? "padded" : "LoD");
    CheckGradients(g);
  }
}

TEST(WarpCtcOp, NormByTimesDividesTheGradientBySteps) {
  const auto inputs = LoDInputs(DataType::FLOAT64);
  const auto plain =
      NthGradient("warpctc", inputs, kOutputs, {{"norm_by_times", false}}, 1, {"Loss"});
  const auto normed =
      NthGradient("warpctc", inputs, kOutputs, {{"norm_by_times", true}}, 1, {"Loss"});
  const auto a = ToDoubles(plain.at("Logits_0")), b = ToDoubles(normed.at("Logits_0"));
  ASSERT_EQ(a.size(), b.size());
  size_t row = 0;
  for (const Sample& s : kSamples) {
    for (int t = 0; t < s.steps; ++t, ++row) {
      for (int k = 0; k < kWidth; ++k) {
        EXPECT_NEAR(b[row * kWidth + k], a[row * kWidth + k] / s.steps, 1e-14);
      }
    }
  }
}

TEST(WarpCtcOp, FloatAgreesWithDouble) {
  const auto d = RunOp("warpctc", LoDInputs(DataType::FLOAT64), kOutputs);
  const auto f = RunOp("warpctc", LoDInputs(DataType::FLOAT32), kOutputs);
  EXPECT_EQ(Out(f, "Loss").dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(Out(f, "Loss")), ToDoubles(Out(d, "Loss")), 1e-5, 1e-6, "loss");
  ExpectNear(ToDoubles(Out(f, "WarpCTCGrad")), ToDoubles(Out(d, "WarpCTCGrad")), 1e-5, 1e-6,
             "gradient");
}

TEST(WarpCtcOp, LabelsLongerThanStepsGiveZero) {
  // [1, 1] needs 3 steps (a blank between the repeats): with 2 there is no alignment.
  const auto r =
      RunOp("warpctc",
            {{"Logits", {MakeLoDTensor<double>({2, 3}, RandomValues(6, -1, 1), {{0, 2}})}},
             {"Label", {MakeLoDTensor<int32_t>({2, 1}, {1, 1}, {{0, 2}})}}},
            kOutputs);
  EXPECT_EQ(ToDoubles(Out(r, "Loss")), std::vector<double>{0.0});
  for (double v : ToDoubles(Out(r, "WarpCTCGrad"))) EXPECT_EQ(v, 0.0);
}

TEST(WarpCtcOp, BadInputsRaiseTypedErrors) {
  auto run = [](SlotTensors in, AttributeMap attrs = {}) {
    return [in, attrs] { RunOp("warpctc", in, kOutputs, attrs); };
  };
  SlotTensors in = LoDInputs(DataType::FLOAT64);
  ExpectError<platform::InvalidArgumentError>(run(in, {{"blank", 4}}),
                                              {"op `warpctc`", "`blank`", "[0, 4)", "4"});
  SlotTensors bad_label = in;
  bad_label["Label"] = {MakeLoDTensor<int32_t>({4, 1}, {1, 1, 7, 2}, {{0, 3, 4, 4}})};
  ExpectError<platform::InvalidArgumentError>(run(bad_label), {"`Label`", "label 7", "[0, 4)"});
  SlotTensors fewer = in;
  fewer["Label"] = {MakeLoDTensor<int32_t>({3, 1}, {1, 1, 3}, {{0, 3}})};
  ExpectError<platform::InvalidArgumentError>(run(fewer), {"`Label`", "3 sequences", "1"});
  SlotTensors half = PaddedInputs();
  half.erase("LabelLength");
  ExpectError<platform::InvalidArgumentError>(run(half), {"op `warpctc`", "LabelLength"});
  SlotTensors long_steps = PaddedInputs();
  long_steps["LogitsLength"] = {MakeTensor<int64_t>({3}, {5, 6, 3})};
  ExpectError<platform::InvalidArgumentError>(run(long_steps),
                                              {"`LogitsLength`", "value 6", "[0, 5]"});
  SlotTensors float_label = in;
  float_label["Label"] = {MakeLoDTensor<float>({4, 1}, {1, 1, 3, 2}, {{0, 3, 4, 4}})};
  ExpectError<platform::InvalidArgumentError>(run(float_label), {"`Label`", "int32 or int64"});
}

// ---------------------------------------------------------------- edit_distance

// The distance by the textbook top-down recursion, memoised.
int64_t RecursiveDistance(const std::vector<int64_t>& h, const std::vector<int64_t>& r) {
  std::map<std::pair<size_t, size_t>, int64_t> memo;
  std::function<int64_t(size_t, size_t)> d = [&](size_t i, size_t j) -> int64_t {
    if (i == 0) return static_cast<int64_t>(j);
    if (j == 0) return static_cast<int64_t>(i);
    auto it = memo.find({i, j});
    if (it != memo.end()) return it->second;
    const int64_t v = std::min(
        {d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (h[i - 1] == r[j - 1] ? 0 : 1)});
    return memo[{i, j}] = v;
  };
  return d(h.size(), r.size());
}

TEST(EditDistanceOp, KnownPairsInBothLayouts) {
  // "kitten" -> "sitting" is 3; [1, 2, 3] -> [1, 3] is 1; empty -> [4, 4] is 2.
  const std::vector<std::vector<int64_t>> hyps = {{11, 9, 20, 20, 5, 14}, {1, 2, 3}, {}};
  const std::vector<std::vector<int64_t>> refs = {{19, 9, 20, 20, 9, 14, 7}, {1, 3}, {4, 4}};
  const std::vector<double> want = {3, 1, 2};
  std::vector<double> h, r, hl, rl;
  std::vector<size_t> ho{0}, ro{0};
  for (size_t i = 0; i < hyps.size(); ++i) {
    h.insert(h.end(), hyps[i].begin(), hyps[i].end());
    r.insert(r.end(), refs[i].begin(), refs[i].end());
    ho.push_back(h.size());
    ro.push_back(r.size());
  }
  const auto lod =
      RunOp("edit_distance",
            {{"Hyps", {MakeLoDTensor<int64_t>({static_cast<int64_t>(h.size()), 1}, h, {ho})}},
             {"Refs", {MakeLoDTensor<int64_t>({static_cast<int64_t>(r.size()), 1}, r, {ro})}}},
            {{"Out", 1}, {"SequenceNum", 1}});
  EXPECT_EQ(Out(lod, "Out").dtype(), DataType::FLOAT32);
  EXPECT_EQ(ToDoubles(Out(lod, "Out")), want);
  EXPECT_EQ(ToDoubles(Out(lod, "SequenceNum")), std::vector<double>{3});
  // Padded: rows of 7 with junk after each length.
  std::vector<double> hp(21, 99), rp(21, 98);
  for (size_t i = 0; i < 3; ++i) {
    std::copy(hyps[i].begin(), hyps[i].end(), hp.begin() + 7 * i);
    std::copy(refs[i].begin(), refs[i].end(), rp.begin() + 7 * i);
    hl.push_back(static_cast<double>(hyps[i].size()));
    rl.push_back(static_cast<double>(refs[i].size()));
  }
  const auto padded = RunOp("edit_distance",
                            {{"Hyps", {MakeTensor<int32_t>({3, 7}, hp)}},
                             {"Refs", {MakeTensor<int32_t>({3, 7}, rp)}},
                             {"HypsLength", {MakeTensor<int64_t>({3, 1}, hl)}},
                             {"RefsLength", {MakeTensor<int64_t>({3}, rl)}}},
                            {{"Out", 1}, {"SequenceNum", 1}}, {{"normalized", true}});
  ExpectNear(ToDoubles(Out(padded, "Out")), {3.0 / 7, 0.5, 1.0}, 1e-7, 0, "normalized");
}

TEST(EditDistanceOp, RandomPairsMatchTheRecursion) {
  std::mt19937 gen(3);
  std::uniform_int_distribution<int> len(0, 9), sym(0, 3);
  std::vector<double> h, r, want;
  std::vector<size_t> ho{0}, ro{0};
  for (int i = 0; i < 40; ++i) {
    std::vector<int64_t> a(len(gen)), b(len(gen));
    for (auto& v : a) v = sym(gen);
    for (auto& v : b) v = sym(gen);
    h.insert(h.end(), a.begin(), a.end());
    r.insert(r.end(), b.begin(), b.end());
    ho.push_back(h.size());
    ro.push_back(r.size());
    want.push_back(static_cast<double>(RecursiveDistance(a, b)));
  }
  const auto out =
      RunOp("edit_distance",
            {{"Hyps", {MakeLoDTensor<int64_t>({static_cast<int64_t>(h.size()), 1}, h, {ho})}},
             {"Refs", {MakeLoDTensor<int64_t>({static_cast<int64_t>(r.size()), 1}, r, {ro})}}},
            {{"Out", 1}, {"SequenceNum", 1}});
  EXPECT_EQ(ToDoubles(Out(out, "Out")), want);
}

TEST(EditDistanceOp, BadInputsRaiseTypedErrors) {
  const auto hyps = MakeLoDTensor<int64_t>({2, 1}, {1, 2}, {{0, 1, 2}});
  const auto empty_ref = MakeLoDTensor<int64_t>({1, 1}, {1}, {{0, 1, 1}});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("edit_distance", {{"Hyps", {hyps}}, {"Refs", {empty_ref}}},
              {{"Out", 1}, {"SequenceNum", 1}}, {{"normalized", true}});
      },
      {"op `edit_distance`", "`Refs`", "reference 1 is empty", "normalized"});
  const auto three = MakeLoDTensor<int64_t>({3, 1}, {1, 2, 3}, {{0, 1, 2, 3}});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("edit_distance", {{"Hyps", {hyps}}, {"Refs", {three}}},
              {{"Out", 1}, {"SequenceNum", 1}});
      },
      {"`Refs`", "2 sequences", "3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("edit_distance",
              {{"Hyps", {MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4})}},
               {"Refs", {MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4})}},
               {"HypsLength", {MakeTensor<int64_t>({2}, {1, 3})}},
               {"RefsLength", {MakeTensor<int64_t>({2}, {1, 1})}}},
              {{"Out", 1}, {"SequenceNum", 1}});
      },
      {"`HypsLength`", "value 3", "[0, 2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
