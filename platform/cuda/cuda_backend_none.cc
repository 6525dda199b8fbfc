#include "platform/backends.h"

namespace paddle_like {
namespace platform {

bool RegisterCudaBackend() { return false; }
int CudaDeviceCountImpl() { return 0; }

}  // namespace platform
}  // namespace paddle_like
