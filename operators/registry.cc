#include "operators/registry.h"

#include <mutex>

#include "operators/op_family.h"
#include "platform/init.h"

namespace paddle_like {
namespace operators {

void RegisterAllOps() {
  static std::once_flag once;
  std::call_once(once, [] {
    platform::InitPlatform();
    // The generated table (op_family.h): every op family, then the library kernels.
    RegisterOpFamilies();
    RegisterBackendKernelFamilies();
  });
}

}  // namespace operators
}  // namespace paddle_like
