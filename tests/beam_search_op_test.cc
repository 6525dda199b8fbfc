// beam_search against a brute-force reference (every candidate of a source ranked by one full
// sort) over random LoDs, beam sizes, finished prefixes and both score conventions;
// beam_search_decode on a hand-traced three-step search; the errors of both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

#include "tests/optimizer_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LoD;

struct Step {
  std::vector<int64_t> ids;
  std::vector<double> scores;
  std::vector<int32_t> parents;
  LoD lod;
};

// The documented step for distinct scores, computed by ranking every candidate of a source
// with one sort (higher score first).
Step ReferenceStep(const LoD& lod, const std::vector<int64_t>& pre_ids,
                   const std::vector<double>& pre_scores, const std::vector<int64_t>* ids,
                   const std::vector<double>& scores, int64_t width, size_t beam, int64_t end_id,
                   bool accumulated) {
  // Row offsets of the sources (level 0 through level 1).
  std::vector<size_t> sources;
  for (size_t o : lod[0]) sources.push_back(lod[1][o]);
  const size_t rows = lod[1].back();
  std::vector<std::vector<std::tuple<double, int64_t>>> kept(rows);  // (score, id) per row.
  for (size_t s = 0; s + 1 < sources.size(); ++s) {
    // (score, row, -k, id): sorting descending ranks as documented.
    std::vector<std::tuple<double, int64_t, int64_t, int64_t>> all;
    for (size_t r = sources[s]; r < sources[s + 1]; ++r) {
      if (pre_ids[r] == end_id) {
        all.emplace_back(pre_scores[r], r, 0, end_id);
        continue;
      }
      for (int64_t k = 0; k < width; ++k) {
        const double v = scores[r * width + k];
        all.emplace_back(accumulated ? v : pre_scores[r] + std::log(v), r, -k,
                         ids ? (*ids)[r * width + k] : k);
      }
    }
    std::sort(all.rbegin(), all.rend());
    all.resize(std::min(all.size(), beam));
    bool done = true;
    for (const auto& c : all) done &= std::get<3>(c) == end_id && pre_ids[std::get<1>(c)] == end_id;
    if (done) continue;
    for (const auto& c : all) kept[std::get<1>(c)].emplace_back(std::get<0>(c), std::get<3>(c));
  }
  Step out;
  std::vector<size_t> per_row = {0};
  for (size_t r = 0; r < rows; ++r) {
    for (const auto& [score, id] : kept[r]) {
      out.ids.push_back(id);
      out.scores.push_back(score);
      out.parents.push_back(static_cast<int32_t>(r));
    }
    per_row.push_back(out.ids.size());
  }
  out.lod = {sources, per_row};
  return out;
}

template <typename T>
class BeamSearchTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BeamSearchTest, FloatTypes);

