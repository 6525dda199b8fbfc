// Device memory and transfer statistics of the CUDA backend. Declared without CUDA headers so
// that tools and tests of every build can ask; a build without CUDA reports zeros.
#pragma once

#include <cstddef>
#include <cstdint>

namespace paddle_like {
namespace platform {

struct CudaMemoryStats {
  size_t bytes_in_use = 0;       // Held by live allocations (rounded sizes).
  size_t peak_bytes_in_use = 0;  // Highest bytes_in_use since the last ResetCudaPeak.
  size_t bytes_cached = 0;       // Freed blocks kept for reuse (not returned to the driver).
  int64_t device_mallocs = 0;    // cudaMalloc calls: misses of the cache.
};

struct CudaTransferStats {
  int64_t host_to_device = 0;
  int64_t device_to_host = 0;
  int64_t device_to_device = 0;
  size_t host_to_device_bytes = 0;
  size_t device_to_host_bytes = 0;
  size_t device_to_device_bytes = 0;
};

CudaMemoryStats GetCudaMemoryStats(int device_id);
void ResetCudaPeak(int device_id);
// Returns every cached free block of every device to the driver.
void ReleaseCachedCudaMemory();
CudaTransferStats GetCudaTransferStats();

}  // namespace platform
}  // namespace paddle_like
