// add_position_encoding (operators/sequence/add_position_encoding_op.cc) against the
// sinusoids written here, for padded batches and LoD sequences (positions restart in each
// sequence), D = 2 (a single frequency) included; gradients to the second order; bad inputs.
// PaddlePaddle's outputs: fixtures add_position_encoding_*.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "operators/registry.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// Row r of a sequence at position t: alpha x + beta (sin, cos) of t / 10000^(k / (h - 1)).
std::vector<double> Encoded(const std::vector<double>& x, const std::vector<int64_t>& positions,
                            int64_t d, double alpha, double beta) {
  std::vector<double> out(x.size());
  const int64_t h = d / 2;
  for (size_t r = 0; r < positions.size(); ++r) {
    for (int64_t k = 0; k < h; ++k) {
      const double freq = h > 1 ? std::pow(1e-4, static_cast<double>(k) / (h - 1)) : 1e-4;
      const double w = positions[r] * freq;
      out[r * d + k] = alpha * x[r * d + k] + beta * std::sin(w);
      out[r * d + h + k] = alpha * x[r * d + h + k] + beta * std::cos(w);
    }
  }
  return out;
}

TEST(AddPositionEncodingOp, PaddedBatchesAndLodSequences) {
  operators::RegisterAllOps();
  for (int64_t d : {2, 8}) {
    SCOPED_TRACE("D = " + std::to_string(d));
    const std::vector<double> x = RandomValues(2 * 5 * d, -1, 1, 200);
    std::vector<int64_t> pos;
    for (int b = 0; b < 2; ++b) {
      for (int64_t t = 0; t < 5; ++t) pos.push_back(t);
    }
    const AttributeMap attrs = {{"alpha", 0.5f}, {"beta", 2.0f}};
    ExpectNear(ToDoubles(RunOp("add_position_encoding", {{"X", {MakeTensor<double>({2, 5, d}, x)}}},
                               {{"Out", 1}}, attrs)
                             .outputs.at("Out")[0]),
               Encoded(x, pos, d, 0.5, 2.0), 1e-14, 1e-14, "padded");
    // The same rows as sequences of 3, 0 and 7: positions restart at each sequence.
    DenseTensor lod_x = MakeTensor<double>({10, d}, x);
    lod_x.set_lod({{0, 3, 3, 10}});
    const std::vector<int64_t> lod_pos = {0, 1, 2, 0, 1, 2, 3, 4, 5, 6};
    const DenseTensor out =
        RunOp("add_position_encoding", {{"X", {lod_x}}}, {{"Out", 1}}, attrs).outputs.at("Out")[0];
    EXPECT_EQ(out.lod(), lod_x.lod());
    ExpectNear(ToDoubles(out), Encoded(x, lod_pos, d, 0.5, 2.0), 1e-14, 1e-14, "LoD");
  }
}

TEST(AddPositionEncodingOp, GradientsToTheSecondOrder) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "add_position_encoding";
  check.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, RandomValues(24, -1, 1, 201))}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"alpha", 1.5f}, {"beta", 0.5f}};
  check.max_order = 2;
  CheckGradients(check);
  // PaddlePaddle's fused add_position_encoding_grad, as its saved training programs carry it.
  const std::vector<double> dout = RandomValues(24, -1, 1, 202);
  const DenseTensor dx =
      RunOp("add_position_encoding_grad", {{"Out@GRAD", {MakeTensor<double>({2, 3, 4}, dout)}}},
            {{"X@GRAD", 1}}, {{"alpha", 1.5f}, {"beta", 0.5f}})
          .outputs.at("X@GRAD")[0];
  std::vector<double> want(dout);
  for (double& v : want) v *= 1.5;
  ExpectNear(ToDoubles(dx), want, 1e-15, 0, "add_position_encoding_grad");
}

TEST(AddPositionEncodingOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("add_position_encoding",
              {{"X", {MakeTensor<float>({2, 3, 5}, RandomValues(30, 0, 1))}}}, {{"Out", 1}});
      },
      {"op `add_position_encoding` input `X`", "even", "[2, 3, 5]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("add_position_encoding", {{"X", {MakeTensor<float>({6, 4}, RandomValues(24, 0, 1))}}},
              {{"Out", 1}});
      },
      {"op `add_position_encoding` input `X`", "without a LoD"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
