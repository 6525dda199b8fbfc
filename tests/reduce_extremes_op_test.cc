// reduce_max, reduce_min, reduce_amax, reduce_amin, reduce_prod, reduce_all and reduce_any:
// every dim choice, keep_dim
// and reduce_all against a naive fold written from the coordinates of each element; NaN and
// empty dims; gradients of max, min and prod by finite differences (first and second order);
// typed errors. PaddlePaddle's own outputs are checked by the fixture test.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using Fold = std::function<double(double, double)>;

// Out of folding x (of `dims`) over the dims in `reduced`, starting each output from its
// first element (or `identity` for an empty reduction).
std::vector<double> NaiveReduce(const std::vector<double>& x, const std::vector<int64_t>& dims,
                                const std::vector<bool>& reduced, const Fold& fold,
                                double identity) {
  int64_t outputs = 1;
  for (size_t i = 0; i < dims.size(); ++i) outputs *= reduced[i] ? 1 : dims[i];
  std::vector<double> out(static_cast<size_t>(outputs), identity);
  std::vector<bool> seen(out.size(), false);
  for (size_t e = 0; e < x.size(); ++e) {
    // The coordinates of element e, then the row-major index of its kept ones.
    int64_t rest = static_cast<int64_t>(e), target = 0, scale = 1;
    for (size_t i = dims.size(); i-- > 0;) {
      const int64_t c = rest % dims[i];
      rest /= dims[i];
      if (!reduced[i]) {
        target += c * scale;
        scale *= dims[i];
      }
    }
    out[target] = seen[target] ? fold(out[target], x[e]) : x[e];
    seen[target] = true;
  }
  return out;
}

struct FoldCase {
  const char* type;
  Fold fold;
  double identity;
};

const FoldCase kNumeric[] = {
    {"reduce_max", [](double a, double b) { return std::max(a, b); }, 0},
    {"reduce_min", [](double a, double b) { return std::min(a, b); }, 0},
    {"reduce_prod", [](double a, double b) { return a * b; }, 1},
};

class ReduceExtremes : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(ReduceExtremes, EveryDimChoiceMatchesTheNaiveFold) {
  const std::vector<int64_t> dims = {2, 3, 4};
  const std::vector<double> x = RandomValues(24, 0.5, 1.5, 3);
  struct DimCase {
    std::vector<int> dim;
    bool reduce_all;
    std::vector<bool> reduced;
  };
  const DimCase dim_cases[] = {
      {{0}, false, {true, false, false}},   {{-1}, false, {false, false, true}},
      {{0, 2}, false, {true, false, true}}, {{1, -1, 1}, false, {false, true, true}},
      {{}, false, {true, true, true}},      {{1}, true, {true, true, true}}};
  for (const auto& c : kNumeric) {
    for (const auto& d : dim_cases) {
      for (bool keep_dim : {false, true}) {
        const std::string what = std::string(c.type) + " dim " + std::to_string(d.dim.size()) +
                                 (d.reduce_all ? " all" : "") + (keep_dim ? " keep_dim" : "");
        const AttributeMap attrs = {
            {"dim", d.dim}, {"keep_dim", keep_dim}, {"reduce_all", d.reduce_all}};
        const std::vector<double> want = NaiveReduce(x, dims, d.reduced, c.fold, c.identity);
        std::vector<int64_t> out_dims;
        for (size_t i = 0; i < dims.size(); ++i) {
          if (!d.reduced[i]) {
            out_dims.push_back(dims[i]);
          } else if (keep_dim) {
            out_dims.push_back(1);
          }
        }
        const auto r =
            RunOp(c.type, {{"X", {MakeTensor<double>(DDim(dims), x)}}}, {{"Out", 1}}, attrs);
        EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(out_dims)) << what;
        ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 0, what);
        const auto f =
            RunOp(c.type, {{"X", {MakeTensor<float>(DDim(dims), x)}}}, {{"Out", 1}}, attrs);
        ExpectNear(ToDoubles(f.outputs.at("Out")[0]), want, 1e-6, 0, what + " float");
        std::vector<double> ints(x.size());
        for (size_t i = 0; i < x.size(); ++i) ints[i] = std::round(x[i] * 4) - 4;
        const auto n =
            RunOp(c.type, {{"X", {MakeTensor<int64_t>(DDim(dims), ints)}}}, {{"Out", 1}}, attrs);
        ExpectNear(ToDoubles(n.outputs.at("Out")[0]),
                   NaiveReduce(ints, dims, d.reduced, c.fold, c.identity), 0, 0, what + " int64");
      }
    }
  }
}

