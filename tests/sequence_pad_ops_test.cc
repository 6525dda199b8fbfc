// sequence_pad, sequence_unpad and sequence_expand_as against rows moved by hand (scalar and
// per-step pad values, empty sequences, rank-2 unpadding), their doc examples, gradients by
// finite differences, typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LoD;

TEST(SequencePadOps, DocExamples) {
  operators::RegisterAllOps();
  auto r = RunOp("sequence_pad",
                 {{"X", {MakeLoDTensor<float>({3, 1}, {1, 2, 3}, {{0, 2, 3}})}},
                  {"PadValue", {MakeTensor<float>({1}, {0})}}},
                 {{"Out", 1}, {"Length", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 2, 1}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1, 2, 3, 0}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Length")[0]), (std::vector<double>{2, 1}));
  r = RunOp("sequence_unpad",
            {{"X", {MakeTensor<float>({2, 2}, {1, 2, 3, 0})}},
             {"Length", {MakeTensor<int64_t>({2}, {2, 1})}}},
            {{"Out", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({3, 1}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 2, 3}}));
  r = RunOp("sequence_expand_as",
            {{"X", {MakeTensor<float>({2, 1}, {5, 7})}},
             {"Y", {MakeLoDTensor<float>({4, 1}, {0, 0, 0, 0}, {{0, 3, 4}})}}},
            {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{5, 5, 5, 7}));
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 3, 4}}));
}

TEST(SequencePadOps, PadAndUnpadMoveRowsByHand) {
  operators::RegisterAllOps();
  const std::vector<size_t> lod = {0, 3, 3, 4, 8};
  const std::vector<double> x = RandomValues(8 * 2 * 3, -1, 1, 3);
  const std::vector<double> step = RandomValues(6, 5, 6, 4);
  for (bool per_step : {false, true}) {
    SCOPED_TRACE(per_step ? "per-step pad value" : "scalar pad value");
    const DenseTensor pad =
        per_step ? MakeTensor<double>({2, 3}, step) : MakeTensor<double>({1}, {9});
    const auto r = RunOp("sequence_pad",
                         {{"X", {MakeLoDTensor<double>({8, 2, 3}, x, {lod})}}, {"PadValue", {pad}}},
                         {{"Out", 1}, {"Length", 1}}, {{"padded_length", 5}});
    std::vector<double> want;
    for (size_t i = 0; i + 1 < lod.size(); ++i) {
      for (size_t t = 0; t < 5; ++t) {
        for (int k = 0; k < 6; ++k) {
          want.push_back(lod[i] + t < lod[i + 1] ? x[(lod[i] + t) * 6 + k]
                                                 : (per_step ? step[k] : 9.0));
        }
      }
    }
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({4, 5, 2, 3}));
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
    EXPECT_EQ(ToDoubles(r.outputs.at("Length")[0]), (std::vector<double>{3, 0, 1, 4}));
    // Unpadding the result gives X and its LoD back.
    const auto back = RunOp(
        "sequence_unpad",
        {{"X", {r.outputs.at("Out")[0]}}, {"Length", {r.outputs.at("Length")[0]}}}, {{"Out", 1}});
    EXPECT_EQ(ToDoubles(back.outputs.at("Out")[0]), x);
    EXPECT_EQ(back.outputs.at("Out")[0].lod(), (LoD{lod}));
  }
}

TEST(SequencePadOps, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck pad;
  pad.op_type = "sequence_pad";
  pad.inputs = {{"X", {MakeLoDTensor<double>({5, 2}, RandomValues(10, -1, 1, 3), {{0, 2, 2, 5}})}},
                {"PadValue", {MakeTensor<double>({1}, {0.5})}}};
  pad.wrt = {"X"};
  pad.outputs = {{"Out", 1}, {"Length", 1}};
  pad.loss_outputs = {"Out"};
  pad.attrs = {{"padded_length", 4}};
  CheckGradients(pad);
  GradCheck unpad;
  unpad.op_type = "sequence_unpad";
  unpad.inputs = {{"X", {MakeTensor<double>({3, 4, 2}, RandomValues(24, -1, 1, 4))}},
                  {"Length", {MakeTensor<int64_t>({3}, {4, 0, 2})}}};
  unpad.wrt = {"X"};
  unpad.outputs = {{"Out", 1}};
  CheckGradients(unpad);
  GradCheck expand;
  expand.op_type = "sequence_expand_as";
  expand.inputs = {
      {"X", {MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 5))}},
      {"Y", {MakeLoDTensor<double>({5, 1}, RandomValues(5, -1, 1, 6), {{0, 2, 2, 5}})}}};
  expand.wrt = {"X"};
  expand.outputs = {{"Out", 1}};
  CheckGradients(expand);
}

TEST(SequencePadOps, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeLoDTensor<float>({4, 2}, RandomValues(8, 0, 1), {{0, 3, 4}});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_pad", {{"X", {x}}, {"PadValue", {MakeTensor<float>({1}, {0})}}},
              {{"Out", 1}, {"Length", 1}}, {{"padded_length", 2}});
      },
      {"op `sequence_pad` attribute `padded_length`", "2", "3 steps"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_pad", {{"X", {x}}, {"PadValue", {MakeTensor<float>({3}, {0, 0, 0})}}},
              {{"Out", 1}, {"Length", 1}});
      },
      {"op `sequence_pad` input `PadValue`", "[2]", "[3]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("sequence_unpad",
              {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, 0, 1))}},
               {"Length", {MakeTensor<int64_t>({2}, {1, 4})}}},
              {{"Out", 1}});
      },
      {"op `sequence_unpad` input `Length`", "value 4", "[0, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_expand_as", {{"X", {MakeTensor<float>({3, 1}, {1, 2, 3})}}, {"Y", {x}}},
              {{"Out", 1}});
      },
      {"op `sequence_expand_as` input `Y`", "expected 3 sequences", "[[0, 3, 4]]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
