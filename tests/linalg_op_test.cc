// The linear-algebra ops (operators/linalg) against references in double written here
// (Gauss-Jordan elimination, Cholesky-Banachiewicz, cofactors, products), the decompositions
// by their defining properties, and the gradients by finite differences: through
// CheckGradients where the op reads every element, and under symmetric perturbations where it
// reads one triangle of a symmetric input (cholesky, eigh, eigvalsh).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using Values = std::vector<double>;

DenseTensor Make(DataType t, const DDim& dims, const Values& v) {
  return t == DataType::FLOAT64 ? MakeTensor<double>(dims, v) : MakeTensor<float>(dims, v);
}

Values Matmul(const Values& a, const Values& b, int64_t m, int64_t k, int64_t n) {
  Values c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t q = 0; q < k; ++q) c[i * n + j] += a[i * k + q] * b[q * n + j];
    }
  }
  return c;
}

Values Transposed(const Values& a, int64_t rows, int64_t cols) {
  Values t(a.size());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) t[j * rows + i] = a[i * cols + j];
  }
  return t;
}

Values Identity(int64_t n) {
  Values v(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1.0;
  return v;
}

Values MatrixOf(const Values& v, int64_t index, int64_t size) {
  return Values(v.begin() + index * size, v.begin() + (index + 1) * size);
}

// `batch` random n x n matrices with a dominant diagonal (well conditioned).
Values Invertible(int64_t batch, int64_t n, unsigned seed) {
  Values v = RandomValues(batch * n * n, -1, 1, seed);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < n; ++i) v[b * n * n + i * n + i] += static_cast<double>(n);
  }
  return v;
}

// B B^T + n I per matrix.
Values PositiveDefinite(int64_t batch, int64_t n, unsigned seed) {
  const Values b = RandomValues(batch * n * n, -1, 1, seed);
  Values out;
  for (int64_t i = 0; i < batch; ++i) {
    const Values m = MatrixOf(b, i, n * n);
    Values p = Matmul(m, Transposed(m, n, n), n, n, n);
    for (int64_t d = 0; d < n; ++d) p[d * n + d] += static_cast<double>(n);
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

// Gauss-Jordan elimination with partial pivoting; the determinant on the side.
Values GaussJordanInverse(Values a, int64_t n, double* det = nullptr) {
  Values inv = Identity(n);
  double d = 1.0;
  for (int64_t c = 0; c < n; ++c) {
    int64_t p = c;
    for (int64_t r = c + 1; r < n; ++r) {
      if (std::abs(a[r * n + c]) > std::abs(a[p * n + c])) p = r;
    }
    if (p != c) {
      for (int64_t j = 0; j < n; ++j) {
        std::swap(a[p * n + j], a[c * n + j]);
        std::swap(inv[p * n + j], inv[c * n + j]);
      }
      d = -d;
    }
    const double pivot = a[c * n + c];
    d *= pivot;
    if (pivot == 0.0) break;
    for (int64_t j = 0; j < n; ++j) {
      a[c * n + j] /= pivot;
      inv[c * n + j] /= pivot;
    }
    for (int64_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r * n + c];
      for (int64_t j = 0; j < n; ++j) {
        a[r * n + j] -= f * a[c * n + j];
        inv[r * n + j] -= f * inv[c * n + j];
      }
    }
  }
  if (det != nullptr) *det = d;
  return inv;
}

double Det(const Values& a, int64_t n) {
  double d = 1.0;
  GaussJordanInverse(a, n, &d);
  return d;
}

// The cofactor matrix: C_ij = (-1)^(i+j) det(a without row i and column j).
Values Cofactors(const Values& a, int64_t n) {
  Values c(a.size());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Values minor;
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t q = 0; q < n; ++q) {
          if (r != i && q != j) minor.push_back(a[r * n + q]);
        }
      }
      c[i * n + j] = ((i + j) % 2 == 0 ? 1.0 : -1.0) * Det(minor, n - 1);
    }
  }
  return c;
}

double Tol(DataType t) { return t == DataType::FLOAT64 ? 1e-10 : 2e-4; }

std::vector<DataType> BothTypes() { return {DataType::FLOAT64, DataType::FLOAT32}; }

// ------------------------------------------------------------------------ inverse

TEST(InverseOp, TimesItsInputIsTheIdentity) {
  operators::RegisterAllOps();
  const int64_t n = 4;
  const Values x = Invertible(6, n, 1);
  for (DataType t : BothTypes()) {
    const OpRunResult r =
        RunOp("inverse", {{"Input", {Make(t, DDim({2, 3, n, n}), x)}}}, {{"Output", 1}});
    const DenseTensor& out = r.outputs.at("Output")[0];
    ASSERT_EQ(out.dims(), DDim({2, 3, n, n}));
    const Values inv = ToDoubles(out);
    for (int64_t b = 0; b < 6; ++b) {
      ExpectNear(Matmul(MatrixOf(x, b, n * n), MatrixOf(inv, b, n * n), n, n, n), Identity(n), 0,
                 Tol(t), "X * inverse(X)");
      ExpectNear(MatrixOf(inv, b, n * n), GaussJordanInverse(MatrixOf(x, b, n * n), n), Tol(t),
                 Tol(t), "inverse against Gauss-Jordan");
    }
  }
  // Closed form of a 2 x 2 inverse: [[d, -b], [-c, a]] / (ad - bc).
  const OpRunResult r =
      RunOp("inverse", {{"Input", {MakeTensor<double>({2, 2}, {2, 1, 7, 4})}}}, {{"Output", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Output")[0]), {4, -1, -7, 2}, 1e-14, 1e-14, "2 x 2");
}

TEST(InverseOp, RefusesSingularAndNonSquareMatrices) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("inverse", {{"Input", {MakeTensor<float>({2, 2, 2}, {1, 0, 0, 1, 1, 2, 2, 4})}}},
              {{"Output", 1}});
      },
      {"op `inverse` input `Input`", "matrix 1 of the batch is singular"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("inverse", {{"Input", {MakeTensor<float>({2, 3}, RandomValues(6, -1, 1))}}},
              {{"Output", 1}});
      },
      {"op `inverse` input `Input`", "expected square matrices", "received [2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("inverse", {{"Input", {MakeTensor<float>({3}, RandomValues(3, -1, 1))}}},
              {{"Output", 1}});
      },
      {"op `inverse` input `Input`", "rank >= 2", "received [3]"});
}

TEST(InverseOp, GradientsUpToSecondOrder) {
  operators::RegisterAllOps();
  GradCheck check;
  check.op_type = "inverse";
  check.inputs = {{"Input", {MakeTensor<double>({2, 3, 3}, Invertible(2, 3, 2))}}};
  check.outputs = {{"Output", 1}};
  check.max_order = 2;
  check.rtol = 1e-4;
  CheckGradients(check);
}

// ------------------------------------------------------------------------ matrix_power

TEST(MatrixPowerOp, MatchesRepeatedProducts) {
  operators::RegisterAllOps();
  const int64_t n = 3;
  Values x = Invertible(2, n, 3);
  for (double& v : x) v /= 3.0;  // Powers stay of order 1.
  for (int power : {-3, -1, 0, 1, 2, 5}) {
    for (DataType t : BothTypes()) {
      const OpRunResult r = RunOp("matrix_power", {{"X", {Make(t, DDim({2, n, n}), x)}}},
                                  {{"Out", 1}}, {{"n", power}});
      const Values out = ToDoubles(r.outputs.at("Out")[0]);
      for (int64_t b = 0; b < 2; ++b) {
        Values base = MatrixOf(x, b, n * n);
        if (power < 0) base = GaussJordanInverse(base, n);
        Values want = Identity(n);
        for (int k = 0; k < std::abs(power); ++k) want = Matmul(want, base, n, n, n);
        ExpectNear(MatrixOf(out, b, n * n), want, Tol(t), Tol(t),
                   "matrix_power n=" + std::to_string(power));
      }
    }
  }
}

TEST(MatrixPowerOp, Gradients) {
  operators::RegisterAllOps();
  for (int power : {-2, 0, 1, 3}) {
    GradCheck check;
    check.op_type = "matrix_power";
    Values x = Invertible(2, 3, 4);
    for (double& v : x) v /= 3.0;
    check.inputs = {{"X", {MakeTensor<double>({2, 3, 3}, x)}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"n", power}};
    check.rtol = 1e-4;
    CheckGradients(check);
  }
}

