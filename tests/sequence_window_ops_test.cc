// sequence_slice, sequence_reshape, sequence_erase, sequence_enumerate and sequence_scatter
// against results built by hand from the LoD, the doc examples, gradients by finite
// differences, typed errors.
#include <set>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LoD;

TEST(SequenceWindowOps, SliceAndReshapeByHand) {
  operators::RegisterAllOps();
  const std::vector<size_t> lod = {0, 4, 5, 9};
  const std::vector<double> x = RandomValues(9 * 2, -1, 1, 3);
  const auto r = RunOp("sequence_slice",
                       {{"X", {MakeLoDTensor<double>({9, 2}, x, {lod})}},
                        {"Offset", {MakeTensor<int64_t>({3, 1}, {1, 0, 2})}},
                        {"Length", {MakeTensor<int32_t>({3, 1}, {3, 1, 0})}}},
                       {{"Out", 1}});
  std::vector<double> want(x.begin() + 2, x.begin() + 8);  // Rows 1..3.
  want.insert(want.end(), x.begin() + 8, x.begin() + 10);  // Row 4.
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 3, 4, 4}}));
  // Reshape [9, 2] sequences of 4, 1, 4 rows to width 1: 8, 2, 8 rows, same values.
  const auto s = RunOp("sequence_reshape", {{"X", {MakeLoDTensor<double>({9, 2}, x, {lod})}}},
                       {{"Out", 1}}, {{"new_dim", 1}});
  EXPECT_EQ(ToDoubles(s.outputs.at("Out")[0]), x);
  EXPECT_EQ(s.outputs.at("Out")[0].lod(), (LoD{{0, 8, 10, 18}}));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_reshape", {{"X", {MakeLoDTensor<double>({9, 2}, x, {lod})}}}, {{"Out", 1}},
              {{"new_dim", 4}});
      },
      {"op `sequence_reshape` attribute `new_dim`",
       "4 does not divide the 2 elements of sequence 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_slice",
              {{"X", {MakeLoDTensor<double>({9, 2}, x, {lod})}},
               {"Offset", {MakeTensor<int64_t>({3, 1}, {1, 0, 2})}},
               {"Length", {MakeTensor<int64_t>({3, 1}, {3, 2, 0})}}},
              {{"Out", 1}});
      },
      {"op `sequence_slice`", "window [0, 0 + 2) of sequence 1", "1 rows"});
}

TEST(SequenceWindowOps, EraseAndEnumerateTokens) {
  operators::RegisterAllOps();
  const std::vector<double> tokens = {2, 2, 6, 1, 3, 9, 6, 1};
  auto r = RunOp("sequence_erase", {{"X", {MakeLoDTensor<int64_t>({8, 1}, tokens, {{0, 3, 8}})}}},
                 {{"Out", 1}}, {{"tokens", std::vector<int>{2, 3, 5}}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{6, 1, 9, 6, 1}));
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 1, 5}}));
  // A two-level LoD: only the last level is recounted.
  r = RunOp("sequence_erase",
            {{"X", {MakeLoDTensor<int32_t>({8, 1}, tokens, {{0, 2}, {0, 3, 8}})}}}, {{"Out", 1}},
            {{"tokens", std::vector<int>{6}}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{2, 2, 1, 3, 9, 1}));
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 2}, {0, 2, 6}}));
  r = RunOp("sequence_enumerate", {{"X", {MakeLoDTensor<int64_t>({8, 1}, tokens, {{0, 3, 8}})}}},
            {{"Out", 1}}, {{"win_size", 3}, {"pad_value", -1}});
  std::vector<double> want;
  const std::vector<size_t> lod = {0, 3, 8};
  for (size_t i = 0; i + 1 < lod.size(); ++i) {
    for (size_t t = lod[i]; t < lod[i + 1]; ++t) {
      for (size_t k = 0; k < 3; ++k) want.push_back(t + k < lod[i + 1] ? tokens[t + k] : -1);
    }
  }
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_enumerate", {{"X", {MakeTensor<int64_t>({8, 1}, tokens)}}}, {{"Out", 1}},
              {{"win_size", 2}});
      },
      {"op `sequence_enumerate` input `X`", "without LoD"});
}

TEST(SequenceWindowOps, ScatterAddsUpdatesByHand) {
  operators::RegisterAllOps();
  const auto ex = RunOp("sequence_scatter",
                        {{"X", {MakeTensor<float>({1, 3}, {1, 1, 1})}},
                         {"Ids", {MakeLoDTensor<int64_t>({3, 1}, {0, 2, 0}, {{0, 3}})}},
                         {"Updates", {MakeLoDTensor<float>({3, 1}, {0.5, 2, 1}, {{0, 3}})}}},
                        {{"Out", 1}});
  EXPECT_EQ(ToDoubles(ex.outputs.at("Out")[0]), (std::vector<double>{2.5, 1, 3}));
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("sequence_scatter",
              {{"X", {MakeTensor<float>({1, 3}, {1, 1, 1})}},
               {"Ids", {MakeLoDTensor<int64_t>({2, 1}, {0, 3}, {{0, 2}})}},
               {"Updates", {MakeLoDTensor<float>({2, 1}, {1, 1}, {{0, 2}})}}},
              {{"Out", 1}});
      },
      {"op `sequence_scatter` input `Ids`", "value 3", "width 3"});
}

TEST(SequenceWindowOps, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck slice;
  slice.op_type = "sequence_slice";
  slice.inputs = {{"X", {MakeLoDTensor<double>({6, 2}, RandomValues(12, -1, 1, 3), {{0, 4, 6}})}},
                  {"Offset", {MakeTensor<int64_t>({2, 1}, {1, 0})}},
                  {"Length", {MakeTensor<int64_t>({2, 1}, {2, 2})}}};
  slice.wrt = {"X"};
  slice.outputs = {{"Out", 1}};
  CheckGradients(slice);
  GradCheck reshape;
  reshape.op_type = "sequence_reshape";
  reshape.inputs = {{"X", {MakeLoDTensor<double>({4, 2}, RandomValues(8, -1, 1, 4), {{0, 1, 4}})}}};
  reshape.outputs = {{"Out", 1}};
  reshape.attrs = {{"new_dim", 1}};
  CheckGradients(reshape);
  GradCheck scatter;
  scatter.op_type = "sequence_scatter";
  scatter.inputs = {
      {"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 5))}},
      {"Ids", {MakeLoDTensor<int64_t>({4, 1}, {2, 0, 2, 1}, {{0, 3, 4}})}},
      {"Updates", {MakeLoDTensor<double>({4, 1}, RandomValues(4, -1, 1, 6), {{0, 3, 4}})}}};
  scatter.wrt = {"X", "Updates"};
  scatter.outputs = {{"Out", 1}};
  CheckGradients(scatter);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
