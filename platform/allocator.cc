#include "platform/allocator.h"

#include <sys/sysinfo.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "platform/cpu_memory.h"
#include "platform/errors.h"
#include "platform/flags.h"

namespace paddle_like {
namespace platform {

namespace {
constexpr size_t kCpuAlignment = 64;
std::atomic<size_t> g_cpu_bytes{0};

struct BackendTable {
  std::mutex mu;
  AllocFunction gpu_alloc;
  CopyFunction gpu_copy;
  Copy2DFunction gpu_copy2d;
  SetZeroFunction gpu_set_zero;
};

BackendTable& Backends() {
  static BackendTable table;
  return table;
}

// The backend function of `member` for a non-CPU `place`; UnavailableError naming `what`
// when the build has no backend for it.
template <typename Fn>
Fn DeviceFunction(Fn BackendTable::*member, const Place& place, const char* what) {
  Fn fn;
  {
    std::lock_guard<std::mutex> lock(Backends().mu);
    fn = Backends().*member;
  }
  if (!fn) {
    throw errors::Unavailable("cannot %s on %s: paddle_like was built without CUDA", what,
                              place.ToString());
  }
  return fn;
}

// Freed CPU blocks are kept by exact rounded size and handed out again: the executor frees
// temporaries after their last use every run, and returning large blocks to the system
// would cost an mmap, page faults and a munmap per op per run.
class CpuBlockCache {
 public:
  static constexpr size_t kMaxCachedBytes = size_t{1} << 30;

  void* Take(size_t rounded) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(rounded);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    cached_ -= rounded;
    return p;
  }
  void Give(void* p, size_t rounded) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_ + rounded <= kMaxCachedBytes) {
        free_[rounded].push_back(p);
        cached_ += rounded;
        return;
      }
    }
    std::free(p);
  }
  size_t ReleaseAll() {
    std::unordered_map<size_t, std::vector<void*>> blocks;
    size_t bytes = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      blocks.swap(free_);
      bytes = cached_;
      cached_ = 0;
    }
    for (auto& [size, list] : blocks) {
      for (void* p : list) std::free(p);
    }
    return bytes;
  }

 private:
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_ = 0;
};

CpuBlockCache& BlockCache() {
  static CpuBlockCache* cache = new CpuBlockCache;  // Never destroyed: outlives all tensors.
  return *cache;
}

// Physical memory plus swap: no single CPU allocation beyond it can succeed, and asking the
// system for one anyway can end in the OOM killer (overcommit) instead of an error.
size_t CpuMemoryLimit() {
  static const size_t limit = [] {
    struct sysinfo info;
    if (::sysinfo(&info) != 0) return static_cast<size_t>(-1) / 2;
    return static_cast<size_t>((static_cast<unsigned long long>(info.totalram) +
                                info.totalswap) * info.mem_unit);
  }();
  return limit;
}

AllocationPtr CpuAlloc(size_t bytes) {
  if (bytes > CpuMemoryLimit()) {
    throw errors::Unavailable("out of CPU memory: %zu bytes requested, the machine has %zu "
                              "bytes of memory and swap",
                              bytes, CpuMemoryLimit());
  }
  size_t rounded = (bytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
  if (rounded == 0) rounded = kCpuAlignment;
  if (FLAGS_memory_limit_mb > 0) {
    const size_t limit = static_cast<size_t>(FLAGS_memory_limit_mb) << 20;
    const size_t in_use = g_cpu_bytes.load();
    if (in_use + rounded > limit) {
      throw errors::Unavailable("memory limit reached: %zu bytes requested with %zu in use, "
                                "FLAGS_memory_limit_mb = %lld",
                                bytes, in_use, static_cast<long long>(FLAGS_memory_limit_mb));
    }
  }
  void* p = BlockCache().Take(rounded);
  if (p == nullptr) p = std::aligned_alloc(kCpuAlignment, rounded);
  if (p == nullptr) {
    throw errors::Unavailable("out of CPU memory: failed to allocate %zu bytes", bytes);
  }
  g_cpu_bytes += rounded;
  return std::make_shared<Allocation>(p, bytes, CPUPlace(), [rounded](void* ptr) {
    g_cpu_bytes -= rounded;
    BlockCache().Give(ptr, rounded);
  });
}
}  // namespace

size_t ReleaseCachedCpuMemory() { return BlockCache().ReleaseAll(); }

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

void Copy2D(const Place& place, void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
            size_t row_bytes, size_t rows) {
  if (row_bytes == 0 || rows == 0) return;
  if (place.is_cpu()) {
    for (size_t r = 0; r < rows; ++r) {
      std::memcpy(static_cast<char*>(dst) + r * dst_pitch,
                  static_cast<const char*>(src) + r * src_pitch, row_bytes);
    }
    return;
  }
  DeviceFunction(&BackendTable::gpu_copy2d, place, "copy")(place, dst, dst_pitch, src, src_pitch,
                                                           row_bytes, rows);
}

void RegisterCopy2DFunction(DeviceType type, Copy2DFunction fn) {
  if (type == DeviceType::kCUDA) {
    std::lock_guard<std::mutex> lock(Backends().mu);
    Backends().gpu_copy2d = std::move(fn);
  }
}

void SetZero(const Place& place, void* ptr, size_t bytes) {
  if (bytes == 0) return;
  if (place.is_cpu()) {
    std::memset(ptr, 0, bytes);
    return;
  }
  DeviceFunction(&BackendTable::gpu_set_zero, place, "write")(place, ptr, bytes);
}

void RegisterSetZeroFunction(DeviceType type, SetZeroFunction fn) {
  if (type == DeviceType::kCUDA) {
    std::lock_guard<std::mutex> lock(Backends().mu);
    Backends().gpu_set_zero = std::move(fn);
  }
}

size_t CpuBytesInUse() { return g_cpu_bytes.load(); }

}  // namespace platform
}  // namespace paddle_like