TYPED_TEST(BeamSearchTest, MatchesTheBruteForceRankingOnRandomSteps) {
  using T = TypeParam;
  std::mt19937 gen(11);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t width = 1 + static_cast<int64_t>(gen() % 5);
    const size_t beam = 1 + gen() % 4;
    const int64_t end_id = static_cast<int64_t>(gen() % 3);
    const bool accumulated = gen() % 2 == 0;
    const bool with_ids = gen() % 3 != 0;
    // 1-4 sources of 0-3 prefixes each, one row per prefix.
    LoD lod = {{0}, {0}};
    const size_t sources = 1 + gen() % 4;
    for (size_t s = 0; s < sources; ++s) {
      const size_t prefixes = gen() % 4;
      for (size_t p = 0; p < prefixes; ++p) lod[1].push_back(lod[1].back() + 1);
      lod[0].push_back(lod[1].size() - 1);
    }
    if (lod[1].size() == 1) continue;  // No prefix at all: not a LoD that describes rows.
    const auto rows = static_cast<int64_t>(lod[1].back());
    std::vector<int64_t> pre_ids(rows), ids(rows * width);
    for (auto& v : pre_ids) v = static_cast<int64_t>(gen() % 4);  // Often end_id.
    for (auto& v : ids) v = static_cast<int64_t>(gen() % 6);
    // Distinct scores (ties are tested apart), stored in T first so both sides see them.
    std::uniform_real_distribution<double> uniform(0.05, 1.0);
    std::vector<double> pre_scores(rows), scores(rows * width);
    for (auto& v : pre_scores) v = static_cast<T>(-3 * uniform(gen));
    for (auto& v : scores) v = static_cast<T>(accumulated ? -3 * uniform(gen) : uniform(gen));
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " lod " << framework::LoDToString(lod)
                                      << " width " << width << " beam " << beam << " end " << end_id
                                      << " accumulated " << accumulated << " ids " << with_ids);
    framework::VariableNameMap inputs = {
        {"pre_ids", {"pre_ids"}}, {"pre_scores", {"pre_scores"}}, {"scores", {"scores"}}};
    std::map<std::string, DenseTensor> feeds = {
        {"pre_ids", MakeLoDTensor<int64_t>(
                        {rows, 1}, std::vector<double>(pre_ids.begin(), pre_ids.end()), lod)},
        {"pre_scores", MakeLoDTensor<T>({rows, 1}, pre_scores, lod)},
        {"scores", MakeLoDTensor<T>({rows, width}, scores, lod)}};
    if (with_ids) {
      inputs["ids"] = {"ids"};
      feeds["ids"] =
          MakeLoDTensor<int64_t>({rows, width}, std::vector<double>(ids.begin(), ids.end()), lod);
    }
    const NamedOpRun r = RunNamedOp(
        "beam_search", inputs,
        {{"selected_ids", {"sel_ids"}}, {"selected_scores", {"sel_scores"}}, {"parent_idx", {"p"}}},
        feeds,
        {{"beam_size", static_cast<int>(beam)},
         {"end_id", static_cast<int>(end_id)},
         {"is_accumulated", accumulated}});
    const Step want = ReferenceStep(lod, pre_ids, pre_scores, with_ids ? &ids : nullptr, scores,
                                    width, beam, end_id, accumulated);
    const DenseTensor& got_ids = r.vars.at("sel_ids");
    EXPECT_EQ(got_ids.lod(), want.lod);
    EXPECT_EQ(r.vars.at("sel_scores").lod(), want.lod);
    EXPECT_EQ(got_ids.dims(), DDim({static_cast<int64_t>(want.ids.size()), 1}));
    EXPECT_EQ(ToDoubles(got_ids), std::vector<double>(want.ids.begin(), want.ids.end()));
    EXPECT_EQ(ToDoubles(r.vars.at("p")),
              std::vector<double>(want.parents.begin(), want.parents.end()));
    ExpectNear(ToDoubles(r.vars.at("sel_scores")), want.scores,
               std::is_same_v<T, float> ? 1e-6 : 1e-14, 0, "selected_scores");
  }
}

TEST(BeamSearch, TiesAtTheLastPlaceGoToTheLaterCandidate) {
  // One prefix with four candidates of one score and a beam of 2: the first keeps the first
  // place, each later one takes the last place from the one before it. Two prefixes with one
  // score: the higher row ranks first.
  operators::RegisterAllOps();
  const LoD one = {{0, 1}, {0, 1}};
  const NamedOpRun r =
      RunNamedOp("beam_search", {{"pre_ids", {"a"}}, {"pre_scores", {"b"}}, {"scores", {"c"}}},
                 {{"selected_ids", {"d"}}, {"selected_scores", {"e"}}},
                 {{"a", MakeLoDTensor<int64_t>({1, 1}, {4}, one)},
                  {"b", MakeLoDTensor<float>({1, 1}, {0}, one)},
                  {"c", MakeLoDTensor<float>({1, 4}, {-1, -1, -1, -1}, one)}},
                 {{"beam_size", 2}, {"end_id", 0}});
  EXPECT_EQ(ToDoubles(r.vars.at("d")), (std::vector<double>{0, 3}));
  const LoD two = {{0, 2}, {0, 1, 2}};
  const NamedOpRun rows =
      RunNamedOp("beam_search", {{"pre_ids", {"a"}}, {"pre_scores", {"b"}}, {"scores", {"c"}}},
                 {{"selected_ids", {"d"}}, {"selected_scores", {"e"}}, {"parent_idx", {"p"}}},
                 {{"a", MakeLoDTensor<int64_t>({2, 1}, {4, 4}, two)},
                  {"b", MakeLoDTensor<float>({2, 1}, {0, 0}, two)},
                  {"c", MakeLoDTensor<float>({2, 1}, {-1, -1}, two)}},
                 {{"beam_size", 1}, {"end_id", 0}});
  EXPECT_EQ(ToDoubles(rows.vars.at("p")), std::vector<double>{1});
}

