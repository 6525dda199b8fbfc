#include "platform/random.h"

#include <gflags/gflags.h>

#include <mutex>
#include <random>

DEFINE_uint64(random_seed, 0,
              "Seed of the default generator of random ops whose seed attribute is 0 "
              "(0: seeded from std::random_device).");

namespace paddle_like {
namespace platform {

namespace {
struct DefaultGenerator {
  std::mutex mu;
  bool seeded = false;
  std::mt19937_64 engine;
};
DefaultGenerator& Generator() {
  static DefaultGenerator g;
  return g;
}
}  // namespace

void SetDefaultSeed(uint64_t seed) {
  DefaultGenerator& g = Generator();
  std::lock_guard<std::mutex> lock(g.mu);
  g.engine.seed(seed);
  g.seeded = true;
}

uint64_t NextDefaultSeed() {
  DefaultGenerator& g = Generator();
  std::lock_guard<std::mutex> lock(g.mu);
  if (!g.seeded) {
    g.engine.seed(FLAGS_random_seed != 0 ? FLAGS_random_seed : std::random_device{}());
    g.seeded = true;
  }
  uint64_t s = g.engine();
  return s == 0 ? 1 : s;
}

uint64_t ResolveSeed(int64_t op_seed) {
  return op_seed != 0 ? static_cast<uint64_t>(op_seed) : NextDefaultSeed();
}

}  // namespace platform
}  // namespace paddle_like
