// Memory allocation by place. An Allocation frees its memory when the last shared_ptr to it
// goes; DenseTensor holds one. CPU memory is 64-byte aligned (AVX-512 and oneDNN friendly).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "platform/place.h"

namespace paddle_like {
namespace platform {

class Allocation {
 public:
  using Deleter = std::function<void(void*)>;
  Allocation(void* ptr, size_t size, const Place& place, Deleter deleter)
      : ptr_(ptr), size_(size), place_(place), deleter_(std::move(deleter)) {}
  ~Allocation() {
    if (ptr_ != nullptr && deleter_) deleter_(ptr_);
  }
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;

  void* ptr() const { return ptr_; }
  size_t size() const { return size_; }
  const Place& place() const { return place_; }

 private:
  void* ptr_;
  size_t size_;
  Place place_;
  Deleter deleter_;
};

using AllocationPtr = std::shared_ptr<Allocation>;

// Allocates `bytes` on `place` (at least 1 byte, so every tensor has a real buffer).
// Throws UnavailableError when memory runs out, when a CPU allocation would take the bytes
// in use past FLAGS_memory_limit_mb, or when the place's backend is not built in.
AllocationPtr Alloc(const Place& place, size_t bytes);

// A backend (CUDA) installs its allocation function for its device type at init.
using AllocFunction = std::function<AllocationPtr(const Place&, size_t)>;
void RegisterAllocFunction(DeviceType type, AllocFunction fn);

// Copies `bytes` between any two places that the built backends know.
// Synchronous.
void Copy(const Place& dst_place, void* dst, const Place& src_place, const void* src, size_t bytes);
using CopyFunction =
    std::function<void(const Place& dst_place, void* dst, const Place& src_place, const void* src,
                       size_t bytes)>;
void RegisterCopyFunction(DeviceType type, CopyFunction fn);

// Copies `rows` rows of `row_bytes` bytes between two buffers on `place` (a 2-D block of a
// row-major tensor), the rows `dst_pitch` and `src_pitch` bytes apart. On a device the copy
// is queued on the device context's stream.
void Copy2D(const Place& place, void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
            size_t row_bytes, size_t rows);
using Copy2DFunction = std::function<void(const Place& place, void* dst, size_t dst_pitch,
                                          const void* src, size_t src_pitch, size_t row_bytes,
                                          size_t rows)>;
void RegisterCopy2DFunction(DeviceType type, Copy2DFunction fn);

// Sets `bytes` bytes at `ptr` on `place` to zero (queued on a device's stream).
void SetZero(const Place& place, void* ptr, size_t bytes);
using SetZeroFunction = std::function<void(const Place& place, void* ptr, size_t bytes)>;
void RegisterSetZeroFunction(DeviceType type, SetZeroFunction fn);

// Bytes currently held by live CPU allocations (freed blocks kept for reuse not counted).
size_t CpuBytesInUse();

}  // namespace platform
}  // namespace paddle_like
