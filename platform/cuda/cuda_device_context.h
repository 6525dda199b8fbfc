// Device context of one CUDA device: its stream, cuBLAS handle and cuDNN handle, all bound to
// the stream. Compiled only in WITH_GPU builds.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "platform/allocator.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace platform {

class CUDADeviceContext : public DeviceContext {
 public:
  explicit CUDADeviceContext(int device_id);
  ~CUDADeviceContext() override;

  Place GetPlace() const override { return CUDAPlace(device_id_); }
  int device_id() const { return device_id_; }
  void Wait() const override;

  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas_handle() const { return cublas_; }
  cudnnHandle_t cudnn_handle() const { return cudnn_; }

  // Scratch device memory of at least `bytes` for kernels queued on stream() (cuDNN
  // workspaces, temporaries), valid until this thread's next call for this device. Each host
  // thread has its own buffer: a kernel queued with it may still run after the call returns,
  // and the buffer's memory is reused only by work queued behind it on the same stream.
  void* Workspace(size_t bytes) const;
  // A temporary device buffer that the caller keeps alive while it queues work on it.
  AllocationPtr Temporary(size_t bytes) const { return Alloc(GetPlace(), bytes); }

 private:
  int device_id_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
};

// Throws FatalError naming `what` when a CUDA/cuBLAS/cuDNN call failed.
void CheckCuda(cudaError_t status, const char* what);
void CheckCublas(cublasStatus_t status, const char* what);
void CheckCudnn(cudnnStatus_t status, const char* what);

}  // namespace platform
}  // namespace paddle_like
