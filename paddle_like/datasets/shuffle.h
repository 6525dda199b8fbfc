// Seeded permutations that are the same with every C++ standard library: std::mt19937_64 (whose
// output the standard fixes) drives a Fisher-Yates shuffle written here, with rejection
// sampling for uniform integers (std::uniform_int_distribution and std::shuffle differ between
// libraries). Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace paddle_like {
namespace datasets {

// A uniform integer in [0, bound), bound > 0: the first output r of `rng` with
// r >= 2^64 mod bound, taken modulo bound.
uint64_t UniformBelow(uint64_t bound, std::mt19937_64* rng);

// Fisher-Yates: for i = n-1 down to 1, swap element i with element UniformBelow(i + 1).
void Shuffle(std::vector<int64_t>* values, std::mt19937_64* rng);

// The engine seed for epoch `epoch` of a run seeded with `seed`: SplitMix64 mixes of both, so
// neighbouring seeds and epochs give unrelated orders.
uint64_t EpochSeed(uint64_t seed, int64_t epoch);

// 0..n-1 shuffled by an engine seeded with `seed`.
std::vector<int64_t> Permutation(int64_t n, uint64_t seed);

}  // namespace datasets
}  // namespace paddle_like
