#include "platform/backends.h"
#include "platform/device_context_pool.h"
#include "platform/flags.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace platform {

bool RegisterOneDNNBackend() {
  DeviceContextPool::Instance().SetFactory(DeviceType::kCPU, [](const Place&) {
    return std::make_unique<OneDNNContext>(FLAGS_paddle_num_threads);
  });
  return true;
}

}  // namespace platform
}  // namespace paddle_like
