// crf_decoding: Viterbi paths against an exhaustive search over all tag sequences, in LoD and
// padded (Length) form, the Label comparison, no gradient, and the typed errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "framework/op_info.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class CrfDecodingTest : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

// The best path of x [len, d] under w [d + 2, d] by trying every tag sequence.
std::vector<int64_t> BruteForce(const std::vector<double>& x, int64_t begin, int64_t len, int64_t d,
                                const std::vector<double>& w) {
  std::vector<int64_t> best_path, path(static_cast<size_t>(len), 0);
  double best = -1e300;
  while (true) {
    double s = w[path[0]] + w[d + path[len - 1]];
    for (int64_t k = 0; k < len; ++k) s += x[(begin + k) * d + path[k]];
    for (int64_t k = 1; k < len; ++k) s += w[(2 + path[k - 1]) * d + path[k]];
    if (s > best) best = s, best_path = path;
    int64_t k = len - 1;
    while (k >= 0 && ++path[k] == d) path[k--] = 0;
    if (k < 0) break;
  }
  return best_path;
}

template <typename T>
void CheckLoDForm() {
  const int64_t d = 3;
  const std::vector<size_t> lod = {0, 4, 4, 5, 8};
  const std::vector<double> x = RandomValues(8 * d, -2, 2, 21);
  const std::vector<double> w = RandomValues((d + 2) * d, -1, 1, 22);
  DenseTensor e = MakeTensor<T>(DDim{8, d}, x);
  e.set_lod({lod});
  auto r = RunOp("crf_decoding", {{"Emission", {e}}, {"Transition", {MakeTensor<T>(DDim{d + 2, d}, w)}}},
                 {{"ViterbiPath", 1}});
  const DenseTensor& path = r.outputs["ViterbiPath"][0];
  ASSERT_EQ(path.dtype(), DataType::INT64);
  EXPECT_EQ(path.dims(), (DDim{8, 1}));
  EXPECT_EQ(path.lod(), (framework::LoD{lod}));
  std::vector<int64_t> want;
  for (size_t i = 0; i + 1 < lod.size(); ++i) {
    if (lod[i] == lod[i + 1]) continue;
    const auto p = BruteForce(x, lod[i], lod[i + 1] - lod[i], d, w);
    want.insert(want.end(), p.begin(), p.end());
  }
  const int64_t* got = path.data<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(got, got + 8), want);
}

TEST_F(CrfDecodingTest, LoDSequencesMatchExhaustiveSearch) {
  CheckLoDForm<float>();
  CheckLoDForm<double>();
}

TEST_F(CrfDecodingTest, HandWorkedPath) {
  // No transition scores: each step takes its best emission.
  DenseTensor e = MakeTensor<float>(DDim{2, 2}, {1, 0, 0, 1});
  e.set_lod({{0, 2}});
  auto r = RunOp("crf_decoding", {{"Emission", {e}}, {"Transition", {MakeTensor<float>(DDim{4, 2}, std::vector<double>(8, 0))}}},
                 {{"ViterbiPath", 1}});
  EXPECT_EQ(ToDoubles(r.outputs["ViterbiPath"][0]), (std::vector<double>{0, 1}));
  // A strong 0 -> 0 transition keeps the path on tag 0.
  auto sticky = RunOp("crf_decoding",
                      {{"Emission", {e}}, {"Transition", {MakeTensor<float>(DDim{4, 2}, {0, 0, 0, 0, 5, 0, 0, 0})}}},
                      {{"ViterbiPath", 1}});
  EXPECT_EQ(ToDoubles(sticky.outputs["ViterbiPath"][0]), (std::vector<double>{0, 0}));
}

