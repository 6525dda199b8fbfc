// hierarchical_sigmoid (operators/loss/hierarchical_sigmoid_op.cc): the loss against paths
// walked here up the default tree's heap numbering (parent c / 2, right child when c is odd)
// or read from a custom table, in double, with PaddlePaddle's log 2 per slot past a short
// path; gradients of X, W and Bias against finite differences; the sparse gradient of W
// against the dense one; bad inputs. PaddlePaddle's outputs: fixtures hierarchical_sigmoid_*.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "framework/op_registry.h"
#include "framework/scope.h"
#include "framework/selected_rows.h"
#include "operators/registry.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr int64_t kN = 5, kD = 3;

// Node and branch lists of one sample in the default tree: leaf c = label + classes, walking
// up until the root (1); inner node k of the heap is W's row k - 1.
void DefaultPath(int64_t label, int64_t classes, std::vector<int64_t>* nodes,
                 std::vector<int>* bits) {
  for (int64_t c = label + classes; c > 1; c /= 2) {
    nodes->push_back(c / 2 - 1);
    bits->push_back(static_cast<int>(c % 2));
  }
}

std::vector<double> ReferenceLoss(const std::vector<double>& x, const std::vector<double>& w,
                                  const std::vector<double>* bias,
                                  const std::vector<std::vector<int64_t>>& nodes,
                                  const std::vector<std::vector<int>>& bits, int64_t length) {
  std::vector<double> out;
  for (int64_t i = 0; i < kN; ++i) {
    double loss = 0;
    for (size_t j = 0; j < nodes[i].size(); ++j) {
      double z = bias ? (*bias)[nodes[i][j]] : 0.0;
      for (int64_t k = 0; k < kD; ++k) z += w[nodes[i][j] * kD + k] * x[i * kD + k];
      loss += std::log(1 + std::exp(z)) - bits[i][j] * z;
    }
    loss += (length - static_cast<int64_t>(nodes[i].size())) * std::log(2.0);
    out.push_back(loss);
  }
  return out;
}

TEST(HierarchicalSigmoidOp, LossOverDefaultAndCustomTrees) {
  operators::RegisterAllOps();
  const std::vector<double> x = RandomValues(kN * kD, -1, 1, 180);
  for (int64_t classes : {6, 7, 8}) {
    SCOPED_TRACE(std::to_string(classes) + " classes");
    const std::vector<double> labels = {0, 5, 2, 3, 1};
    const std::vector<double> w = RandomValues((classes - 1) * kD, -1, 1, 181);
    const std::vector<double> bias = RandomValues(classes - 1, -1, 1, 182);
    std::vector<std::vector<int64_t>> nodes(kN);
    std::vector<std::vector<int>> bits(kN);
    size_t longest = 0;
    for (int64_t i = 0; i < kN; ++i) {
      DefaultPath(static_cast<int64_t>(labels[i]), classes, &nodes[i], &bits[i]);
      longest = std::max(longest, nodes[i].size());
    }
    for (bool with_bias : {false, true}) {
      SlotTensors in = {{"X", {MakeTensor<double>({kN, kD}, x)}},
                        {"W", {MakeTensor<double>({classes - 1, kD}, w)}},
                        {"Label", {MakeTensor<int64_t>({kN, 1}, labels)}}};
      if (with_bias) in["Bias"] = {MakeTensor<double>({classes - 1, 1}, bias)};
      const OpRunResult r = RunOp("hierarchical_sigmoid", in, {{"Out", 1}, {"PreOut", 1}},
                                  {{"num_classes", static_cast<int>(classes)}});
      // The code length is the bit count of classes - 1: the longest path here.
      EXPECT_EQ(r.outputs.at("PreOut")[0].dims(), DDim({kN, static_cast<int64_t>(longest)}));
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]),
                 ReferenceLoss(x, w, with_bias ? &bias : nullptr, nodes, bits,
                               static_cast<int64_t>(longest)),
                 1e-12, 1e-12, "Out");
    }
  }
  // A custom tree of 4 inner nodes, paths of lengths 3, 1, 2, 3, 2 (-1 ends them).
  const std::vector<double> table = {0, 1, 3, 2, -1, -1, 0, 2, -1, 0, 1, 2, 3, 1, -1};
  const std::vector<double> code = {1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0};
  std::vector<std::vector<int64_t>> nodes(kN);
  std::vector<std::vector<int>> bits(kN);
  for (int64_t i = 0; i < kN; ++i) {
    for (int64_t j = 0; j < 3 && table[i * 3 + j] >= 0; ++j) {
      nodes[i].push_back(static_cast<int64_t>(table[i * 3 + j]));
      bits[i].push_back(static_cast<int>(code[i * 3 + j]));
    }
  }
  const std::vector<double> w = RandomValues(4 * kD, -1, 1, 183);
  const OpRunResult r = RunOp("hierarchical_sigmoid",
                              {{"X", {MakeTensor<double>({kN, kD}, x)}},
                               {"W", {MakeTensor<double>({4, kD}, w)}},
                               {"Label", {MakeTensor<int64_t>({kN}, {0, 1, 2, 3, 4})}},
                               {"PathTable", {MakeTensor<int64_t>({kN, 3}, table)}},
                               {"PathCode", {MakeTensor<int64_t>({kN, 3}, code)}}},
                              {{"Out", 1}, {"PreOut", 1}}, {{"num_classes", 5}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), ReferenceLoss(x, w, nullptr, nodes, bits, 3), 1e-12,
             1e-12, "custom Out");
}

