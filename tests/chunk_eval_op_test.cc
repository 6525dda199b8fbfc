// chunk_eval (operators/metrics/chunk_eval_op.cc): tag sequences written here from known chunk
// lists in each scheme's encoding, so the counts (inferred, labeled, correct) are known; LoD
// and padded layouts, excluded chunk types, hand-checked malformed tag runs, and bad inputs.
// Random tag sequences are checked against PaddlePaddle by the fixture chunk_eval_*.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "operators/registry.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr int kTypes = 3;

struct Span {
  int begin, end, type;  // Inclusive.
  bool operator<(const Span& o) const {
    return std::tie(begin, end, type) < std::tie(o.begin, o.end, o.type);
  }
};

// Tags of a sequence of `length` holding `spans` (disjoint, separated by at least one O so
// that plain's runs stay apart).
std::vector<double> Encode(const std::string& scheme, const std::vector<Span>& spans, int length) {
  const int kinds = scheme == "IOBES" ? 4 : (scheme == "plain" ? 1 : 2);
  std::vector<double> tags(length, kTypes * kinds);  // O
  for (const Span& s : spans) {
    for (int i = s.begin; i <= s.end; ++i) {
      int pos = 0;
      if (scheme == "IOB") pos = i == s.begin ? 0 : 1;
      if (scheme == "IOE") pos = i == s.end ? 1 : 0;
      if (scheme == "IOBES") {
        pos = s.begin == s.end ? 3 : (i == s.begin ? 0 : (i == s.end ? 2 : 1));
      }
      tags[i] = s.type * kinds + pos;
    }
  }
  return tags;
}

struct Counts {
  double precision, recall, f1;
  std::vector<double> numbers;  // inferred, labeled, correct
};

Counts RunChunkEval(const DenseTensor& inference, const DenseTensor& label,
                    const std::string& scheme, const std::vector<int>& excluded,
                    const DenseTensor* lengths = nullptr) {
  SlotTensors in = {{"Inference", {inference}}, {"Label", {label}}};
  if (lengths != nullptr) in["SeqLength"] = {*lengths};
  const OpRunResult r = RunOp(
      "chunk_eval", in,
      {{"Precision", 1},
       {"Recall", 1},
       {"F1-Score", 1},
       {"NumInferChunks", 1},
       {"NumLabelChunks", 1},
       {"NumCorrectChunks", 1}},
      {{"num_chunk_types", kTypes}, {"chunk_scheme", scheme}, {"excluded_chunk_types", excluded}});
  const auto one = [&](const char* slot) { return ToDoubles(r.outputs.at(slot)[0])[0]; };
  return {one("Precision"),
          one("Recall"),
          one("F1-Score"),
          {one("NumInferChunks"), one("NumLabelChunks"), one("NumCorrectChunks")}};
}

