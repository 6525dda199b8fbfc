// affine_grid against the transform written out here (2-D and 3-D, both alignments, the
// output shape as attribute or tensor, sizes of 1); the identity matrix giving the base grid;
// gradients of Theta by finite differences; typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "affine_grid";

double Base(int64_t i, int64_t size, bool align) {
  if (size == 1) return align ? -1.0 : 0.0;
  return align ? -1.0 + 2.0 * i / (size - 1) : (2.0 * i + 1) / size - 1;
}

TEST(AffineGridOp, AppliesEachMatrixToTheBaseGrid) {
  operators::RegisterAllOps();
  const int64_t n = 2, h = 3, w = 4;
  const std::vector<double> theta = RandomValues(n * 6, -1, 1, 3);
  for (bool align : {true, false}) {
    std::vector<double> want;
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t i = 0; i < h; ++i) {
        for (int64_t j = 0; j < w; ++j) {
          const double x = Base(j, w, align), y = Base(i, h, align);
          for (int r = 0; r < 2; ++r) {
            const double* m = &theta[b * 6 + r * 3];
            want.push_back(m[0] * x + m[1] * y + m[2]);
          }
        }
      }
    }
    for (bool tensor_shape : {false, true}) {
      SCOPED_TRACE(std::string(align ? "align" : "no align") + (tensor_shape ? " tensor" : ""));
      SlotTensors in = {{"Theta", {MakeTensor<double>({n, 2, 3}, theta)}}};
      AttributeMap attrs = {{"align_corners", align}};
      if (tensor_shape) {
        in["OutputShape"] = {MakeTensor<int32_t>({4}, {static_cast<double>(n), 1, 3, 4})};
      } else {
        attrs["output_shape"] = std::vector<int>{static_cast<int>(n), 1, 3, 4};
      }
      const auto r = RunOp(kOp, in, {{"Output", 1}}, attrs);
      EXPECT_EQ(r.outputs.at("Output")[0].dims(), DDim({n, h, w, 2}));
      ExpectNear(ToDoubles(r.outputs.at("Output")[0]), want, 1e-12, 1e-12, "2-D");
    }
  }
  // 3-D, the identity: the base grid itself, with a size-1 depth.
  const auto r =
      RunOp(kOp, {{"Theta", {MakeTensor<float>({1, 3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0})}}},
            {{"Output", 1}},
            {{"output_shape", std::vector<int>{1, 2, 1, 2, 3}}, {"align_corners", true}});
  EXPECT_EQ(r.outputs.at("Output")[0].dims(), DDim({1, 1, 2, 3, 3}));
  std::vector<double> base;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j)
      base.insert(base.end(), {Base(j, 3, true), Base(i, 2, true), -1});
  }
  ExpectNear(ToDoubles(r.outputs.at("Output")[0]), base, 1e-6, 1e-6, "3-D identity");
}

TEST(AffineGridOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (bool align : {true, false}) {
    GradCheck check;
    check.op_type = kOp;
    check.inputs = {{"Theta", {MakeTensor<double>({2, 2, 3}, RandomValues(12, -1, 1, 5))}}};
    check.outputs = {{"Output", 1}};
    check.attrs = {{"output_shape", std::vector<int>{2, 3, 3, 2}}, {"align_corners", align}};
    CheckGradients(check);
    check.inputs = {{"Theta", {MakeTensor<double>({1, 3, 4}, RandomValues(12, -1, 1, 6))}}};
    check.attrs = {{"output_shape", std::vector<int>{1, 1, 2, 2, 3}}, {"align_corners", align}};
    CheckGradients(check);
  }
}

TEST(AffineGridOp, BadShapesAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp, {{"Theta", {MakeTensor<float>({1, 3, 4}, RandomValues(12, 0, 1))}}},
              {{"Output", 1}}, {{"output_shape", std::vector<int>{1, 1, 4, 4}}});
      },
      {"op `affine_grid` input `Theta`", "[N, 2, 3]", "[1, 3, 4]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp, {{"Theta", {MakeTensor<float>({2, 2, 3}, RandomValues(12, 0, 1))}}},
              {{"Output", 1}}, {{"output_shape", std::vector<int>{3, 1, 4, 4}}});
      },
      {"op `affine_grid`", "2 matrices", "asks for 3"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp, {{"Theta", {MakeTensor<float>({1, 2, 3}, RandomValues(6, 0, 1))}}},
              {{"Output", 1}}, {{"output_shape", std::vector<int>{1, 4}}});
      },
      {"op `affine_grid` output shape", "N C H W"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
