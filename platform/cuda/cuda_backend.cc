// The CUDA backend: device contexts, device memory (one caching allocator per device) and
// copies for CUDAPlace.
//
// Copies are queued on the device context's stream, so they are ordered after the kernels
// that wrote their source; only a copy to or from host memory waits, and only for that
// stream. Host memory goes through a pinned staging buffer per device, so the transfer runs
// at full bus speed and the caller's (pageable) buffer is free again when Copy returns.
#include <cuda_runtime.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "platform/allocator.h"
#include "platform/backends.h"
#include "platform/cuda/cuda_allocator.h"
#include "platform/cuda/cuda_device_context.h"
#include "platform/cuda/cuda_memory.h"
#include "platform/device_context_pool.h"
#include "platform/errors.h"

namespace paddle_like {
namespace platform {

namespace {

void CheckDevice(const Place& place) {
  int count = CudaDeviceCountImpl();
  if (place.device_id() < 0 || place.device_id() >= count) {
    throw errors::Unavailable("%s is not available: this machine has %d CUDA device(s)",
                              place.ToString(), count);
  }
}

// Per-device state that lives as long as the process: allocations free into it, so it is
// never destroyed (no order-of-destruction questions at exit).
struct DeviceState {
  explicit DeviceState(int id) : allocator(id) {}
  CudaCachingAllocator allocator;
  std::mutex staging_mu;
  void* staging = nullptr;  // Pinned host memory.
  size_t staging_bytes = 0;
};

std::vector<DeviceState*>& Devices() {
  static auto* devices = [] {
    auto* d = new std::vector<DeviceState*>();
    for (int i = 0; i < CudaDeviceCountImpl(); ++i) d->push_back(new DeviceState(i));
    return d;
  }();
  return *devices;
}

DeviceState& StateOf(const Place& place) {
  CheckDevice(place);
  return *Devices()[place.device_id()];
}

struct TransferCounters {
  std::atomic<int64_t> h2d{0}, d2h{0}, d2d{0};
  std::atomic<size_t> h2d_bytes{0}, d2h_bytes{0}, d2d_bytes{0};
};
TransferCounters& Counters() {
  static TransferCounters counters;
  return counters;
}

AllocationPtr CudaAlloc(const Place& place, size_t bytes) {
  return StateOf(place).allocator.Allocate(bytes);
}

cudaStream_t StreamOf(const Place& place) {
  return DeviceContextPool::Instance().GetAs<CUDADeviceContext>(place)->stream();
}

// Larger host transfers go straight from pageable memory rather than doubling the staging
// buffer's footprint.
constexpr size_t kMaxStagingBytes = size_t{64} << 20;

void* Staging(DeviceState& state, size_t bytes) {
  if (state.staging_bytes < bytes) {
    if (state.staging != nullptr) cudaFreeHost(state.staging);
    state.staging = nullptr;
    state.staging_bytes = 0;
    CheckCuda(cudaHostAlloc(&state.staging, bytes, cudaHostAllocDefault), "cudaHostAlloc");
    state.staging_bytes = bytes;
  }
  return state.staging;
}

void CudaCopy(const Place& dst_place, void* dst, const Place& src_place, const void* src,
              size_t bytes) {
  auto& counters = Counters();
  if (src_place.is_gpu() && dst_place.is_gpu()) {
    // Ordered on the destination's stream after everything queued there; a source on another
    // device is first waited for.
    if (src_place.device_id() != dst_place.device_id()) {
      CheckCuda(cudaStreamSynchronize(StreamOf(src_place)), "cudaStreamSynchronize");
    }
    CheckCuda(cudaSetDevice(dst_place.device_id()), "cudaSetDevice");
    CheckCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, StreamOf(dst_place)),
              "cudaMemcpyAsync (device to device)");
    ++counters.d2d;
    counters.d2d_bytes += bytes;
    return;
  }
  const Place& gpu = src_place.is_gpu() ? src_place : dst_place;
  DeviceState& state = StateOf(gpu);
  const cudaStream_t stream = StreamOf(gpu);
  CheckCuda(cudaSetDevice(gpu.device_id()), "cudaSetDevice");
  std::lock_guard<std::mutex> lock(state.staging_mu);
  if (dst_place.is_gpu()) {
    if (bytes <= kMaxStagingBytes) {
      void* staging = Staging(state, bytes);
      std::memcpy(staging, src, bytes);
      src = staging;
    }
    CheckCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync (host to device)");
    // The staging buffer is reused by the next copy: wait until this one has read it.
    CheckCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    ++counters.h2d;
    counters.h2d_bytes += bytes;
  } else {
    void* target = bytes <= kMaxStagingBytes ? Staging(state, bytes) : dst;
    CheckCuda(cudaMemcpyAsync(target, src, bytes, cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (device to host)");
    CheckCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (target != dst) std::memcpy(dst, target, bytes);
    ++counters.d2h;
    counters.d2h_bytes += bytes;
  }
}

void CudaCopy2D(const Place& place, void* dst, size_t dst_pitch, const void* src,
                size_t src_pitch, size_t row_bytes, size_t rows) {
  CheckCuda(cudaSetDevice(place.device_id()), "cudaSetDevice");
  CheckCuda(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows,
                              cudaMemcpyDeviceToDevice, StreamOf(place)),
            "cudaMemcpy2DAsync");
  ++Counters().d2d;
  Counters().d2d_bytes += row_bytes * rows;
}

void CudaSetZero(const Place& place, void* ptr, size_t bytes) {
  CheckCuda(cudaSetDevice(place.device_id()), "cudaSetDevice");
  CheckCuda(cudaMemsetAsync(ptr, 0, bytes, StreamOf(place)), "cudaMemsetAsync");
}

}  // namespace

int CudaDeviceCountImpl() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // Clear the sticky "no device" error.
    return 0;
  }
  return count;
}

bool RegisterCudaBackend() {
  RegisterAllocFunction(DeviceType::kCUDA, CudaAlloc);
  RegisterCopyFunction(DeviceType::kCUDA, CudaCopy);
  RegisterCopy2DFunction(DeviceType::kCUDA, CudaCopy2D);
  RegisterSetZeroFunction(DeviceType::kCUDA, CudaSetZero);
  DeviceContextPool::Instance().SetFactory(DeviceType::kCUDA, [](const Place& place) {
    CheckDevice(place);
    return std::unique_ptr<DeviceContext>(new CUDADeviceContext(place.device_id()));
  });
  return true;
}

CudaMemoryStats GetCudaMemoryStats(int device_id) {
  return StateOf(CUDAPlace(device_id)).allocator.Stats();
}

void ResetCudaPeak(int device_id) { StateOf(CUDAPlace(device_id)).allocator.ResetPeak(); }

void ReleaseCachedCudaMemory() {
  for (DeviceState* state : Devices()) state->allocator.ReleaseCached();
}

CudaTransferStats GetCudaTransferStats() {
  const auto& c = Counters();
  CudaTransferStats s;
  s.host_to_device = c.h2d;
  s.device_to_host = c.d2h;
  s.device_to_device = c.d2d;
  s.host_to_device_bytes = c.h2d_bytes;
  s.device_to_host_bytes = c.d2h_bytes;
  s.device_to_device_bytes = c.d2d_bytes;
  return s;
}

}  // namespace platform
}  // namespace paddle_like
