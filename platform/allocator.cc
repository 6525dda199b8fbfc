#include "platform/allocator.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "platform/errors.h"

namespace paddle_like {
namespace platform {

namespace {
constexpr size_t kCpuAlignment = 64;
std::atomic<size_t> g_cpu_bytes{0};

struct BackendTable {
  std::mutex mu;
  AllocFunction gpu_alloc;
  CopyFunction gpu_copy;
};
BackendTable& Backends() {
  static BackendTable table;
  return table;
}

AllocationPtr CpuAlloc(size_t bytes) {
  size_t rounded = (bytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
  if (rounded == 0) rounded = kCpuAlignment;
  void* p = std::aligned_alloc(kCpuAlignment, rounded);
  if (p == nullptr) {
    throw errors::Unavailable("out of CPU memory: failed to allocate %zu bytes", bytes);
  }
  g_cpu_bytes += rounded;
  return std::make_shared<Allocation>(p, bytes, CPUPlace(), [rounded](void* ptr) {
    g_cpu_bytes -= rounded;
    std::free(ptr);
  });
}
}  // namespace

AllocationPtr Alloc(const Place& place, size_t bytes) {
  if (place.is_cpu()) return CpuAlloc(bytes);
  AllocFunction fn;
  {
    std::lock_guard<std::mutex> lock(Backends().mu);
    fn = Backends().gpu_alloc;
  }
  if (!fn) {
    throw errors::Unavailable("cannot allocate on %s: paddle_like was built without CUDA",
                              place.ToString());
  }
  return fn(place, bytes);
}

void RegisterAllocFunction(DeviceType type, AllocFunction fn) {
  if (type == DeviceType::kCUDA) {
    std::lock_guard<std::mutex> lock(Backends().mu);
    Backends().gpu_alloc = std::move(fn);
  }
}

void Copy(const Place& dst_place, void* dst, const Place& src_place, const void* src,
          size_t bytes) {
  if (bytes == 0) return;
  if (dst_place.is_cpu() && src_place.is_cpu()) {
    std::memcpy(dst, src, bytes);
    return;
  }
  CopyFunction fn;
  {
    std::lock_guard<std::mutex> lock(Backends().mu);
    fn = Backends().gpu_copy;
  }
  if (!fn) {
    throw errors::Unavailable("cannot copy from %s to %s: paddle_like was built without CUDA",
                              src_place.ToString(), dst_place.ToString());
  }
  fn(dst_place, dst, src_place, src, bytes);
}

void RegisterCopyFunction(DeviceType type, CopyFunction fn) {
  if (type == DeviceType::kCUDA) {
    std::lock_guard<std::mutex> lock(Backends().mu);
    Backends().gpu_copy = std::move(fn);
  }
}

size_t CpuBytesInUse() { return g_cpu_bytes.load(); }

}  // namespace platform
}  // namespace paddle_like
