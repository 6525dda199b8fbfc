// The LoD sequence ops (sequence_pool, sequence_expand, sequence_softmax, sequence_reverse,
// sequence_concat): values against naive loops in double, output LoDs, gradients against
// finite differences, and the typed errors for bad LoDs and shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LoD;

class SequenceOpsTest : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

// ---- sequence_pool ----

// Pools rows [lod[i], lod[i+1]) of a [rows, w] matrix naively.
std::vector<double> PoolReference(const std::string& type, const std::vector<double>& x, int64_t w,
                                  const std::vector<size_t>& lod, double pad,
                                  std::vector<double>* max_index) {
  std::vector<double> out;
  for (size_t i = 0; i + 1 < lod.size(); ++i) {
    const size_t len = lod[i + 1] - lod[i];
    for (int64_t k = 0; k < w; ++k) {
      if (len == 0) {
        out.push_back(pad);
        if (max_index) max_index->push_back(-1);
        continue;
      }
      double sum = 0, best = x[lod[i] * w + k];
      size_t arg = lod[i];
      for (size_t r = lod[i]; r < lod[i + 1]; ++r) {
        sum += x[r * w + k];
        if (x[r * w + k] > best) best = x[r * w + k], arg = r;
      }
      if (type == "SUM") out.push_back(sum);
      if (type == "AVERAGE") out.push_back(sum / len);
      if (type == "SQRT") out.push_back(sum / std::sqrt(static_cast<double>(len)));
      if (type == "FIRST") out.push_back(x[lod[i] * w + k]);
      if (type == "LAST") out.push_back(x[(lod[i + 1] - 1) * w + k]);
      if (type == "MAX") {
        out.push_back(best);
        if (max_index) max_index->push_back(static_cast<double>(arg));
      }
    }
  }
  return out;
}

const char* const kPoolTypes[] = {"SUM", "AVERAGE", "SQRT", "FIRST", "LAST", "MAX"};

template <typename T>
void CheckPoolValues() {
  const std::vector<size_t> lod = {0, 2, 2, 5, 9};
  const std::vector<double> x = RandomValues(9 * 3, -2, 2, 3);
  for (const std::string type : kPoolTypes) {
    SCOPED_TRACE(type);
    auto r = RunOp("sequence_pool", {{"X", {MakeLoDTensor<T>(DDim{9, 3}, x, {lod})}}},
                   {{"Out", 1}, {"MaxIndex", 1}}, {{"pooltype", type}, {"pad_value", 0.5f}});
    const DenseTensor& out = r.outputs["Out"][0];
    EXPECT_EQ(out.dims(), (DDim{4, 3}));
    EXPECT_TRUE(out.lod().empty());
    std::vector<double> max_index;
    const std::vector<double> want = PoolReference(type, x, 3, lod, 0.5, &max_index);
    ExpectNear(ToDoubles(out), want, RelTol(out.dtype()), AbsTol(out.dtype()), type);
    if (type == "MAX") {
      const DenseTensor& idx = r.outputs["MaxIndex"][0];
      ASSERT_EQ(idx.dtype(), DataType::INT32);
      const int32_t* p = idx.data<int32_t>();
      for (size_t i = 0; i < max_index.size(); ++i) EXPECT_EQ(p[i], max_index[i]) << i;
    }
  }
}

TEST_F(SequenceOpsTest, PoolMatchesNaiveLoopsWithEmptySequence) {
  CheckPoolValues<float>();
  CheckPoolValues<double>();
}

TEST_F(SequenceOpsTest, PoolDocExampleAndTwoLevelLoD) {
  const DenseTensor x = MakeLoDTensor<float>(DDim{5, 1}, {1, 3, 2, 4, 6}, {{0, 2, 5}});
  auto sum = RunOp("sequence_pool", {{"X", {x}}}, {{"Out", 1}}, {{"pooltype", std::string("SUM")}});
  EXPECT_EQ(ToDoubles(sum.outputs["Out"][0]), (std::vector<double>{4, 12}));
  // Default pooltype AVERAGE.
  auto avg = RunOp("sequence_pool", {{"X", {x}}}, {{"Out", 1}});
  EXPECT_EQ(ToDoubles(avg.outputs["Out"][0]), (std::vector<double>{2, 4}));
  // Two levels: pooling over the last, the first stays as Out's LoD.
  const DenseTensor x2 =
      MakeLoDTensor<double>(DDim{5, 1}, {1, 3, 2, 4, 6}, {{0, 1, 3}, {0, 2, 4, 5}});
  auto r = RunOp("sequence_pool", {{"X", {x2}}}, {{"Out", 1}, {"MaxIndex", 1}},
                 {{"pooltype", std::string("MAX")}});
  EXPECT_EQ(ToDoubles(r.outputs["Out"][0]), (std::vector<double>{3, 4, 6}));
  EXPECT_EQ(r.outputs["Out"][0].lod(), (LoD{{0, 1, 3}}));
}

