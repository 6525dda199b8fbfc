#include "paddle_like/datasets/shuffle.h"

#include <numeric>
#include <utility>

namespace paddle_like {
namespace datasets {

namespace {

// SplitMix64 (Steele, Lea and Flood): a bijective 64-bit mix.
uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t UniformBelow(uint64_t bound, std::mt19937_64* rng) {
  const uint64_t reject_below = (0 - bound) % bound;  // 2^64 mod bound.
  while (true) {
    const uint64_t r = (*rng)();
    if (r >= reject_below) return r % bound;
  }
}

void Shuffle(std::vector<int64_t>* values, std::mt19937_64* rng) {
  for (size_t i = values->size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(UniformBelow(i, rng));
    std::swap((*values)[i - 1], (*values)[j]);
  }
}

uint64_t EpochSeed(uint64_t seed, int64_t epoch) {
  return SplitMix64(SplitMix64(seed) ^ static_cast<uint64_t>(epoch));
}

std::vector<int64_t> Permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::mt19937_64 rng(seed);
  Shuffle(&order, &rng);
  return order;
}

}  // namespace datasets
}  // namespace paddle_like