// ------------------------------------------------------------------------ determinants

TEST(DeterminantOp, MatchesGaussianElimination) {
  operators::RegisterAllOps();
  struct Shape {
    DDim dims;
    DDim out;
    int64_t n;
  };
  for (const Shape& s : {Shape{DDim({2, 3, 5, 5}), DDim({2, 3}), 5},
                         Shape{DDim({3, 3}), DDim({}), 3}, Shape{DDim({4, 1, 1}), DDim({4}), 1}}) {
    const int64_t batch = s.dims.numel() / (s.n * s.n);
    const Values x = RandomValues(s.dims.numel(), -1.5, 1.5, 5);
    for (DataType t : BothTypes()) {
      const DenseTensor in = Make(t, s.dims, x);
      const DenseTensor det =
          RunOp("determinant", {{"Input", {in}}}, {{"Out", 1}}).outputs.at("Out")[0];
      const DenseTensor slog =
          RunOp("slogdeterminant", {{"Input", {in}}}, {{"Out", 1}}).outputs.at("Out")[0];
      EXPECT_EQ(det.dims(), s.out);
      std::vector<int64_t> slog_dims = {2};
      for (int i = 0; i < s.out.size(); ++i) slog_dims.push_back(s.out[i]);
      EXPECT_EQ(slog.dims(), DDim(slog_dims));
      Values want, want_sign, want_log;
      for (int64_t b = 0; b < batch; ++b) {
        const double d = Det(MatrixOf(x, b, s.n * s.n), s.n);
        want.push_back(d);
        want_sign.push_back(d > 0 ? 1.0 : -1.0);
        want_log.push_back(std::log(std::abs(d)));
      }
      ExpectNear(ToDoubles(det), want, Tol(t), Tol(t), "determinant");
      Values both = want_sign;
      both.insert(both.end(), want_log.begin(), want_log.end());
      ExpectNear(ToDoubles(slog), both, Tol(t), Tol(t), "slogdeterminant");
    }
  }
  // A singular matrix: sign 0 and log|det| = -inf.
  const Values slog =
      ToDoubles(RunOp("slogdeterminant", {{"Input", {MakeTensor<double>({2, 2}, {1, 2, 2, 4})}}},
                      {{"Out", 1}})
                    .outputs.at("Out")[0]);
  EXPECT_EQ(slog[0], 0.0);
  EXPECT_EQ(slog[1], -std::numeric_limits<double>::infinity());
  // Large matrices do not overflow log|det|: 60 x 60 with 10 on the diagonal.
  Values big(60 * 60, 0.0);
  for (int i = 0; i < 60; ++i) big[i * 60 + i] = i % 2 == 0 ? 1e10 : -1e10;
  const Values big_slog = ToDoubles(
      RunOp("slogdeterminant", {{"Input", {MakeTensor<float>({60, 60}, big)}}}, {{"Out", 1}})
          .outputs.at("Out")[0]);
  EXPECT_EQ(big_slog[0], 1.0);  // 30 negative pivots.
  EXPECT_NEAR(big_slog[1], 600 * std::log(10.0), 1e-3);
}

TEST(DeterminantOp, Gradients) {
  operators::RegisterAllOps();
  GradCheck det;
  det.op_type = "determinant";
  det.inputs = {{"Input", {MakeTensor<double>({2, 4, 4}, RandomValues(32, -1, 1, 6))}}};
  det.outputs = {{"Out", 1}};
  det.rtol = 1e-4;
  CheckGradients(det);
  GradCheck slog;
  slog.op_type = "slogdeterminant";
  slog.inputs = {{"Input", {MakeTensor<double>({3, 3, 3}, Invertible(3, 3, 7))}}};
  slog.outputs = {{"Out", 1}};
  slog.rtol = 1e-4;
  CheckGradients(slog);
}

TEST(DeterminantOp, GradientOfASingularMatrixIsTheTransposedAdjugate) {
  operators::RegisterAllOps();
  const auto grad = [](const Values& x, int64_t n, double dout) {
    const DenseTensor in = MakeTensor<double>({n, n}, x);
    const DenseTensor det =
        RunOp("determinant", {{"Input", {in}}}, {{"Out", 1}}).outputs.at("Out")[0];
    return ToDoubles(
        RunOp("determinant_grad",
              {{"Input", {in}}, {"Out", {det}}, {"Out@GRAD", {MakeTensor<double>({}, {dout})}}},
              {{"Input@GRAD", 1}})
            .outputs.at("Input@GRAD")[0]);
  };
  // d det / dX is the cofactor matrix, for a 2 x 2 [[d, -c], [-b, a]].
  ExpectNear(grad({1, 2, 2, 4}, 2, 1.5), {6, -3, -3, 1.5}, 1e-12, 1e-12, "2 x 2 singular");
  // Rank 2 of 3: the cofactors are not all zero.
  const Values rank2 = {1, 2, 3, 4, 5, 6, 5, 7, 9};
  Values want = Cofactors(rank2, 3);
  for (double& v : want) v *= -2.0;
  ExpectNear(grad(rank2, 3, -2.0), want, 1e-9, 1e-9, "3 x 3 of rank 2");
  // Rank 1 of 3: every cofactor is 0.
  ExpectNear(grad({1, 2, 3, 2, 4, 6, 3, 6, 9}, 3, 1.0), Values(9, 0.0), 0, 1e-9, "rank 1");
}

// ------------------------------------------------------------------------ symmetric inputs

// For loss(A) = sum(W o f(A)) of an op f that reads one triangle of a symmetric A, the
// gradient G the op's backward gives is symmetric; perturbing A_ij and A_ji together by e
// changes the loss by e (G_ij + G_ji) (by e G_ii on the diagonal). Checks that against
// central differences for every i >= j.
void CheckSymmetricGradient(const std::function<double(const Values&)>& loss, const Values& a,
                            const Values& grad, int64_t n, const std::string& what) {
  const double eps = 1e-6;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_NEAR(grad[i * n + (i + 1) % n], grad[((i + 1) % n) * n + i], 1e-10)
        << what << ": the gradient is symmetric";
    for (int64_t j = 0; j <= i; ++j) {
      Values plus = a, minus = a;
      plus[i * n + j] += eps;
      minus[i * n + j] -= eps;
      if (i != j) {
        plus[j * n + i] += eps;
        minus[j * n + i] -= eps;
      }
      const double numeric = (loss(plus) - loss(minus)) / (2 * eps);
      const double analytic = i == j ? grad[i * n + i] : grad[i * n + j] + grad[j * n + i];
      EXPECT_NEAR(analytic, numeric, 1e-6 + 1e-5 * std::abs(numeric))
          << what << " at (" << i << ", " << j << ")";
    }
  }
}

double WeightedSum(const Values& w, const Values& v) {
  double s = 0;
  for (size_t i = 0; i < v.size(); ++i) s += w[i] * v[i];
  return s;
}

// Cholesky-Banachiewicz on the lower triangle.
Values CholeskyLower(const Values& a, int64_t n) {
  Values l(a.size(), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      double s = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = i == j ? std::sqrt(s) : s / l[j * n + j];
    }
  }
  return l;
}

TEST(CholeskyOp, MatchesBanachiewiczAndReadsTheLowerTriangle) {
  operators::RegisterAllOps();
  const int64_t n = 5;
  const Values spd = PositiveDefinite(2, n, 8);
  // Garbage above the diagonal: the op must not read it.
  Values x = spd;
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) x[b * n * n + i * n + j] = 100.0 + j;
    }
  }
  for (bool upper : {false, true}) {
    for (DataType t : BothTypes()) {
      const Values out = ToDoubles(RunOp("cholesky", {{"X", {Make(t, DDim({2, n, n}), x)}}},
                                         {{"Out", 1}}, {{"upper", upper}})
                                       .outputs.at("Out")[0]);
      for (int64_t b = 0; b < 2; ++b) {
        const Values l = CholeskyLower(MatrixOf(spd, b, n * n), n);
        ExpectNear(MatrixOf(out, b, n * n), upper ? Transposed(l, n, n) : l, Tol(t), Tol(t),
                   upper ? "cholesky upper" : "cholesky lower");
      }
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("cholesky", {{"X", {MakeTensor<double>({2, 2, 2}, {4, 0, 0, 4, 1, 2, 2, 1})}}},
              {{"Out", 1}});
      },
      {"op `cholesky` input `X`", "matrix 1 of the batch is not positive definite"});
}

