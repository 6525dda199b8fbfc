// lod_reset: offsets from target_lod, from Y's values and from Y's LoD, replaced or
// appended, the data untouched; the gradient by finite differences; typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LoD;

TEST(LoDResetOp, SetsTheNewOffsets) {
  operators::RegisterAllOps();
  const std::vector<double> values = RandomValues(12, -1, 1, 3);
  DenseTensor x = MakeTensor<double>({6, 2}, values);
  x.set_lod({{0, 3, 6}});
  auto r = RunOp("lod_reset", {{"X", {x}}}, {{"Out", 1}},
                 {{"target_lod", std::vector<int>{0, 1, 4, 6}}});
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 1, 4, 6}}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), values);
  // Y's values, appended below X's level (which groups the new level's 2 sequences).
  DenseTensor grouped = MakeTensor<double>({6, 2}, values);
  grouped.set_lod({{0, 1, 2}});
  r = RunOp("lod_reset", {{"X", {grouped}}, {"Y", {MakeTensor<int32_t>({3}, {0, 2, 6})}}},
            {{"Out", 1}}, {{"append", true}});
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 1, 2}, {0, 2, 6}}));
  // Y's LoD: the whole LoD replaces X's; appended, its last level.
  DenseTensor y = MakeTensor<float>({6, 1}, RandomValues(6, 0, 1));
  y.set_lod({{0, 1, 2}, {0, 5, 6}});
  r = RunOp("lod_reset", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 1, 2}, {0, 5, 6}}));
  DenseTensor plain = MakeTensor<double>({6, 2}, values);
  r = RunOp("lod_reset", {{"X", {plain}}, {"Y", {y}}}, {{"Out", 1}}, {{"append", true}});
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 5, 6}}));
}

TEST(LoDResetOp, GradientMatchesFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "lod_reset";
  DenseTensor x = MakeTensor<double>({5, 2}, RandomValues(10, -1, 1, 4));
  x.set_lod({{0, 2, 5}});
  check.inputs = {{"X", {x}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"target_lod", std::vector<int>{0, 4, 5}}};
  CheckGradients(check);
}

TEST(LoDResetOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({6, 2}, RandomValues(12, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lod_reset", {{"X", {x}}}, {{"Out", 1}}, {{"target_lod", std::vector<int>{0, 2, 5}}});
      },
      {"op `lod_reset` attribute `target_lod`", "[[0, 2, 5]]", "[6, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lod_reset", {{"X", {x}}}, {{"Out", 1}},
              {{"target_lod", std::vector<int>{0, 4, 2, 6}}});
      },
      {"op `lod_reset` attribute `target_lod`", "[[0, 4, 2, 6]]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lod_reset", {{"X", {x}}, {"Y", {MakeTensor<int64_t>({2}, {0, -6})}}}, {{"Out", 1}});
      },
      {"op `lod_reset` input `Y`", ">= 0", "-6"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