TEST_F(SequenceOpsTest, PoolGradientsMatchFiniteDifferences) {
  for (const std::string type : kPoolTypes) {
    SCOPED_TRACE(type);
    GradCheck check;
    check.op_type = "sequence_pool";
    check.inputs = {
        {"X", {MakeLoDTensor<double>(DDim{7, 2}, RandomValues(14, -1, 1, 9), {{0, 3, 3, 4, 7}})}}};
    check.outputs = {{"Out", 1}, {"MaxIndex", 1}};
    check.loss_outputs = {"Out"};
    check.attrs = {{"pooltype", type}, {"pad_value", 1.5f}};
    CheckGradients(check);
  }
}

TEST_F(SequenceOpsTest, PoolErrors) {
  const DenseTensor plain = MakeTensor<float>(DDim{4, 2}, RandomValues(8, -1, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("sequence_pool", {{"X", {plain}}}, {{"Out", 1}}); },
      {"sequence_pool", "`X`", "without LoD"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_pool",
              {{"X", {MakeLoDTensor<float>(DDim{4, 2}, RandomValues(8, -1, 1), {{0, 2, 5}})}}},
              {{"Out", 1}});
      },
      {"sequence_pool", "`X`", "ends at 5", "expected 4"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_pool",
              {{"X",
                {MakeLoDTensor<float>(DDim{4, 2}, RandomValues(8, -1, 1),
                                      {{0, 1}, {0, 2}, {0, 1, 4}})}}},
              {{"Out", 1}});
      },
      {"sequence_pool", "`X`", "at most 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_pool",
              {{"X", {MakeLoDTensor<float>(DDim{4, 2}, RandomValues(8, -1, 1), {{0, 4}})}}},
              {{"Out", 1}}, {{"pooltype", std::string("MIN")}});
      },
      {"sequence_pool", "pooltype", "MIN"});
}

// ---- sequence_expand ----

TEST_F(SequenceOpsTest, ExpandRowsWithoutLoD) {
  const DenseTensor x = MakeTensor<float>(DDim{3, 2}, {1, 2, 3, 4, 5, 6});
  const DenseTensor y = MakeLoDTensor<float>(DDim{6, 1}, RandomValues(6, 0, 1), {{0, 2, 3, 6}});
  auto r = RunOp("sequence_expand", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), (DDim{6, 2}));
  EXPECT_EQ(ToDoubles(out), (std::vector<double>{1, 2, 1, 2, 3, 4, 5, 6, 5, 6, 5, 6}));
  EXPECT_TRUE(out.lod().empty());
}