TEST(CholeskyOp, GradientUnderSymmetricPerturbations) {
  operators::RegisterAllOps();
  const int64_t n = 4;
  const Values a = PositiveDefinite(1, n, 9);
  const Values w = RandomValues(n * n, -1, 1, 10);
  for (bool upper : {false, true}) {
    const auto factor = [&](const Values& m) {
      return RunOp("cholesky", {{"X", {MakeTensor<double>({n, n}, m)}}}, {{"Out", 1}},
                   {{"upper", upper}})
          .outputs.at("Out")[0];
    };
    const Values grad =
        ToDoubles(RunOp("cholesky_grad",
                        {{"Out", {factor(a)}}, {"Out@GRAD", {MakeTensor<double>({n, n}, w)}}},
                        {{"X@GRAD", 1}}, {{"upper", upper}})
                      .outputs.at("X@GRAD")[0]);
    CheckSymmetricGradient([&](const Values& m) { return WeightedSum(w, ToDoubles(factor(m))); }, a,
                           grad, n, upper ? "cholesky_grad upper" : "cholesky_grad lower");
  }
}

// ------------------------------------------------------------------------ triangular_solve

TEST(TriangularSolveOp, MatchesTheInverseOfTheTriangle) {
  operators::RegisterAllOps();
  const int64_t m = 3, k = 2;
  const Values x = Invertible(2, m, 11);                // [2, 1, 3, 3]
  const Values y = RandomValues(2 * m * k, -1, 1, 12);  // [1, 2, 3, 2]
  for (bool upper : {true, false}) {
    for (bool transpose : {false, true}) {
      for (bool unit : {false, true}) {
        const std::string what = std::string("upper=") + (upper ? "1" : "0") +
                                 " transpose=" + (transpose ? "1" : "0") +
                                 " unit=" + (unit ? "1" : "0");
        for (DataType t : BothTypes()) {
          const OpRunResult r = RunOp(
              "triangular_solve",
              {{"X", {Make(t, DDim({2, 1, m, m}), x)}}, {"Y", {Make(t, DDim({1, 2, m, k}), y)}}},
              {{"Out", 1}}, {{"upper", upper}, {"transpose", transpose}, {"unitriangular", unit}});
          const DenseTensor& out = r.outputs.at("Out")[0];
          ASSERT_EQ(out.dims(), DDim({2, 2, m, k}));
          const Values got = ToDoubles(out);
          for (int64_t p = 0; p < 2; ++p) {
            Values tri = MatrixOf(x, p, m * m);
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < m; ++j) {
                if (upper ? j < i : j > i) tri[i * m + j] = 0.0;
                if (unit && i == j) tri[i * m + j] = 1.0;
              }
            }
            if (transpose) tri = Transposed(tri, m, m);
            const Values inv = GaussJordanInverse(tri, m);
            for (int64_t q = 0; q < 2; ++q) {
              ExpectNear(MatrixOf(got, p * 2 + q, m * k),
                         Matmul(inv, MatrixOf(y, q, m * k), m, m, k), Tol(t), Tol(t), what);
            }
          }
        }
      }
    }
  }
}

TEST(TriangularSolveOp, GradientsSumOverBroadcastBatches) {
  operators::RegisterAllOps();
  for (const auto& [upper, transpose, unit] : std::vector<std::tuple<bool, bool, bool>>{
           {true, false, false}, {false, true, true}, {true, true, false}, {false, false, true}}) {
    GradCheck check;
    check.op_type = "triangular_solve";
    check.inputs = {{"X", {MakeTensor<double>({2, 1, 3, 3}, Invertible(2, 3, 13))}},
                    {"Y", {MakeTensor<double>({1, 2, 3, 2}, RandomValues(12, -1, 1, 14))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"upper", upper}, {"transpose", transpose}, {"unitriangular", unit}};
    check.rtol = 1e-4;
    CheckGradients(check);
  }
}

// ------------------------------------------------------------------------ decompositions

// Expects a^T a = I for the [rows, cols] matrix a.
void ExpectOrthonormalColumns(const Values& a, int64_t rows, int64_t cols, double tol,
                              const std::string& what) {
  ExpectNear(Matmul(Transposed(a, rows, cols), a, cols, rows, cols), Identity(cols), 0, tol, what);
}

TEST(QrOp, FactorsIntoOrthonormalAndUpperTriangular) {
  operators::RegisterAllOps();
  struct Case {
    std::vector<int64_t> shape;
    std::string mode;
  };
  for (const Case& c :
       {Case{{2, 5, 3}, "reduced"}, Case{{2, 5, 3}, "complete"}, Case{{3, 5}, "complete"},
        Case{{2, 3, 4}, "reduced"}, Case{{2, 3, 4}, "r"}}) {
    const int64_t rows = c.shape[c.shape.size() - 2], cols = c.shape.back();
    const int64_t k = std::min(rows, cols);
    const int64_t batch = DDim(c.shape).numel() / (rows * cols);
    const int64_t q_cols = c.mode == "complete" ? rows : k;
    const Values x = RandomValues(DDim(c.shape).numel(), -1, 1, 15);
    for (DataType t : BothTypes()) {
      const OpRunResult r = RunOp("qr", {{"X", {Make(t, DDim(c.shape), x)}}}, {{"Q", 1}, {"R", 1}},
                                  {{"mode", c.mode}});
      const Values r_values = ToDoubles(r.outputs.at("R")[0]);
      const std::string what = "qr " + c.mode + " " + DDim(c.shape).ToString();
      if (c.mode == "r") {
        EXPECT_EQ(r.outputs.at("Q")[0].dims(), DDim({0}));
        const Values reduced =
            ToDoubles(RunOp("qr", {{"X", {Make(t, DDim(c.shape), x)}}}, {{"Q", 1}, {"R", 1}})
                          .outputs.at("R")[0]);
        ExpectNear(r_values, reduced, 0, 0, what);
        continue;
      }
      const Values q = ToDoubles(r.outputs.at("Q")[0]);
      for (int64_t b = 0; b < batch; ++b) {
        const Values qb = MatrixOf(q, b, rows * q_cols), rb = MatrixOf(r_values, b, q_cols * cols);
        ExpectOrthonormalColumns(qb, rows, q_cols, Tol(t), what + " Q^T Q");
        ExpectNear(Matmul(qb, rb, rows, q_cols, cols), MatrixOf(x, b, rows * cols), Tol(t), Tol(t),
                   what + " Q R");
        for (int64_t i = 0; i < q_cols; ++i) {
          for (int64_t j = 0; j < std::min(i, cols); ++j) EXPECT_EQ(rb[i * cols + j], 0.0) << what;
        }
      }
    }
  }
}

TEST(SvdOp, ReconstructsWithOrthonormalVectorsAndDescendingValues) {
  operators::RegisterAllOps();
  struct Case {
    std::vector<int64_t> shape;
    bool full;
  };
  for (const Case& c :
       {Case{{2, 5, 3}, false}, Case{{3, 6}, false}, Case{{2, 4, 3}, true}, Case{{3, 5}, true}}) {
    const int64_t rows = c.shape[c.shape.size() - 2], cols = c.shape.back();
    const int64_t k = std::min(rows, cols);
    const int64_t batch = DDim(c.shape).numel() / (rows * cols);
    const int64_t u_cols = c.full ? rows : k, v_rows = c.full ? cols : k;
    const Values x = RandomValues(DDim(c.shape).numel(), -1, 1, 16);
    const std::string what = "svd " + DDim(c.shape).ToString() + (c.full ? " full" : "");
    for (DataType t : BothTypes()) {
      const OpRunResult r = RunOp("svd", {{"X", {Make(t, DDim(c.shape), x)}}},
                                  {{"U", 1}, {"S", 1}, {"VH", 1}}, {{"full_matrices", c.full}});
      const Values u = ToDoubles(r.outputs.at("U")[0]), s = ToDoubles(r.outputs.at("S")[0]),
                   vh = ToDoubles(r.outputs.at("VH")[0]);
      ASSERT_EQ(s.size(), static_cast<size_t>(batch * k));
      for (int64_t b = 0; b < batch; ++b) {
        const Values ub = MatrixOf(u, b, rows * u_cols), vb = MatrixOf(vh, b, v_rows * cols);
        ExpectOrthonormalColumns(ub, rows, u_cols, Tol(t), what + " U^T U");
        ExpectOrthonormalColumns(Transposed(vb, v_rows, cols), cols, v_rows, Tol(t),
                                 what + " VH VH^T");
        // U[:, :k] diag(S) VH[:k, :] = X.
        Values us(static_cast<size_t>(rows * k)), v_top(vb.begin(), vb.begin() + k * cols);
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < k; ++j) us[i * k + j] = ub[i * u_cols + j] * s[b * k + j];
        }
        ExpectNear(Matmul(us, v_top, rows, k, cols), MatrixOf(x, b, rows * cols), Tol(t), Tol(t),
                   what + " U S VH");
        for (int64_t j = 0; j < k; ++j) {
          EXPECT_GE(s[b * k + j], 0.0) << what;
          if (j > 0) {
            EXPECT_GE(s[b * k + j - 1], s[b * k + j]) << what;
          }
        }
      }
    }
  }
}

