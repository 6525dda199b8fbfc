// Registers the oneDNN kernels of batch_norm, layer_norm and their grads, float32 only
// (float64 stays on the plain kernels).
#include "operators/onednn/norm_onednn.h"

#include "framework/op_registry.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

PL_REGISTER_BACKEND_KERNELS(RegisterNormOneDNNKernels) {
  using framework::DataType;
  using framework::DeviceType;
  using framework::LibraryType;
  const struct {
    const char* op;
    framework::KernelFn fn;
  } kernels[] = {{"batch_norm_grad", BatchNormGradOneDNNKernel},
                 {"layer_norm", LayerNormOneDNNKernel},
                 {"layer_norm_grad", LayerNormGradOneDNNKernel}};
  // oneDNN splits the statistics and their gradients across threads in an order of its own (it may differ with
  // the thread count and the machine): not deterministic, so deterministic mode
  // (FLAGS_cpu_deterministic, KernelInfo::deterministic) runs the plain kernels instead.
  framework::RegisterKernel("batch_norm", DeviceType::kCPU, DataType::FLOAT32,
                            LibraryType::kOneDNN, BatchNormOneDNNKernel(), false);
  framework::KernelRegistry::Instance().DeclareOpaqueInputs("batch_norm", LibraryType::kOneDNN,
                                                            {"X"});
  for (const auto& k : kernels) {
    framework::RegisterKernel(k.op, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                              k.fn, false);
  }
}

}  // namespace operators
}  // namespace paddle_like
