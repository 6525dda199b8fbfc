// crop_tensor and crop against boxes cut by hand (shape and offsets from attributes, tensors
// and lists of tensors, -1 dims, crop's Y), the doc's example, gradients by finite
// differences, typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// The [s0, s1, s2] box of a [d0, d1, d2] tensor at offsets o.
std::vector<double> Box(const std::vector<double>& x, const std::vector<int64_t>& d,
                        const std::vector<int64_t>& s, const std::vector<int64_t>& o) {
  std::vector<double> out;
  for (int64_t i = 0; i < s[0]; ++i) {
    for (int64_t j = 0; j < s[1]; ++j) {
      for (int64_t k = 0; k < s[2]; ++k) {
        out.push_back(x[((i + o[0]) * d[1] + j + o[1]) * d[2] + k + o[2]]);
      }
    }
  }
  return out;
}

TEST(CropOp, DocExample) {
  operators::RegisterAllOps();
  const auto r =
      RunOp("crop_tensor", {{"X", {MakeTensor<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}}},
            {{"Out", 1}}, {{"shape", std::vector<int>{2, 2}}, {"offsets", std::vector<int>{0, 1}}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{2, 3, 5, 6}));
}

TEST(CropOp, CutsTheBoxFromEverySource) {
  operators::RegisterAllOps();
  const std::vector<int64_t> d = {4, 5, 6};
  const std::vector<double> x = RandomValues(4 * 5 * 6, -1, 1, 3);
  const DenseTensor xt = MakeTensor<double>({4, 5, 6}, x);
  const std::vector<double> want = Box(x, d, {2, 3, 4}, {1, 2, 2});
  // Attributes, with -1 keeping the rest of a dim.
  auto r = RunOp("crop_tensor", {{"X", {xt}}}, {{"Out", 1}},
                 {{"shape", std::vector<int>{2, -1, 4}}, {"offsets", std::vector<int>{1, 2, 2}}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 3, 4}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  // Tensors, before the attributes.
  r = RunOp("crop_tensor",
            {{"X", {xt}},
             {"Shape", {MakeTensor<int32_t>({3}, {2, 3, 4})}},
             {"Offsets", {MakeTensor<int64_t>({3}, {1, 2, 2})}}},
            {{"Out", 1}},
            {{"shape", std::vector<int>{1, 1, 1}}, {"offsets", std::vector<int>{0, 0, 0}}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  // Lists of one-element tensors.
  r = RunOp("crop_tensor",
            {{"X", {xt}},
             {"ShapeTensor",
              {MakeTensor<int32_t>({1}, {2}), MakeTensor<int32_t>({1}, {3}),
               MakeTensor<int32_t>({1}, {4})}},
             {"OffsetsTensor",
              {MakeTensor<int32_t>({1}, {1}), MakeTensor<int32_t>({1}, {2}),
               MakeTensor<int32_t>({1}, {2})}}},
            {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  // crop: the shape of Y, offsets from a tensor; no offsets at all means zeros.
  r = RunOp("crop",
            {{"X", {xt}},
             {"Y", {MakeTensor<float>({2, 3, 4}, RandomValues(24, 0, 1))}},
             {"Offsets", {MakeTensor<int32_t>({3}, {1, 2, 2})}}},
            {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  r = RunOp("crop", {{"X", {xt}}}, {{"Out", 1}}, {{"shape", std::vector<int>{3, 1, 2}}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), Box(x, d, {3, 1, 2}, {0, 0, 0}));
}

TEST(CropOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const char* op : {"crop_tensor", "crop"}) {
    SCOPED_TRACE(op);
    GradCheck check;
    check.op_type = op;
    check.inputs = {{"X", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 5))}},
                    {"Offsets", {MakeTensor<int32_t>({2}, {1, 1})}}};
    check.wrt = {"X"};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"shape", std::vector<int>{2, 2}}};
    CheckGradients(check);
  }
}

TEST(CropOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({3, 4}, RandomValues(12, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("crop_tensor", {{"X", {x}}}, {{"Out", 1}},
              {{"shape", std::vector<int>{2, 3}}, {"offsets", std::vector<int>{0, 2}}});
      },
      {"op `crop_tensor` attribute `shape`", "dim 1 of size 3 at offset 2", "X's 4"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("crop_tensor", {{"X", {x}}}, {{"Out", 1}},
              {{"shape", std::vector<int>{2}}, {"offsets", std::vector<int>{0, 0}}});
      },
      {"op `crop_tensor` attribute `shape`", "expected 2 values", "[2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("crop_tensor", {{"X", {x}}, {"Offsets", {MakeTensor<int32_t>({3}, {0, 0, 0})}}},
              {{"Out", 1}}, {{"shape", std::vector<int>{1, 1}}});
      },
      {"op `crop_tensor` input `Offsets`", "expected 2 values", "[0, 0, 0]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("crop", {{"X", {x}}}, {{"Out", 1}}, {{"shape", std::vector<int>{-2, 1}}});
      },
      {"op `crop` attribute `shape`", "dim 0 of size -2"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
