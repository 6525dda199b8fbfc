// Runtime flags. Each is a gflags flag and can be set from the environment as
// FLAGS_<name>=<value> (read once by InitFlagsFromEnvironment) or on a command line.
#pragma once

#include <gflags/gflags_declare.h>

#include <string>

DECLARE_bool(use_onednn);
DECLARE_bool(onednn_small_input_fallback);
DECLARE_bool(cpu_deterministic);
DECLARE_bool(cpu_flush_denormal);
DECLARE_bool(cudnn_deterministic);
DECLARE_bool(cudnn_exhaustive_search);
DECLARE_bool(check_nan_inf);
DECLARE_int32(paddle_num_threads);
DECLARE_int64(memory_limit_mb);
DECLARE_int64(max_while_iterations);
DECLARE_int32(collective_timeout_s);
DECLARE_bool(collective_shared_memory);
DECLARE_bool(collective_shared_buffers);

namespace paddle_like {
namespace platform {

// Applies every FLAGS_<name> environment variable that names a registered flag. Safe to call
// more than once; later calls re-read the environment. Throws InvalidArgumentError for a value
// that does not parse (naming the variable).
void InitFlagsFromEnvironment();

// Sets one flag by name; throws NotFoundError / InvalidArgumentError.
void SetFlag(const std::string& name, const std::string& value);

}  // namespace platform
}  // namespace paddle_like
