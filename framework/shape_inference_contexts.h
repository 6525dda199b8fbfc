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

// What a run-time InferShape did to an op's outputs, in order: output dims set and LoDs
// shared. Run-time shape inference reads nothing but the attributes and the inputs' dims,
// dtypes and kinds (InferShapeContext offers no more), so while those stay the same a
// prepared op replays this record instead of inferring again (PreparedOp).
struct InferShapeEffects {
  struct Effect {
    Variable* out;
    const Variable* lod_from;  // ShareLoD's input; null for a SetOutputDim.
    DDim dims;                 // SetOutputDim's dims.
    std::string slot;          // The output's slot and index, for messages.
    size_t index;
  };
  std::vector<Effect> effects;

  // Applies the effects again, as SetOutputDim and ShareLoD did.
  void Replay(const OperatorBase& op) const;
};

class RuntimeInferShapeContext : public InferShapeContext {
 public:
  // With `record`, each effect on an output is also appended to it.
  RuntimeInferShapeContext(const OperatorBase& op, const RuntimeContext& ctx,
                           InferShapeEffects* record = nullptr)
      : op_(op), ctx_(ctx), record_(record) {}

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
  InferShapeEffects* record_;
};

}  // namespace framework
}  // namespace paddle_like
