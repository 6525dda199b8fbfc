#include "platform/place.h"

namespace paddle_like {
namespace platform {

std::string Place::ToString() const {
  return is_cpu() ? std::string("CPUPlace") : "CUDAPlace(" + std::to_string(device_id_) + ")";
}

std::ostream& operator<<(std::ostream& os, const Place& place) { return os << place.ToString(); }

}  // namespace platform
}  // namespace paddle_like
