// OpRegistry: explicit registration of ops and creation of operators from descriptions.
//
// Registration is a function call, not a static initializer: each op family exposes a
// RegisterXxxOps() function and operators/registry.cc calls them all from one table.
//
//   RegisterOp<QuadraticOp, QuadraticOpMaker>("quadratic")
//       .InferShape(QuadraticInferShape)
//       .Checkpoint("first version");
//   RegisterKernel("quadratic", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kPlain,
//                  QuadraticKernel<float>);
#pragma once

#include <memory>
#include <string>

#include "framework/kernel_registry.h"
#include "framework/op_info.h"
#include "framework/op_proto_maker.h"
#include "framework/operator.h"
#include "framework/var_type_inference.h"

namespace paddle_like {
namespace framework {

class OpRegistrar {
 public:
  explicit OpRegistrar(OpInfo* info) : info_(info) {}
  OpRegistrar& InferShape(InferShapeFn fn) { info_->infer_shape = std::move(fn); return *this; }
  OpRegistrar& InferVarType(InferVarTypeFn fn) { info_->infer_var_type = std::move(fn); return *this; }
  OpRegistrar& GradOpMaker(GradOpMakerFn fn) { info_->grad_op_maker = std::move(fn); return *this; }
  // Records one op-version checkpoint (a compatible change: new attribute with a default,
  // new dispensable input, bug fix). The op's version is the number of checkpoints.
  OpRegistrar& Checkpoint(const std::string& note) {
    info_->checkpoints.push_back(OpVersionCheckpoint{note});
    return *this;
  }

 private:
  OpInfo* info_;
};

template <typename OpT, typename MakerT>
OpRegistrar RegisterOp(const std::string& type) {
  OpInfo* info = OpInfoMap::Instance().Insert(type);
  info->creator = [](const std::string& t, const VariableNameMap& in, const VariableNameMap& out,
                     const AttributeMap& attrs) -> std::unique_ptr<OperatorBase> {
    return std::make_unique<OpT>(t, in, out, attrs);
  };
  MakerT maker;
  maker.Build(type, &info->spec, &info->checker);
  return OpRegistrar(info);
}

inline void RegisterKernel(const std::string& op_type, DeviceType device, DataType dtype,
                           LibraryType library, KernelFn fn, bool deterministic = true) {
  KernelRegistry::Instance().Register(op_type, device, dtype, library, fn, deterministic);
}

inline void RegisterKernel(const std::string& op_type, DeviceType device, DataType dtype,
                           LibraryType library, KernelFactory make, bool deterministic = true) {
  KernelRegistry::Instance().Register(op_type, device, dtype, library, make, deterministic);
}

// Registers the kernel class K (an OpKernel with prepared state, op_kernel.h).
template <typename K>
void RegisterKernelClass(const std::string& op_type, DeviceType device, DataType dtype,
                         LibraryType library, bool deterministic = true) {
  KernelRegistry::Instance().Register(op_type, device, dtype, library, &MakeKernel<K>,
                                      deterministic);
}

class OpRegistry {
 public:
  // Creates an operator, completing and checking its attributes and slots against the
  // registration. Errors name the op, the slot or attribute, expected versus found.
  static std::unique_ptr<OperatorBase> CreateOp(const std::string& type,
                                                const VariableNameMap& inputs,
                                                const VariableNameMap& outputs,
                                                AttributeMap attrs);
  static std::unique_ptr<OperatorBase> CreateOp(const OpDesc& desc);
};

}  // namespace framework
}  // namespace paddle_like