TEST_F(ReduceExtremes, AllAndAnyOnBools) {
  const std::vector<double> x = {1, 1, 0, 1, 1, 1, 0, 0, 0};
  // PaddlePaddle declares these ops' `dim` as int64 values.
  const AttributeMap rows = {{"dim", std::vector<int64_t>{1}}};
  const auto all = RunOp("reduce_all", {{"X", {MakeTensor<bool>({3, 3}, x)}}}, {{"Out", 1}}, rows);
  EXPECT_EQ(all.outputs.at("Out")[0].dtype(), DataType::BOOL);
  ExpectNear(ToDoubles(all.outputs.at("Out")[0]), {0, 1, 0}, 0, 0, "reduce_all");
  const auto any = RunOp("reduce_any", {{"X", {MakeTensor<bool>({3, 3}, x)}}}, {{"Out", 1}}, rows);
  ExpectNear(ToDoubles(any.outputs.at("Out")[0]), {1, 1, 0}, 0, 0, "reduce_any");
  // Numbers count as true where nonzero; Out is bool.
  const auto numbers =
      RunOp("reduce_any", {{"X", {MakeTensor<float>({2, 2}, {0, 0.5, 0, 0})}}}, {{"Out", 1}}, rows);
  EXPECT_EQ(numbers.outputs.at("Out")[0].dtype(), DataType::BOOL);
  ExpectNear(ToDoubles(numbers.outputs.at("Out")[0]), {1, 0}, 0, 0, "reduce_any on float");
  // Empty dims: all is true, any is false, prod is 1.
  const AttributeMap last = {{"dim", std::vector<int>{-1}}};
  const AttributeMap last64 = {{"dim", std::vector<int64_t>{-1}}};
  const auto empty_all =
      RunOp("reduce_all", {{"X", {MakeTensor<bool>({2, 0}, {})}}}, {{"Out", 1}}, last64);
  ExpectNear(ToDoubles(empty_all.outputs.at("Out")[0]), {1, 1}, 0, 0, "empty all");
  const auto empty_any =
      RunOp("reduce_any", {{"X", {MakeTensor<bool>({2, 0}, {})}}}, {{"Out", 1}}, last64);
  ExpectNear(ToDoubles(empty_any.outputs.at("Out")[0]), {0, 0}, 0, 0, "empty any");
  const auto empty_prod =
      RunOp("reduce_prod", {{"X", {MakeTensor<double>({2, 0}, {})}}}, {{"Out", 1}}, last);
  ExpectNear(ToDoubles(empty_prod.outputs.at("Out")[0]), {1, 1}, 0, 0, "empty prod");
}

TEST_F(ReduceExtremes, NanWinsAndEmptyDimsAreRefused) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* type : {"reduce_max", "reduce_min"}) {
    const auto r = RunOp(type, {{"X", {MakeTensor<double>({2, 3}, {1, nan, 3, 4, 5, 6})}}},
                         {{"Out", 1}}, {{"dim", std::vector<int>{1}}});
    const std::vector<double> out = ToDoubles(r.outputs.at("Out")[0]);
    EXPECT_TRUE(std::isnan(out[0])) << type;
    EXPECT_EQ(out[1], std::string(type) == "reduce_max" ? 6 : 4) << type;
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp(type, {{"X", {MakeTensor<double>({2, 0}, {})}}}, {{"Out", 1}},
                {{"dim", std::vector<int>{1}}});
        },
        {std::string("op `") + type + "` input `X`", "cannot reduce an empty dim", "[2, 0]"});
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("reduce_max", {{"X", {MakeTensor<double>({2, 3}, std::vector<double>(6))}}},
              {{"Out", 1}}, {{"dim", std::vector<int>{2}}});
      },
      {"op `reduce_max`", "`dim`"});
}

