// row_conv against the lookahead sum written here in double, over LoD batches (an empty
// sequence, sequences shorter than the filter) and padded batches; gradients of X and Filter
// by finite differences; typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LoD;

std::vector<double> NaiveRowConv(const std::vector<double>& x, const std::vector<size_t>& seq,
                                 const std::vector<double>& w, int64_t k, int64_t d) {
  std::vector<double> out(x.size(), 0.0);
  for (size_t s = 0; s + 1 < seq.size(); ++s) {
    for (size_t t = seq[s]; t < seq[s + 1]; ++t) {
      for (int64_t i = 0; i < k; ++i) {
        if (t + i >= seq[s + 1]) break;
        for (int64_t j = 0; j < d; ++j) out[t * d + j] += x[(t + i) * d + j] * w[i * d + j];
      }
    }
  }
  return out;
}

TEST(RowConvOp, DocExampleAndLoDBatches) {
  operators::RegisterAllOps();
  const auto doc = RunOp("row_conv",
                         {{"X", {MakeLoDTensor<float>({3, 1}, {1, 2, 3}, {{0, 3}})}},
                          {"Filter", {MakeTensor<float>({2, 1}, {1, 10})}}},
                         {{"Out", 1}});
  EXPECT_EQ(ToDoubles(doc.outputs.at("Out")[0]), (std::vector<double>{21, 32, 3}));
  EXPECT_EQ(doc.outputs.at("Out")[0].lod(), (LoD{{0, 3}}));
  const int64_t d = 3, k = 3;
  for (const std::vector<size_t>& seq :
       {std::vector<size_t>{0, 1, 4, 9}, std::vector<size_t>{0, 2, 2, 9}}) {
    const std::vector<double> x = RandomValues(27, -1, 1, 3), w = RandomValues(9, -1, 1, 4);
    const SlotTensors in = {{"X", {MakeLoDTensor<double>({9, d}, x, {seq})}},
                            {"Filter", {MakeTensor<double>({k, d}, w)}}};
    const auto r = RunOp("row_conv", in, {{"Out", 1}});
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), NaiveRowConv(x, seq, w, k, d), 1e-15, 1e-15,
               "lod");
    GradCheck g;
    g.op_type = "row_conv";
    g.inputs = in;
    g.outputs = {{"Out", 1}};
    CheckGradients(g);
  }
}

TEST(RowConvOp, PaddedBatches) {
  operators::RegisterAllOps();
  // [B = 2, T = 4, D = 2]: each row of 4 steps is a sequence.
  const std::vector<double> x = RandomValues(16, -1, 1, 5), w = RandomValues(4, -1, 1, 6);
  const SlotTensors in = {{"X", {MakeTensor<double>({2, 4, 2}, x)}},
                          {"Filter", {MakeTensor<double>({2, 2}, w)}}};
  const auto r = RunOp("row_conv", in, {{"Out", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 4, 2}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), NaiveRowConv(x, {0, 4, 8}, w, 2, 2), 1e-15, 1e-15,
             "padded");
  GradCheck g;
  g.op_type = "row_conv";
  g.inputs = in;
  g.outputs = {{"Out", 1}};
  CheckGradients(g);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("row_conv",
              {{"X", in.at("X")}, {"Filter", {MakeTensor<double>({2, 3}, std::vector<double>(6))}}},
              {{"Out", 1}});
      },
      {"op `row_conv` input `Filter`", "[k, 2]", "[2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("row_conv",
              {{"X", {MakeTensor<double>({3, 2}, std::vector<double>(6))}},
               {"Filter", {MakeTensor<double>({2, 2}, w)}}},
              {{"Out", 1}});
      },
      {"op `row_conv` input `X`"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