TEST_F(CrfDecodingTest, PaddedWithLengthAndLabel) {
  const int64_t b = 3, t = 4, d = 3;
  const std::vector<double> x = RandomValues(b * t * d, -2, 2, 23);
  const std::vector<double> w = RandomValues((d + 2) * d, -1, 1, 24);
  const std::vector<double> lengths = {4, 0, 2};
  const SlotTensors in = {{"Emission", {MakeTensor<double>(DDim{b, t, d}, x)}},
                          {"Transition", {MakeTensor<double>(DDim{d + 2, d}, w)}},
                          {"Length", {MakeTensor<int64_t>(DDim{b}, lengths)}}};
  auto r = RunOp("crf_decoding", in, {{"ViterbiPath", 1}});
  const DenseTensor& path = r.outputs["ViterbiPath"][0];
  EXPECT_EQ(path.dims(), (DDim{b, t}));
  std::vector<double> want(b * t, 0);
  for (int64_t i = 0; i < b; ++i) {
    if (lengths[i] == 0) continue;
    const auto p = BruteForce(x, i * t, static_cast<int64_t>(lengths[i]), d, w);
    for (size_t k = 0; k < p.size(); ++k) want[i * t + k] = static_cast<double>(p[k]);
  }
  EXPECT_EQ(ToDoubles(path), want);

  // With Label: 1 where the decoded tag equals the label, 0 elsewhere and beyond each length.
  std::vector<double> label(b * t);
  for (size_t k = 0; k < label.size(); ++k) label[k] = k % 2 ? want[k] : (static_cast<int64_t>(want[k]) + 1) % d;
  SlotTensors with_label = in;
  with_label["Label"] = {MakeTensor<int64_t>(DDim{b, t}, label)};
  auto l = RunOp("crf_decoding", with_label, {{"ViterbiPath", 1}});
  std::vector<double> hits(b * t, 0);
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t k = 0; k < lengths[i]; ++k) hits[i * t + k] = k % 2 ? 1 : 0;
  }
  EXPECT_EQ(ToDoubles(l.outputs["ViterbiPath"][0]), hits);
}

TEST_F(CrfDecodingTest, LabelWithLoD) {
  DenseTensor e = MakeTensor<float>(DDim{3, 2}, {1, 0, 0, 1, 1, 0});
  e.set_lod({{0, 2, 3}});
  DenseTensor label = MakeTensor<int64_t>(DDim{3, 1}, {0, 0, 0});
  label.set_lod({{0, 2, 3}});
  auto r = RunOp("crf_decoding",
                 {{"Emission", {e}}, {"Transition", {MakeTensor<float>(DDim{4, 2}, std::vector<double>(8, 0))}},
                  {"Label", {label}}},
                 {{"ViterbiPath", 1}});
  // Decoded [0, 1], [0] against labels [0, 0], [0].
  EXPECT_EQ(ToDoubles(r.outputs["ViterbiPath"][0]), (std::vector<double>{1, 0, 1}));
}

TEST_F(CrfDecodingTest, HasNoGradient) {
  EXPECT_FALSE(framework::OpInfoMap::Instance().Get("crf_decoding").grad_op_maker);
  EXPECT_FALSE(framework::OpInfoMap::Instance().Has("crf_decoding_grad"));
}

TEST_F(CrfDecodingTest, Errors) {
  DenseTensor e = MakeTensor<float>(DDim{3, 2}, RandomValues(6, -1, 1));
  e.set_lod({{0, 1, 3}});
  const DenseTensor w = MakeTensor<float>(DDim{4, 2}, RandomValues(8, -1, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("crf_decoding", {{"Emission", {e}}, {"Transition", {MakeTensor<float>(DDim{3, 2}, RandomValues(6, -1, 1))}}},
              {{"ViterbiPath", 1}});
      },
      {"crf_decoding", "`Transition`", "[D + 2, D]", "[3, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("crf_decoding", {{"Emission", {MakeTensor<float>(DDim{3, 2}, RandomValues(6, -1, 1))}}, {"Transition", {w}}},
              {{"ViterbiPath", 1}});
      },
      {"crf_decoding", "`Emission`", "without LoD"});
  const DenseTensor padded = MakeTensor<float>(DDim{2, 3, 2}, RandomValues(12, -1, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("crf_decoding",
              {{"Emission", {padded}}, {"Transition", {w}}, {"Length", {MakeTensor<int64_t>(DDim{2}, {3, 4})}}},
              {{"ViterbiPath", 1}});
      },
      {"crf_decoding", "`Length`", "length 4 of row 1", "[0, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("crf_decoding",
              {{"Emission", {padded}}, {"Transition", {w}}, {"Length", {MakeTensor<int64_t>(DDim{3}, {1, 1, 1})}}},
              {{"ViterbiPath", 1}});
      },
      {"crf_decoding", "`Length`", "expected 2 lengths"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("crf_decoding", {{"Emission", {padded}}, {"Transition", {w}}}, {{"ViterbiPath", 1}}); },
      {"crf_decoding", "`Emission`", "[N, D]", "[2, 3, 2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
