// nms against greedy suppression written here with the IoU in double, over clusters of
// overlapping boxes and every threshold kind (0, in between, 1); frobenius_norm against sums
// of squares in double for every dim choice, its gradient by finite differences (second
// order: it is written with ops); typed errors.
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class NmsAndNorm : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

double IoU(const double* a, const double* b) {
  const double iw = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const double ih = std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const double inter = iw * ih;
  const double area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
  return inter / (area_a + area_b - inter);
}

TEST_F(NmsAndNorm, NmsKeepsWhatGreedySuppressionKeeps) {
  const auto doc =
      RunOp("nms", {{"Boxes", {MakeTensor<float>({3, 4}, {0, 0, 2, 2, 0, 0, 2, 1.9, 3, 3, 4, 4})}}},
            {{"KeepBoxesIdxs", 1}}, {{"iou_threshold", 0.5f}});
  EXPECT_EQ(ToDoubles(doc.outputs.at("KeepBoxesIdxs")[0]), (std::vector<double>{0, 2}));
  // Three clusters of jittered boxes.
  std::vector<double> boxes;
  const std::vector<double> jitter = RandomValues(120, -0.3, 0.3, 4);
  for (int i = 0; i < 30; ++i) {
    const double cx = 2.0 * (i % 3), cy = 1.5 * (i % 3);
    boxes.insert(boxes.end(), {cx + jitter[4 * i], cy + jitter[4 * i + 1],
                               cx + 1 + jitter[4 * i + 2], cy + 1 + jitter[4 * i + 3]});
  }
  for (float threshold : {0.0f, 0.2f, 0.5f, 0.8f, 1.0f}) {
    std::vector<double> kept;
    for (int j = 0; j < 30; ++j) {
      bool keep = true;
      for (double k : kept)
        keep = keep && IoU(&boxes[4 * static_cast<int>(k)], &boxes[4 * j]) <= threshold;
      if (keep) kept.push_back(j);
    }
    for (bool as_float : {false, true}) {
      const DenseTensor b =
          as_float ? MakeTensor<float>({30, 4}, boxes) : MakeTensor<double>({30, 4}, boxes);
      const auto r =
          RunOp("nms", {{"Boxes", {b}}}, {{"KeepBoxesIdxs", 1}}, {{"iou_threshold", threshold}});
      EXPECT_EQ(r.outputs.at("KeepBoxesIdxs")[0].dtype(), DataType::INT64);
      EXPECT_EQ(ToDoubles(r.outputs.at("KeepBoxesIdxs")[0]), kept) << "threshold " << threshold;
    }
  }
  const auto empty =
      RunOp("nms", {{"Boxes", {MakeTensor<float>({0, 4}, {})}}}, {{"KeepBoxesIdxs", 1}});
  EXPECT_EQ(empty.outputs.at("KeepBoxesIdxs")[0].dims(), DDim({0}));
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("nms", {{"Boxes", {MakeTensor<float>({2, 3}, RandomValues(6, 0, 1))}}},
              {{"KeepBoxesIdxs", 1}});
      },
      {"op `nms` input `Boxes`", "[N, 4]", "[2, 3]"});
}

TEST_F(NmsAndNorm, FrobeniusNormOverEveryDimChoice) {
  const std::vector<int64_t> dims = {2, 3, 4};
  const std::vector<double> x = RandomValues(24, -2, 2, 5);
  struct DimCase {
    std::vector<int> dim;
    bool reduce_all;
    std::vector<bool> reduced;
  };
  for (const DimCase& c :
       {DimCase{{1}, false, {false, true, false}}, DimCase{{0, -1}, false, {true, false, true}},
        DimCase{{}, false, {true, true, true}}, DimCase{{1}, true, {true, true, true}}}) {
    for (bool keep_dim : {false, true}) {
      std::vector<double> want;
      std::vector<int64_t> out_dims;
      for (int i = 0; i < 3; ++i) {
        if (!c.reduced[i]) out_dims.push_back(dims[i]);
        if (c.reduced[i] && keep_dim) out_dims.push_back(1);
      }
      // Sum of squares of the elements that share the kept coordinates.
      for (int64_t a = 0; a < (c.reduced[0] ? 1 : 2); ++a) {
        for (int64_t b = 0; b < (c.reduced[1] ? 1 : 3); ++b) {
          for (int64_t d = 0; d < (c.reduced[2] ? 1 : 4); ++d) {
            double s = 0;
            for (int64_t i = 0; i < 24; ++i) {
              const int64_t idx[3] = {i / 12, (i / 4) % 3, i % 4};
              if ((c.reduced[0] || idx[0] == a) && (c.reduced[1] || idx[1] == b) &&
                  (c.reduced[2] || idx[2] == d)) {
                s += x[i] * x[i];
              }
            }
            want.push_back(std::sqrt(s));
          }
        }
      }
      const auto r =
          RunOp("frobenius_norm", {{"X", {MakeTensor<double>(DDim(dims), x)}}}, {{"Out", 1}},
                {{"dim", c.dim}, {"keep_dim", keep_dim}, {"reduce_all", c.reduce_all}});
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(out_dims));
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "frobenius_norm");
      GradCheck g;
      g.op_type = "frobenius_norm";
      g.inputs = {{"X", {MakeTensor<double>(DDim(dims), x)}}};
      g.outputs = {{"Out", 1}};
      g.attrs = {{"dim", c.dim}, {"keep_dim", keep_dim}, {"reduce_all", c.reduce_all}};
      g.max_order = 2;
      CheckGradients(g);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
