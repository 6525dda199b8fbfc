// Caching allocator of one CUDA device. cudaMalloc and cudaFree synchronise the device and
// cost tens of microseconds, so freed blocks are kept by size and handed out again.
//
// Reuse is safe without events because all work on a device is queued on its context's one
// stream: work that writes a reused block is queued behind the work still reading it.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

#include "platform/allocator.h"
#include "platform/cuda/cuda_memory.h"

namespace paddle_like {
namespace platform {

class CudaCachingAllocator {
 public:
  // Allocations free into the allocator: it must outlive them (the backend never destroys
  // its allocators).
  explicit CudaCachingAllocator(int device_id) : device_id_(device_id) {}

  // Throws UnavailableError naming the device and the size when the device is out of memory
  // even after the cache was returned to the driver.
  AllocationPtr Allocate(size_t bytes);
  void ReleaseCached();
  CudaMemoryStats Stats() const;
  void ResetPeak();

  // Rounded sizes: 512 bytes below 1 MiB, 128 KiB above (so a slightly smaller request can
  // reuse a block); a cached block serves requests down to half its size.
  static size_t RoundedSize(size_t bytes);

 private:
  void Free(void* ptr, size_t rounded);
  void ReleaseCachedLocked();

  const int device_id_;
  mutable std::mutex mu_;
  std::multimap<size_t, void*> free_blocks_;  // rounded size -> block
  CudaMemoryStats stats_;
};

}  // namespace platform
}  // namespace paddle_like
