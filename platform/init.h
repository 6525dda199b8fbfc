// One-time start-up of the platform layer: reads FLAGS_* from the environment and installs
// the backends this build has (oneDNN, CUDA). Idempotent and thread-safe.
#pragma once

namespace paddle_like {
namespace platform {

void InitPlatform();

// What this build contains and what this machine has.
bool BuiltWithOneDNN();
bool BuiltWithCuda();
int CudaDeviceCount();  // 0 without CUDA or without a device.

}  // namespace platform
}  // namespace paddle_like
