// KernelRegistry: the kernels of every op, and the choice among them.
//
// Choice is data: an ordered preference list of (device, library) pairs, filtered by what
// is enabled (FLAGS_use_onednn, use_cudnn, deterministic mode); the first registered kernel
// that matches the requested dtype (and layout) wins. A miss raises NotFoundError naming the
// op, the requested key and every registered key with the reason it was rejected.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "framework/kernel_key.h"
#include "framework/op_kernel.h"

namespace paddle_like {
namespace framework {

class ExecutionContext;
using KernelFn = void (*)(const ExecutionContext& ctx);

// A kernel is a function (`fn`) or a class with prepared state (`make`, op_kernel.h); one
// of the two is set.
struct KernelInfo {
  KernelKey key;
  KernelFn fn = nullptr;
  KernelFactory make = nullptr;
  // Two runs on the same inputs give bitwise equal outputs.
  bool deterministic = true;
  // (input slot, output slot) pairs the kernel computes correctly when the output's buffer
  // is the input's (each output element written only after the input elements it needs are
  // read): the executor then lets the output reuse a dying input's buffer (executor.h).
  std::vector<std::pair<std::string, std::string>> inplace;
  // Input slots the kernel reads in its library's own layout (DenseTensor::opaque_layout) as
  // well as row-major; every other input is handed over row-major (a planned transform).
  std::vector<std::string> opaque_inputs;

  bool AcceptsOpaque(const std::string& slot) const;
};

struct KernelPreference {
  DeviceType device;
  LibraryType backend;
};

// What placement (kernel_placement.h) says about one op: a library may be refused for it,
// and it may require a deterministic kernel whatever the flags say.
struct OpPlacement {
  bool allow_onednn = true;
  bool allow_cudnn = true;
  bool deterministic = false;
};

struct KernelChoiceOptions {
  bool use_onednn = true;
  bool use_cudnn = true;
  bool deterministic = false;
  // From the flags: FLAGS_use_onednn, FLAGS_cpu_deterministic / FLAGS_cudnn_deterministic.
  static KernelChoiceOptions FromFlags(const platform::Place& place);
  // The rule for one op: a library is used only where the flags enable it and the op's
  // placement allows it; a deterministic kernel is required where the flags or the
  // placement require one.
  static KernelChoiceOptions ForOp(const platform::Place& place, const OpPlacement& placement);
};

// The preference order for running on `place`: on a GPU cuDNN, CUDA, then the CPU kernels
// (oneDNN, plain); on the CPU oneDNN then plain. Disabled libraries are left out.
std::vector<KernelPreference> PreferenceOrder(const platform::Place& place,
                                              const KernelChoiceOptions& options);

class KernelRegistry {
 public:
  static KernelRegistry& Instance();

  // AlreadyExistsError if `op_type` already has a kernel with the same key.
  void Register(const std::string& op_type, const KernelInfo& kernel);
  // Convenience for the common cases.
  void Register(const std::string& op_type, DeviceType device, DataType dtype,
                LibraryType library, KernelFn fn, bool deterministic = true);
  void Register(const std::string& op_type, DeviceType device, DataType dtype,
                LibraryType library, KernelFactory make, bool deterministic = true);

  // Marks input `slots` of every `library` kernel of `op_type` as read in the library's own
  // layout (KernelInfo::opaque_inputs). NotFoundError when there is no such kernel.
  void DeclareOpaqueInputs(const std::string& op_type, LibraryType library,
                           const std::vector<std::string>& slots);
  // Marks the (input slot, output slot) `pairs` on every `library` kernel of `op_type` as
  // computable in place (KernelInfo::inplace). NotFoundError when there is no such kernel,
  // InvalidArgumentError when a slot is not one of the op's.
  void DeclareInPlace(const std::string& op_type, LibraryType library,
                      const std::vector<std::pair<std::string, std::string>>& pairs);
  // Whether some `library` kernel of `op_type` reads input `slot` in the library's layout.
  bool AcceptsOpaque(const std::string& op_type, LibraryType library,
                     const std::string& slot) const;

  const std::vector<KernelInfo>& KernelsOf(const std::string& op_type) const;
  bool HasKernels(const std::string& op_type) const;

  // Picks the kernel for `op_type` with element type `dtype` on `place`.
  const KernelInfo& Choose(const std::string& op_type, DataType dtype, DataLayout layout,
                           const platform::Place& place,
                           const KernelChoiceOptions& options) const;

 private:
  // The `library` kernels of `op_type`; NotFoundError naming `what` is declared when none.
  std::vector<KernelInfo*> LibraryKernels(const std::string& op_type, LibraryType library,
                                          const char* what);

  std::map<std::string, std::vector<KernelInfo>> kernels_;
};

}  // namespace framework
}  // namespace paddle_like
