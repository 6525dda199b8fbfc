// The p-norm of a run of values and the derivative of one of its elements, shared by p_norm
// and dist: p any real, +-inf (the max / min of |x|), 0 (the count of non-zeros). Runs in
// double.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace paddle_like {
namespace operators {

class PNormAccumulator {
 public:
  explicit PNormAccumulator(double p)
      : p_(p), acc_(std::isinf(p) && p < 0 ? std::numeric_limits<double>::infinity() : 0.0) {}

  void Add(double x) {
    const double v = std::fabs(x);
    if (std::isinf(p_)) {
      acc_ = p_ > 0 ? std::max(acc_, v) : std::min(acc_, v);
    } else if (p_ == 0) {
      acc_ += v != 0;
    } else {
      acc_ += std::pow(v, p_);
    }
  }

  double Norm() const { return std::isinf(p_) || p_ == 0 ? acc_ : std::pow(acc_, 1.0 / p_); }

 private:
  double p_, acc_;
};

// The denominator of the gradient of a norm `norm`: max(norm^(p-1), eps).
inline double PNormGradDenominator(double norm, double p, double eps) {
  return std::max(std::pow(norm, p - 1), eps);
}

// g * d norm / d x for one element x: sign(x) |x|^(p-1) / denominator; for p = +-inf, g sign(x)
// where |x| = norm, else 0; for p = 0, and at x = 0 (no NaN for p < 1), 0.
inline double PNormElementGrad(double x, double norm, double g, double p, double denominator) {
  const double sign = x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
  if (std::isinf(p)) return std::fabs(x) == norm ? g * sign : 0.0;
  if (p == 0 || x == 0) return 0.0;
  return g * sign * std::pow(std::fabs(x), p - 1) / denominator;
}

}  // namespace operators
}  // namespace paddle_like
