// cumprod, logcumsumexp, cummax and cummin against loops over each line written here in double
// (every dim, exclusive and reverse), with zeros for cumprod's gradient, large values for
// logcumsumexp's stability, ties and NaN for cummax/cummin; gradients by finite differences;
// typed errors.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// Calls fn(positions) for each line of `dims` along `axis`, positions in scan order.
template <typename Fn>
void Lines(const std::vector<int64_t>& dims, int axis, bool reverse, Fn&& fn) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= dims[i];
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t len = dims[axis];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<int64_t> pos;
      for (int64_t k = 0; k < len; ++k) {
        pos.push_back((o * len + (reverse ? len - 1 - k : k)) * inner + i);
      }
      fn(pos);
    }
  }
}

class CumulativeOps : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(CumulativeOps, DocExamples) {
  const DenseTensor x = MakeTensor<float>({3}, {1, 2, 3});
  auto run = [&](bool exclusive, bool reverse) {
    return ToDoubles(RunOp("cumprod", {{"X", {x}}}, {{"Out", 1}},
                           {{"dim", 0}, {"exclusive", exclusive}, {"reverse", reverse}})
                         .outputs.at("Out")[0]);
  };
  EXPECT_EQ(run(false, false), (std::vector<double>{1, 2, 6}));
  EXPECT_EQ(run(true, false), (std::vector<double>{1, 1, 2}));
  EXPECT_EQ(run(false, true), (std::vector<double>{6, 6, 3}));
  const auto m = RunOp("cummax", {{"x", {MakeTensor<float>({4}, {1, 3, 2, 3})}}},
                       {{"out", 1}, {"indices", 1}});
  EXPECT_EQ(ToDoubles(m.outputs.at("out")[0]), (std::vector<double>{1, 3, 3, 3}));
  EXPECT_EQ(ToDoubles(m.outputs.at("indices")[0]), (std::vector<double>{0, 1, 1, 3}));
  EXPECT_EQ(m.outputs.at("indices")[0].dtype(), DataType::INT64);
}

TEST_F(CumulativeOps, CumprodAndLogcumsumexpMatchTheLines) {
  const std::vector<int64_t> dims = {2, 3, 4};
  const std::vector<double> x = RandomValues(24, -1.5, 1.5, 3);
  for (int axis = 0; axis < 3; ++axis) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        const std::string what = "axis " + std::to_string(axis) + (exclusive ? " exclusive" : "") +
                                 (reverse ? " reverse" : "");
        std::vector<double> prod(24), lse(24);
        Lines(dims, axis, reverse, [&](const std::vector<int64_t>& pos) {
          double p = 1, s = 0;
          for (int64_t at : pos) {
            if (exclusive) {
              prod[at] = p;
              lse[at] = std::log(s);
            }
            p *= x[at];
            s += std::exp(x[at]);
            if (!exclusive) {
              prod[at] = p;
              lse[at] = std::log(s);
            }
          }
        });
        // A negative dim counts from the end.
        const AttributeMap cumprod_attrs = {
            {"dim", axis - 3}, {"exclusive", exclusive}, {"reverse", reverse}};
        for (bool as_float : {false, true}) {
          const DenseTensor t =
              as_float ? MakeTensor<float>(DDim(dims), x) : MakeTensor<double>(DDim(dims), x);
          const double tol = as_float ? 1e-6 : 1e-14;
          ExpectNear(
              ToDoubles(
                  RunOp("cumprod", {{"X", {t}}}, {{"Out", 1}}, cumprod_attrs).outputs.at("Out")[0]),
              prod, tol, tol, "cumprod " + what);
          // Exclusive scans start at log(0) = -inf: compared as a flag.
          const auto finite = [](std::vector<double> v) {
            for (double& a : v) a = std::isinf(a) && a < 0 ? -1e300 : a;
            return v;
          };
          ExpectNear(finite(ToDoubles(
                         RunOp("logcumsumexp", {{"X", {t}}}, {{"Out", 1}},
                               {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}})
                             .outputs.at("Out")[0])),
                     finite(lse), tol, tol, "logcumsumexp " + what);
        }
      }
    }
  }
  // flatten scans X as 1-D; large values stay finite.
  const std::vector<double> big = {1000, 999, -1000, 1001, 1000, 998};
  std::vector<double> want;
  double m = -std::numeric_limits<double>::infinity(), s = 0;
  for (double v : big) {
    // log(sum exp) relative to the running maximum.
    if (v > m) {
      s = s * std::exp(m - v) + 1;
      m = v;
    } else {
      s += std::exp(v - m);
    }
    want.push_back(m + std::log(s));
  }
  const auto r = RunOp("logcumsumexp", {{"X", {MakeTensor<float>({2, 3}, big)}}}, {{"Out", 1}},
                       {{"flatten", true}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({6}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-6, 1e-3, "flatten, large values");
  // Exclusive: the first output is log(0).
  const auto e = RunOp("logcumsumexp", {{"X", {MakeTensor<double>({2}, {0, 0})}}}, {{"Out", 1}},
                       {{"exclusive", true}});
  EXPECT_EQ(ToDoubles(e.outputs.at("Out")[0])[0], -std::numeric_limits<double>::infinity());
  // Integer cumprod.
  const auto n = RunOp("cumprod", {{"X", {MakeTensor<int64_t>({4}, {2, -3, 4, 5})}}}, {{"Out", 1}},
                       {{"dim", 0}});
  EXPECT_EQ(ToDoubles(n.outputs.at("Out")[0]), (std::vector<double>{2, -6, -24, -120}));
}

TEST_F(CumulativeOps, GradientsMatchFiniteDifferences) {
  // Zeros (one per line along dim 1, two in one line) for cumprod: no division by X.
  std::vector<double> x = RandomValues(24, -1.5, 1.5, 7);
  x[1] = 0;
  x[5] = 0;
  x[9] = 0;
  x[13] = 0;
  for (int axis : {0, 1, 2}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        SCOPED_TRACE("axis " + std::to_string(axis) + (exclusive ? " exclusive" : "") +
                     (reverse ? " reverse" : ""));
        GradCheck prod;
        prod.op_type = "cumprod";
        prod.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, x)}}};
        prod.outputs = {{"Out", 1}};
        prod.attrs = {{"dim", axis}, {"exclusive", exclusive}, {"reverse", reverse}};
        CheckGradients(prod);
        // An exclusive scan's first output is -inf, which finite differences cannot take:
        // its gradient is checked in closed form below.
        if (exclusive) continue;
        GradCheck lse;
        lse.op_type = "logcumsumexp";
        lse.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, x)}}};
        lse.outputs = {{"Out", 1}};
        lse.attrs = {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}};
        CheckGradients(lse);
      }
    }
  }
  // Exclusive, dOut = 1: dX_k = sum over j > k of e^{X_k - Out_j}.
  for (bool reverse : {false, true}) {
    const std::vector<double> v = RandomValues(5, -2, 2, 10);
    const auto g = NthGradient("logcumsumexp", {{"X", {MakeTensor<double>({5}, v)}}}, {{"Out", 1}},
                               {{"exclusive", true}, {"reverse", reverse}}, 1);
    std::vector<double> want(5, 0.0);
    for (int k = 0; k < 5; ++k) {
      for (int j = 0; j < 5; ++j) {
        if (reverse ? j >= k : j <= k) continue;  // Out_j must include X_k.
        double s = 0;
        for (int i = 0; i < 5; ++i) {
          if (reverse ? i > j : i < j) s += std::exp(v[i]);
        }
        want[k] += std::exp(v[k]) / s;
      }
    }
    ExpectNear(ToDoubles(g.at("X_0")), want, 1e-12, 1e-14,
               reverse ? "exclusive reverse" : "exclusive");
  }
  GradCheck flat;
  flat.op_type = "logcumsumexp";
  flat.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -2, 2, 8))}}};
  flat.outputs = {{"Out", 1}};
  flat.attrs = {{"flatten", true}, {"reverse", true}};
  CheckGradients(flat);
  // Distinct values: cummax and cummin are differentiable there.
  for (const char* op : {"cummax", "cummin"}) {
    for (int axis : {0, -1}) {
      SCOPED_TRACE(op);
      GradCheck c;
      c.op_type = op;
      c.inputs = {{"x", {MakeTensor<double>({3, 4}, RandomValues(12, -2, 2, 9))}}};
      c.outputs = {{"out", 1}, {"indices", 1}};
      c.loss_outputs = {"out"};
      c.attrs = {{"axis", axis}};
      CheckGradients(c);
    }
  }
}