TEST(HierarchicalSigmoidOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "hierarchical_sigmoid";
  check.inputs = {{"X", {MakeTensor<double>({kN, kD}, RandomValues(kN * kD, -1, 1, 184))}},
                  {"W", {MakeTensor<double>({6, kD}, RandomValues(6 * kD, -1, 1, 185))}},
                  {"Bias", {MakeTensor<double>({6, 1}, RandomValues(6, -1, 1, 186))}},
                  {"Label", {MakeTensor<int64_t>({kN, 1}, {0, 6, 2, 3, 5})}}};
  check.outputs = {{"Out", 1}, {"PreOut", 1}};
  check.loss_outputs = {"Out"};
  check.attrs = {{"num_classes", 7}};
  check.wrt = {"X", "W", "Bias"};
  CheckGradients(check);
}

TEST(HierarchicalSigmoidOp, SparseWeightGradientHoldsTheUsedRows) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<double>({kN, kD}, RandomValues(kN * kD, -1, 1, 187));
  const DenseTensor w = MakeTensor<double>({15, kD}, RandomValues(15 * kD, -1, 1, 188));
  const DenseTensor label = MakeTensor<int64_t>({kN, 1}, {0, 1, 2, 3, 4});
  const OpRunResult fwd =
      RunOp("hierarchical_sigmoid", {{"X", {x}}, {"W", {w}}, {"Label", {label}}},
            {{"Out", 1}, {"PreOut", 1}}, {{"num_classes", 16}});
  const DenseTensor dout = MakeTensor<double>({kN, 1}, RandomValues(kN, -1, 1, 189));
  framework::Scope scope;
  *scope.Var("x")->GetMutable<DenseTensor>() = x;
  *scope.Var("w")->GetMutable<DenseTensor>() = w;
  *scope.Var("label")->GetMutable<DenseTensor>() = label;
  *scope.Var("pre")->GetMutable<DenseTensor>() = fwd.outputs.at("PreOut")[0];
  *scope.Var("dout")->GetMutable<DenseTensor>() = dout;
  const auto grad = [&](bool sparse, const std::string& dw) {
    scope.Var(dw);
    framework::OpRegistry::CreateOp("hierarchical_sigmoid_grad",
                                    {{"X", {"x"}},
                                     {"W", {"w"}},
                                     {"Label", {"label"}},
                                     {"PreOut", {"pre"}},
                                     {"Out@GRAD", {"dout"}}},
                                    {{"W@GRAD", {dw}}},
                                    {{"num_classes", 16}, {"is_sparse", sparse}})
        ->Run(scope, platform::CPUPlace());
  };
  grad(false, "dense");
  grad(true, "sparse");
  const std::vector<double> full = ToDoubles(scope.FindVar("dense")->Get<DenseTensor>());
  const framework::SelectedRows& rows = scope.FindVar("sparse")->Get<framework::SelectedRows>();
  EXPECT_EQ(rows.height(), 15);
  // Labels 0-4 of 16 classes: leaves 16-20, inner nodes 1, 2, 4, 5, 8, 9, 10 (W's rows one
  // less).
  EXPECT_EQ(rows.rows(), std::vector<int64_t>({0, 1, 3, 4, 7, 8, 9}));
  const std::vector<double> values = ToDoubles(rows.value());
  std::vector<double> merged(15 * kD, 0.0);
  for (size_t r = 0; r < rows.rows().size(); ++r) {
    for (int64_t k = 0; k < kD; ++k) merged[rows.rows()[r] * kD + k] += values[r * kD + k];
  }
  ExpectNear(merged, full, 1e-15, 1e-15, "sparse dW merged");
}

TEST(HierarchicalSigmoidOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2, 3}, RandomValues(6, -1, 1));
  const DenseTensor w = MakeTensor<float>({3, 3}, RandomValues(9, -1, 1));
  const auto run = [&](const DenseTensor& label, int classes) {
    RunOp("hierarchical_sigmoid", {{"X", {x}}, {"W", {w}}, {"Label", {label}}},
          {{"Out", 1}, {"PreOut", 1}}, {{"num_classes", classes}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(MakeTensor<int64_t>({2, 1}, {0, 4}), 4);
      },
      {"op `hierarchical_sigmoid` input `Label`", "[0, 4)", "4 at 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run(MakeTensor<int64_t>({2, 1}, {0, 4}), 8);
      },
      {"op `hierarchical_sigmoid` input `W`", "at least 7 rows"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("hierarchical_sigmoid",
              {{"X", {x}},
               {"W", {MakeTensor<float>({3, 2}, RandomValues(6, -1, 1))}},
               {"Label", {MakeTensor<int64_t>({2, 1}, {0, 1})}}},
              {{"Out", 1}, {"PreOut", 1}}, {{"num_classes", 4}});
      },
      {"op `hierarchical_sigmoid` input `W`", "[nodes, 3]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