TEST_F(SequenceOpsTest, ExpandSequencesWithLoD) {
  // X's sequences [a, b], [c], [d]; Y's level 0 asks for 2, 0 and 1 copies.
  const DenseTensor x = MakeLoDTensor<int64_t>(DDim{4, 1}, {10, 11, 12, 13}, {{0, 2, 3, 4}});
  const DenseTensor y =
      MakeLoDTensor<float>(DDim{5, 1}, RandomValues(5, 0, 1), {{0, 2, 2, 3}, {0, 1, 3, 5}});
  auto r = RunOp("sequence_expand", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}, {{"ref_level", 0}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(ToDoubles(out), (std::vector<double>{10, 11, 10, 11, 13}));
  EXPECT_EQ(out.lod(), (LoD{{0, 2, 4, 5}}));
  // ref_level -1 follows the last level: 1, 2 and 2 copies of X's three sequences.
  auto last = RunOp(
      "sequence_expand",
      {{"X", {MakeLoDTensor<double>(DDim{4, 1}, {10, 11, 12, 13}, {{0, 2, 3, 4}})}}, {"Y", {y}}},
      {{"Out", 1}});
  EXPECT_EQ(ToDoubles(last.outputs["Out"][0]), (std::vector<double>{10, 11, 12, 12, 13, 13}));
  EXPECT_EQ(last.outputs["Out"][0].lod(), (LoD{{0, 2, 3, 4, 5, 6}}));
}

TEST_F(SequenceOpsTest, ExpandGradientsMatchFiniteDifferences) {
  for (bool x_lod : {false, true}) {
    SCOPED_TRACE(x_lod ? "X with LoD" : "X without LoD");
    GradCheck check;
    check.op_type = "sequence_expand";
    DenseTensor x = MakeTensor<double>(DDim{4, 2}, RandomValues(8, -1, 1, 5));
    if (x_lod) x.set_lod({{0, 1, 3, 4, 4}});
    check.inputs = {
        {"X", {x}},
        {"Y", {MakeLoDTensor<double>(DDim{6, 1}, RandomValues(6, 0, 1), {{0, 2, 2, 5, 6}})}}};
    check.outputs = {{"Out", 1}};
    check.wrt = {"X"};
    CheckGradients(check);
  }
}

TEST_F(SequenceOpsTest, ExpandErrors) {
  const DenseTensor x = MakeTensor<float>(DDim{3, 2}, RandomValues(6, -1, 1));
  const DenseTensor y = MakeLoDTensor<float>(DDim{4, 1}, RandomValues(4, 0, 1), {{0, 2, 4}});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("sequence_expand", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}); },
      {"sequence_expand", "`X`", "expected 2 sequences", "received 3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("sequence_expand", {{"X", {x}}, {"Y", {MakeTensor<float>(DDim{3, 1}, {1, 2, 3})}}}, {{"Out", 1}}); },
      {"sequence_expand", "`Y`", "without LoD"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_expand", {{"X", {MakeTensor<float>(DDim{2, 2}, RandomValues(4, -1, 1))}}, {"Y", {y}}},
              {{"Out", 1}}, {{"ref_level", 1}});
      },
      {"sequence_expand", "ref_level", "received 1"});
}

// ---- sequence_softmax ----

template <typename T>
void CheckSoftmax(const DDim& dims) {
  const std::vector<size_t> lod = {0, 3, 3, 4, 8};
  const std::vector<double> x = RandomValues(8, -3, 3, 11);
  auto r = RunOp("sequence_softmax", {{"X", {MakeLoDTensor<T>(dims, x, {lod})}}}, {{"Out", 1}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), dims);
  EXPECT_EQ(out.lod(), (LoD{lod}));
  std::vector<double> want(8);
  for (size_t i = 0; i + 1 < lod.size(); ++i) {
    double sum = 0;
    for (size_t r = lod[i]; r < lod[i + 1]; ++r) sum += std::exp(x[r]);
    for (size_t r = lod[i]; r < lod[i + 1]; ++r) want[r] = std::exp(x[r]) / sum;
  }
  ExpectNear(ToDoubles(out), want, RelTol(out.dtype()), AbsTol(out.dtype()), "sequence_softmax");
}

TEST_F(SequenceOpsTest, SoftmaxMatchesNaiveLoops) {
  CheckSoftmax<float>(DDim{8, 1});
  CheckSoftmax<double>(DDim{8});
  // Large values do not overflow.
  auto r = RunOp("sequence_softmax",
                 {{"X", {MakeLoDTensor<float>(DDim{2, 1}, {1000, 1000}, {{0, 2}})}}}, {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs["Out"][0]), (std::vector<double>{0.5, 0.5}));
}

TEST_F(SequenceOpsTest, SoftmaxGradientMatchesFiniteDifferences) {
  GradCheck check;
  check.op_type = "sequence_softmax";
  check.inputs = {
      {"X", {MakeLoDTensor<double>(DDim{7, 1}, RandomValues(7, -2, 2, 12), {{0, 2, 3, 7}})}}};
  check.outputs = {{"Out", 1}};
  CheckGradients(check);
}

TEST_F(SequenceOpsTest, SoftmaxErrors) {
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_softmax",
              {{"X", {MakeLoDTensor<float>(DDim{2, 2}, {1, 2, 3, 4}, {{0, 2}})}}}, {{"Out", 1}});
      },
      {"sequence_softmax", "`X`", "[N, 1] or [N]", "[2, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("sequence_softmax", {{"X", {MakeTensor<float>(DDim{3, 1}, {1, 2, 3})}}}, {{"Out", 1}}); },
      {"sequence_softmax", "`X`", "without LoD"});
}

// ---- sequence_reverse ----

