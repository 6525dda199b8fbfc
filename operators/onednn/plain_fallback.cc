#include "operators/onednn/plain_fallback.h"

#include "framework/kernel_registry.h"
#include "platform/enforce.h"
#include "platform/flags.h"

namespace paddle_like {
namespace operators {

bool BelowOneDNNThreshold(int64_t numel, int64_t min_numel) {
  return FLAGS_onednn_small_input_fallback && numel < min_numel;
}

void RunPlainKernel(const framework::ExecutionContext& ctx) {
  const framework::KernelKey& key = ctx.kernel_key();
  for (const auto& k : framework::KernelRegistry::Instance().KernelsOf(ctx.Type())) {
    if (k.key.device == framework::DeviceType::kCPU &&
        k.key.backend == framework::LibraryType::kPlain && k.key.dtype == key.dtype) {
      ctx.WithPlainInputs(k.fn);  // Plain kernels read row-major data only.
      return;
    }
  }
  PL_THROW(errors::Fatal("op `%s`: no plain CPU kernel for %s behind its oneDNN kernel",
                         ctx.Type(), platform::DataTypeName(key.dtype)));
}

}  // namespace operators
}  // namespace paddle_like
