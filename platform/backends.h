// Backend hooks. CMake compiles either the real implementation of each backend
// (onednn/onednn_backend.cc, cuda/cuda_backend.cc) or its "_none" stand-in, so no core file
// needs an #ifdef.
#pragma once

namespace paddle_like {
namespace platform {

bool RegisterOneDNNBackend();  // Returns whether oneDNN is built in.
bool RegisterCudaBackend();    // Returns whether CUDA is built in.
int CudaDeviceCountImpl();

}  // namespace platform
}  // namespace paddle_like
