// sequence_conv against windows summed by hand in double (zero and trainable padding, windows
// before, around and after each row), the doc's example, gradients by finite differences
// (X, Filter and PaddingData), typed errors.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LoD;

// Out[r, m] = sum over window entries j and columns k of row(r + start + j)[k] W[j d + k, m],
// a row outside its sequence being zeros or, with padding, row p + up (p < 0) or up + q (the
// q-th row past the end) of `pad`.
std::vector<double> NaiveSeqConv(const std::vector<double>& x, const std::vector<size_t>& lod,
                                 int64_t d, const std::vector<double>& w, int64_t m, int start,
                                 int length, const std::vector<double>* pad) {
  const int up = std::max(0, -start);
  std::vector<double> out(lod.back() * m, 0.0);
  for (size_t s = 0; s + 1 < lod.size(); ++s) {
    const int64_t len = static_cast<int64_t>(lod[s + 1] - lod[s]);
    for (int64_t r = 0; r < len; ++r) {
      for (int j = 0; j < length; ++j) {
        const int64_t at = r + start + j;
        for (int64_t k = 0; k < d; ++k) {
          double v = 0;
          if (at >= 0 && at < len) {
            v = x[(lod[s] + at) * d + k];
          } else if (pad != nullptr) {
            const int64_t prow = at < 0 ? at + up : up + (at - len);
            v = (*pad)[prow * d + k];
          }
          for (int64_t c = 0; c < m; ++c) out[(lod[s] + r) * m + c] += v * w[(j * d + k) * m + c];
        }
      }
    }
  }
  return out;
}

TEST(SequenceConvOp, DocExample) {
  operators::RegisterAllOps();
  const auto r = RunOp("sequence_conv",
                       {{"X", {MakeLoDTensor<float>({3, 1}, {1, 2, 3}, {{0, 3}})}},
                        {"Filter", {MakeTensor<float>({3, 1}, {1, 10, 100})}}},
                       {{"Out", 1}}, {{"contextLength", 3}, {"contextStart", -1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{210, 321, 32}));
  EXPECT_EQ(r.outputs.at("Out")[0].lod(), (LoD{{0, 3}}));
}

TEST(SequenceConvOp, MatchesWindowsSummedByHand) {
  operators::RegisterAllOps();
  const int64_t d = 3, m = 2;
  for (const auto& lod : {std::vector<size_t>{0, 1, 4, 9}, std::vector<size_t>{0, 2, 2, 7}}) {
    const std::vector<double> x = RandomValues(lod.back() * d, -1, 1, 3);
    for (const auto& [start, length] :
         std::vector<std::pair<int, int>>{{-1, 3}, {0, 1}, {-4, 2}, {2, 3}, {-2, 5}, {0, 4}}) {
      for (bool trainable : {false, true}) {
        SCOPED_TRACE("start " + std::to_string(start) + " length " + std::to_string(length) +
                     (trainable ? " trainable" : ""));
        const std::vector<double> w = RandomValues(length * d * m, -1, 1, 5);
        const int pad_rows = std::max(0, -start) + std::max(0, start + length - 1);
        const std::vector<double> pad = RandomValues(pad_rows * d, -1, 1, 9);
        SlotTensors in = {
            {"X", {MakeLoDTensor<double>({static_cast<int64_t>(lod.back()), d}, x, {lod})}},
            {"Filter", {MakeTensor<double>({length * d, m}, w)}}};
        if (trainable) in["PaddingData"] = {MakeTensor<double>({pad_rows, d}, pad)};
        const auto r = RunOp(
            "sequence_conv", in, {{"Out", 1}},
            {{"contextLength", length}, {"contextStart", start}, {"paddingTrainable", trainable}});
        ExpectNear(ToDoubles(r.outputs.at("Out")[0]),
                   NaiveSeqConv(x, lod, d, w, m, start, length, trainable ? &pad : nullptr), 1e-12,
                   1e-12, "Out");
      }
    }
  }
}

TEST(SequenceConvOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (bool trainable : {false, true}) {
    SCOPED_TRACE(trainable ? "trainable" : "zero padding");
    GradCheck check;
    check.op_type = "sequence_conv";
    check.inputs = {
        {"X", {MakeLoDTensor<double>({6, 2}, RandomValues(12, -1, 1, 3), {{0, 1, 4, 6}})}},
        {"Filter", {MakeTensor<double>({6, 3}, RandomValues(18, -1, 1, 4))}}};
    if (trainable)
      check.inputs["PaddingData"] = {MakeTensor<double>({2, 2}, RandomValues(4, -1, 1, 5))};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"contextLength", 3}, {"contextStart", -2}, {"paddingTrainable", trainable}};
    CheckGradients(check);
  }
}

TEST(SequenceConvOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeLoDTensor<float>({4, 2}, RandomValues(8, -1, 1), {{0, 1, 4}});
  const DenseTensor w = MakeTensor<float>({6, 3}, RandomValues(18, -1, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_conv",
              {{"X", {x}}, {"Filter", {MakeTensor<float>({5, 3}, RandomValues(15, 0, 1))}}},
              {{"Out", 1}}, {{"contextLength", 3}});
      },
      {"op `sequence_conv` input `Filter`", "expected 6 rows", "[5, 3]"});
  ExpectError<platform::NotFoundError>(
      [&] {
        RunOp("sequence_conv", {{"X", {x}}, {"Filter", {w}}}, {{"Out", 1}},
              {{"contextLength", 3}, {"contextStart", -1}, {"paddingTrainable", true}});
      },
      {"op `sequence_conv` input `PaddingData`", "paddingTrainable"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_conv",
              {{"X", {x}}, {"Filter", {w}}, {"PaddingData", {MakeTensor<float>({1, 2}, {0, 0})}}},
              {{"Out", 1}},
              {{"contextLength", 3}, {"contextStart", -1}, {"paddingTrainable", true}});
      },
      {"op `sequence_conv` input `PaddingData`", "expected shape [2, 2]", "[1, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_conv",
              {{"X", {MakeTensor<float>({4, 2}, RandomValues(8, 0, 1))}}, {"Filter", {w}}},
              {{"Out", 1}}, {{"contextLength", 3}});
      },
      {"sequence_conv", "`X`", "without LoD"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_conv", {{"X", {x}}, {"Filter", {w}}}, {{"Out", 1}},
              {{"contextLength", 3}, {"contextStride", 2}});
      },
      {"sequence_conv", "contextStride"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
