// Helpers of the complex-valued op tests: complex128 values to and from interleaved (real,
// imaginary) doubles, and a comparison with tolerances relative to the largest value.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {

using Cd = std::complex<double>;

inline std::vector<Cd> Pairs(const std::vector<double>& interleaved) {
  std::vector<Cd> out;
  for (size_t i = 0; i + 1 < interleaved.size(); i += 2) {
    out.emplace_back(interleaved[i], interleaved[i + 1]);
  }
  return out;
}

inline std::vector<double> Interleaved(const std::vector<Cd>& v) {
  std::vector<double> out;
  for (const Cd& c : v) {
    out.push_back(c.real());
    out.push_back(c.imag());
  }
  return out;
}

inline double MaxAbs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Within 2e-6 (float32 values, `single`) or 1e-12 of the largest |want| (at least 1).
inline void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                        bool single, const std::string& what) {
  const double tol = (single ? 2e-6 : 1e-12) * std::max(1.0, MaxAbs(want));
  ExpectNear(got, want, 0, tol, what);
}

}  // namespace testing
}  // namespace paddle_like
