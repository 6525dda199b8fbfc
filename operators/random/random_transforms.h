// The sample transforms of the random ops, written out so that a seed gives the same values
// with every C++ library: std::mt19937_64's output sequence is fixed by the standard, while
// std::uniform_real_distribution and std::normal_distribution are implementation-defined.
//
// - Uniform [0, 1): the top 53 bits of one 64-bit draw, times 2^-53 (exact in a double).
// - Integer in [0, n): one 64-bit draw modulo n, drawn again above the largest multiple of n.
// - Standard normal: Box-Muller on two such uniforms, u1 taken as 1 - u in (0, 1]:
//     r = sqrt(-2 ln u1),  z0 = r cos(2 pi u2),  z1 = r sin(2 pi u2)
//   z0 then z1 are returned in turn; one pair uses two draws.
// Samples are produced one after another in element order on one thread. Bitwise equality
// across machines also relies on the C library's log, sin and cos, which may differ in the
// last bit between libraries; with one build a seed reproduces every bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace paddle_like {
namespace operators {

class RandomSource {
 public:
  explicit RandomSource(uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n) for n >= 1: draws above the largest multiple of n are drawn
  // again, so every value is equally likely.
  uint64_t Below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t v = engine_();
    while (v >= limit) v = engine_();
    return v % n;
  }

  // Standard normal (Box-Muller, see above).
  double Normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - Uniform();  // (0, 1]: log(u1) is finite.
    const double u2 = Uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * M_PI * u2;
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

}  // namespace operators
}  // namespace paddle_like
