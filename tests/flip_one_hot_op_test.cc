// flip (and reverse): every choice of dims against index arithmetic written here, the version-0 attribute
// `dims`, gradients (first and second order) by finite differences, typed errors. one_hot_v2:
// int32 and int64 ids, every output dtype, depth_tensor, out-of-range ids (error, or zero rows
// with allow_out_of_range). PaddlePaddle's own outputs are checked by the fixture test
// (tests/fixtures/ops/flip_axes, one_hot_v2_basic).
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class FlipOneHot : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

// X [2, 3, 4] flipped along the flagged dims, by coordinates.
std::vector<double> NaiveFlip(const std::vector<double>& x, const std::vector<bool>& flip) {
  const int64_t n[3] = {2, 3, 4};
  std::vector<double> out(24);
  for (int64_t a = 0; a < 2; ++a) {
    for (int64_t b = 0; b < 3; ++b) {
      for (int64_t c = 0; c < 4; ++c) {
        const int64_t sa = flip[0] ? n[0] - 1 - a : a, sb = flip[1] ? n[1] - 1 - b : b,
                      sc = flip[2] ? n[2] - 1 - c : c;
        out[(a * 3 + b) * 4 + c] = x[(sa * 3 + sb) * 4 + sc];
      }
    }
  }
  return out;
}

TEST_F(FlipOneHot, FlipEveryChoiceOfDims) {
  const std::vector<double> x = RandomValues(24, -1, 1, 3);
  const struct {
    std::vector<int> axis;
    std::vector<bool> flip;
  } cases[] = {{{0}, {true, false, false}},     {{-1}, {false, false, true}},
               {{0, 2}, {true, false, true}},   {{1, 1}, {false, true, false}},
               {{0, 1, 2}, {true, true, true}}, {{}, {false, false, false}}};
  for (const auto& c : cases) {
    const std::string what = "axis of " + std::to_string(c.axis.size());
    const auto r = RunOp("flip", {{"X", {MakeTensor<double>({2, 3, 4}, x)}}}, {{"Out", 1}},
                         {{"axis", c.axis}});
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), NaiveFlip(x, c.flip), 0, 0, what);
    const auto i = RunOp("flip", {{"X", {MakeTensor<int64_t>({2, 3, 4}, x)}}}, {{"Out", 1}},
                         {{"axis", c.axis}});
    EXPECT_EQ(i.outputs.at("Out")[0].dtype(), DataType::INT64);
    // reverse, the 1.x twin, takes the same `axis`.
    const auto rev = RunOp("reverse", {{"X", {MakeTensor<float>({2, 3, 4}, x)}}}, {{"Out", 1}},
                           {{"axis", c.axis}});
    ExpectNear(ToDoubles(rev.outputs.at("Out")[0]),
               ToDoubles(MakeTensor<float>({24}, NaiveFlip(x, c.flip))), 0, 0, "reverse " + what);
  }
  // Programs of op version 0 name the attribute `dims`.
  const auto old = RunOp("flip", {{"X", {MakeTensor<double>({2, 3, 4}, x)}}}, {{"Out", 1}},
                         {{"dims", std::vector<int>{1}}});
  ExpectNear(ToDoubles(old.outputs.at("Out")[0]), NaiveFlip(x, {false, true, false}), 0, 0, "dims");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("flip", {{"X", {MakeTensor<double>({2, 3, 4}, x)}}}, {{"Out", 1}},
              {{"axis", std::vector<int>{3}}});
      },
      {"op `flip` attribute `axis`", "[-3, 3)", "received 3"});
}

TEST_F(FlipOneHot, FlipGradients) {
  GradCheck check;
  check.op_type = "flip";
  check.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 5))}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"axis", std::vector<int>{-1}}};
  check.max_order = 2;
  CheckGradients(check);
  check.op_type = "reverse";
  check.attrs = {{"axis", std::vector<int>{0, 1}}};
  CheckGradients(check);
}

TEST_F(FlipOneHot, OneHotRows) {
  for (const DataType t :
       {DataType::FLOAT32, DataType::FLOAT64, DataType::INT32, DataType::INT64}) {
    const auto r = RunOp("one_hot_v2", {{"X", {MakeTensor<int32_t>({2, 2}, {0, 3, 2, 3})}}},
                         {{"Out", 1}}, {{"depth", 4}, {"dtype", static_cast<int>(t)}});
    const DenseTensor& out = r.outputs.at("Out")[0];
    EXPECT_EQ(out.dtype(), t);
    EXPECT_EQ(out.dims(), DDim({2, 2, 4}));
    ExpectNear(ToDoubles(out), {1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1}, 0, 0,
               DataTypeName(t));
  }
  const auto from_tensor = RunOp("one_hot_v2",
                                 {{"X", {MakeTensor<int64_t>({2}, {1, 0})}},
                                  {"depth_tensor", {MakeTensor<int32_t>({1}, {2})}}},
                                 {{"Out", 1}}, {{"depth", 9}});
  ExpectNear(ToDoubles(from_tensor.outputs.at("Out")[0]), {0, 1, 1, 0}, 0, 0, "depth_tensor");
  const auto allowed = RunOp("one_hot_v2", {{"X", {MakeTensor<int64_t>({2}, {5, -1})}}},
                             {{"Out", 1}}, {{"depth", 3}, {"allow_out_of_range", true}});
  ExpectNear(ToDoubles(allowed.outputs.at("Out")[0]), {0, 0, 0, 0, 0, 0}, 0, 0, "allowed");
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("one_hot_v2", {{"X", {MakeTensor<int64_t>({2}, {1, 3})}}}, {{"Out", 1}},
              {{"depth", 3}});
      },
      {"op `one_hot_v2` input `X`", "[0, 3)", "received 3 at element 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("one_hot_v2", {{"X", {MakeTensor<float>({2}, {1, 0})}}}, {{"Out", 1}},
              {{"depth", 3}});
      },
      {"op `one_hot_v2` input `X`", "int32 or int64"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
