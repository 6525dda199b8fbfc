// The two InferShapeContext implementations: on VarDescs at program-build time and on
// scope variables at run time.
#pragma once

#include "framework/block_desc.h"
#include "framework/operator.h"
#include "framework/shape_inference.h"

namespace paddle_like {
namespace framework {

class BuildTimeInferShapeContext : public InferShapeContext {
 public:
  BuildTimeInferShapeContext(const OpDesc& op, BlockDesc* block) : op_(op), block_(block) {}

  const std::string& OpType() const override { return op_.Type(); }
  bool IsRuntime() const override { return false; }
  const AttributeMap& Attrs() const override { return op_.Attrs(); }
  size_t InputSize(const std::string& slot) const override { return op_.Input(slot).size(); }
  size_t OutputSize(const std::string& slot) const override { return op_.Output(slot).size(); }
  DDim GetInputDim(const std::string& slot, size_t i) const override;
  DataType GetInputDataType(const std::string& slot, size_t i) const override;
  VarKind GetInputVarKind(const std::string& slot, size_t i) const override;
  void SetOutputDim(const std::string& slot, const DDim& dims, size_t i) override;
  void SetOutputDataType(const std::string& slot, DataType dtype, size_t i) override;
  void ShareLoD(const std::string& in, const std::string& out) override;

 private:
  VarDesc* InputVar(const std::string& slot, size_t i) const;
  VarDesc* OutputVar(const std::string& slot, size_t i) const;
  const OpDesc& op_;
  BlockDesc* block_;
};

class RuntimeInferShapeContext : public InferShapeContext {
 public:
  RuntimeInferShapeContext(const OperatorBase& op, const RuntimeContext& ctx)
      : op_(op), ctx_(ctx) {}

  const std::string& OpType() const override { return op_.Type(); }
  bool IsRuntime() const override { return true; }
  const AttributeMap& Attrs() const override { return op_.Attrs(); }
  size_t InputSize(const std::string& slot) const override;
  size_t OutputSize(const std::string& slot) const override;
  DDim GetInputDim(const std::string& slot, size_t i) const override;
  DataType GetInputDataType(const std::string& slot, size_t i) const override;
  VarKind GetInputVarKind(const std::string& slot, size_t i) const override;
  // A SelectedRows output keeps its kind and gets height dims[0]; any other output becomes
  // a DenseTensor of `dims`.
  void SetOutputDim(const std::string& slot, const DDim& dims, size_t i) override;
  void SetOutputDataType(const std::string&, DataType, size_t) override {}
  // SelectedRows carry no LoD: nothing is shared from or to one.
  void ShareLoD(const std::string& in, const std::string& out) override;

 private:
  const Variable& InputVariable(const std::string& slot, size_t i) const;
  const DenseTensor& InputTensor(const std::string& slot, size_t i) const;
  const OperatorBase& op_;
  const RuntimeContext& ctx_;
};

}  // namespace framework
}  // namespace paddle_like