TEST_F(SequenceOpsTest, ReverseWithinSequences) {
  const DenseTensor x =
      MakeLoDTensor<float>(DDim{5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {{0, 2, 2, 5}});
  auto r = RunOp("sequence_reverse", {{"X", {x}}}, {{"Y", 1}});
  const DenseTensor& y = r.outputs["Y"][0];
  EXPECT_EQ(ToDoubles(y), (std::vector<double>{3, 4, 1, 2, 9, 10, 7, 8, 5, 6}));
  EXPECT_EQ(y.lod(), (LoD{{0, 2, 2, 5}}));
  auto ints = RunOp("sequence_reverse",
                    {{"X", {MakeLoDTensor<int32_t>(DDim{3, 1}, {1, 2, 3}, {{0, 3}})}}}, {{"Y", 1}});
  EXPECT_EQ(ToDoubles(ints.outputs["Y"][0]), (std::vector<double>{3, 2, 1}));
}

TEST_F(SequenceOpsTest, ReverseGradientMatchesFiniteDifferences) {
  GradCheck check;
  check.op_type = "sequence_reverse";
  check.inputs = {
      {"X", {MakeLoDTensor<double>(DDim{6, 2}, RandomValues(12, -1, 1, 13), {{0, 1, 4, 6}})}}};
  check.outputs = {{"Y", 1}};
  check.max_order = 2;
  CheckGradients(check);
}

TEST_F(SequenceOpsTest, ReverseErrors) {
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("sequence_reverse", {{"X", {MakeTensor<float>(DDim{3, 1}, {1, 2, 3})}}}, {{"Y", 1}}); },
      {"sequence_reverse", "`X`", "without LoD"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_reverse",
              {{"X", {MakeLoDTensor<float>(DDim{3, 1}, {1, 2, 3}, {{0, 1}, {0, 3}})}}}, {{"Y", 1}});
      },
      {"sequence_reverse", "`X`", "at most 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_reverse", {{"X", {MakeLoDTensor<float>(DDim{3}, {1, 2, 3}, {{0, 3}})}}},
              {{"Y", 1}});
      },
      {"sequence_reverse", "`X`", "rank >= 2"});
}

// ---- sequence_concat ----

TEST_F(SequenceOpsTest, ConcatJoinsMatchingSequences) {
  const DenseTensor a = MakeLoDTensor<float>(DDim{3, 2}, {1, 2, 3, 4, 5, 6}, {{0, 1, 1, 3}});
  const DenseTensor b = MakeLoDTensor<float>(DDim{2, 2}, {7, 8, 9, 10}, {{0, 0, 1, 2}});
  auto r = RunOp("sequence_concat", {{"X", {a, b}}}, {{"Out", 1}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), (DDim{5, 2}));
  EXPECT_EQ(ToDoubles(out), (std::vector<double>{1, 2, 7, 8, 3, 4, 5, 6, 9, 10}));
  EXPECT_EQ(out.lod(), (LoD{{0, 1, 2, 5}}));
}

TEST_F(SequenceOpsTest, ConcatGradientMatchesFiniteDifferences) {
  GradCheck check;
  check.op_type = "sequence_concat";
  check.inputs = {
      {"X",
       {MakeLoDTensor<double>(DDim{4, 3}, RandomValues(12, -1, 1, 14), {{0, 2, 2, 4}}),
        MakeLoDTensor<double>(DDim{3, 3}, RandomValues(9, -1, 1, 15), {{0, 1, 3, 3}}),
        MakeLoDTensor<double>(DDim{2, 3}, RandomValues(6, -1, 1, 16), {{0, 0, 1, 2}})}}};
  check.outputs = {{"Out", 1}};
  CheckGradients(check);
}

TEST_F(SequenceOpsTest, ConcatErrors) {
  const DenseTensor a = MakeLoDTensor<float>(DDim{3, 2}, RandomValues(6, -1, 1), {{0, 1, 3}});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp(
            "sequence_concat",
            {{"X", {a, MakeLoDTensor<float>(DDim{3, 2}, RandomValues(6, -1, 1), {{0, 1, 2, 3}})}}},
            {{"Out", 1}});
      },
      {"sequence_concat", "`X[1]`", "expected 2 sequences", "received 3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("sequence_concat", {{"X", {a}}}, {{"Out", 1}}); },
      {"sequence_concat", "`X`", "at least 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("sequence_concat",
              {{"X", {a, MakeLoDTensor<float>(DDim{2, 3}, RandomValues(6, -1, 1), {{0, 1, 2}})}}},
              {{"Out", 1}});
      },
      {"sequence_concat", "`X`", "elements per row"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("sequence_concat", {{"X", {a, MakeTensor<float>(DDim{2, 2}, RandomValues(4, -1, 1))}}}, {{"Out", 1}}); },
      {"sequence_concat", "`X[1]`", "without LoD"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