TEST(QrOp, Gradients) {
  operators::RegisterAllOps();
  struct Case {
    std::vector<int64_t> shape;
    std::string mode;
  };
  for (const Case& c : {Case{{5, 3}, "reduced"}, Case{{2, 3, 3}, "complete"},
                        Case{{2, 3, 5}, "reduced"}, Case{{3, 4}, "complete"}}) {
    SCOPED_TRACE("qr " + c.mode + " " + DDim(c.shape).ToString());
    GradCheck check;
    check.op_type = "qr";
    check.inputs = {
        {"X", {MakeTensor<double>(DDim(c.shape), RandomValues(DDim(c.shape).numel(), -1, 1, 22))}}};
    check.outputs = {{"Q", 1}, {"R", 1}};
    check.attrs = {{"mode", c.mode}};
    check.rtol = 1e-4;
    CheckGradients(check);
  }
  // Q of mode complete with M > N is not determined by X; mode r has no Q.
  const DenseTensor x = MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 23));
  for (const std::string mode : {"complete", "r"}) {
    const OpRunResult f = RunOp("qr", {{"X", {x}}}, {{"Q", 1}, {"R", 1}}, {{"mode", mode}});
    const DenseTensor& q = f.outputs.at("Q")[0];
    const DenseTensor& r = f.outputs.at("R")[0];
    ExpectError<platform::UnimplementedError>(
        [&] {
          RunOp("qr_grad", {{"X", {x}}, {"Q", {q}}, {"R", {r}}, {"Q@GRAD", {q}}, {"R@GRAD", {r}}},
                {{"X@GRAD", 1}}, {{"mode", mode}});
        },
        {"op `qr_grad` attribute `mode`", "received " + mode + " with X [3, 2]"});
  }
}

TEST(SvdOp, Gradients) {
  operators::RegisterAllOps();
  struct Case {
    std::vector<int64_t> shape;
    bool full;
  };
  for (const Case& c : {Case{{2, 4, 3}, false}, Case{{3, 5}, false}, Case{{3, 3}, true}}) {
    SCOPED_TRACE("svd " + DDim(c.shape).ToString());
    GradCheck check;
    check.op_type = "svd";
    check.inputs = {
        {"X", {MakeTensor<double>(DDim(c.shape), RandomValues(DDim(c.shape).numel(), -1, 1, 24))}}};
    check.outputs = {{"U", 1}, {"S", 1}, {"VH", 1}};
    check.attrs = {{"full_matrices", c.full}};
    check.rtol = 1e-4;
    CheckGradients(check);
  }
  const DenseTensor x = MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 25));
  ExpectError<platform::UnimplementedError>(
      [&] {
        const OpRunResult f =
            RunOp("svd", {{"X", {x}}}, {{"U", 1}, {"S", 1}, {"VH", 1}}, {{"full_matrices", true}});
        RunOp("svd_grad",
              {{"X", {x}},
               {"U", f.outputs.at("U")},
               {"S", f.outputs.at("S")},
               {"VH", f.outputs.at("VH")},
               {"U@GRAD", f.outputs.at("U")},
               {"S@GRAD", f.outputs.at("S")},
               {"VH@GRAD", f.outputs.at("VH")}},
              {{"X@GRAD", 1}}, {{"full_matrices", true}});
      },
      {"op `svd_grad` attribute `full_matrices`", "received true with X [3, 2]"});
}

TEST(SvdvalsOp, SingularValuesByTheirSumsOfSquaresAndProductsAndTheirGradient) {
  operators::RegisterAllOps();
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{2, 4, 3}, std::vector<int64_t>{3, 5}, std::vector<int64_t>{3, 3}}) {
    const int64_t rows = shape[shape.size() - 2], cols = shape.back();
    const int64_t k = std::min(rows, cols), batch = DDim(shape).numel() / (rows * cols);
    const Values x = RandomValues(DDim(shape).numel(), -1, 1, 26);
    const std::string what = "svdvals " + DDim(shape).ToString();
    for (DataType t : BothTypes()) {
      const Values s = ToDoubles(
          RunOp("svdvals", {{"x", {Make(t, DDim(shape), x)}}}, {{"s", 1}}, {}).outputs.at("s")[0]);
      ASSERT_EQ(s.size(), static_cast<size_t>(batch * k)) << what;
      for (int64_t b = 0; b < batch; ++b) {
        // sum s^2 = ||x||_F^2, and for a square x prod s = |det x| (cofactors).
        const Values m = MatrixOf(x, b, rows * cols);
        double squares = 0, frobenius = 0, product = 1;
        for (int64_t j = 0; j < k; ++j) {
          squares += s[b * k + j] * s[b * k + j];
          product *= s[b * k + j];
          EXPECT_GE(s[b * k + j], 0.0) << what;
          if (j > 0) {
            EXPECT_GE(s[b * k + j - 1], s[b * k + j]) << what;
          }
        }
        for (double v : m) frobenius += v * v;
        EXPECT_NEAR(squares, frobenius, Tol(t) * frobenius) << what;
        if (rows == 3 && cols == 3) {
          const double det = m[0] * (m[4] * m[8] - m[5] * m[7]) -
                             m[1] * (m[3] * m[8] - m[5] * m[6]) +
                             m[2] * (m[3] * m[7] - m[4] * m[6]);
          EXPECT_NEAR(product, std::abs(det), Tol(t)) << what;
        }
      }
    }
    SCOPED_TRACE(what);
    GradCheck check;
    check.op_type = "svdvals";
    check.inputs = {{"x", {MakeTensor<double>(DDim(shape), x)}}};
    check.outputs = {{"s", 1}};
    check.rtol = 1e-4;
    CheckGradients(check);
  }
}

// The symmetric matrix that `uplo`'s triangle of a describes.
Values Symmetrized(const Values& a, int64_t n, bool upper) {
  Values s(a.size());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const bool in_triangle = upper ? j >= i : j <= i;
      s[i * n + j] = in_triangle ? a[i * n + j] : a[j * n + i];
    }
  }
  return s;
}

TEST(EighOp, EigenpairsOfTheTriangleItReads) {
  operators::RegisterAllOps();
  const int64_t n = 4;
  const Values x = RandomValues(2 * n * n, -1, 1, 17);  // Not symmetric.
  for (const std::string uplo : {"L", "U"}) {
    for (DataType t : BothTypes()) {
      const DenseTensor in = Make(t, DDim({2, n, n}), x);
      const OpRunResult r =
          RunOp("eigh", {{"X", {in}}}, {{"Eigenvalues", 1}, {"Eigenvectors", 1}}, {{"UPLO", uplo}});
      const Values w = ToDoubles(r.outputs.at("Eigenvalues")[0]);
      const Values v = ToDoubles(r.outputs.at("Eigenvectors")[0]);
      const Values only_values =
          ToDoubles(RunOp("eigvalsh", {{"X", {in}}}, {{"Eigenvalues", 1}, {"Eigenvectors", 1}},
                          {{"UPLO", uplo}, {"is_test", true}})
                        .outputs.at("Eigenvalues")[0]);
      ExpectNear(only_values, w, 0, 0, "eigvalsh against eigh");
      for (int64_t b = 0; b < 2; ++b) {
        const Values sym = Symmetrized(MatrixOf(x, b, n * n), n, uplo == "U");
        const Values vb = MatrixOf(v, b, n * n);
        ExpectOrthonormalColumns(vb, n, n, Tol(t), "eigh V^T V, UPLO " + uplo);
        Values v_scaled = vb;
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) v_scaled[i * n + j] *= w[b * n + j];
        }
        ExpectNear(Matmul(sym, vb, n, n, n), v_scaled, Tol(t), Tol(t), "eigh A V = V diag(w)");
        double trace = 0, sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          trace += sym[i * n + i];
          sum += w[b * n + i];
          if (i > 0) {
            EXPECT_LE(w[b * n + i - 1], w[b * n + i]);
          }
        }
        EXPECT_NEAR(trace, sum, Tol(t));
      }
    }
  }
}

