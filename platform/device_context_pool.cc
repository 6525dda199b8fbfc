#include "platform/device_context_pool.h"

#include "platform/errors.h"
#include "platform/flags.h"

namespace paddle_like {
namespace platform {

DeviceContextPool& DeviceContextPool::Instance() {
  static DeviceContextPool pool;
  return pool;
}

DeviceContextPool::DeviceContextPool() {
  factories_[DeviceType::kCPU] = [](const Place&) {
    return std::make_unique<CPUDeviceContext>(FLAGS_paddle_num_threads);
  };
}

DeviceContext* DeviceContextPool::Get(const Place& place) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = contexts_.find(place);
  if (it != contexts_.end()) return it->second.get();
  auto factory = factories_.find(place.type());
  if (factory == factories_.end()) {
    throw errors::Unavailable("no device context for %s: paddle_like was built without its backend",
                              place.ToString());
  }
  auto ctx = factory->second(place);
  DeviceContext* raw = ctx.get();
  contexts_.emplace(place, std::move(ctx));
  return raw;
}

void DeviceContextPool::SetFactory(DeviceType type, Factory factory) {
  std::lock_guard<std::mutex> lock(mu_);
  factories_[type] = std::move(factory);
  contexts_.clear();
}

void DeviceContextPool::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  contexts_.clear();
}

}  // namespace platform
}  // namespace paddle_like
