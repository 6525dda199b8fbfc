#define EIGEN_USE_THREADS
#include "platform/device_context.h"

#include <mutex>
#include <unsupported/Eigen/CXX11/Tensor>
#include <unsupported/Eigen/CXX11/ThreadPool>

namespace paddle_like {
namespace platform {

struct CPUDeviceContext::Impl {
  std::unique_ptr<Eigen::ThreadPool> pool;
  mutable std::once_flag device_once;
  mutable std::unique_ptr<Eigen::ThreadPoolDevice> device;
};

CPUDeviceContext::CPUDeviceContext(int num_threads)
    : num_threads_(num_threads < 1 ? 1 : num_threads), impl_(new Impl) {
  if (num_threads_ > 1) {
    // No spinning: idle workers sleep instead of burning a core between runs.
    impl_->pool = std::make_unique<Eigen::ThreadPool>(num_threads_, /*allow_spinning=*/false);
  }
}

CPUDeviceContext::~CPUDeviceContext() = default;

Eigen::ThreadPoolDevice* CPUDeviceContext::eigen_device() const {
  std::call_once(impl_->device_once, [this] {
    if (!impl_->pool) {
      impl_->pool = std::make_unique<Eigen::ThreadPool>(1, /*allow_spinning=*/false);
    }
    impl_->device =
        std::make_unique<Eigen::ThreadPoolDevice>(impl_->pool.get(), impl_->pool->NumThreads());
  });
  return impl_->device.get();
}

void CPUDeviceContext::ParallelFor(int64_t n, int64_t min_grain,
                                   const std::function<void(int64_t, int64_t)>& fn) const {
  if (n <= 0) return;
  if (min_grain < 1) min_grain = 1;
  int64_t chunks = std::min<int64_t>(num_threads_, (n + min_grain - 1) / min_grain);
  if (chunks <= 1 || !impl_->pool) {
    fn(0, n);
    return;
  }
  const int64_t step = (n + chunks - 1) / chunks;
  chunks = (n + step - 1) / step;
  Eigen::Barrier barrier(static_cast<unsigned>(chunks - 1));
  for (int64_t c = 1; c < chunks; ++c) {
    const int64_t begin = c * step;
    const int64_t end = std::min(n, begin + step);
    impl_->pool->Schedule([&fn, &barrier, begin, end] {
      fn(begin, end);
      barrier.Notify();
    });
  }
  fn(0, std::min(n, step));  // The calling thread takes the first range.
  barrier.Wait();
}

}  // namespace platform
}  // namespace paddle_like
