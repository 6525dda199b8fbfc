// lstsq (operators/linalg/lstsq_op.cc) against references written here: the normal
// equations X^T X S = X^T Y (tall, full rank) and S = X^T (X X^T)^-1 Y (wide) solved by
// Gauss-Jordan elimination in long double; for rank-deficient X the two properties that
// define the least-norm solution (X^T (X S - Y) = 0, S orthogonal to X's null space); the
// singular values through sum(s^2) = ||X||_F^2 and prod(s^2) = det(X^T X); each driver's
// outputs shaped as PaddlePaddle's kernel shapes them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "operators/registry.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using Mat = std::vector<std::vector<long double>>;

// Row-major m x n values as a matrix.
Mat ToMat(const std::vector<double>& v, int64_t m, int64_t n, int64_t offset = 0) {
  Mat a(m, std::vector<long double>(n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) a[i][j] = v[offset + i * n + j];
  }
  return a;
}

Mat Transpose(const Mat& a) {
  Mat t(a[0].size(), std::vector<long double>(a.size()));
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = 0; j < a[0].size(); ++j) t[j][i] = a[i][j];
  }
  return t;
}

Mat Multiply(const Mat& a, const Mat& b) {
  Mat c(a.size(), std::vector<long double>(b[0].size(), 0));
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t k = 0; k < b.size(); ++k) {
      for (size_t j = 0; j < b[0].size(); ++j) c[i][j] += a[i][k] * b[k][j];
    }
  }
  return c;
}

// A^-1 B for a non-singular square A, by Gauss-Jordan elimination with partial pivoting.
Mat SolveSquare(Mat a, Mat b) {
  const size_t n = a.size();
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < n; ++r) {
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    }
    std::swap(a[c], a[p]);
    std::swap(b[c], b[p]);
    for (size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const long double f = a[r][c] / a[c][c];
      for (size_t j = 0; j < n; ++j) a[r][j] -= f * a[c][j];
      for (size_t j = 0; j < b[0].size(); ++j) b[r][j] -= f * b[c][j];
    }
  }
  for (size_t r = 0; r < n; ++r) {
    for (size_t j = 0; j < b[0].size(); ++j) b[r][j] /= a[r][r];
  }
  return b;
}

long double Det(Mat a) {
  long double d = 1;
  const size_t n = a.size();
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < n; ++r) {
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    }
    if (p != c) {
      std::swap(a[c], a[p]);
      d = -d;
    }
    d *= a[c][c];
    for (size_t r = c + 1; r < n; ++r) {
      const long double f = a[r][c] / a[c][c];
      for (size_t j = c; j < n; ++j) a[r][j] -= f * a[c][j];
    }
  }
  return d;
}

std::vector<double> Flat(const Mat& a) {
  std::vector<double> v;
  for (const auto& row : a) v.insert(v.end(), row.begin(), row.end());
  return v;
}

// The least-squares solution of a full-rank system: tall by the normal equations, wide as
// the least-norm one.
Mat Reference(const Mat& x, const Mat& y) {
  const Mat xt = Transpose(x);
  if (x.size() >= x[0].size()) return SolveSquare(Multiply(xt, x), Multiply(xt, y));
  return Multiply(xt, SolveSquare(Multiply(x, xt), y));
}

struct Outputs {
  DenseTensor solution, residuals, rank, sv;
};

template <typename T>
Outputs RunLstsq(const DDim& xd, const std::vector<double>& x, const DDim& yd,
                 const std::vector<double>& y, const std::string& driver, float rcond) {
  const OpRunResult r =
      RunOp("lstsq", {{"X", {MakeTensor<T>(xd, x)}}, {"Y", {MakeTensor<T>(yd, y)}}},
            {{"Solution", 1}, {"Residuals", 1}, {"Rank", 1}, {"SingularValues", 1}},
            {{"driver", driver}, {"rcond", rcond}});
  return {r.outputs.at("Solution")[0], r.outputs.at("Residuals")[0], r.outputs.at("Rank")[0],
          r.outputs.at("SingularValues")[0]};
}

const std::vector<std::string> kDrivers = {"gels", "gelsy", "gelsd", "gelss"};

