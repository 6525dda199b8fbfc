// Registers the oneDNN kernels of batch_norm, layer_norm and their grads, float32 only
// (float64 stays on the plain kernels).
#include "operators/onednn/norm_onednn.h"

#include "framework/op_registry.h"
#include "operators/onednn/onednn_kernel_families.h"

namespace paddle_like {
namespace operators {

void RegisterNormOneDNNKernels() {
  using framework::DataType;
  using framework::DeviceType;
  using framework::LibraryType;
  const struct {
    const char* op;
    framework::KernelFn fn;
  } kernels[] = {{"batch_norm_grad", BatchNormGradOneDNNKernel},
                 {"layer_norm", LayerNormOneDNNKernel},
                 {"layer_norm_grad", LayerNormGradOneDNNKernel}};
  framework::RegisterKernel("batch_norm", DeviceType::kCPU, DataType::FLOAT32,
                            LibraryType::kOneDNN, BatchNormOneDNNKernel());
  for (const auto& k : kernels) {
    framework::RegisterKernel(k.op, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                              k.fn);
  }
}

}  // namespace operators
}  // namespace paddle_like