TEST_F(ReduceExtremes, GradientsMatchFiniteDifferences) {
  // Distinct values (no ties) away from 0, so max and min are differentiable and prod's
  // Out / X is finite.
  const std::vector<double> x = {0.7, -1.3, 1.9, 0.4, -0.6, 1.2, 1.5, -0.9, 0.8, -1.7, 1.1, 0.3};
  for (const char* type : {"reduce_max", "reduce_min", "reduce_prod"}) {
    for (const auto& attrs : {AttributeMap{{"dim", std::vector<int>{1}}},
                              AttributeMap{{"dim", std::vector<int>{0, 2}}, {"keep_dim", true}},
                              AttributeMap{{"reduce_all", true}}}) {
      SCOPED_TRACE(type);
      GradCheck check;
      check.op_type = type;
      check.inputs = {{"X", {MakeTensor<double>({2, 3, 2}, x)}}};
      check.outputs = {{"Out", 1}};
      check.attrs = attrs;
      check.max_order = 2;
      CheckGradients(check);
    }
  }
}

// amax and amin fold as max and min (their `dim` is int64, as PaddlePaddle declares it); their
// gradient is shared evenly by the tied elements, where max's goes whole to each.
TEST_F(ReduceExtremes, AMaxAMinShareTheGradientOfTies) {
  const std::vector<int64_t> dims = {2, 3, 4};
  const std::vector<double> x = RandomValues(24, -1, 1, 5);
  const struct {
    const char* type;
    Fold fold;
  } cases[] = {{"reduce_amax", [](double a, double b) { return std::max(a, b); }},
               {"reduce_amin", [](double a, double b) { return std::min(a, b); }}};
  for (const auto& c : cases) {
    for (const auto& [dim, reduced] :
         {std::pair<std::vector<int64_t>, std::vector<bool>>{{1}, {false, true, false}},
          {{0, -1}, {true, false, true}},
          {{}, {true, true, true}}}) {
      const auto r =
          RunOp(c.type, {{"X", {MakeTensor<double>(DDim(dims), x)}}}, {{"Out", 1}}, {{"dim", dim}});
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), NaiveReduce(x, dims, reduced, c.fold, 0), 0, 0,
                 c.type);
    }
    // Row 0 ties three ways at its extreme, row 1 has one extreme.
    const double e = std::string(c.type) == "reduce_amax" ? 2 : -2;
    const DenseTensor t = MakeTensor<double>({2, 4}, {e, 0.5, e, e, 0.1, e, 0.3, 0.2});
    const auto g =
        NthGradient(c.type, {{"X", {t}}}, {{"Out", 1}}, {{"dim", std::vector<int64_t>{1}}}, 1);
    ExpectNear(ToDoubles(g.at("X_0")), {1.0 / 3, 0, 1.0 / 3, 1.0 / 3, 0, 1, 0, 0}, 1e-15, 1e-15,
               c.type);
    for (const auto& attrs : {AttributeMap{{"dim", std::vector<int64_t>{1}}},
                              AttributeMap{{"dim", std::vector<int64_t>{0, 2}}, {"keep_dim", true}},
                              AttributeMap{{"reduce_all", true}}}) {
      SCOPED_TRACE(c.type);
      GradCheck check;
      check.op_type = c.type;
      check.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, x)}}};
      check.outputs = {{"Out", 1}};
      check.attrs = attrs;
      check.max_order = 2;
      CheckGradients(check);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