TEST(LstsqOp, FullRankSystemsOfEveryDriverAndShape) {
  operators::RegisterAllOps();
  struct Case {
    int64_t batch, m, n, k;
  };
  for (const Case& c : {Case{2, 5, 3, 2}, Case{1, 3, 5, 2}, Case{3, 4, 4, 1}}) {
    const auto x = RandomValues(c.batch * c.m * c.n, -1, 1, 71);
    const auto y = RandomValues(c.batch * c.m * c.k, -1, 1, 72);
    const DDim xd{c.batch, c.m, c.n}, yd{c.batch, c.m, c.k};
    for (const std::string& driver : kDrivers) {
      SCOPED_TRACE(driver + " " + xd.ToString() + " " + yd.ToString());
      const Outputs o = RunLstsq<double>(xd, x, yd, y, driver, 1e-15f * 6);
      std::vector<double> want, residuals;
      const int64_t q = std::min(c.m, c.n);
      for (int64_t b = 0; b < c.batch; ++b) {
        const Mat xm = ToMat(x, c.m, c.n, b * c.m * c.n), ym = ToMat(y, c.m, c.k, b * c.m * c.k);
        const Mat s = Reference(xm, ym);
        const std::vector<double> f = Flat(s);
        want.insert(want.end(), f.begin(), f.end());
        const Mat fit = Multiply(xm, s);
        for (int64_t j = 0; j < c.k; ++j) {
          long double sum = 0;
          for (int64_t i = 0; i < c.m; ++i) sum += (fit[i][j] - ym[i][j]) * (fit[i][j] - ym[i][j]);
          residuals.push_back(static_cast<double>(sum));
        }
        if (driver == "gelsd" || driver == "gelss") {
          // sum s^2 = ||X||_F^2 and prod s^2 = det of the smaller Gram matrix.
          const std::vector<double> sv = ToDoubles(o.sv);
          long double sq = 0, prod = 1, fro = 0;
          for (int64_t i = 0; i < q; ++i) {
            const long double v = sv[b * q + i];
            sq += v * v;
            prod *= v * v;
            if (i > 0) EXPECT_GE(sv[b * q + i - 1], sv[b * q + i]) << "descending";
          }
          for (const auto& row : xm) {
            for (long double v : row) fro += v * v;
          }
          const Mat gram = c.m >= c.n ? Multiply(Transpose(xm), xm) : Multiply(xm, Transpose(xm));
          EXPECT_NEAR(static_cast<double>(sq), static_cast<double>(fro), 1e-12);
          EXPECT_NEAR(static_cast<double>(prod), static_cast<double>(Det(gram)), 1e-12);
        }
      }
      EXPECT_EQ(o.solution.dims(), DDim({c.batch, c.n, c.k}));
      ExpectNear(ToDoubles(o.solution), want, 1e-10, 1e-10, "Solution");
      if (c.m > c.n && driver != "gelsy") {
        EXPECT_EQ(o.residuals.dims(), DDim({c.batch, c.k}));
        ExpectNear(ToDoubles(o.residuals), residuals, 1e-10, 1e-12, "Residuals");
      } else {
        EXPECT_EQ(o.residuals.dims(), DDim({0}));
      }
      if (driver == "gels") {
        EXPECT_EQ(o.rank.dims(), DDim({0}));
      } else {
        EXPECT_EQ(o.rank.dtype(), DataType::INT32);
        EXPECT_EQ(ToDoubles(o.rank), std::vector<double>(c.batch, static_cast<double>(q)));
      }
      EXPECT_EQ(o.sv.dims(),
                driver == "gelsd" || driver == "gelss" ? DDim({c.batch, q}) : DDim({0}));

      // float32 inputs: the same answers to single precision.
      const Outputs f = RunLstsq<float>(xd, x, yd, y, driver, 1e-7f * 6);
      EXPECT_EQ(f.solution.dtype(), DataType::FLOAT32);
      ExpectNear(ToDoubles(f.solution), want, 1e-4, 1e-5, "float32 Solution");
    }
  }
}

