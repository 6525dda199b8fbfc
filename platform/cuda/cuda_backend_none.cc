#include "platform/backends.h"
#include "platform/cuda/cuda_memory.h"

namespace paddle_like {
namespace platform {

bool RegisterCudaBackend() { return false; }
int CudaDeviceCountImpl() { return 0; }

CudaMemoryStats GetCudaMemoryStats(int) { return {}; }
void ResetCudaPeak(int) {}
void ReleaseCachedCudaMemory() {}
CudaTransferStats GetCudaTransferStats() { return {}; }

}  // namespace platform
}  // namespace paddle_like
