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

// The changes of one op-version checkpoint, built as in PaddlePaddle:
//   .Checkpoint("add Scale_y", OpVersionDesc().NewAttr("Scale_y", "scale of Y", 1.0f))
class OpVersionDesc {
 public:
  OpVersionDesc& NewAttr(const std::string& name, const std::string& remark,
                         const Attribute& default_value) {
    return Add({OpChangeKind::kNewAttr, name, remark, true, default_value});
  }
  OpVersionDesc& ModifyAttr(const std::string& name, const std::string& remark,
                            const Attribute& default_value) {
    return Add({OpChangeKind::kModifyAttr, name, remark, true, default_value});
  }
  OpVersionDesc& NewInput(const std::string& name, const std::string& remark) {
    return Add({OpChangeKind::kNewInput, name, remark, false, Attribute()});
  }
  OpVersionDesc& NewOutput(const std::string& name, const std::string& remark) {
    return Add({OpChangeKind::kNewOutput, name, remark, false, Attribute()});
  }
  OpVersionDesc& BugfixWithBehaviorChanged(const std::string& remark) {
    return Add({OpChangeKind::kBugfixWithBehaviorChanged, "", remark, false, Attribute()});
  }
  const std::vector<OpVersionChange>& changes() const { return changes_; }

 private:
  OpVersionDesc& Add(OpVersionChange change) {
    changes_.push_back(std::move(change));
    return *this;
  }
  std::vector<OpVersionChange> changes_;
};

class OpRegistrar {
 public:
  explicit OpRegistrar(OpInfo* info) : info_(info) {}
  OpRegistrar& InferShape(InferShapeFn fn) { info_->infer_shape = std::move(fn); return *this; }
  OpRegistrar& InferVarType(InferVarTypeFn fn) { info_->infer_var_type = std::move(fn); return *this; }
  OpRegistrar& GradOpMaker(GradOpMakerFn fn) { info_->grad_op_maker = std::move(fn); return *this; }
  // Records one op-version checkpoint (new attribute with a default, new dispensable input
  // or output, changed meaning, bug fix). The op's version is the number of checkpoints;
  // CheckpointProblems (op_registry.cc) checks the changes against the op's proto.
  OpRegistrar& Checkpoint(const std::string& note, const OpVersionDesc& changes = OpVersionDesc()) {
    info_->checkpoints.push_back(OpVersionCheckpoint{note, changes.changes()});
    return *this;
  }

 private:
  OpInfo* info_;
};

// Why the checkpoints of op `type` disagree with its proto, one line each (empty when they
// agree): a new or modified attribute that is not declared or whose recorded default is not
// the declared one, a new input or output that is not declared or not dispensable.
std::vector<std::string> CheckpointProblems(const std::string& type);

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