TEST(ChunkEvalOp, CountsTheChunksOfEverySchemeEncoding) {
  operators::RegisterAllOps();
  // Two sequences: label and inferred chunks, some equal, some shifted or retyped.
  const std::vector<std::vector<Span>> labels = {{{0, 1, 0}, {3, 3, 2}, {5, 8, 1}},
                                                 {{1, 2, 1}, {4, 4, 0}}};
  const std::vector<std::vector<Span>> inferred = {{{0, 1, 0}, {3, 3, 1}, {5, 7, 1}},
                                                   {{1, 2, 1}, {4, 4, 0}, {6, 6, 2}}};
  const std::vector<int> lengths = {10, 8};
  for (const std::string scheme : {"IOB", "IOE", "IOBES", "plain"}) {
    for (const std::vector<int>& excluded : {std::vector<int>{}, std::vector<int>{1}}) {
      SCOPED_TRACE(scheme + (excluded.empty() ? "" : " excluding type 1"));
      std::vector<double> inf, lab;
      double n_inf = 0, n_lab = 0, n_correct = 0;
      const std::set<int> ex(excluded.begin(), excluded.end());
      for (size_t s = 0; s < labels.size(); ++s) {
        const auto a = Encode(scheme, inferred[s], lengths[s]);
        const auto b = Encode(scheme, labels[s], lengths[s]);
        inf.insert(inf.end(), a.begin(), a.end());
        lab.insert(lab.end(), b.begin(), b.end());
        const std::set<Span> ref(labels[s].begin(), labels[s].end());
        for (const Span& c : inferred[s]) {
          if (ex.count(c.type)) continue;
          ++n_inf;
          n_correct += ref.count(c);
        }
        for (const Span& c : labels[s]) n_lab += ex.count(c.type) == 0;
      }
      DenseTensor ti = MakeTensor<int64_t>({18, 1}, inf), tl = MakeTensor<int64_t>({18, 1}, lab);
      ti.set_lod({{0, 10, 18}});
      tl.set_lod({{0, 10, 18}});
      const Counts c = RunChunkEval(ti, tl, scheme, excluded);
      EXPECT_EQ(c.numbers, std::vector<double>({n_inf, n_lab, n_correct}));
      const double p = n_correct / n_inf, r = n_correct / n_lab;
      EXPECT_NEAR(c.precision, p, 1e-7);
      EXPECT_NEAR(c.recall, r, 1e-7);
      EXPECT_NEAR(c.f1, 2 * p * r / (p + r), 1e-7);

      // The same sequences padded to [2, 10] with SeqLength.
      std::vector<double> pi(20, 0), pl(20, 0);
      for (int i = 0; i < 10; ++i) pi[i] = inf[i], pl[i] = lab[i];
      for (int i = 0; i < 8; ++i) pi[10 + i] = inf[10 + i], pl[10 + i] = lab[10 + i];
      const DenseTensor len = MakeTensor<int64_t>({2}, {10, 8});
      const Counts padded = RunChunkEval(MakeTensor<int64_t>({2, 10}, pi),
                                         MakeTensor<int64_t>({2, 10}, pl), scheme, excluded, &len);
      EXPECT_EQ(padded.numbers, c.numbers);
    }
  }
}

TEST(ChunkEvalOp, MalformedRunsFollowTheSchemeRules) {
  operators::RegisterAllOps();
  // IOB, 3 types, O = 6. I-0 I-0 without a B opens a chunk; B-0 B-0 are two chunks; I-1 after
  // B-0 starts a new chunk of type 1: chunks (0-1, 0), (3, 0), (4, 0), (5, 1).
  const std::vector<double> tags = {1, 1, 6, 0, 0, 3};
  // Labels hold exactly those four chunks written properly.
  const std::vector<double> label = {0, 1, 6, 0, 0, 2};
  DenseTensor a = MakeTensor<int64_t>({6, 1}, tags), b = MakeTensor<int64_t>({6, 1}, label);
  a.set_lod({{0, 6}});
  b.set_lod({{0, 6}});
  const Counts c = RunChunkEval(a, b, "IOB", {});
  EXPECT_EQ(c.numbers, std::vector<double>({4, 4, 4}));
  // Nothing inferred: precision 0, and F1 0.
  const std::vector<double> none(6, 6);
  DenseTensor o = MakeTensor<int64_t>({6, 1}, none);
  o.set_lod({{0, 6}});
  const Counts empty = RunChunkEval(o, b, "IOB", {});
  EXPECT_EQ(empty.numbers, std::vector<double>({0, 4, 0}));
  EXPECT_EQ(empty.precision, 0);
  EXPECT_EQ(empty.f1, 0);
}

TEST(ChunkEvalOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  DenseTensor a = MakeTensor<int64_t>({3, 1}, {0, 7, 1});
  a.set_lod({{0, 3}});
  ExpectError<platform::InvalidArgumentError>([&] { RunChunkEval(a, a, "IOB", {}); },
                                              {"op `chunk_eval` input `Inference`", "[0, 6]", "7"});
  DenseTensor b = MakeTensor<int64_t>({3, 1}, {0, 1, 1});
  ExpectError<platform::InvalidArgumentError>([&] { RunChunkEval(b, b, "IOB", {}); },
                                              {"op `chunk_eval` input `Inference`", "LoD"});
  const DenseTensor len = MakeTensor<int64_t>({1}, {4});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunChunkEval(MakeTensor<int64_t>({1, 3}, {0, 1, 6}), MakeTensor<int64_t>({1, 3}, {0, 1, 6}),
                     "IOB", {}, &len);
      },
      {"op `chunk_eval` input `SeqLength`", "outside [0, 3]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
