// ExecutionProfile: what one run of a prepared program did, op by op, in execution order:
// the kernel each op ran (its key), the data transforms applied to its inputs, and its time.
// Filled by Executor::Run when the caller passes one; runs without a profile pay nothing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "framework/kernel_key.h"

namespace paddle_like {
namespace framework {

// One input converted before a kernel ran (PreparedOp's planned transforms).
struct TransformRecord {
  std::string slot;      // Input slot and variable, e.g. "X" and "x".
  std::string variable;
  // "reorder oneDNN aBcd8b->row-major", "cast float64->float32", "copy gpu:0->cpu", or several
  // joined by ", "; "prepack: ..." for a kernel's own conversion of a constant input.
  std::string kind;
  size_t bytes = 0;      // Bytes written (the converted tensor).
};

struct OpRecord {
  size_t index = 0;           // Position in the block.
  std::string type;
  bool has_kernel = false;    // False for ops that run without kernels (feed, fetch, load ...).
  KernelKey key;              // The kernel that ran, when has_kernel.
  std::vector<TransformRecord> transforms;
  // Outputs the kernel left in its library's own layout: "y: oneDNN aBcd8b" (none when all
  // are row-major).
  std::vector<std::string> opaque_outputs;
  // Outputs written over a dying input's buffer: "x -> y" (executor.h, in-place).
  std::vector<std::string> in_place;
  double seconds = 0;         // Transforms, shape inference and the kernel.
};

struct ExecutionProfile {
  std::vector<OpRecord> ops;
  double seconds = 0;  // The whole run, freeing of temporaries included.
  // How many runs the times average (Average); one run's profile is a noisy sample.
  int averaged_runs = 1;
  // Set by the caller. True: on an asynchronous device (a GPU) the run waits for each op, so
  // an op's time is its kernels' too. False: it does not, so an op's time is only its host
  // side (shape inference, transforms, launches), what a device waits for when the host is
  // the slower of the two.
  bool wait_for_device = true;

  // Folds another run of the same program into this profile, whose times become the mean
  // of the runs folded so far. An empty profile takes the run as it is.
  void Average(const ExecutionProfile& run);

  // Per op type, in order of total time: count, total seconds, share of the ops' time.
  struct TypeTotal {
    std::string type;
    size_t count = 0;
    double seconds = 0;
    double share = 0;
  };
  std::vector<TypeTotal> ByType() const;
  size_t TransformCount() const;
  size_t TransformBytes() const;
};

}  // namespace framework
}  // namespace paddle_like