TEST_F(CumulativeOps, CumExtremesTakeTheLaterTieAndKeepNaN) {
  const double nan = std::nan("");
  const std::vector<double> x = {2, 1, 2, nan, 3, 5, 5, 4};
  for (const bool max : {true, false}) {
    const std::string op = max ? "cummax" : "cummin";
    for (int dtype : {2, 3}) {
      const auto r = RunOp(op, {{"x", {MakeTensor<double>({2, 4}, x)}}},
                           {{"out", 1}, {"indices", 1}}, {{"axis", 1}, {"dtype", dtype}});
      EXPECT_EQ(r.outputs.at("indices")[0].dtype(), static_cast<DataType>(dtype));
      const std::vector<double> want_idx = max ? std::vector<double>{0, 0, 2, 3, 0, 1, 2, 2}
                                               : std::vector<double>{0, 1, 1, 3, 0, 0, 0, 0};
      EXPECT_EQ(ToDoubles(r.outputs.at("indices")[0]), want_idx) << op;
      const std::vector<double> out = ToDoubles(r.outputs.at("out")[0]);
      for (size_t k = 0; k < 8; ++k) {
        const double want = x[(k / 4) * 4 + static_cast<size_t>(want_idx[k])];
        EXPECT_TRUE(std::isnan(want) ? std::isnan(out[k]) : out[k] == want) << op << " " << k;
      }
    }
    // The gradient goes to the element each output took; here the ties of row 1.
    const DenseTensor row = MakeTensor<double>({4}, {3, 5, 5, 4});
    const auto fwd = RunOp(op, {{"x", {row}}}, {{"out", 1}, {"indices", 1}}, {{"axis", 0}});
    const auto back = RunOp(op + "_grad",
                            {{"x", {row}},
                             {"indices", {fwd.outputs.at("indices")[0]}},
                             {"out@GRAD", {MakeTensor<double>({4}, {1, 1, 1, 1})}}},
                            {{"x@GRAD", 1}}, {{"axis", 0}});
    const std::vector<double> want_grad =
        max ? std::vector<double>{1, 1, 2, 0} : std::vector<double>{4, 0, 0, 0};
    EXPECT_EQ(ToDoubles(back.outputs.at("x@GRAD")[0]), want_grad) << op;
  }
}

TEST_F(CumulativeOps, BadAttributesAreRefused) {
  const DenseTensor x = MakeTensor<float>({2, 3}, RandomValues(6, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("cumprod", {{"X", {x}}}, {{"Out", 1}}, {{"dim", 2}});
      },
      {"op `cumprod`", "attribute `dim`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("logcumsumexp", {{"X", {x}}}, {{"Out", 1}}, {{"axis", -3}});
      },
      {"op `logcumsumexp`", "attribute `axis`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("cummax", {{"x", {x}}}, {{"out", 1}, {"indices", 1}}, {{"dtype", 5}});
      },
      {"cummax", "dtype"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
