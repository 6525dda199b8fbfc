#include "framework/kernel_registry.h"

#include <algorithm>

#include "framework/op_info.h"
#include "platform/enforce.h"
#include "platform/flags.h"

namespace paddle_like {
namespace framework {

KernelChoiceOptions KernelChoiceOptions::FromFlags(const platform::Place& place) {
  KernelChoiceOptions o;
  o.use_onednn = FLAGS_use_onednn;
  o.deterministic = place.is_gpu() ? FLAGS_cudnn_deterministic : FLAGS_cpu_deterministic;
  return o;
}

KernelChoiceOptions KernelChoiceOptions::ForOp(const platform::Place& place,
                                              const OpPlacement& placement) {
  KernelChoiceOptions o = FromFlags(place);
  o.use_onednn = o.use_onednn && placement.allow_onednn;
  o.use_cudnn = o.use_cudnn && placement.allow_cudnn;
  o.deterministic = o.deterministic || placement.deterministic;
  return o;
}

std::vector<KernelPreference> PreferenceOrder(const platform::Place& place,
                                              const KernelChoiceOptions& options) {
  std::vector<KernelPreference> order;
  if (place.is_gpu()) {
    if (options.use_cudnn) order.push_back({DeviceType::kCUDA, LibraryType::kCUDNN});
    order.push_back({DeviceType::kCUDA, LibraryType::kPlain});
  }
  if (options.use_onednn) order.push_back({DeviceType::kCPU, LibraryType::kOneDNN});
  order.push_back({DeviceType::kCPU, LibraryType::kPlain});
  return order;
}

KernelRegistry& KernelRegistry::Instance() {
  static KernelRegistry registry;
  return registry;
}

void KernelRegistry::Register(const std::string& op_type, const KernelInfo& kernel) {
  PL_ENFORCE((kernel.fn != nullptr) != (kernel.make != nullptr),
             errors::InvalidArgument(
                 "op `%s` kernel %s: expected exactly one of a kernel function and a kernel "
                 "class, received %s",
                 op_type, kernel.key.ToString(), kernel.fn != nullptr ? "both" : "neither"));
  auto& list = kernels_[op_type];
  for (const auto& k : list) {
    PL_ENFORCE(k.key != kernel.key,
               errors::AlreadyExists("op `%s` already has a kernel for %s", op_type,
                                     kernel.key.ToString()));
  }
  list.push_back(kernel);
}

namespace {
KernelInfo InfoFor(DeviceType device, DataType dtype, LibraryType library, bool deterministic) {
  KernelInfo info;
  info.key = KernelKey{device, dtype, library, DataLayout::kAny};
  info.deterministic = deterministic;
  return info;
}
}  // namespace

void KernelRegistry::Register(const std::string& op_type, DeviceType device, DataType dtype,
                              LibraryType library, KernelFn fn, bool deterministic) {
  KernelInfo info = InfoFor(device, dtype, library, deterministic);
  info.fn = fn;
  Register(op_type, info);
}

void KernelRegistry::Register(const std::string& op_type, DeviceType device, DataType dtype,
                              LibraryType library, KernelFactory make, bool deterministic) {
  KernelInfo info = InfoFor(device, dtype, library, deterministic);
  info.make = make;
  Register(op_type, info);
}

bool KernelInfo::AcceptsOpaque(const std::string& slot) const {
  return std::find(opaque_inputs.begin(), opaque_inputs.end(), slot) != opaque_inputs.end();
}

std::vector<KernelInfo*> KernelRegistry::LibraryKernels(const std::string& op_type,
                                                        LibraryType library, const char* what) {
  std::vector<KernelInfo*> found;
  auto it = kernels_.find(op_type);
  if (it != kernels_.end()) {
    for (auto& k : it->second) {
      if (k.key.backend == library) found.push_back(&k);
    }
  }
  PL_ENFORCE(!found.empty(), errors::NotFound("op `%s` has no %s kernel whose %s could be declared",
                                              op_type, LibraryTypeName(library), what));
  return found;
}

void KernelRegistry::DeclareOpaqueInputs(const std::string& op_type, LibraryType library,
                                         const std::vector<std::string>& slots) {
  for (KernelInfo* k : LibraryKernels(op_type, library, "inputs")) {
    k->opaque_inputs.insert(k->opaque_inputs.end(), slots.begin(), slots.end());
  }
}

void KernelRegistry::DeclareInPlace(const std::string& op_type, LibraryType library,
                                    const std::vector<std::pair<std::string, std::string>>& pairs) {
  if (OpInfoMap::Instance().Has(op_type)) {
    const OpSpec& spec = OpInfoMap::Instance().Get(op_type).spec;
    for (const auto& p : pairs) {
      PL_ENFORCE(spec.FindInput(p.first) != nullptr && spec.FindOutput(p.second) != nullptr,
                 errors::InvalidArgument("op `%s`: in-place pair (%s, %s) names a slot the op "
                                         "does not have",
                                         op_type, p.first, p.second));
    }
  }
  for (KernelInfo* k : LibraryKernels(op_type, library, "in-place pairs")) {
    k->inplace.insert(k->inplace.end(), pairs.begin(), pairs.end());
  }
}

bool KernelRegistry::AcceptsOpaque(const std::string& op_type, LibraryType library,
                                   const std::string& slot) const {
  for (const auto& k : KernelsOf(op_type)) {
    if (k.key.backend == library && k.AcceptsOpaque(slot)) return true;
  }
  return false;
}

const std::vector<KernelInfo>& KernelRegistry::KernelsOf(const std::string& op_type) const {
  static const std::vector<KernelInfo> kNone;
  auto it = kernels_.find(op_type);
  return it == kernels_.end() ? kNone : it->second;
}

bool KernelRegistry::HasKernels(const std::string& op_type) const {
  return kernels_.count(op_type) > 0;
}

const KernelInfo& KernelRegistry::Choose(const std::string& op_type, DataType dtype,
                                         DataLayout layout, const platform::Place& place,
                                         const KernelChoiceOptions& options) const {
  const auto& kernels = KernelsOf(op_type);
  for (const auto& pref : PreferenceOrder(place, options)) {
    for (const auto& k : kernels) {
      if (k.key.device == pref.device && k.key.backend == pref.backend && k.key.dtype == dtype &&
          (k.key.layout == DataLayout::kAny || layout == DataLayout::kAny ||
           k.key.layout == layout) &&
          (k.deterministic || !options.deterministic)) {
        return k;
      }
    }
  }
  // Nothing fits: explain every candidate.
  const KernelKey wanted{place.type(), dtype, LibraryType::kPlain, layout};
  std::string detail;
  const auto prefs = PreferenceOrder(place, options);
  for (const auto& k : kernels) {
    std::string why;
    bool enabled = false;
    for (const auto& p : prefs) enabled |= (p.device == k.key.device && p.backend == k.key.backend);
    if (!enabled) {
      if (k.key.backend == LibraryType::kOneDNN && !options.use_onednn) {
        why = "oneDNN kernels are off for this op (FLAGS_use_onednn=false or its placement, "
              "use_mkldnn=false)";
      } else if (k.key.backend == LibraryType::kCUDNN && !options.use_cudnn) {
        why = "cuDNN kernels are off for this op (its placement, use_cudnn=false)";
      } else {
        why = std::string("cannot run on ") + place.ToString();
      }
    } else if (k.key.dtype != dtype) {
      why = "dtype " + platform::DataTypeName(k.key.dtype) + " != " + platform::DataTypeName(dtype);
    } else if (!k.deterministic && options.deterministic) {
      why = "not deterministic and deterministic mode is on";
    } else {
      why = std::string("layout ") + DataLayoutName(k.key.layout) + " != " + DataLayoutName(layout);
    }
    detail += "\n  " + k.key.ToString() + ": " + why;
  }
  if (kernels.empty()) detail = " none";
  throw errors::NotFound("op `%s`: no kernel for %s on %s; registered kernels:%s", op_type,
                         platform::DataTypeName(dtype), place.ToString() + " " + wanted.ToString(),
                         detail);
}

}  // namespace framework
}  // namespace paddle_like