TEST(LstsqOp, RankDeficientSystemsGetTheLeastNormSolution) {
  operators::RegisterAllOps();
  // Batch of two 6 x 3 matrices, the second with column 2 = column 0 + column 1: null space
  // (1, 1, -1).
  std::vector<double> x = RandomValues(2 * 6 * 3, -1, 1, 73);
  for (int64_t i = 0; i < 6; ++i) x[18 + i * 3 + 2] = x[18 + i * 3] + x[18 + i * 3 + 1];
  const std::vector<double> y = RandomValues(2 * 6 * 2, -1, 1, 74);
  for (const std::string& driver : {"gelsy", "gelsd", "gelss"}) {
    SCOPED_TRACE(driver);
    const Outputs o = RunLstsq<double>({2, 6, 3}, x, {2, 6, 2}, y, driver, 1e-15f * 6);
    EXPECT_EQ(ToDoubles(o.rank), std::vector<double>({3, 2}));
    // One matrix short of full rank: no residuals (PaddlePaddle's rule).
    EXPECT_EQ(o.residuals.dims(), DDim({0}));
    const std::vector<double> s = ToDoubles(o.solution);
    const Mat xm = ToMat(x, 6, 3, 18), ym = ToMat(y, 6, 2, 12), sm = ToMat(s, 3, 2, 6);
    const Mat fit = Multiply(xm, sm);
    Mat r(6, std::vector<long double>(2));
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 2; ++j) r[i][j] = fit[i][j] - ym[i][j];
    }
    const Mat normal = Multiply(Transpose(xm), r);  // X^T (X S - Y) = 0 at a minimum.
    for (const auto& row : normal) {
      for (long double v : row) EXPECT_NEAR(static_cast<double>(v), 0, 1e-10);
    }
    for (int j = 0; j < 2; ++j) {  // Least norm: no component along the null space.
      EXPECT_NEAR(static_cast<double>(sm[0][j] + sm[1][j] - sm[2][j]), 0, 1e-10);
    }
    // The full-rank first matrix as in the full-rank test.
    ExpectNear(std::vector<double>(s.begin(), s.begin() + 6),
               Flat(Reference(ToMat(x, 6, 3), ToMat(y, 6, 2))), 1e-10, 1e-10, "matrix 0");
  }
  // gels assumes full rank; with it, residuals are always given where M > N.
  const Outputs g =
      RunLstsq<double>({1, 6, 3}, std::vector<double>(x.begin(), x.begin() + 18), {1, 6, 2},
                       std::vector<double>(y.begin(), y.begin() + 12), "gels", 0.0f);
  EXPECT_EQ(g.residuals.dims(), DDim({1, 2}));
}

TEST(LstsqOp, RcondSetsTheRank) {
  operators::RegisterAllOps();
  // diag(1, 1e-3, 1e-6) x = 1: rcond between the singular values' ratios drops the small
  // ones (their components of the solution become 0).
  const std::vector<double> x = {1, 0, 0, 0, 1e-3, 0, 0, 0, 1e-6};
  const std::vector<double> y = {1, 1, 1};
  for (const std::string& driver : {"gelsy", "gelsd", "gelss"}) {
    SCOPED_TRACE(driver);
    for (const auto& [rcond, rank, want] :
         std::vector<std::tuple<float, double, std::vector<double>>>{{1e-14f, 3, {1, 1e3, 1e6}},
                                                                     {1e-4f, 2, {1, 1e3, 0}},
                                                                     {1e-2f, 1, {1, 0, 0}},
                                                                     {-1.0f, 3, {1, 1e3, 1e6}}}) {
      const Outputs o = RunLstsq<double>({3, 3}, x, {3, 1}, y, driver, rcond);
      EXPECT_EQ(o.rank.dims(), DDim({}));
      EXPECT_EQ(ToDoubles(o.rank), std::vector<double>({rank})) << "rcond " << rcond;
      ExpectNear(ToDoubles(o.solution), want, 1e-9, 1e-12, "Solution");
    }
  }
}

TEST(LstsqOp, EmptyMatricesAndBadInputsAreHandled) {
  operators::RegisterAllOps();
  // No unknowns: the solution is empty, the rank 0 (= N, full) and the residuals Y's norms.
  const std::vector<double> y = {1, 2, 3, 4, 5, 6};
  const Outputs e = RunLstsq<double>({2, 0}, {}, {2, 3}, y, "gelsd", 0);
  EXPECT_EQ(e.solution.dims(), DDim({0, 3}));
  EXPECT_EQ(ToDoubles(e.rank), std::vector<double>({0}));
  EXPECT_EQ(ToDoubles(e.residuals), std::vector<double>({17, 29, 45}));
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunLstsq<double>({4, 3}, RandomValues(12, -1, 1), {5, 2}, RandomValues(10, -1, 1), "gelsd",
                         0);
      },
      {"op `lstsq` input `Y`", "[4, 3]", "[5, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunLstsq<double>({2, 4, 3}, RandomValues(24, -1, 1), {3, 4, 2}, RandomValues(24, -1, 1),
                         "gelsy", 0);
      },
      {"op `lstsq` input `Y`", "batch dims"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunLstsq<double>({4}, RandomValues(4, -1, 1), {4, 1}, RandomValues(4, -1, 1), "gelsy", 0);
      },
      {"op `lstsq` input `X`", "rank >= 2"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunLstsq<double>({2, 2}, {1, NAN, 0, 1}, {2, 1}, {1, 1}, "gelsd", 0);
      },
      {"op `lstsq` input `X`", "finite", "element 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunLstsq<double>({2, 2}, {1, 0, 0, 1}, {2, 1}, {1, 1}, "gelsx", 0);
      },
      {"lstsq", "driver", "gelsx"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