TEST(BeamSearch, RejectsInputsThatDoNotFitTheScores) {
  operators::RegisterAllOps();
  const LoD lod = {{0, 2}, {0, 1, 2}};
  const auto run = [&](DenseTensor pre_ids, DenseTensor scores, int beam) {
    RunNamedOp("beam_search", {{"pre_ids", {"a"}}, {"pre_scores", {"b"}}, {"scores", {"c"}}},
               {{"selected_ids", {"d"}}, {"selected_scores", {"e"}}},
               {{"a", pre_ids}, {"b", MakeLoDTensor<float>({2, 1}, {0, 0}, lod)}, {"c", scores}},
               {{"beam_size", beam}, {"end_id", 0}});
  };
  const DenseTensor good_scores = MakeLoDTensor<float>({2, 2}, {-1, -2, -3, -4}, lod);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(MakeLoDTensor<int64_t>({3, 1}, {1, 2, 3}, lod), good_scores, 2);
      },
      {"beam_search", "`pre_ids`", "one element per row", "[3, 1]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(MakeTensor<int64_t>({2, 1}, {1, 2}), MakeTensor<float>({2, 2}, {1, 2, 3, 4}), 2);
      },
      {"beam_search", "`scores`", "LoD"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(MakeLoDTensor<int64_t>({2, 1}, {1, 2}, lod),
            MakeLoDTensor<float>({2, 2}, {1, 2, 3, 4}, {{0, 2}, {0, 1, 3}}), 2);
      },
      {"beam_search", "`scores`", "LoD"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(MakeLoDTensor<int64_t>({2, 1}, {1, 2}, lod), good_scores, 0);
      },
      {"beam_search", "`beam_size`", "> 0"});
}

// ---- beam_search_decode ----

struct DecodeStep {
  LoD lod;
  std::vector<double> ids, scores;
};

// Three steps, beam 2, end id 0: source 0 ends one sentence at step 1 and repeats the end at
// step 2; source 1 has no candidates after step 1.
const std::vector<DecodeStep> kSteps = {
    {{{0, 1, 2}, {0, 2, 4}}, {5, 7, 3, 4}, {-0.1, -0.5, -0.2, -0.3}},
    {{{0, 2, 4}, {0, 1, 2, 4, 4}}, {6, 0, 8, 9}, {-0.3, -0.6, -0.4, -0.45}},
    {{{0, 2, 4}, {0, 1, 2, 2, 2}}, {10, 0}, {-0.5, -0.6}},
};

