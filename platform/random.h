// Seeds for random ops. An op with a non-zero `seed` attribute uses that seed, so its output
// is the same on every run; with seed 0 it takes the next seed from the process's default
// generator, which FLAGS_random_seed (non-zero) or SetDefaultSeed makes reproducible.
// Thread-safe.
#pragma once

#include <cstdint>

namespace paddle_like {
namespace platform {

// The seed an op should use: `op_seed` if non-zero, else the next default seed.
uint64_t ResolveSeed(int64_t op_seed);
uint64_t NextDefaultSeed();
void SetDefaultSeed(uint64_t seed);

}  // namespace platform
}  // namespace paddle_like
