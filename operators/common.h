// Helpers shared by op definitions: common shape-inference functions and kernel
// registration for float and double.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "framework/op_registry.h"

namespace paddle_like {
namespace operators {

using framework::DataLayout;
using framework::DataType;
using framework::DDim;
using framework::DenseTensor;
using framework::DeviceType;
using framework::ExecutionContext;
using framework::InferShapeContext;
using framework::LibraryType;
using framework::OpProtoAndCheckerMaker;
using framework::OperatorWithKernel;

// Out has the shape and LoD of X.
void SameShapeInferShape(InferShapeContext* ctx);

// The grad op of an elementwise unary op: X@GRAD takes the shape and LoD of input `like`
// (X or Out), and Out@GRAD must have that shape too.
void UnaryGradInferShape(InferShapeContext* ctx, const std::string& like);

// Registers Kernel<float> and Kernel<double> as the plain CPU kernels of `op_type`.
template <template <typename> class KernelT>
void RegisterPlainCpuFloatKernels(const std::string& op_type) {
  framework::RegisterKernel(op_type, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kPlain,
                            &KernelT<float>::Compute);
  framework::RegisterKernel(op_type, DeviceType::kCPU, DataType::FLOAT64, LibraryType::kPlain,
                            &KernelT<double>::Compute);
}

// Declares that the plain kernels of `op_type` compute each (input, output) pair in place
// (KernelRegistry::DeclareInPlace); register the kernels first.
void DeclarePlainInPlace(const std::string& op_type,
                         const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace operators
}  // namespace paddle_like
