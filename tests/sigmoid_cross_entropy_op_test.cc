// sigmoid_cross_entropy_with_logits against the textbook -[l log s + (1 - l) log(1 - s)] in
// double (s = sigmoid(x)), and (1 - l) x - w log s with pos_weight w, with ignore_index and
// normalize; large logits stay
// finite; gradients against finite differences; shape errors.
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "sigmoid_cross_entropy_with_logits";

std::vector<double> Reference(const std::vector<double>& x, const std::vector<double>& l,
                              const std::vector<double>* w, int ignore, bool normalize) {
  std::vector<double> out(x.size());
  int count = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (static_cast<int>(l[i]) == ignore) continue;
    ++count;
    const double s = 1 / (1 + std::exp(-x[i]));
    out[i] = w ? (1 - l[i]) * x[i] - (*w)[i] * std::log(s)
               : -(l[i] * std::log(s) + (1 - l[i]) * std::log(1 - s));
  }
  if (normalize) {
    for (double& v : out) v /= std::max(count, 1);
  }
  return out;
}

template <typename T>
void CheckForward() {
  operators::RegisterAllOps();
  SCOPED_TRACE(DataTypeName(platform::ToDataType<T>()));
  const std::vector<double> x = RandomValues(12, -4, 4, 3);
  std::vector<double> l = RandomValues(12, 0, 1, 4);
  l[2] = -100;  // Ignored with the default ignore_index.
  l[7] = 1;
  l[9] = 0;
  const std::vector<double> w = RandomValues(12, 0.5, 3, 5);
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  for (bool normalize : {false, true}) {
    for (bool weighted : {false, true}) {
      SlotTensors in = {{"X", {MakeTensor<T>({3, 4}, x)}}, {"Label", {MakeTensor<T>({3, 4}, l)}}};
      if (weighted) in["pos_weight"] = {MakeTensor<T>({3, 4}, w)};
      const OpRunResult r = RunOp(kOp, in, {{"Out", 1}}, {{"normalize", normalize}});
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]),
                 Reference(x, l, weighted ? &w : nullptr, -100, normalize), tol, tol, kOp);
    }
  }
}

TEST(SigmoidCrossEntropyOp, MatchesTheTextbookLossFloat) { CheckForward<float>(); }
TEST(SigmoidCrossEntropyOp, MatchesTheTextbookLossDouble) { CheckForward<double>(); }

TEST(SigmoidCrossEntropyOp, LargeLogitsAndAllIgnored) {
  operators::RegisterAllOps();
  const OpRunResult r = RunOp(kOp,
                              {{"X", {MakeTensor<float>({3}, {100, -100, 0})}},
                               {"Label", {MakeTensor<float>({3}, {0, 1, 1})}}},
                              {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {100, 100, std::log(2.0)}, 1e-6, 1e-6, kOp);
  // Every label ignored (ignore_index 1): zeros, not 0 / 0.
  const OpRunResult all = RunOp(
      kOp, {{"X", {MakeTensor<float>({2}, {1, 2})}}, {"Label", {MakeTensor<float>({2}, {1, 1})}}},
      {{"Out", 1}}, {{"normalize", true}, {"ignore_index", 1}});
  EXPECT_EQ(ToDoubles(all.outputs.at("Out")[0]), (std::vector<double>{0, 0}));
}

TEST(SigmoidCrossEntropyOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  std::vector<double> l = RandomValues(12, 0, 1, 7);
  l[5] = -1;
  for (bool normalize : {false, true}) {
    for (bool weighted : {false, true}) {
      SCOPED_TRACE(std::string(normalize ? "normalize " : "") + (weighted ? "pos_weight" : ""));
      GradCheck check;
      check.op_type = kOp;
      check.inputs = {{"X", {MakeTensor<double>({3, 4}, RandomValues(12, -3, 3, 6))}},
                      {"Label", {MakeTensor<double>({3, 4}, l)}}};
      if (weighted) {
        check.inputs["pos_weight"] = {MakeTensor<double>({3, 4}, RandomValues(12, 0.5, 2, 8))};
      }
      check.outputs = {{"Out", 1}};
      check.attrs = {{"normalize", normalize}, {"ignore_index", -1}};
      check.wrt = {"X"};
      CheckGradients(check);
    }
  }
}

TEST(SigmoidCrossEntropyOp, ShapeMismatchesAreErrors) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp,
              {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, -1, 1))}},
               {"Label", {MakeTensor<float>({3, 2}, RandomValues(6, 0, 1))}}},
              {{"Out", 1}});
      },
      {"op `sigmoid_cross_entropy_with_logits` input `Label`", "[2, 3]", "[3, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp,
              {{"X", {MakeTensor<float>({2}, {1, 2})}},
               {"Label", {MakeTensor<float>({2}, {0, 1})}},
               {"pos_weight", {MakeTensor<float>({1}, {2})}}},
              {{"Out", 1}});
      },
      {"input `pos_weight`", "[2]", "[1]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
