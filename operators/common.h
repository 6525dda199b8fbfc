// Helpers shared by op definitions: common shape-inference functions and kernel
// registration for float and double.
#pragma once

#include <complex>
#include <string>
#include <utility>
#include <vector>

#include "framework/op_registry.h"
#include "platform/init.h"

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

// The grad op of an op with a list input X (concat, sequence_concat): X@GRAD holds one
// variable per X, each with that X's dims.
void InputListGradInferShape(InferShapeContext* ctx);

// Var-type inference of ops whose output `out` is a dense tensor of input `in`'s dtype (an
// op indexing X by integer indices: the default would not know which input gives the dtype).
framework::InferVarTypeFn OutputDataTypeOf(const std::string& in, const std::string& out);

// Requires input `slot` of op `op` to have the shape `dims` of input `like` (same rank, equal
// dims where both are known: unknown dims, -1, match anything at program-build time).
// InvalidArgumentError "op `op` input `slot`: expected like's shape [..], received [..]".
void CheckSameShape(const std::string& op, const std::string& slot, const DDim& dims,
                    const std::string& like, const DDim& like_dims);

// The value of the 1-element tensor of `slot` (any real or integer dtype, on any device) as a
// double. InvalidArgumentError naming the op, slot and variable when it does not have 1
// element; NotFoundError when the slot is empty.
double ReadScalarInput(const ExecutionContext& ctx, const std::string& slot, size_t i = 0);

// Truthiness of boolean attribute `name`, which programs store as BOOLEAN or INT; false when
// absent (an optional flag an op may not declare).
bool FlagAttr(const framework::AttributeMap& attrs, const std::string& name);

// Out[i] = X[i] for the variables of `op`'s slots `in` and `out`, pair by pair, sharing the
// buffer (a later write to either gets its own: outputs still own their memory); pairs naming
// one variable are left alone. For ops without kernels that hand tensors on unchanged
// (ordering ops). InvalidArgumentError when the slots differ in length or an X is not a
// dense tensor; NotFoundError when a variable is missing.
void ShareInputsWithOutputs(const framework::OperatorBase& op, const framework::Scope& scope,
                            const std::string& in, const std::string& out);

// Registers KernelT<T>::Compute as the plain CPU kernel of `op_type` for every T in Ts.
template <template <typename> class KernelT, typename... Ts>
void RegisterPlainCpuKernels(const std::string& op_type) {
  (framework::RegisterKernel(op_type, DeviceType::kCPU, platform::ToDataType<Ts>(),
                             LibraryType::kPlain, &KernelT<Ts>::Compute),
   ...);
}

// Registers Kernel<float> and Kernel<double> as the plain CPU kernels of `op_type`.
template <template <typename> class KernelT>
void RegisterPlainCpuFloatKernels(const std::string& op_type) {
  RegisterPlainCpuKernels<KernelT, float, double>(op_type);
}

// Registers KernelT<T>::Compute for every T in Ts as the plain kernel of `op_type` on the CPU
// and, in builds with CUDA, on CUDA devices too: for kernels that reach data only through
// platform::Copy (reshape-like ops: their outputs are copies of their inputs).
template <template <typename> class KernelT, typename... Ts>
void RegisterPlainKernelsOnEveryDevice(const std::string& op_type) {
  RegisterPlainCpuKernels<KernelT, Ts...>(op_type);
  if (!platform::BuiltWithCuda()) return;
  (framework::RegisterKernel(op_type, DeviceType::kCUDA, platform::ToDataType<Ts>(),
                             LibraryType::kPlain, &KernelT<Ts>::Compute),
   ...);
}

// The element types a tensor of a saved program holds (PaddlePaddle's bool, integer, floating
// and complex types), for ops that move, select or copy elements without arithmetic:
// reshape, transpose, slice, concat, gather, ... (a mask of bools, an image of uint8).
template <typename... Ts>
struct TypeList {};
using ElementTypes = TypeList<float, double, int32_t, int64_t, bool, uint8_t, int8_t, int16_t,
                              std::complex<float>, std::complex<double>>;

// RegisterPlainCpuKernels for every type of ElementTypes.
template <template <typename> class KernelT, typename... Ts>
void RegisterPlainCpuKernelsOf(TypeList<Ts...>, const std::string& op_type) {
  RegisterPlainCpuKernels<KernelT, Ts...>(op_type);
}
template <template <typename> class KernelT>
void RegisterPlainCpuElementKernels(const std::string& op_type) {
  RegisterPlainCpuKernelsOf<KernelT>(ElementTypes{}, op_type);
}

// RegisterPlainKernelsOnEveryDevice for every type of ElementTypes.
template <template <typename> class KernelT, typename... Ts>
void RegisterPlainKernelsOnEveryDeviceOf(TypeList<Ts...>, const std::string& op_type) {
  RegisterPlainKernelsOnEveryDevice<KernelT, Ts...>(op_type);
}
template <template <typename> class KernelT>
void RegisterPlainElementKernelsOnEveryDevice(const std::string& op_type) {
  RegisterPlainKernelsOnEveryDeviceOf<KernelT>(ElementTypes{}, op_type);
}

// Registers the plain CPU kernels of `op_type` for float, double, int32 and int64.
template <template <typename> class KernelT>
void RegisterPlainCpuNumericKernels(const std::string& op_type) {
  RegisterPlainCpuKernels<KernelT, float, double, int32_t, int64_t>(op_type);
}

// Declares that the plain kernels of `op_type` compute each (input, output) pair in place
// (KernelRegistry::DeclareInPlace); register the kernels first.
void DeclarePlainInPlace(const std::string& op_type,
                         const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace operators
}  // namespace paddle_like