TEST(EighOp, GradientsUnderSymmetricPerturbations) {
  operators::RegisterAllOps();
  const int64_t n = 4;
  const Values a = Symmetrized(RandomValues(n * n, -1, 1, 18), n, false);
  const Values wv = RandomValues(n, -1, 1, 19), wm = RandomValues(n * n, -1, 1, 20);
  const auto run = [&](const Values& m) {
    return RunOp("eigh", {{"X", {MakeTensor<double>({n, n}, m)}}},
                 {{"Eigenvalues", 1}, {"Eigenvectors", 1}});
  };
  const OpRunResult base = run(a);
  const Values v0 = ToDoubles(base.outputs.at("Eigenvectors")[0]);
  // Eigenvectors are unique up to sign: the loss fixes each column's sign by its largest
  // entry at the base point, so it is smooth; its gradient is W with those signs.
  std::vector<int64_t> pivot_row(n);
  Values sign(n);
  for (int64_t j = 0; j < n; ++j) {
    int64_t p = 0;
    for (int64_t i = 1; i < n; ++i) {
      if (std::abs(v0[i * n + j]) > std::abs(v0[p * n + j])) p = i;
    }
    pivot_row[j] = p;
    sign[j] = v0[p * n + j] > 0 ? 1.0 : -1.0;
  }
  const auto loss = [&](const Values& m) {
    const OpRunResult r = run(m);
    const Values w = ToDoubles(r.outputs.at("Eigenvalues")[0]);
    const Values v = ToDoubles(r.outputs.at("Eigenvectors")[0]);
    double total = WeightedSum(wv, w);
    for (int64_t j = 0; j < n; ++j) {
      const double s = v[pivot_row[j] * n + j] > 0 ? 1.0 : -1.0;
      for (int64_t i = 0; i < n; ++i) total += wm[i * n + j] * s * v[i * n + j];
    }
    return total;
  };
  Values dv = wm;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) dv[i * n + j] *= sign[j];
  }
  const Values grad = ToDoubles(RunOp("eigh_grad",
                                      {{"Eigenvalues", {base.outputs.at("Eigenvalues")[0]}},
                                       {"Eigenvectors", {base.outputs.at("Eigenvectors")[0]}},
                                       {"Eigenvalues@GRAD", {MakeTensor<double>({n}, wv)}},
                                       {"Eigenvectors@GRAD", {MakeTensor<double>({n, n}, dv)}}},
                                      {{"X@GRAD", 1}})
                                    .outputs.at("X@GRAD")[0]);
  CheckSymmetricGradient(loss, a, grad, n, "eigh_grad");

  const Values values_grad =
      ToDoubles(RunOp("eigvalsh_grad",
                      {{"Eigenvectors", {base.outputs.at("Eigenvectors")[0]}},
                       {"Eigenvalues@GRAD", {MakeTensor<double>({n}, wv)}}},
                      {{"X@GRAD", 1}}, {{"UPLO", std::string("L")}})
                    .outputs.at("X@GRAD")[0]);
  CheckSymmetricGradient(
      [&](const Values& m) {
        return WeightedSum(wv, ToDoubles(run(m).outputs.at("Eigenvalues")[0]));
      },
      a, values_grad, n, "eigvalsh_grad");
}

TEST(LuOp, RowSwapsOfTheInputAreLTimesU) {
  operators::RegisterAllOps();
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{2, 4, 4}, {6, 4}, {2, 3, 5}}) {
    const int64_t rows = shape[shape.size() - 2], cols = shape.back(), k = std::min(rows, cols);
    const int64_t batch = DDim(shape).numel() / (rows * cols);
    const Values x = RandomValues(DDim(shape).numel(), -1, 1, 21);
    for (DataType t : BothTypes()) {
      const OpRunResult r = RunOp("lu", {{"X", {Make(t, DDim(shape), x)}}},
                                  {{"Out", 1}, {"Pivots", 1}, {"Infos", 1}});
      const Values lu = ToDoubles(r.outputs.at("Out")[0]);
      const DenseTensor& pivots = r.outputs.at("Pivots")[0];
      const DenseTensor& infos = r.outputs.at("Infos")[0];
      ASSERT_EQ(pivots.dtype(), DataType::INT32);
      ASSERT_EQ(pivots.numel(), batch * k);
      ASSERT_EQ(infos.numel(), batch);
      for (int64_t b = 0; b < batch; ++b) {
        EXPECT_EQ(infos.data<int32_t>()[b], 0);
        Values swapped = MatrixOf(x, b, rows * cols);
        for (int64_t j = 0; j < k; ++j) {
          const int64_t p = pivots.data<int32_t>()[b * k + j] - 1;
          ASSERT_GE(p, j);
          ASSERT_LT(p, rows);
          for (int64_t c = 0; c < cols; ++c)
            std::swap(swapped[j * cols + c], swapped[p * cols + c]);
        }
        Values l(static_cast<size_t>(rows * k), 0.0), u(static_cast<size_t>(k * cols), 0.0);
        const Values m = MatrixOf(lu, b, rows * cols);
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < cols; ++j) {
            if (j < i && j < k) l[i * k + j] = m[i * cols + j];
            if (j >= i && i < k) u[i * cols + j] = m[i * cols + j];
          }
          if (i < k) l[i * k + i] = 1.0;
        }
        for (double v : l) EXPECT_LE(std::abs(v), 1.0);  // Partial pivoting bounds L.
        ExpectNear(Matmul(l, u, rows, k, cols), swapped, Tol(t), Tol(t), "P X = L U");
      }
    }
  }
  // An exactly zero pivot in column 2 (1-based): Infos says so.
  const OpRunResult r =
      RunOp("lu", {{"X", {MakeTensor<double>({3, 3}, {1, 0, 2, 3, 0, 1, 2, 0, 5})}}},
            {{"Out", 1}, {"Pivots", 1}, {"Infos", 1}});
  EXPECT_EQ(r.outputs.at("Infos")[0].data<int32_t>()[0], 2);
  ExpectError<platform::UnimplementedError>(
      [] {
        RunOp("lu", {{"X", {MakeTensor<double>({2, 2}, {1, 2, 3, 4})}}},
              {{"Out", 1}, {"Pivots", 1}, {"Infos", 1}}, {{"pivots", false}});
      },
      {"op `lu` attribute `pivots`", "expected true"});
}

// ------------------------------------------------------------------------ multi_dot

