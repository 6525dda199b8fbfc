#include "platform/cuda/cuda_device_context.h"

#include <unordered_map>

#include "platform/errors.h"

namespace paddle_like {
namespace platform {

void CheckCuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw errors::Fatal("%s failed: %s", what, cudaGetErrorString(status));
  }
}

void CheckCublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw errors::Fatal("%s failed with cuBLAS status %d", what, static_cast<int>(status));
  }
}

void CheckCudnn(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS) {
    throw errors::Fatal("%s failed: %s", what, cudnnGetErrorString(status));
  }
}

CUDADeviceContext::CUDADeviceContext(int device_id) : device_id_(device_id) {
  CheckCuda(cudaSetDevice(device_id), "cudaSetDevice");
  CheckCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  CheckCublas(cublasCreate(&cublas_), "cublasCreate");
  CheckCublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
  CheckCudnn(cudnnCreate(&cudnn_), "cudnnCreate");
  CheckCudnn(cudnnSetStream(cudnn_, stream_), "cudnnSetStream");
}

CUDADeviceContext::~CUDADeviceContext() {
  if (cudnn_ != nullptr) cudnnDestroy(cudnn_);
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void CUDADeviceContext::Wait() const {
  CheckCuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

void* CUDADeviceContext::Workspace(size_t bytes) const {
  thread_local std::unordered_map<int, AllocationPtr> workspaces;
  AllocationPtr& buffer = workspaces[device_id_];
  if (buffer == nullptr || buffer->size() < bytes) {
    buffer.reset();  // Back to the cache first, so the larger one may reuse its memory.
    buffer = Alloc(GetPlace(), bytes);
  }
  return buffer->ptr();
}

}  // namespace platform
}  // namespace paddle_like
