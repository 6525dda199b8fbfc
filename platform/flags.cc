#include "platform/flags.h"

#include <gflags/gflags.h>

#include <cstdlib>
#include <vector>

#include "platform/errors.h"

DEFINE_bool(use_onednn, true, "Prefer oneDNN kernels on the CPU where an op has one.");
DEFINE_bool(onednn_small_input_fallback, true,
            "oneDNN kernels hand inputs below a per-op element count to the plain kernel, which "
            "is faster there.");
DEFINE_bool(cpu_deterministic, false,
            "Make CPU runs bitwise reproducible: fixed reduction order, deterministic kernels only.");
DEFINE_bool(cpu_flush_denormal, true,
            "CPU kernels treat denormal floats as zero (flush-to-zero, denormals-are-zero), "
            "avoiding x86's slow path for them.");
DEFINE_bool(cudnn_deterministic, false,
            "Choose only deterministic cuDNN algorithms and CUDA kernels.");
DEFINE_bool(cudnn_exhaustive_search, false,
            "cuDNN convolutions time every algorithm (cudnnFind*AlgorithmEx) on the first run "
            "of each shape instead of taking cuDNN's heuristic choice.");
DEFINE_bool(check_nan_inf, false, "After every op, fail if a floating output holds NaN or Inf.");
DEFINE_int32(paddle_num_threads, 1, "Threads of the CPU device context's thread pool.");
DEFINE_int64(memory_limit_mb, 0,
             "Cap on the CPU memory the process's live tensors and buffers may hold, in MiB "
             "(0: none). An allocation past it fails with UnavailableError.");
DEFINE_int64(max_while_iterations, 0,
             "Cap on the iterations of one run of a `while` op (0: none). A loop that reaches "
             "it fails with OutOfRangeError naming the op, so that a server running programs "
             "it does not trust cannot be held by a loop that never ends.");
DEFINE_int32(collective_timeout_s, 300,
             "Seconds a distributed job's rendezvous and each collective wait for the other "
             "ranks before failing with UnavailableError.");
DEFINE_bool(collective_shared_memory, true,
            "When every rank of a CPU ring runs on this machine, all-reduce, broadcast, "
            "all-gather and barrier go through a shared memory segment instead of Gloo's TCP "
            "connections (the rendezvous and the other collectives stay on Gloo).");
DEFINE_bool(collective_shared_buffers, true,
            "On a ring through shared memory, a buffer all-reduced in place on the "
            "communication stream run after run (a data-parallel gradient bucket) moves into "
            "shared memory that the other ranks read in place, instead of being copied through "
            "the ring's slots at every all-reduce.");
DEFINE_int32(fuse_grad_size_in_MB, 1,
             "Data-parallel training: the largest bucket of gradients all-reduced as one "
             "buffer, in MiB (PaddlePaddle's DistributedStrategy setting of the same name).");

namespace paddle_like {
namespace platform {

void SetFlag(const std::string& name, const std::string& value) {
  gflags::CommandLineFlagInfo info;
  if (!gflags::GetCommandLineFlagInfo(name.c_str(), &info)) {
    throw errors::NotFound("flag `%s` is not defined", name);
  }
  if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty()) {
    throw errors::InvalidArgument("flag `%s`: expected a %s value, received `%s`", name, info.type,
                                  value);
  }
}

void InitFlagsFromEnvironment() {
  std::vector<gflags::CommandLineFlagInfo> flags;
  gflags::GetAllFlags(&flags);
  for (const auto& flag : flags) {
    const char* value = std::getenv(("FLAGS_" + flag.name).c_str());
    if (value != nullptr) SetFlag(flag.name, value);
  }
}

}  // namespace platform
}  // namespace paddle_like