TEST(MultiDotOp, MatchesLeftToRightProducts) {
  operators::RegisterAllOps();
  struct Case {
    std::vector<std::vector<int64_t>> shapes;
    std::vector<int64_t> out;
  };
  for (const Case& c : {Case{{{3, 4}, {4, 5}, {5, 2}}, {3, 2}}, Case{{{4}, {4, 3}, {3, 2}}, {2}},
                        Case{{{2, 3}, {3, 4}, {4}}, {2}}, Case{{{3}, {3, 4}, {4}}, {}},
                        Case{{{6, 2}, {2, 6}, {6, 2}, {2, 5}}, {6, 5}}}) {
    std::vector<Values> values;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      values.push_back(RandomValues(DDim(c.shapes[i]).numel(), -1, 1, 30 + i));
    }
    // Left to right as [rows, cols] matrices (1-D ends as a row and a column).
    Values want = values[0];
    int64_t rows = c.shapes[0].size() == 1 ? 1 : c.shapes[0][0];
    int64_t inner = c.shapes[0].back();
    for (size_t i = 1; i < values.size(); ++i) {
      const int64_t cols = c.shapes[i].size() == 1 ? 1 : c.shapes[i][1];
      want = Matmul(want, values[i], rows, inner, cols);
      inner = cols;
    }
    for (DataType t : BothTypes()) {
      std::vector<DenseTensor> xs;
      for (size_t i = 0; i < values.size(); ++i)
        xs.push_back(Make(t, DDim(c.shapes[i]), values[i]));
      const DenseTensor out = RunOp("multi_dot", {{"X", xs}}, {{"Out", 1}}).outputs.at("Out")[0];
      EXPECT_EQ(out.dims(), DDim(c.out));
      ExpectNear(ToDoubles(out), want, Tol(t), Tol(t), "multi_dot " + DDim(c.out).ToString());
    }
    GradCheck check;
    check.op_type = "multi_dot";
    for (size_t i = 0; i < values.size(); ++i) {
      check.inputs["X"].push_back(MakeTensor<double>(DDim(c.shapes[i]), values[i]));
    }
    check.outputs = {{"Out", 1}};
    CheckGradients(check);
  }
  const auto run = [](const std::vector<std::vector<int64_t>>& shapes) {
    std::vector<DenseTensor> xs;
    for (const auto& s : shapes)
      xs.push_back(MakeTensor<float>(DDim(s), RandomValues(DDim(s).numel(), -1, 1)));
    RunOp("multi_dot", {{"X", xs}}, {{"Out", 1}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({{2, 3}});
      },
      {"op `multi_dot` input `X`", "at least 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({{2, 3}, {4, 5}});
      },
      {"op `multi_dot` input `X`", "tensor 1 [4, 5] does not chain with tensor 0 [2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({{2, 3}, {3}, {3, 2}});
      },
      {"op `multi_dot` input `X` (tensor 1)", "expected a matrix, received [3]"});
}

// ------------------------------------------------------------------------ matrix_rank

TEST(MatrixRankOp, CountsSingularValuesAboveTheTolerance) {
  operators::RegisterAllOps();
  // B C with B [5, r] and C [r, 4] has rank r.
  const int64_t m = 5, n = 4;
  Values x;
  std::vector<int64_t> ranks = {0, 1, 2, 4};
  for (int64_t r : ranks) {
    Values prod(m * n, 0.0);
    if (r > 0) {
      prod =
          Matmul(RandomValues(m * r, -1, 1, 40 + r), RandomValues(r * n, -1, 1, 50 + r), m, r, n);
    }
    x.insert(x.end(), prod.begin(), prod.end());
  }
  for (DataType t : BothTypes()) {
    const DenseTensor out =
        RunOp("matrix_rank", {{"X", {Make(t, DDim({2, 2, m, n}), x)}}}, {{"Out", 1}})
            .outputs.at("Out")[0];
    ASSERT_EQ(out.dtype(), DataType::INT64);
    ASSERT_EQ(out.dims(), DDim({2, 2}));
    for (size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(out.data<int64_t>()[i], ranks[i]);
  }
  // Symmetric B B^T of rank 2, read through its eigenvalues.
  const Values b = RandomValues(4 * 2, -1, 1, 60);
  const Values sym = Matmul(b, Transposed(b, 4, 2), 4, 2, 4);
  const DenseTensor herm = RunOp("matrix_rank", {{"X", {MakeTensor<double>({4, 4}, sym)}}},
                                 {{"Out", 1}}, {{"hermitian", true}})
                               .outputs.at("Out")[0];
  EXPECT_EQ(herm.data<int64_t>()[0], 2);
  // Absolute tolerances: singular values 3, 1 and 0.2 (a diagonal matrix).
  const DenseTensor diag = MakeTensor<double>({3, 3}, {3, 0, 0, 0, -1, 0, 0, 0, 0.2});
  for (const auto& [tol, rank] :
       std::vector<std::pair<float, int64_t>>{{0.1f, 3}, {0.5f, 2}, {2.0f, 1}, {5.0f, 0}}) {
    const DenseTensor out = RunOp("matrix_rank", {{"X", {diag}}}, {{"Out", 1}},
                                  {{"tol", tol}, {"use_default_tol", false}})
                                .outputs.at("Out")[0];
    EXPECT_EQ(out.data<int64_t>()[0], rank) << "tol " << tol;
  }
  // A TolTensor [3] broadcast against the batch [2, 1]: out [2, 3].
  Values two;
  for (double scale : {1.0, 10.0}) {
    for (double v : ToDoubles(diag)) two.push_back(v * scale);
  }
  const DenseTensor out = RunOp("matrix_rank",
                                {{"X", {MakeTensor<double>({2, 1, 3, 3}, two)}},
                                 {"TolTensor", {MakeTensor<double>({3}, {0.5, 2.5, 20})}}},
                                {{"Out", 1}}, {{"use_default_tol", false}})
                              .outputs.at("Out")[0];
  ASSERT_EQ(out.dims(), DDim({2, 3}));
  const std::vector<int64_t> want = {2, 1, 0, 3, 2, 1};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(out.data<int64_t>()[i], want[i]) << i;
}

TEST(MatrixRankAtolRtolOp, TakesTheLargerOfTheAbsoluteAndRelativeTolerances) {
  operators::RegisterAllOps();
  // Singular values 10, 1, 0.1 and 1e-15 (a diagonal matrix with signs), then 5, 4, 3, 2.
  Values x(2 * 16, 0.0);
  const double first[] = {10, -1, 0.1, 1e-15}, second[] = {5, 4, -3, 2};
  for (int i = 0; i < 4; ++i) {
    x[i * 5] = first[i];
    x[16 + i * 5] = second[i];
  }
  const DenseTensor m = MakeTensor<double>({2, 4, 4}, x);
  const auto rank = [&](const Values& atol, const Values* rtol) {
    SlotTensors in = {{"x", {m}},
                      {"atol", {MakeTensor<double>({static_cast<int64_t>(atol.size())}, atol)}}};
    if (rtol != nullptr) {
      in["rtol"] = {MakeTensor<double>({static_cast<int64_t>(rtol->size())}, *rtol)};
    }
    const DenseTensor out =
        RunOp("matrix_rank_atol_rtol", in, {{"out", 1}}, {}).outputs.at("out")[0];
    EXPECT_EQ(out.dtype(), DataType::INT64);
    return std::vector<int64_t>(out.data<int64_t>(), out.data<int64_t>() + out.numel());
  };
  const Values half = {0.5}, tiny = {1e-16}, zero = {0.0}, five_percent = {0.05};
  EXPECT_EQ(rank(half, nullptr), std::vector<int64_t>({2, 4}));  // rtol 0: atol > 0.
  // atol > 0 without rtol: rtol 0, so 1e-15 counts; with atol 0, rtol is eps * max(M, N)
  // and the tolerance 8.9e-15.
  EXPECT_EQ(rank(tiny, nullptr), std::vector<int64_t>({4, 4}));
  EXPECT_EQ(rank(zero, nullptr), std::vector<int64_t>({3, 4}));
  EXPECT_EQ(rank(zero, &five_percent), std::vector<int64_t>({2, 4}));  // 0.5 and 0.25.
  const Values atol_2_5 = {2.5}, rtol_0 = {0.0};
  EXPECT_EQ(rank(atol_2_5, &rtol_0), std::vector<int64_t>({1, 3}));
  // atol [2] against the batch [2]: one tolerance per matrix.
  const Values per_matrix = {0.05, 3.5};
  EXPECT_EQ(rank(per_matrix, nullptr), std::vector<int64_t>({3, 2}));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        rank({0.1, 0.2, 0.3}, nullptr);
      },
      {"op `matrix_rank_atol_rtol` input `atol`", "do not broadcast"});
}

// ------------------------------------------------------------------------ cholesky_solve

