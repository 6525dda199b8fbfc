#include "platform/init.h"

#include <mutex>

#include "platform/backends.h"
#include "platform/flags.h"

namespace paddle_like {
namespace platform {

namespace {
bool g_onednn = false;
bool g_cuda = false;
}  // namespace

void InitPlatform() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitFlagsFromEnvironment();
    g_onednn = RegisterOneDNNBackend();
    g_cuda = RegisterCudaBackend();
  });
}

bool BuiltWithOneDNN() {
  InitPlatform();
  return g_onednn;
}

bool BuiltWithCuda() {
  InitPlatform();
  return g_cuda;
}

int CudaDeviceCount() {
  InitPlatform();
  return g_cuda ? CudaDeviceCountImpl() : 0;
}

}  // namespace platform
}  // namespace paddle_like
