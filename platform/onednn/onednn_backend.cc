#include <omp.h>

#include <algorithm>

#include "platform/backends.h"
#include "platform/device_context_pool.h"
#include "platform/flags.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace platform {

bool RegisterOneDNNBackend() {
  DeviceContextPool::Instance().SetFactory(DeviceType::kCPU, [](const Place&) {
    // oneDNN runs its primitives on OpenMP threads: give it the same thread budget as the
    // context's own pool, instead of one spinning thread per core competing with it.
    omp_set_num_threads(std::max(1, FLAGS_paddle_num_threads));
    return std::make_unique<OneDNNContext>(FLAGS_paddle_num_threads);
  });
  return true;
}

}  // namespace platform
}  // namespace paddle_like
