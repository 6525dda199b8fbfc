// Compute resources of one place. Operators are stateless: a kernel takes its thread pool,
// oneDNN engine/stream or CUDA stream/handles from the DeviceContext that DeviceContextPool
// keeps for the place it runs on.
//
// Threading: a context is shared by every op running on its place; its methods are
// thread-safe, and kernels must not keep per-call state in it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "platform/function_ref.h"
#include "platform/place.h"

namespace Eigen {
class ThreadPoolInterface;
struct ThreadPoolDevice;
}  // namespace Eigen

namespace paddle_like {
namespace platform {

class DeviceContext {
 public:
  virtual ~DeviceContext() = default;
  virtual Place GetPlace() const = 0;
  // Blocks until all work queued on this context is done (no-op on the CPU).
  virtual void Wait() const {}
};

class CPUDeviceContext : public DeviceContext {
 public:
  // num_threads <= 1 runs everything inline on the calling thread.
  explicit CPUDeviceContext(int num_threads);
  ~CPUDeviceContext() override;

  Place GetPlace() const override { return CPUPlace(); }
  int num_threads() const { return num_threads_; }

  // Eigen's thread-pool device for Eigen Tensor expressions (built on first use).
  Eigen::ThreadPoolDevice* eigen_device() const;

  // Runs fn(begin, end) over [0, n) split into at most num_threads() contiguous ranges of at
  // least `min_grain` items, on OpenMP threads (the ones oneDNN uses too), and waits for all
  // of them. The split depends only on n, min_grain and num_threads(), so results are
  // reproducible run to run. An exception thrown by fn is rethrown here.
  void ParallelFor(int64_t n, int64_t min_grain, FunctionRef<void(int64_t, int64_t)> fn) const {
    // One range (small n, one thread) runs here, inline, without the parallel machinery.
    if (n <= min_grain || num_threads_ <= 1) {
      if (n > 0) fn(0, n);
      return;
    }
    ParallelRanges(n, min_grain, fn);
  }

 private:
  void ParallelRanges(int64_t n, int64_t min_grain, FunctionRef<void(int64_t, int64_t)> fn) const;

  struct Impl;
  int num_threads_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace platform
}  // namespace paddle_like
