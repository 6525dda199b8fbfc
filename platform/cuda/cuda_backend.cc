// The CUDA backend: device contexts, device memory and copies for CUDAPlace.
#include <cuda_runtime.h>

#include "platform/allocator.h"
#include "platform/backends.h"
#include "platform/cuda/cuda_device_context.h"
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

AllocationPtr CudaAlloc(const Place& place, size_t bytes) {
  CheckDevice(place);
  CheckCuda(cudaSetDevice(place.device_id()), "cudaSetDevice");
  void* ptr = nullptr;
  if (cudaMalloc(&ptr, bytes == 0 ? 1 : bytes) != cudaSuccess) {
    throw errors::Unavailable("out of memory on %s: failed to allocate %zu bytes",
                              place.ToString(), bytes);
  }
  const int device = place.device_id();
  return std::make_shared<Allocation>(ptr, bytes, place, [device](void* p) {
    cudaSetDevice(device);
    cudaFree(p);
  });
}

void CudaCopy(const Place& dst_place, void* dst, const Place& src_place, const void* src,
              size_t bytes) {
  // Kernels run on each context's non-blocking stream; wait for them so the copy sees (and
  // does not race with) their results.
  CheckCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cudaMemcpyKind kind = cudaMemcpyDeviceToDevice;
  if (dst_place.is_cpu()) kind = cudaMemcpyDeviceToHost;
  if (src_place.is_cpu()) kind = cudaMemcpyHostToDevice;
  CheckCuda(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");
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
  DeviceContextPool::Instance().SetFactory(DeviceType::kCUDA, [](const Place& place) {
    CheckDevice(place);
    return std::unique_ptr<DeviceContext>(new CUDADeviceContext(place.device_id()));
  });
  return true;
}

}  // namespace platform
}  // namespace paddle_like