TEST(CholeskySolveOp, SolvesWithTheFactorsTriangle) {
  operators::RegisterAllOps();
  const int64_t m = 3, k = 2;
  const Values spd = PositiveDefinite(2, m, 70);
  const Values rhs = RandomValues(2 * m * k, -1, 1, 71);  // X [2, 1, 3, 2]
  for (bool upper : {false, true}) {
    // The factors [1, 2, 3, 3] with garbage in the triangle that is not read.
    Values factors;
    for (int64_t b = 0; b < 2; ++b) {
      Values l = CholeskyLower(MatrixOf(spd, b, m * m), m);
      if (upper) l = Transposed(l, m, m);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) {
          if (upper ? j < i : j > i) l[i * m + j] = 50.0 + i;
        }
      }
      factors.insert(factors.end(), l.begin(), l.end());
    }
    for (DataType t : BothTypes()) {
      const DenseTensor out = RunOp("cholesky_solve",
                                    {{"X", {Make(t, DDim({2, 1, m, k}), rhs)}},
                                     {"Y", {Make(t, DDim({1, 2, m, m}), factors)}}},
                                    {{"Out", 1}}, {{"upper", upper}})
                                  .outputs.at("Out")[0];
      ASSERT_EQ(out.dims(), DDim({2, 2, m, k}));
      const Values got = ToDoubles(out);
      for (int64_t p = 0; p < 2; ++p) {
        for (int64_t q = 0; q < 2; ++q) {
          const Values inv = GaussJordanInverse(MatrixOf(spd, q, m * m), m);
          ExpectNear(MatrixOf(got, p * 2 + q, m * k), Matmul(inv, MatrixOf(rhs, p, m * k), m, m, k),
                     Tol(t), Tol(t), upper ? "cholesky_solve upper" : "cholesky_solve lower");
        }
      }
    }
    GradCheck check;
    check.op_type = "cholesky_solve";
    check.inputs = {{"X", {MakeTensor<double>({2, 1, m, k}, rhs)}},
                    {"Y", {MakeTensor<double>({1, 2, m, m}, factors)}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"upper", upper}};
    check.rtol = 1e-4;
    CheckGradients(check);
  }
}

// ------------------------------------------------------------------------ solve

TEST(LuSolveOp, SolvesWithTheFactorsOfLuInEveryTransposeAndBroadcast) {
  operators::RegisterAllOps();
  const int64_t m = 3;
  // A [2, 3, 3] away from singular, factored by the lu op.
  Values a = RandomValues(2 * m * m, -1, 1, 80);
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t i = 0; i < m; ++i) a[b * m * m + i * m + i] += 3;
  }
  for (DataType t : BothTypes()) {
    const OpRunResult f = RunOp("lu", {{"X", {Make(t, DDim({2, m, m}), a)}}},
                                {{"Out", 1}, {"Pivots", 1}, {"Infos", 1}});
    const DenseTensor& lu = f.outputs.at("Out")[0];
    const DenseTensor& pivots = f.outputs.at("Pivots")[0];
    struct Case {
      std::vector<int64_t> b_shape;
      std::string trans;
    };
    for (const Case& c : {Case{{2, m, 2}, "N"}, Case{{2, m, 2}, "T"}, Case{{2, m, 1}, "C"},
                          Case{{4, 2, m, 2}, "N"}, Case{{m, 2}, "T"}}) {
      const std::string what = "lu_solve " + DDim(c.b_shape).ToString() + " " + c.trans;
      const Values rhs = RandomValues(DDim(c.b_shape).numel(), -1, 1, 81);
      const DenseTensor out =
          RunOp("lu_solve",
                {{"b", {Make(t, DDim(c.b_shape), rhs)}}, {"lu", {lu}}, {"pivots", {pivots}}},
                {{"out", 1}}, {{"trans", c.trans}})
              .outputs.at("out")[0];
      const int64_t k = c.b_shape.back();
      const int64_t systems = out.numel() / (m * k);
      ASSERT_EQ(out.dims()[out.dims().size() - 1], k) << what;
      const Values x = ToDoubles(out);
      // A_p x_p (or A_p^T x_p) = b_p, with A's batch index p % 2 and b's the same or 0.
      for (int64_t p = 0; p < systems; ++p) {
        Values ap = MatrixOf(a, p % 2, m * m);
        if (c.trans != "N") ap = Transposed(ap, m, m);
        const int64_t b_index = c.b_shape.size() == 2 ? 0 : p;
        ExpectNear(Matmul(ap, MatrixOf(x, p, m * k), m, m, k), MatrixOf(rhs, b_index, m * k),
                   Tol(t) * 10, Tol(t) * 10, what);
      }
    }
  }
  // Gradients of b and of the packed factors (pivots held).
  const OpRunResult f = RunOp("lu", {{"X", {MakeTensor<double>({2, m, m}, a)}}},
                              {{"Out", 1}, {"Pivots", 1}, {"Infos", 1}});
  for (const std::string trans : {"N", "T"}) {
    SCOPED_TRACE("lu_solve_grad " + trans);
    GradCheck check;
    check.op_type = "lu_solve";
    check.inputs = {{"b", {MakeTensor<double>({2, m, 2}, RandomValues(2 * m * 2, -1, 1, 82))}},
                    {"lu", {f.outputs.at("Out")[0]}},
                    {"pivots", {f.outputs.at("Pivots")[0]}}};
    check.outputs = {{"out", 1}};
    check.attrs = {{"trans", trans}};
    check.wrt = {"b", "lu"};
    CheckGradients(check);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lu_solve",
              {{"b", {MakeTensor<double>({m, 1}, {1, 2, 3})}},
               {"lu", {MakeTensor<double>({m, m}, MatrixOf(a, 0, m * m))}},
               {"pivots", {MakeTensor<int32_t>({m}, {1, 4, 3})}}},
              {{"out", 1}}, {});
      },
      {"op `lu_solve` input `pivots`", "[1, 3]", "received 4"});
}

// An orthonormal n x n matrix: Gram-Schmidt on random columns.
Values Orthonormal(int64_t n, unsigned seed) {
  Values q = RandomValues(n * n, -1, 1, seed);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t k = 0; k < j; ++k) {
      double dot = 0;
      for (int64_t i = 0; i < n; ++i) dot += q[i * n + j] * q[i * n + k];
      for (int64_t i = 0; i < n; ++i) q[i * n + j] -= dot * q[i * n + k];
    }
    double norm = 0;
    for (int64_t i = 0; i < n; ++i) norm += q[i * n + j] * q[i * n + j];
    for (int64_t i = 0; i < n; ++i) q[i * n + j] /= std::sqrt(norm);
  }
  return q;
}

// Whether `got` (interleaved complex values) holds the values `want` in some order, each
// within `tol`.
bool SameSet(const Values& got, std::vector<std::complex<double>> want, double tol) {
  for (size_t i = 0; i + 1 < got.size(); i += 2) {
    const std::complex<double> g(got[i], got[i + 1]);
    auto it = std::find_if(want.begin(), want.end(),
                           [&](const std::complex<double>& w) { return std::abs(w - g) < tol; });
    if (it == want.end()) return false;
    want.erase(it);
  }
  return want.empty();
}

TEST(EigvalsOp, EigenvaluesOfAnOrthogonallyHiddenBlockTriangularMatrix) {
  operators::RegisterAllOps();
  // T upper block triangular with a 2 x 2 block [[1, -2], [2, 1]] (1 +- 2i) and diagonal 3,
  // -0.5, 0.25; X = Q T Q^T for an orthonormal Q has T's eigenvalues.
  const int64_t n = 5;
  Values t = RandomValues(n * n, -1, 1, 90);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < i; ++j) t[i * n + j] = 0;
  }
  t[0] = 1, t[1] = -2, t[n] = 2, t[n + 1] = 1;
  t[2 * n + 2] = 3, t[3 * n + 3] = -0.5, t[4 * n + 4] = 0.25;
  const std::vector<std::complex<double>> want = {{1, 2}, {1, -2}, {3, 0}, {-0.5, 0}, {0.25, 0}};
  const Values q = Orthonormal(n, 91);
  const Values x = Matmul(Matmul(q, t, n, n, n), Transposed(q, n, n), n, n, n);
  for (DataType type : BothTypes()) {
    const DenseTensor out =
        RunOp("eigvals", {{"X", {Make(type, DDim({n, n}), x)}}}, {{"Out", 1}}, {})
            .outputs.at("Out")[0];
    EXPECT_EQ(out.dtype(), type == DataType::FLOAT32 ? DataType::COMPLEX64 : DataType::COMPLEX128);
    EXPECT_EQ(out.dims(), DDim({n}));
    EXPECT_TRUE(SameSet(ToDoubles(out), want, type == DataType::FLOAT32 ? 1e-4 : 1e-10));
  }
  // A complex matrix: Q (T + i D) Q^T with D diagonal has eigenvalues T_jj + i D_jj.
  Values tc = RandomValues(n * n, -1, 1, 92);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < i; ++j) tc[i * n + j] = 0;
  }
  const Values qt = Matmul(q, tc, n, n, n);
  const Values re = Matmul(qt, Transposed(q, n, n), n, n, n);
  Values qd(n * n);
  std::vector<std::complex<double>> want_c;
  for (int64_t j = 0; j < n; ++j) {
    const double d = 0.5 * static_cast<double>(j) - 1;
    want_c.emplace_back(tc[j * n + j], d);
    for (int64_t i = 0; i < n; ++i) qd[i * n + j] = q[i * n + j] * d;
  }
  const Values im = Matmul(qd, Transposed(q, n, n), n, n, n);
  Values interleaved;
  for (int64_t i = 0; i < n * n; ++i) {
    interleaved.push_back(re[i]);
    interleaved.push_back(im[i]);
  }
  const DenseTensor out =
      RunOp("eigvals", {{"X", {MakeComplexTensor<double>({1, n, n}, interleaved)}}}, {{"Out", 1}},
            {})
          .outputs.at("Out")[0];
  EXPECT_EQ(out.dims(), DDim({1, n}));
  EXPECT_TRUE(SameSet(ToDoubles(out), want_c, 1e-10));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("eigvals", {{"X", {MakeTensor<double>({2, 3}, Values(6, 1.0))}}}, {{"Out", 1}}, {});
      },
      {"op `eigvals` input `X`"});
}

