#define EIGEN_USE_THREADS
#include "platform/device_context.h"

#include <exception>
#include <mutex>
#include <unsupported/Eigen/CXX11/Tensor>
#include <unsupported/Eigen/CXX11/ThreadPool>

#include "platform/denormal.h"

namespace paddle_like {
namespace platform {

struct CPUDeviceContext::Impl {
  std::unique_ptr<Eigen::ThreadPool> pool;
  mutable std::once_flag device_once;
  mutable std::unique_ptr<Eigen::ThreadPoolDevice> device;
};

CPUDeviceContext::CPUDeviceContext(int num_threads)
    : num_threads_(num_threads < 1 ? 1 : num_threads), impl_(new Impl) {}

CPUDeviceContext::~CPUDeviceContext() = default;

Eigen::ThreadPoolDevice* CPUDeviceContext::eigen_device() const {
  std::call_once(impl_->device_once, [this] {
    // No spinning: idle workers sleep instead of burning a core between runs.
    impl_->pool = std::make_unique<Eigen::ThreadPool>(num_threads_, /*allow_spinning=*/false);
    impl_->device =
        std::make_unique<Eigen::ThreadPoolDevice>(impl_->pool.get(), impl_->pool->NumThreads());
  });
  return impl_->device.get();
}

void CPUDeviceContext::ParallelRanges(int64_t n, int64_t min_grain,
                                      FunctionRef<void(int64_t, int64_t)> fn) const {
  if (n <= 0) return;
  if (min_grain < 1) min_grain = 1;
  int64_t chunks = std::min<int64_t>(num_threads_, (n + min_grain - 1) / min_grain);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  const int64_t step = (n + chunks - 1) / chunks;
  chunks = (n + step - 1) / step;
  // OpenMP threads, shared with oneDNN's primitives, so the two never oversubscribe the
  // cores. Chunk c always covers the same range: results do not depend on scheduling.
  std::exception_ptr error;
  std::mutex error_mu;
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static, 1)
  for (int64_t c = 0; c < chunks; ++c) {
    try {
      const ScopedFlushDenormal flush;  // Worker threads do not share the caller's mode.
      fn(c * step, std::min(n, (c + 1) * step));
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace platform
}  // namespace paddle_like
