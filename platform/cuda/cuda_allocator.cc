#include "platform/cuda/cuda_allocator.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "platform/errors.h"

namespace paddle_like {
namespace platform {

size_t CudaCachingAllocator::RoundedSize(size_t bytes) {
  const size_t unit = bytes < (size_t{1} << 20) ? 512 : (size_t{128} << 10);
  return std::max<size_t>(unit, (bytes + unit - 1) / unit * unit);
}

AllocationPtr CudaCachingAllocator::Allocate(size_t bytes) {
  const size_t rounded = RoundedSize(bytes);
  void* ptr = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_blocks_.lower_bound(rounded);
    if (it != free_blocks_.end() && it->first <= 2 * rounded) {
      ptr = it->second;
      const size_t block = it->first;
      free_blocks_.erase(it);
      stats_.bytes_cached -= block;
      stats_.bytes_in_use += block;
      stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
      return std::make_shared<Allocation>(ptr, bytes, CUDAPlace(device_id_),
                                          [this, block](void* p) { Free(p, block); });
    }
  }
  cudaSetDevice(device_id_);
  if (cudaMalloc(&ptr, rounded) != cudaSuccess) {
    cudaGetLastError();  // Clear the error; try again with the cache returned to the driver.
    std::lock_guard<std::mutex> lock(mu_);
    ReleaseCachedLocked();
    if (cudaMalloc(&ptr, rounded) != cudaSuccess) {
      cudaGetLastError();
      throw errors::Unavailable("out of memory on gpu:%d: failed to allocate %zu bytes with "
                                "%zu bytes in use",
                                device_id_, bytes, stats_.bytes_in_use);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.device_mallocs;
  stats_.bytes_in_use += rounded;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  return std::make_shared<Allocation>(ptr, bytes, CUDAPlace(device_id_),
                                      [this, rounded](void* p) { Free(p, rounded); });
}

void CudaCachingAllocator::Free(void* ptr, size_t rounded) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.bytes_in_use -= rounded;
  stats_.bytes_cached += rounded;
  free_blocks_.emplace(rounded, ptr);
}

void CudaCachingAllocator::ReleaseCached() {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseCachedLocked();
}

void CudaCachingAllocator::ReleaseCachedLocked() {
  if (free_blocks_.empty()) return;
  cudaSetDevice(device_id_);
  // Blocks may still be read by queued work: wait for it before handing them back.
  cudaDeviceSynchronize();
  for (const auto& [size, ptr] : free_blocks_) cudaFree(ptr);
  free_blocks_.clear();
  stats_.bytes_cached = 0;
}

CudaMemoryStats CudaCachingAllocator::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void CudaCachingAllocator::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

}  // namespace platform
}  // namespace paddle_like
