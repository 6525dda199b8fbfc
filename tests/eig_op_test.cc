// eig (operators/linalg/eig_op.cc): every eigenpair checked by its definition X v = lambda v
// (computed here in complex double), unit eigenvectors with their largest component real and
// positive, the eigenvalues those of eigvals in the same order and summing to the trace, a
// closed form (a scaled rotation's +-i sqrt(2)); gradients of real and complex inputs against
// finite differences, with a loss that depends on the eigenvectors' phases (so the phase
// condition's term in the backward is exercised) and with the eigenvalues alone.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "operators/registry.h"
#include "tests/complex_test_util.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Eigenpairs {
  std::vector<Cd> values, vectors;  // [batch, n] and [batch, n, n], column j = pair j.
  DataType dtype;
};

Eigenpairs RunEig(const DenseTensor& x) {
  const OpRunResult r = RunOp("eig", {{"X", {x}}}, {{"Eigenvalues", 1}, {"Eigenvectors", 1}}, {});
  const DenseTensor& w = r.outputs.at("Eigenvalues")[0];
  const DenseTensor& v = r.outputs.at("Eigenvectors")[0];
  EXPECT_EQ(w.dtype(), v.dtype());
  return {Pairs(ToDoubles(w)), Pairs(ToDoubles(v)), v.dtype()};
}

// Checks the pairs of `batch` n x n matrices `x` (complex, row-major) within `tol`.
void ExpectEigenpairs(const std::vector<Cd>& x, const Eigenpairs& e, int64_t batch, int64_t n,
                      double tol) {
  for (int64_t b = 0; b < batch; ++b) {
    Cd trace = 0, sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      const Cd lambda = e.values[b * n + j];
      sum += lambda;
      trace += x[(b * n + j) * n + j];
      double norm2 = 0, largest = -1;
      Cd pivot;
      for (int64_t i = 0; i < n; ++i) {
        const Cd vi = e.vectors[(b * n + i) * n + j];
        norm2 += std::norm(vi);
        if (std::abs(vi) > largest) largest = std::abs(vi), pivot = vi;
        Cd xv = 0;
        for (int64_t k = 0; k < n; ++k)
          xv += x[(b * n + i) * n + k] * e.vectors[(b * n + k) * n + j];
        EXPECT_LT(std::abs(xv - lambda * vi), tol)
            << "matrix " << b << " pair " << j << " row " << i << ": X v = lambda v";
      }
      EXPECT_NEAR(norm2, 1, tol) << "matrix " << b << " vector " << j << " unit norm";
      EXPECT_EQ(pivot.imag(), 0) << "matrix " << b << " vector " << j << " largest component real";
      EXPECT_GT(pivot.real(), 0) << "matrix " << b << " vector " << j << " largest component > 0";
    }
    EXPECT_LT(std::abs(sum - trace), tol * n) << "matrix " << b << ": sum of eigenvalues = trace";
  }
}

TEST(EigOp, EigenpairsOfRealAndComplexMatrices) {
  operators::RegisterAllOps();
  const int64_t batch = 2, n = 5;
  const std::vector<double> x = RandomValues(batch * n * n, -1, 1, 121);
  std::vector<Cd> xc(x.begin(), x.end());
  for (DataType t : {DataType::FLOAT64, DataType::FLOAT32}) {
    SCOPED_TRACE(t == DataType::FLOAT64 ? "float64" : "float32");
    const bool single = t == DataType::FLOAT32;
    const DenseTensor in =
        single ? MakeTensor<float>({batch, n, n}, x) : MakeTensor<double>({batch, n, n}, x);
    const Eigenpairs e = RunEig(in);
    EXPECT_EQ(e.dtype, single ? DataType::COMPLEX64 : DataType::COMPLEX128);
    ExpectEigenpairs(xc, e, batch, n, single ? 2e-5 : 1e-12);
    // The eigenvalues are eigvals', in the same order.
    const std::vector<Cd> only =
        Pairs(ToDoubles(RunOp("eigvals", {{"X", {in}}}, {{"Out", 1}}, {}).outputs.at("Out")[0]));
    EXPECT_EQ(only, e.values);
  }
  // A complex matrix.
  const std::vector<double> parts = RandomValues(4 * 4 * 2, -1, 1, 122);
  const Eigenpairs c = RunEig(MakeComplexTensor<double>({4, 4}, parts));
  EXPECT_EQ(c.dtype, DataType::COMPLEX128);
  ExpectEigenpairs(Pairs(parts), c, 1, 4, 1e-12);
  // [[0, -2], [1, 0]]: lambda^2 = -2.
  const Eigenpairs r = RunEig(MakeTensor<double>({2, 2}, {0, -2, 1, 0}));
  ASSERT_EQ(r.values.size(), 2u);
  EXPECT_NEAR(std::abs(r.values[0] - Cd(0, std::sqrt(2.0))) *
                  std::abs(r.values[0] - Cd(0, -std::sqrt(2.0))),
              0, 1e-12);
  EXPECT_NEAR(std::abs(r.values[0] - std::conj(r.values[1])), 0, 1e-12);
}

TEST(EigOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  // The checker's loss weighs the real and imaginary parts of every output at random: it
  // depends on the eigenvectors' phases, which the backward's phase term accounts for.
  for (const std::vector<std::string>& loss :
       {std::vector<std::string>{}, std::vector<std::string>{"Eigenvalues"}}) {
    SCOPED_TRACE(loss.empty() ? "values and vectors" : "values only");
    GradCheck real;
    real.op_type = "eig";
    real.inputs = {{"X", {MakeTensor<double>({2, 4, 4}, RandomValues(32, -1, 1, 123))}}};
    real.outputs = {{"Eigenvalues", 1}, {"Eigenvectors", 1}};
    real.loss_outputs = loss;
    CheckGradients(real);
    GradCheck complex;
    complex.op_type = "eig";
    complex.inputs = {{"X", {MakeComplexTensor<double>({3, 3}, RandomValues(18, -1, 1, 124))}}};
    complex.outputs = {{"Eigenvalues", 1}, {"Eigenvectors", 1}};
    complex.loss_outputs = loss;
    CheckGradients(complex);
  }
}

TEST(EigOp, NonSquareAndNonFiniteMatricesAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunEig(MakeTensor<double>({2, 3}, RandomValues(6, -1, 1)));
      },
      {"op `eig` input `X`", "[2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunEig(MakeTensor<float>({2, 2, 2}, {1, 0, 0, 1, 1, NAN, 0, 1}));
      },
      {"op `eig` input `X`", "finite", "matrix 1", "element 1"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
