#include "platform/backends.h"

namespace paddle_like {
namespace platform {

bool RegisterOneDNNBackend() { return false; }

}  // namespace platform
}  // namespace paddle_like
