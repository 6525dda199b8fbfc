// Denormal floats as zero in CPU kernels. Arithmetic on denormals (magnitudes below 1.2e-38
// in float32) takes a slow microcode path on x86, and training produces them: Adam's first
// moment of a weight whose gradient stays 0 decays through the denormal range. On the
// 2-core machine a LeNet epoch took 13.6 s instead of 8.5 s once they appeared
// (docs/benchmarks.md). Most frameworks' CPU thread pools flush them; so do ours, under
// FLAGS_cpu_flush_denormal (default on).
#pragma once

namespace paddle_like {
namespace platform {

// While in scope, sets flush-to-zero and denormals-are-zero on the current thread (x86 SSE
// control register; a no-op on other CPUs or with the flag off) and restores the previous
// mode after. The executor holds one per run (an operator run on its own, one per Run) and
// CPUDeviceContext::ParallelFor one per worker chunk.
class ScopedFlushDenormal {
 public:
  ScopedFlushDenormal();
  ~ScopedFlushDenormal();
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
  unsigned int saved_ = 0;
  bool active_ = false;
};

}  // namespace platform
}  // namespace paddle_like
