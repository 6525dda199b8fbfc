// DeviceContextPool keeps one DeviceContext per Place, created on first use.
//
// Thread-safe. Backends install a factory for their device type at init (the oneDNN backend
// installs one that makes OneDNNContext for the CPU; the CUDA backend one for CUDAPlace).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "platform/device_context.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace platform {

class DeviceContextPool {
 public:
  using Factory = std::function<std::unique_ptr<DeviceContext>(const Place&)>;

  static DeviceContextPool& Instance();

  // The context of `place`; creates it on first use. Throws UnavailableError for a place
  // whose backend is not built in or whose device does not exist.
  DeviceContext* Get(const Place& place);

  // The context of `place` as a ContextT; UnavailableError when it is another kind (the
  // oneDNN context before the oneDNN backend registered its factory, say).
  template <typename ContextT>
  ContextT* GetAs(const Place& place) {
    auto* context = dynamic_cast<ContextT*>(Get(place));
    PL_ENFORCE(context != nullptr,
               errors::Unavailable("the device context of %s is not of the kind requested (is "
                                   "its backend registered? operators::RegisterAllOps does it)",
                                   place.ToString()));
    return context;
  }

  void SetFactory(DeviceType type, Factory factory);

  // Drops every context (e.g. after FLAGS_paddle_num_threads changed). Contexts handed out
  // before are destroyed: call only while nothing runs.
  void Clear();

 private:
  DeviceContextPool();
  std::mutex mu_;
  std::map<DeviceType, Factory> factories_;
  std::map<Place, std::unique_ptr<DeviceContext>> contexts_;
};

}  // namespace platform
}  // namespace paddle_like
