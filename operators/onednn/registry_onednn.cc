// The oneDNN kernel table: every oneDNN kernel of this build is registered here.
#include "framework/op_registry.h"
#include "operators/onednn/conv_pool_onednn.h"
#include "operators/onednn/matmul_onednn.h"
#include "operators/onednn/onednn_kernel_families.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {

void RegisterOneDNNKernels() {
  using framework::DataType;
  using framework::DeviceType;
  using framework::LibraryType;
  // dnnl::matmul has no float64; the plain kernels serve it.
  framework::RegisterKernel("matmul_v2", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                            MatmulV2OneDNNKernel());
  framework::RegisterKernel("mul", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                            MulOneDNNKernel());
  for (const char* conv : {"conv2d", "depthwise_conv2d"}) {
    framework::RegisterKernel(conv, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                              Conv2dOneDNNKernel());
  }
  framework::RegisterKernel("pool2d", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                            Pool2dOneDNNKernel);
  // Inputs these kernels read in oneDNN's blocked layouts (onednn_layout.h).
  auto& registry = framework::KernelRegistry::Instance();
  for (const char* conv : {"conv2d", "depthwise_conv2d"}) {
    registry.DeclareOpaqueInputs(conv, LibraryType::kOneDNN, {"Input"});
  }
  registry.DeclareOpaqueInputs("pool2d", LibraryType::kOneDNN, {"X"});
  RegisterEltwiseOneDNNKernels();
  RegisterSoftmaxOneDNNKernels();
  RegisterNormOneDNNKernels();
  RegisterConvPoolGradOneDNNKernels();
  RegisterMatmulGradOneDNNKernels();
  RegisterSumOneDNNKernels();
  RegisterConcatOneDNNKernels();
  RegisterBinaryOneDNNKernels();
  RegisterReduceOneDNNKernels();
}

}  // namespace operators
}  // namespace paddle_like
