// hard_sigmoid, hard_swish and shape: forward against closed forms in double, gradients
// (PaddlePaddle's fused grad ops) against finite differences and closed forms at the pieces'
// boundaries, and dropout in an inference program without its Mask output.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

double HardSigmoidRef(double x, double slope, double offset) {
  return std::max(0.0, std::min(1.0, slope * x + offset));
}

double HardSwishRef(double x, double threshold, double scale, double offset) {
  return x * std::min(std::max(0.0, x + offset), threshold) / scale;
}

// Values on every piece, on the kinks and at zero.
const std::vector<double> kValues = {-7, -3.5, -3, -2.5, -1.25, -0.3, 0, 0.4, 1.7, 2.5, 3, 3.5, 9};

template <typename T>
void CheckForward() {
  const DataType dt = platform::ToDataType<T>();
  const DenseTensor x = MakeTensor<T>({13}, kValues);
  {
    const auto r = RunOp("hard_sigmoid", {{"X", {x}}}, {{"Out", 1}});
    std::vector<double> expected;
    for (double v : kValues) expected.push_back(HardSigmoidRef(v, 0.2f, 0.5f));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, RelTol(dt), AbsTol(dt),
               "hard_sigmoid defaults");
  }
  {
    const auto r = RunOp("hard_sigmoid", {{"X", {x}}}, {{"Out", 1}},
                         {{"slope", 1.0f / 6}, {"offset", 0.25f}});
    std::vector<double> expected;
    for (double v : kValues) expected.push_back(HardSigmoidRef(v, 1.0f / 6, 0.25f));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, RelTol(dt), AbsTol(dt),
               "hard_sigmoid slope 1/6 offset 0.25");
  }
  {
    const auto r = RunOp("hard_swish", {{"X", {x}}}, {{"Out", 1}});
    std::vector<double> expected;
    for (double v : kValues) expected.push_back(HardSwishRef(v, 6, 6, 3));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, RelTol(dt), AbsTol(dt),
               "hard_swish defaults");
  }
  {
    const auto r = RunOp("hard_swish", {{"X", {x}}}, {{"Out", 1}},
                         {{"threshold", 4.0f}, {"scale", 5.0f}, {"offset", 1.0f}});
    std::vector<double> expected;
    for (double v : kValues) expected.push_back(HardSwishRef(v, 4, 5, 1));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, RelTol(dt), AbsTol(dt),
               "hard_swish threshold 4 scale 5 offset 1");
  }
}

TEST(HardActivations, ForwardMatchesClosedForms) {
  CheckForward<float>();
  CheckForward<double>();
}

TEST(HardActivations, KeepShapeAndLoDAndEmptyInputs) {
  DenseTensor x = MakeTensor<float>({3, 2}, {-4, -1, 0, 1, 2, 5});
  x.set_lod(framework::LoD{{0, 1, 3}});
  for (const char* op : {"hard_sigmoid", "hard_swish"}) {
    const auto r = RunOp(op, {{"X", {x}}}, {{"Out", 1}});
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({3, 2})) << op;
    EXPECT_EQ(r.outputs.at("Out")[0].lod(), x.lod()) << op;
    const auto empty = RunOp(op, {{"X", {MakeTensor<float>({0, 4}, {})}}}, {{"Out", 1}});
    EXPECT_EQ(empty.outputs.at("Out")[0].dims(), DDim({0, 4})) << op;
  }
}

// Inside each piece, away from the kinks, the fused grads match finite differences.
TEST(HardActivations, GradientsMatchFiniteDifferences) {
  const std::vector<double> smooth = {-6, -3.4, -2.9, -1.2, -0.2, 0.3, 1.9, 2.4, 2.6, 3.3, 8};
  const DDim dims({11});
  for (const char* op : {"hard_sigmoid", "hard_swish"}) {
    SCOPED_TRACE(op);
    GradCheck check;
    check.op_type = op;
    check.inputs = {{"X", {MakeTensor<double>(dims, smooth)}}};
    check.outputs = {{"Out", 1}};
    CheckGradients(check);
  }
  GradCheck custom;
  custom.op_type = "hard_swish";
  custom.inputs = {{"X", {MakeTensor<double>(dims, smooth)}}};
  custom.outputs = {{"Out", 1}};
  custom.attrs = {{"threshold", 4.0f}, {"scale", 5.0f}, {"offset", 1.0f}};
  CheckGradients(custom);
}

// At the kinks the gradients follow PaddlePaddle: hard_swish's slope is 0 at X + offset = 0
// and threshold / scale (1 for the defaults) at X + offset = threshold; hard_sigmoid's is 0
// where Out reaches 0 or 1.
TEST(HardActivations, GradientsAtTheKinks) {
  const std::vector<double> x = {-3, 3, -2.5, 2.5, 0};
  const auto swish = NthGradient("hard_swish", {{"X", {MakeTensor<double>({5}, x)}}},
                                 {{"Out", 1}}, {}, 1);
  ExpectNear(ToDoubles(swish.at("X_0")), {0, 1, (2 * -2.5 + 3) / 6.0, (2 * 2.5 + 3) / 6.0, 0.5}, 1e-12, 1e-12,
             "hard_swish slope");
  const auto sigmoid = NthGradient("hard_sigmoid", {{"X", {MakeTensor<double>({5}, x)}}},
                                   {{"Out", 1}}, {}, 1);
  const double s = static_cast<double>(0.2f);
  ExpectNear(ToDoubles(sigmoid.at("X_0")), {0, 0, 0, 0, s}, 1e-12, 1e-12, "hard_sigmoid slope");
}

TEST(HardActivations, GradOpRejectsMismatchedShapes) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("hard_swish_grad",
              {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, -1, 1))}},
               {"Out@GRAD", {MakeTensor<float>({3, 2}, RandomValues(6, -1, 1))}}},
              {{"X@GRAD", 1}});
      },
      {"op `hard_swish_grad` input `Out@GRAD`"});
}

TEST(ShapeOp, GivesTheDimsAsInt32) {
  for (const DDim& dims : {DDim({2, 3, 4}), DDim({0, 5}), DDim({7})}) {
    const auto r = RunOp("shape", {{"Input", {MakeTensor<float>(dims, std::vector<double>(
                                                                          dims.numel(), 1.0))}}},
                         {{"Out", 1}});
    const DenseTensor& out = r.outputs.at("Out")[0];
    EXPECT_EQ(out.dtype(), DataType::INT32) << dims.ToString();
    EXPECT_EQ(out.dims(), DDim({static_cast<int64_t>(dims.size())}));
    ExpectNear(ToDoubles(out), [&] {
      std::vector<double> d;
      for (int64_t v : dims.ToVector()) d.push_back(static_cast<double>(v));
      return d;
    }(), 0, 0, "shape of " + dims.ToString());
  }
  const auto r = RunOp("shape", {{"Input", {MakeTensor<int64_t>({2, 1}, {5, 6})}}}, {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {2, 1}, 0, 0, "shape of an int64 tensor");
}

TEST(DropoutOp, RunsWithoutMaskInInference) {
  const DenseTensor x = MakeTensor<float>({2, 3}, {1, -2, 3, -4, 5, -6});
  const auto r = RunOp("dropout", {{"X", {x}}}, {{"Out", 1}},
                       {{"is_test", true}, {"dropout_prob", 0.25f}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {0.75, -1.5, 2.25, -3, 3.75, -4.5}, 1e-7, 0,
             "downgrade_in_infer scales by 1 - p");
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
