// matmul (1.x): products against naive loops in double for every operand form (1-D, 2-D,
// batched on either side, transposes, alpha), Out's shape rules, gradients against finite
// differences, and error messages.
#include <string>
#include <vector>

#include "operators/op_family.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class MatmulV1 : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

struct Case {
  DDim x, y;
  bool tx = false, ty = false;
  float alpha = 1.0f;
  DDim out;  // Expected Out dims.
};

// Element (i, j) of matrix `b` of an operand: 1-D x is a row [1, K] and 1-D y a column
// [K, 1]; rank >= 3 operands hold prod(batch dims) matrices, others one (reused per batch).
double At(const std::vector<double>& v, const DDim& d, bool is_x, bool trans, int64_t b,
          int64_t i, int64_t j) {
  int64_t rows, cols;
  if (d.size() == 1) {
    rows = is_x ? 1 : d[0];
    cols = is_x ? d[0] : 1;
  } else {
    rows = d[d.size() - 2];
    cols = d[d.size() - 1];
  }
  if (trans) std::swap(i, j);
  const int64_t base = d.size() > 2 ? b * rows * cols : 0;
  return v[base + i * cols + j];
}

std::vector<double> Reference(const Case& c, const std::vector<double>& xv,
                              const std::vector<double>& yv) {
  auto mat = [](const DDim& d, bool is_x, bool trans, int64_t* r, int64_t* k) {
    int64_t rows = d.size() == 1 ? (is_x ? 1 : d[0]) : d[d.size() - 2];
    int64_t cols = d.size() == 1 ? (is_x ? d[0] : 1) : d[d.size() - 1];
    if (trans) std::swap(rows, cols);
    *r = rows;
    *k = cols;
  };
  int64_t m, k, k2, n;
  mat(c.x, true, c.tx, &m, &k);
  mat(c.y, false, c.ty, &k2, &n);
  EXPECT_EQ(k, k2);
  int64_t batches = 1;
  const DDim& batched = c.x.size() > 2 ? c.x : c.y;
  for (int i = 0; i + 2 < batched.size(); ++i) batches *= batched[i];
  std::vector<double> out;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += At(xv, c.x, true, c.tx, b, i, p) * At(yv, c.y, false, c.ty, b, p, j);
        out.push_back(c.alpha * s);
      }
  return out;
}

std::vector<Case> Cases() {
  return {
      {{3, 4}, {4, 5}, false, false, 1.0f, {3, 5}},
      {{4, 3}, {4, 5}, true, false, 0.5f, {3, 5}},
      {{3, 4}, {5, 4}, false, true, 2.0f, {3, 5}},
      {{4, 3}, {5, 4}, true, true, 1.0f, {3, 5}},
      {{2, 3, 3, 4}, {4, 5}, false, false, 1.0f, {2, 3, 3, 5}},
      {{3, 4}, {2, 4, 5}, false, false, -1.5f, {2, 3, 5}},
      {{2, 3, 3, 4}, {6, 5, 4}, false, true, 1.0f, {2, 3, 3, 5}},
      {{4}, {4, 5}, false, false, 1.0f, {5}},
      {{3, 4}, {4}, false, false, 1.0f, {3}},
      {{4}, {4}, false, false, 3.0f, {1}},
      {{3}, {1, 2}, true, false, 1.0f, {3, 2}},  // 1-D X transposed: the column [3, 1].
      {{2, 3, 4}, {4}, false, false, 1.0f, {2, 3}},
  };
}

TEST_F(MatmulV1, MatchesNaiveLoopsForEveryOperandForm) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE("X " + c.x.ToString() + " Y " + c.y.ToString() + (c.tx ? " tx" : "") +
                 (c.ty ? " ty" : ""));
    const std::vector<double> xv = RandomValues(c.x.numel(), -1, 1, 3);
    const std::vector<double> yv = RandomValues(c.y.numel(), -1, 1, 4);
    const AttributeMap attrs = {{"transpose_X", c.tx}, {"transpose_Y", c.ty}, {"alpha", c.alpha}};
    const std::vector<double> want = Reference(c, xv, yv);
    const DenseTensor got =
        RunOp("matmul", {{"X", {MakeTensor<double>(c.x, xv)}}, {"Y", {MakeTensor<double>(c.y, yv)}}},
              {{"Out", 1}}, attrs)
            .outputs.at("Out")[0];
    EXPECT_EQ(got.dims(), c.out);
    ExpectNear(ToDoubles(got), want, 1e-12, 1e-12, "matmul double");
    const DenseTensor got_f =
        RunOp("matmul", {{"X", {MakeTensor<float>(c.x, xv)}}, {"Y", {MakeTensor<float>(c.y, yv)}}},
              {{"Out", 1}}, attrs)
            .outputs.at("Out")[0];
    ExpectNear(ToDoubles(got_f), want, 1e-5, 1e-5, "matmul float");
  }
}

TEST_F(MatmulV1, GradientsMatchFiniteDifferences) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE("X " + c.x.ToString() + " Y " + c.y.ToString());
    GradCheck check;
    check.op_type = "matmul";
    check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -1, 1, 5))}},
                    {"Y", {MakeTensor<double>(c.y, RandomValues(c.y.numel(), -1, 1, 6))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"transpose_X", c.tx}, {"transpose_Y", c.ty}, {"alpha", c.alpha}};
    CheckGradients(check);
  }
}

TEST_F(MatmulV1, BadOperandsNameWhatIsWrong) {
  auto run = [](const DDim& x, const DDim& y, AttributeMap attrs = {}) {
    RunOp("matmul",
          {{"X", {MakeTensor<double>(x, RandomValues(x.numel(), -1, 1))}},
           {"Y", {MakeTensor<double>(y, RandomValues(y.numel(), -1, 1))}}},
          {{"Out", 1}}, attrs);
  };
  ExpectError<platform::InvalidArgumentError>([&] { run({2, 3, 4}, {3, 4, 5}); },
                                              {"op `matmul`", "same number of matrices (2 vs 3)"});
  ExpectError<platform::InvalidArgumentError>([&] { run({3, 4}, {5, 6}); },
                                              {"op `matmul`", "[3, 4]", "[5, 6]"});
  ExpectError<platform::UnimplementedError>(
      [&] { run({3, 4}, {4, 5}, {{"fused_reshape_Out", std::vector<int>{0, 3}}}); },
      {"op `matmul` attribute `fused_reshape_Out`"});
  ExpectError<platform::UnimplementedError>([&] { run({3, 4}, {4, 5}, {{"head_number", 2}}); },
                                            {"op `matmul` attribute `head_number`"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