TEST(SolveOp, SolvesMatricesAndVectorsWithBroadcastBatches) {
  operators::RegisterAllOps();
  struct Case {
    std::vector<int64_t> x, y, out;
    int64_t x_batch, rhs_cols;
  };
  // X's batch of matrices, Y's right-hand sides; Out[p] = X[p % x_batch]^{-1} Y[p / ...].
  for (const Case& c :
       {Case{{2, 3, 3}, {2, 3, 2}, {2, 3, 2}, 2, 2}, Case{{3, 3}, {3}, {3}, 1, 1},
        Case{{2, 4, 4}, {2, 4}, {2, 4}, 2, 1}, Case{{2, 4, 4}, {4}, {2, 4}, 2, 1}}) {
    const int64_t m = c.x.back();
    const Values a = Invertible(c.x_batch, m, 90);
    const Values rhs = RandomValues(DDim(c.y).numel(), -1, 1, 91);
    const int64_t rhs_batch = DDim(c.y).numel() / (m * c.rhs_cols);
    for (DataType t : BothTypes()) {
      const DenseTensor out =
          RunOp("solve", {{"X", {Make(t, DDim(c.x), a)}}, {"Y", {Make(t, DDim(c.y), rhs)}}},
                {{"Out", 1}})
              .outputs.at("Out")[0];
      ASSERT_EQ(out.dims(), DDim(c.out)) << DDim(c.x).ToString() << " " << DDim(c.y).ToString();
      const Values got = ToDoubles(out);
      for (int64_t p = 0; p < c.x_batch; ++p) {
        const Values inv = GaussJordanInverse(MatrixOf(a, p, m * m), m);
        const Values b = MatrixOf(rhs, rhs_batch == 1 ? 0 : p, m * c.rhs_cols);
        ExpectNear(MatrixOf(got, p, m * c.rhs_cols), Matmul(inv, b, m, m, c.rhs_cols), Tol(t),
                   Tol(t), "solve " + DDim(c.x).ToString() + " " + DDim(c.y).ToString());
      }
    }
  }
  // Batch dims broadcast as matmul_v2's: [4, 1] with [5] gives [4, 5].
  const Values a = Invertible(4, 3, 92), rhs = RandomValues(5 * 3 * 2, -1, 1, 93);
  const Values got = ToDoubles(RunOp("solve",
                                     {{"X", {MakeTensor<double>({4, 1, 3, 3}, a)}},
                                      {"Y", {MakeTensor<double>({5, 3, 2}, rhs)}}},
                                     {{"Out", 1}})
                                   .outputs.at("Out")[0]);
  ASSERT_EQ(got.size(), 4u * 5 * 3 * 2);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      ExpectNear(MatrixOf(got, i * 5 + j, 6),
                 Matmul(GaussJordanInverse(MatrixOf(a, i, 9), 3), MatrixOf(rhs, j, 6), 3, 3, 2),
                 1e-10, 1e-10, "solve broadcast");
    }
  }
  for (const std::vector<int64_t>& y : std::vector<std::vector<int64_t>>{{5, 3, 2}, {3}}) {
    GradCheck check;
    check.op_type = "solve";
    check.inputs = {{"X", {MakeTensor<double>({4, 1, 3, 3}, a)}},
                    {"Y", {MakeTensor<double>(DDim(y), RandomValues(DDim(y).numel(), -1, 1, 94))}}};
    check.outputs = {{"Out", 1}};
    check.rtol = 1e-4;
    CheckGradients(check);
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("solve",
              {{"X", {MakeTensor<double>({2, 2}, {1, 2, 2, 4})}},
               {"Y", {MakeTensor<double>({2}, {1, 1})}}},
              {{"Out", 1}});
      },
      {"op `solve` input `X`", "singular"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("solve",
              {{"X", {MakeTensor<double>({3, 3}, Identity(3))}},
               {"Y", {MakeTensor<double>({4, 2}, RandomValues(8, -1, 1))}}},
              {{"Out", 1}});
      },
      {"solve", "[3, 3]", "[4, 2]"});
}

// ------------------------------------------------------------------------ lu_unpack

TEST(LuUnpackOp, PermutationTimesLTimesUIsTheInput) {
  operators::RegisterAllOps();
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{2, 4, 4}, {5, 3}, {2, 3, 5}}) {
    const int64_t rows = shape[shape.size() - 2], cols = shape.back(), k = std::min(rows, cols);
    const int64_t batch = DDim(shape).numel() / (rows * cols);
    const Values x = RandomValues(DDim(shape).numel(), -1, 1, 80);
    for (DataType t : BothTypes()) {
      const OpRunResult lu = RunOp("lu", {{"X", {Make(t, DDim(shape), x)}}},
                                   {{"Out", 1}, {"Pivots", 1}, {"Infos", 1}});
      const OpRunResult r =
          RunOp("lu_unpack", {{"X", lu.outputs.at("Out")}, {"Pivots", lu.outputs.at("Pivots")}},
                {{"Pmat", 1}, {"L", 1}, {"U", 1}});
      const Values p = ToDoubles(r.outputs.at("Pmat")[0]), l = ToDoubles(r.outputs.at("L")[0]),
                   u = ToDoubles(r.outputs.at("U")[0]);
      for (int64_t b = 0; b < batch; ++b) {
        const Values lu_b =
            Matmul(MatrixOf(l, b, rows * k), MatrixOf(u, b, k * cols), rows, k, cols);
        ExpectNear(Matmul(MatrixOf(p, b, rows * rows), lu_b, rows, rows, cols),
                   MatrixOf(x, b, rows * cols), Tol(t), Tol(t),
                   "P L U = X " + DDim(shape).ToString());
      }
      const OpRunResult none = RunOp(
          "lu_unpack", {{"X", lu.outputs.at("Out")}, {"Pivots", lu.outputs.at("Pivots")}},
          {{"Pmat", 1}, {"L", 1}, {"U", 1}}, {{"unpack_ludata", false}, {"unpack_pivots", false}});
      for (const char* slot : {"Pmat", "L", "U"})
        EXPECT_EQ(none.outputs.at(slot)[0].dims(), DDim({0}));
    }
    const OpRunResult lu = RunOp("lu", {{"X", {MakeTensor<double>(DDim(shape), x)}}},
                                 {{"Out", 1}, {"Pivots", 1}, {"Infos", 1}});
    GradCheck check;
    check.op_type = "lu_unpack";
    check.inputs = {{"X", lu.outputs.at("Out")}, {"Pivots", lu.outputs.at("Pivots")}};
    check.outputs = {{"Pmat", 1}, {"L", 1}, {"U", 1}};
    check.wrt = {"X"};
    check.loss_outputs = {"L", "U"};
    CheckGradients(check);
  }
  DenseTensor pivots(DDim({2}), DataType::INT32);
  pivots.mutable_data<int32_t>(platform::CPUPlace())[0] = 1;
  pivots.mutable_data<int32_t>(platform::CPUPlace())[1] = 7;
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lu_unpack",
              {{"X", {MakeTensor<double>({2, 2}, {1, 2, 3, 4})}}, {"Pivots", {pivots}}},
              {{"Pmat", 1}, {"L", 1}, {"U", 1}});
      },
      {"op `lu_unpack` input `Pivots`", "entry 1 of matrix 0 is 7", "expected a row in [2, 2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