template <typename T>
NamedOpRun Decode(const std::vector<DecodeStep>& steps, int beam_size) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("ids")->SetKind(framework::VarKind::kDenseTensorArray);
  b.Var("scores")->SetKind(framework::VarKind::kDenseTensorArray);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("beam_search_decode");
  op->SetInput("Ids", {"ids"});
  op->SetInput("Scores", {"scores"});
  op->SetOutput("SentenceIds", {"sentence_ids"});
  op->SetOutput("SentenceScores", {"sentence_scores"});
  op->SetAttr("beam_size", beam_size);
  op->SetAttr("end_id", 0);
  for (const char* v : {"ids", "scores", "sentence_ids", "sentence_scores"}) {
    b.Var(v)->SetPersistable(true);
  }
  framework::Scope scope;
  auto* ids = scope.Var("ids")->GetMutable<framework::DenseTensorArray>();
  auto* scores = scope.Var("scores")->GetMutable<framework::DenseTensorArray>();
  for (const DecodeStep& s : steps) {
    const auto n = static_cast<int64_t>(s.ids.size());
    ids->push_back(MakeLoDTensor<int64_t>({n, 1}, s.ids, s.lod));
    scores->push_back(MakeLoDTensor<T>({n, 1}, s.scores, s.lod));
  }
  framework::Executor(platform::CPUPlace()).Run(program, &scope, {}, {});
  NamedOpRun r;
  for (const char* v : {"sentence_ids", "sentence_scores"}) {
    r.vars[v] = Own(scope.FindVar(v)->Get<DenseTensor>());
  }
  return r;
}

template <typename T>
class BeamSearchDecodeTest : public ::testing::Test {};
TYPED_TEST_SUITE(BeamSearchDecodeTest, FloatTypes);

TYPED_TEST(BeamSearchDecodeTest, BacktracesTheHandTracedSearch) {
  using T = TypeParam;
  const NamedOpRun r = Decode<T>(kSteps, 2);
  // Source 0: 5 -> 6 -> 10 (last score -0.5), 7 -> 0 (the end repeated at step 2 written
  // once; -0.6). Source 1 stopped at step 1: 3 -> 8 (-0.4), 3 -> 9 (-0.45).
  EXPECT_EQ(ToDoubles(r.vars.at("sentence_ids")),
            (std::vector<double>{5, 6, 10, 7, 0, 3, 8, 3, 9}));
  ExpectNear(ToDoubles(r.vars.at("sentence_scores")),
             {-0.1, -0.3, -0.5, -0.5, -0.6, -0.2, -0.4, -0.2, -0.45},
             std::is_same_v<T, float> ? 1e-6 : 1e-15, 0, "sentence_scores");
  const LoD lod = {{0, 2, 4}, {0, 3, 5, 7, 9}};
  EXPECT_EQ(r.vars.at("sentence_ids").lod(), lod);
  EXPECT_EQ(r.vars.at("sentence_scores").lod(), lod);
  EXPECT_EQ(r.vars.at("sentence_scores").dtype(), platform::ToDataType<T>());
}

TEST(BeamSearchDecode, SortsByTheFinalScoreAndPadsToTheBeam) {
  // One step, one source with two candidates in the order of their rows, the better second;
  // a beam of 3 leaves one empty sentence, written last.
  const std::vector<DecodeStep> steps = {{{{0, 1}, {0, 2}}, {4, 9}, {-0.7, -0.2}}};
  const NamedOpRun r = Decode<float>(steps, 3);
  EXPECT_EQ(ToDoubles(r.vars.at("sentence_ids")), (std::vector<double>{9, 4}));
  EXPECT_EQ(r.vars.at("sentence_ids").lod(), (LoD{{0, 3}, {0, 1, 2, 2}}));
}

TEST(BeamSearchDecode, RejectsMalformedSteps) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Decode<float>({{{{0, 2}}, {1, 2}, {-1, -2}}}, 2);
      },
      {"beam_search_decode", "`Ids`", "two-level LoD"});
  ExpectError<platform::InvalidArgumentError>([] { Decode<float>({}, 2); },
                                              {"beam_search_decode", "`Ids`", "at least one step"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Decode<float>({{{{0, 1}, {0, 3}}, {1, 2, 3}, {-1, -2, -3}}}, 2);
      },
      {"beam_search_decode", "`beam_size` (2)"});
  // Steps whose sources disagree.
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Decode<float>(
            {{{{0, 1}, {0, 2}}, {1, 2}, {-1, -2}}, {{{0, 1, 2}, {0, 1, 2}}, {3, 4}, {-1, -2}}}, 2);
      },
      {"beam_search_decode", "step 1", "1 sources"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
