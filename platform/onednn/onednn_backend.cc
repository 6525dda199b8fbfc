#include <omp.h>

#include <algorithm>

#include "platform/backends.h"
#include "platform/device_context_pool.h"
#include "platform/flags.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace platform {

void LimitOpenMPThreadsOfCallingThread(int n) { omp_set_num_threads(std::max(1, n)); }

int OpenMPThreadsOfCallingThread() { return omp_get_max_threads(); }

bool RegisterOneDNNBackend() {
  DeviceContextPool::Instance().SetFactory(DeviceType::kCPU, [](const Place&) {
    // oneDNN's primitives and CPUDeviceContext::ParallelFor share OpenMP's threads: one
    // budget, FLAGS_paddle_num_threads, instead of one thread per core.
    LimitOpenMPThreadsOfCallingThread(FLAGS_paddle_num_threads);
    return std::make_unique<OneDNNContext>(FLAGS_paddle_num_threads);
  });
  return true;
}

}  // namespace platform
}  // namespace paddle_like
